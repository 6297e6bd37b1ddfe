"""The metric code, checked against values computed by hand on a tiny qrels file."""

from __future__ import annotations

import math

import pytest

from docshelf.eval.metrics import evaluate_run, load_qrels, mrr_at_k, ndcg_at_k, per_query, percentile, recall_at_k

QRELS_TSV = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td4\t1\nq3\td9\t0\n"


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(QRELS_TSV)
    return load_qrels(path)


def test_load_qrels_reads_graded_judgements(qrels):
    assert qrels == {"q1": {"d1": 1, "d2": 2}, "q2": {"d4": 1}, "q3": {"d9": 0}}


def test_ndcg_by_hand(qrels):
    # run q1: d3 (0), d2 (2), d1 (1)
    # DCG  = 0/log2(2) + (2^2-1)/log2(3) + (2^1-1)/log2(4) = 1.8927893 + 0.5      = 2.3927893
    # IDCG = (2^2-1)/log2(2) + (2^1-1)/log2(3)          = 3 + 0.6309298       = 3.6309298
    assert ndcg_at_k(["d3", "d2", "d1"], qrels["q1"], 10) == pytest.approx(2.3927893 / 3.6309298, abs=1e-6)
    assert ndcg_at_k(["d3", "d2", "d1"], qrels["q1"], 10) == pytest.approx(0.6590018, abs=1e-6)
    # Ideal order scores 1; cutting at k=1 keeps only d3 (0).
    assert ndcg_at_k(["d2", "d1"], qrels["q1"], 10) == pytest.approx(1.0)
    assert ndcg_at_k(["d3", "d2", "d1"], qrels["q1"], 1) == 0.0
    # A relevant document that was never retrieved still counts in the ideal DCG.
    assert ndcg_at_k(["d2"], qrels["q1"], 10) == pytest.approx(3 / 3.6309298, abs=1e-6)


def test_recall_and_mrr_by_hand(qrels):
    assert recall_at_k(["d3", "d2", "d7"], qrels["q1"], 10) == 0.5
    assert recall_at_k(["d3", "d2", "d1"], qrels["q1"], 2) == 0.5
    assert recall_at_k(["d3", "d2", "d1"], qrels["q1"], 3) == 1.0
    assert mrr_at_k(["d3", "d2", "d1"], qrels["q1"], 10) == 0.5
    assert mrr_at_k(["d3", "d5", "d4"], qrels["q2"], 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["d3", "d5", "d4"], qrels["q2"], 2) == 0.0


def test_evaluate_run_means_over_judged_queries_only(qrels):
    run = {"q1": ["d3", "d2", "d1"], "q2": ["d4"], "q3": ["d9"]}
    # q3 has no relevant document: BEIR skips it. q2 is perfect.
    result = evaluate_run(run, qrels)
    assert result == pytest.approx(
        {"ndcg@10": (0.6590018 + 1.0) / 2, "recall@10": 1.0, "recall@100": 1.0, "mrr@10": (0.5 + 1.0) / 2}, abs=1e-6
    )
    assert per_query(run, qrels) == pytest.approx({"q1": 0.6590018, "q2": 1.0}, abs=1e-6)


def test_a_query_missing_from_the_run_scores_zero(qrels):
    assert evaluate_run({"q1": ["d2", "d1"]}, qrels)["ndcg@10"] == pytest.approx(0.5)


def test_percentile_interpolates():
    assert percentile([10, 20, 30, 40], 50) == 25
    assert percentile([10, 20, 30, 40], 95) == pytest.approx(38.5)
    assert percentile([5], 95) == 5
    assert math.isclose(percentile(list(range(101)), 95), 95)


def _beir(tmp_path, corpus: str, queries: str, qrels: str):
    root = tmp_path / "set"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(corpus)
    (root / "queries.jsonl").write_text(queries)
    (root / "qrels" / "test.tsv").write_text(qrels)
    return root


@pytest.mark.parametrize("corpus, queries, qrels, message", [
    ('{"_id": "d1", "text": "x"}\n', "not json\n", "q1\td1\t1\n",
     "queries.jsonl line 1 is not JSON (Expecting value: line 1 column 1 (char 0)); each line holds one object"),
    ('{"_id": "d1", "text": "x"}\n', '{"_id": "q1", "text": "x"}\n["q2"]\n', "q1\td1\t1\n",
     'queries.jsonl line 2 has no "_id"'),
    ('{"_id": "d1", "text": "x"}\n', '{"_id": "q1", "text": "x"}\n', "query-id\tcorpus-id\tscore\nq1\td1\tyes\n",
     "qrels/test.tsv line 2: the score 'yes' is not a number"),
    ('{"_id": "d1", "text": "x"}\n', '{"_id": "q1", "text": "x"}\n', "q9\td1\t1\n",
     "nothing to evaluate: no query of test.tsv (1 judged) is in queries.jsonl (1 queries)"),
])
def test_a_malformed_beir_folder_is_an_error_naming_the_file_and_line(tmp_path, corpus, queries, qrels, message):
    """A bad line was a JSONDecodeError traceback; a bad score or no common query gave nDCG 0.0 silently."""
    from docshelf.errors import ConfigError
    from docshelf.eval.beir import load_dataset

    with pytest.raises(ConfigError) as caught:
        load_dataset(_beir(tmp_path, corpus, queries, qrels))
    assert str(caught.value).startswith(message), str(caught.value)


def test_judged_documents_missing_from_the_corpus_are_an_error_not_zero_scores(tmp_path):
    from docshelf.errors import ConfigError
    from docshelf.eval.beir import check_judged, load_dataset, materialize

    dataset = load_dataset(_beir(tmp_path, '{"_id": "d1", "text": "x"}\n{"title": "no id"}\n',
                                 '{"_id": "q1", "text": "x"}\n', "q1\tdX\t1\n"))
    with pytest.raises(ConfigError, match='corpus.jsonl line 2 has no "_id"'):
        materialize(dataset, tmp_path / "docs")
    with pytest.raises(ConfigError, match=r"no relevant document of qrels/test.tsv is in corpus.jsonl \(e.g. dX\)"):
        check_judged(dataset, {"d1"})
    check_judged(dataset, {"d1", "dX"})
