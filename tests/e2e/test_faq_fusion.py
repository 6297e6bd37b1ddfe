"""The default fusion on paraphrased FAQ questions, with the real packaged model.

The FAQ set (benchmarks/beir/faq: 102 Django and Celery FAQ entries, one paraphrased question
each) is where keyword matches on incidental words pulled hybrid below dense alone. Its
training half is used here (the test half is only reported in benchmarks/README.md): hybrid
must be within 0.005 nDCG@10 of semantic there, and the question the lexical floor was made
for must rank its entry first only with the floor on; a paraphrase whose answer is a short entry
must rank it first only with the short-passage prior following the keyword side's share.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

FAQ = Path(__file__).resolve().parents[2] / "benchmarks" / "beir" / "faq"


@pytest.fixture(scope="module")
def faq_index(tmp_path_factory):
    from docshelf.eval.beir import load_dataset
    from docshelf.eval.runner import open_eval_index

    dataset = load_dataset(FAQ, "train")
    return dataset, open_eval_index(dataset, cache_dir=tmp_path_factory.mktemp("faq-cache"))


def _fusion(index, **changes):
    from docshelf.search.fuse import FusionParams

    searcher = index.service.searcher
    searcher.options = replace(searcher.options, fusion=replace(FusionParams(), **changes))


def test_hybrid_is_not_below_semantic_on_the_faq_training_half(faq_index):
    from docshelf.eval.runner import run_eval

    dataset, index = faq_index
    _fusion(index)
    report = run_eval(dataset, index, ["semantic", "hybrid"])
    ndcg = {m.mode: m.metrics["ndcg@10"] for m in report.modes}
    assert ndcg["hybrid"] >= ndcg["semantic"] - 0.005, ndcg


def test_a_one_word_keyword_match_does_not_outrank_the_entry_dense_finds(faq_index):
    from docshelf.eval.runner import rank_documents

    _, index = faq_index
    query = "give some jobs higher urgency than others"  # gold: "Does Celery support task priorities?"
    _fusion(index)
    assert rank_documents(index, query, "semantic")[0][0] == "celery-41"
    assert rank_documents(index, query, "hybrid")[0][0] == "celery-41"
    _fusion(index, lexical_floor=0.0)  # before the floor: "What kinds of things should I use Celery for?"
    assert rank_documents(index, query, "hybrid")[0][0] != "celery-41"


@pytest.mark.parametrize(("query", "gold"), [
    # "Is Django stable?" (33 words) under "Why does this project exist?" (179 words), which
    # holds "framework" and "production" but does not answer
    ("is this framework reliable enough for big production sites", "django-general-03"),
    # "Yes, please see Daemonizing" (4 words): first in both keyword and semantic, third in hybrid
    ("run the worker as a daemon service", "celery-45"),
])
def test_a_short_answer_dense_finds_is_not_pushed_under_longer_keyword_matches(faq_index, query, gold):
    from docshelf.eval.runner import rank_documents

    _, index = faq_index
    _fusion(index)
    assert rank_documents(index, query, "semantic")[0][0] == gold
    assert rank_documents(index, query, "hybrid")[0][0] == gold
    _fusion(index, short_min_scale=1.0)  # before: the full prior whatever the keyword side's share
    assert rank_documents(index, query, "hybrid")[0][0] != gold
