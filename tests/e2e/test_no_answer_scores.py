"""The default mode's top score separates questions the documentation answers from ones it
does not, on shipped documentation with the real model (issue 8: scores with a meaning).

Five pages of set C (Click's documentation, benchmarks/docsets/click) and every set-C
question whose answer lies in them, plus set C's unanswerable questions. The hybrid score
reads the whole search's evidence (``calibrate.QueryEvidence``: the pool's best cosine, the
query's terms in the top candidates, whether the dense and keyword top pages agree); with
that evidence left out (the plain dense estimate) the separation is worse.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from docshelf.eval.metrics import auroc

pytestmark = pytest.mark.e2e

SET_C = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "click"
PAGES = ("options.md", "arguments.md", "utils.md", "documentation.md", "entry-points.md")


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("docs")
    for page in PAGES:
        shutil.copyfile(SET_C / "docs" / page, docs / page)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


def separation(searcher, questions) -> tuple[float, list[float], list[float]]:
    top = {q["query"]: searcher.search(q["query"]).hits[0].score for q in questions}
    answered = [top[q["query"]] for q in questions if q["kind"] != "unanswerable"]
    unanswered = [top[q["query"]] for q in questions if q["kind"] == "unanswerable"]
    return auroc(answered, unanswered), answered, unanswered


def test_the_searchs_own_evidence_separates_answered_from_unanswerable_questions(shelf):
    from docshelf.search.engine import Searcher

    rows = [json.loads(line) for line in (SET_C / "questions.jsonl").read_text().splitlines() if line.strip()]
    questions = [q for q in rows if q["kind"] == "unanswerable" or q["path"] in PAGES]
    assert sum(q["kind"] != "unanswerable" for q in questions) >= 20 and sum(q["kind"] == "unanswerable" for q in questions) == 10
    searcher = shelf.searcher
    plain = replace(searcher.options.calibration, best_share=0.0, bm25_weight=0.0, pool_weight=0.0,
                    agreement_weight=0.0, absent_weight=0.0, fused_pivot=searcher.options.calibration.pivot)
    without = Searcher(searcher.store, searcher.embedder, replace(searcher.options, calibration=plain))
    area, answered, unanswered = separation(searcher, questions)
    before, *_ = separation(without, questions)
    # 0.991 against 0.959 before the parsers read MyST roles and targets as text; 0.986 against
    # 0.968 since (the cleaner text helps the plain estimate most)
    assert area >= 0.98 and area > before + 0.01, (area, before)
    # the evidence only adds: no answered question falls to 'low' or 'none'
    assert min(answered) >= 0.5, sorted(answered)[:3]
    # an off-topic question still says 'none'
    assert searcher.search("recipe for banana bread").confidence == "none"


def test_near_ties_within_a_page_cite_the_section_holding_the_questions_words(shelf):
    """The hybrid ranking's within-page tie rule (``fuse.within_page_ties``): on this set the
    paraphrase below found its page either way, but cited the neighbouring one-line section
    ("Command Short Help") without the rule."""
    from docshelf.search.engine import Searcher

    searcher = shelf.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, section_band=0.0))
    without = Searcher(searcher.store, searcher.embedder, off)
    query = "keep my own line breaks in a help paragraph instead of having it reflowed"
    top, before = searcher.search(query, max_per_doc=1).hits[0], without.search(query, max_per_doc=1).hits[0]
    assert (top.path, top.heading_path[-1]) == ("documentation.md", "Escaping Click's Wrapping"), top.heading_path
    assert before.path == "documentation.md" and before.heading_path[-1] != "Escaping Click's Wrapping"


def test_a_term_the_documentation_never_uses_counts_against_an_answer(shelf):
    """Set C's unanswerable questions about gettext and docker: the dense side finds the
    neighbouring topic (help texts, entry points) and, before ``absent_weight``, scored them
    like answers (0.90 and 0.82 on the whole set: 'high'). No chunk holds those words and
    no indexed word is near them (``typos.WordCheck.absent``): the score drops, the note
    names the word, both now score below every answered question of these pages (gettext
scored above one before), and those keep their scores."""
    from docshelf.search.engine import Searcher

    searcher = shelf.searcher
    calibration = replace(searcher.options.calibration, absent_weight=0.0)
    without = Searcher(searcher.store, searcher.embedder, replace(searcher.options, calibration=calibration))
    rows = [json.loads(line) for line in (SET_C / "questions.jsonl").read_text().splitlines() if line.strip()]
    answered = [q["query"] for q in rows if q["kind"] != "unanswerable" and q["path"] in PAGES]
    lowest = min(searcher.search(q).hits[0].score for q in answered)
    lowest_before = min(without.search(q).hits[0].score for q in answered)
    for query, word in (("translate the help messages into other languages with gettext", "gettext"),
                        ("how to deploy my CLI as a docker image", "docker")):
        result, before = searcher.search(query), without.search(query)
        assert f"no indexed document mentions {word}" in result.note, result.note
        assert result.hits[0].score < before.hits[0].score - 0.1, (query, result.hits[0].score, before.hits[0].score)
        assert result.hits[0].score < lowest, (query, result.hits[0].score, lowest)
    assert without.search("translate the help messages into other languages with gettext").hits[0].score > lowest_before
    same = sum(searcher.search(q).hits[0].score == without.search(q).hits[0].score for q in answered)
    assert same >= len(answered) - 2, (same, len(answered))  # only a rare reader's word no page uses
