"""Search modes: keyword, semantic, fuzzy and hybrid, identifier splitting and score ranges."""

from __future__ import annotations

import math

import pytest

from docshelf.analysis import identifier_parts, searchable_text
from docshelf.errors import InvalidQuery
from docshelf.search.engine import fuzzy_text


@pytest.fixture
def docs_shelf(shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "k8s.md", "# Deploying\n\nRoll out the service to kubernetes with helm charts.")
    write(docs, "picsure.md", "# PIC-SURE\n\nThe PIC-SURE API exposes patient-level data for researchers.")
    write(docs, "parser.md", "# Parser\n\nCall parseHTTPHeader before reading the body of the request.")
    write(docs, "errors.md", "# Errors\n\nConnectionRefusedError: [Errno 111] Connection refused when the daemon is down.")
    write(docs, "cooking.md", "# Soup\n\nSimmer the onions slowly, then add stock and thyme.")
    shelf.index([docs])
    return shelf


def paths(result) -> list[str]:
    return [h.path for h in result.hits]


def test_identifier_parts_split_camel_snake_and_dotted_names():
    assert identifier_parts("parseHTTPHeader") == ["parse", "http", "header"]
    assert identifier_parts("parse_http_header") == ["parse", "http", "header"]
    assert identifier_parts("PIC-SURE") == ["pic", "sure"]
    assert identifier_parts("os.path.join") == ["os", "path", "join"]
    assert searchable_text("use parseHTTPHeader") == "use parseHTTPHeader\nparse http header"
    assert searchable_text("PIC-SURE") == "PIC-SURE\npic sure picsure"


@pytest.mark.parametrize("query", ["parseHTTPHeader", "parse_http_header", "parse http header", "ParseHttpHeader"])
def test_identifier_spellings_meet_in_keyword_mode(docs_shelf, query):
    assert paths(docs_shelf.search(query, k=1, mode="keyword")) == ["parser.md"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("picsure", "picsure.md"),
        ("PIC SURE", "picsure.md"),
        ("pic-sure", "picsure.md"),
        ("kubernets", "k8s.md"),
        ("kubrnetes", "k8s.md"),
        ("kuberentes deploy", "k8s.md"),
        ("ConnectionRefusedEror", "errors.md"),
        ("connection refused errno 111", "errors.md"),
        ("parsehttpheadr", "parser.md"),
    ],
)
def test_fuzzy_mode_ignores_case_punctuation_and_small_typos(docs_shelf, query, expected):
    result = docs_shelf.search(query, k=1, mode="fuzzy")
    assert paths(result) == [expected]
    assert result.mode == "fuzzy"


def test_fuzzy_text_adds_joined_neighbours():
    assert fuzzy_text("PIC SURE api") == "pic sure api picsure sureapi"
    assert fuzzy_text("helm chrts", ["charts"]) == "helm chrts charts helmchrts"  # the word meant, before the pairs


@pytest.mark.parametrize("query", ["validtor", "vaildator", "nestde schemas"])
def test_fuzzy_mode_finds_a_slip_in_a_word_the_index_holds_as_a_short_stem(shelf, write, tmp_path, query):
    # the index holds stems: 'validtor' is three edits from 'valid' (validator's stem), 'nestde'
    # two from 'nest', beyond what the engine's edit distance allows, so fuzzy mode found nothing
    docs = tmp_path / "docs"
    write(docs, "validate.md", "# Validation\n\nA validator checks a field's value; nested schemas validate too.")
    write(docs, "cooking.md", "# Soup\n\nSimmer the onions slowly, then add stock and thyme.")
    shelf.index([docs])
    result = shelf.search(query, k=1, mode="fuzzy")
    assert paths(result) == ["validate.md"]
    assert "corrected" in result.note


@pytest.mark.parametrize("mode", ["keyword", "semantic", "fuzzy", "hybrid"])
def test_every_mode_scores_in_unit_range_best_first_and_says_its_mode(docs_shelf, mode):
    result = docs_shelf.search("kubernetes helm charts", k=5, mode=mode)
    assert result.mode == mode
    assert result.hits and result.hits[0].path == "k8s.md"
    scores = [h.score for h in result.hits]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    assert all(h.mode == mode for h in result.hits)


@pytest.mark.parametrize("mode", ["keyword", "semantic", "fuzzy", "hybrid"])
def test_min_score_drops_weaker_hits(docs_shelf, mode):
    everything = docs_shelf.search("kubernetes helm charts", k=5, mode=mode)
    cut = everything.hits[0].score
    kept = docs_shelf.search("kubernetes helm charts", k=5, mode=mode, min_score=cut)
    assert [h.chunk_id for h in kept.hits] == [h.chunk_id for h in everything.hits if h.score >= cut]


def test_hits_cite_path_title_headings_lines_and_highlight_terms(docs_shelf):
    (hit,) = docs_shelf.search("helm charts", k=1, mode="keyword").hits
    assert (hit.path, hit.title, hit.heading_path, hit.start_line, hit.end_line) == (
        "k8s.md", "Deploying", ("Deploying",), 3, 3
    )
    assert [hit.text[s:e] for s, e in hit.highlights] == ["helm", "charts"]


@pytest.mark.parametrize("kwargs, message", [
    ({"query": "  "}, "query: is empty; pass some words to search for"),
    ({"query": "x", "mode": "magic"}, "mode: unknown mode 'magic'; use one of hybrid, semantic, keyword, fuzzy"),
    ({"query": "x", "k": 0}, "k: must be between 1 and 100, got 0"),
    ({"query": "x", "min_score": 2.0}, "min_score: must be between 0.0 and 1.0, got 2.0"),
    ({"query": "x", "date_from": "2024-1-5"}, "date_from: expected an ISO 8601 date (YYYY-MM-DD) or date-time "
                                             "(YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]), got '2024-1-5'"),
    ({"query": "x" * 2001}, "query: string should have at most 2000 characters, got '" + "x" * 60 + "'… (2,001 characters)"),
])
def test_bad_requests_say_what_to_do(docs_shelf, kwargs, message):
    with pytest.raises(InvalidQuery) as exc:
        docs_shelf.search(**kwargs)
    assert str(exc.value) == message


def test_zconf_fusion_by_hand():
    from docshelf.search.fuse import FusionParams, dense_weight, zconf

    # A typical pair of lists: equal weights.
    assert dense_weight(0.5, 20.0, FusionParams()) == 0.5
    # A confident model or a weak BM25 match shifts weight to dense; a low cosine does not shift it away.
    assert dense_weight(0.8, 20.0, FusionParams()) > 0.7
    assert dense_weight(0.5, 2.0, FusionParams()) > 0.9
    assert dense_weight(0.1, 20.0, FusionParams()) == 0.5
    lexical = {"a": 30.0, "b": 0.0, "c": 10.0, "d": 0.0}
    dense = {"a": 0.5, "b": 0.5, "c": 0.3, "d": 0.1}
    fused = zconf(lexical, dense)
    assert sorted(fused, key=lambda k: -fused[k]) == ["a", "b", "c", "d"]
    assert all(0.0 <= v <= 1.0 for v in fused.values())
    # z(lex) = [1.6330, -0.8165, 0, -0.8165], z(dense) = [0.9045, 0.9045, -0.3015, -1.5076]; w = 0.5
    assert fused["a"] == pytest.approx(1 / (1 + math.exp(-((1.6330 + 0.9045) / 2 - 2))), abs=1e-4)


def test_zconf_weak_keyword_match_does_not_outrank_the_dense_top():
    """A chunk matching one common query word (raw BM25 2.9) in a pool where few other chunks
    hold a query word has a BM25 z of 4-5; even at dense share 0.95 it must not outrank the chunk the dense side
    ranks first (the FAQ set's `give some jobs higher urgency than others`)."""
    from dataclasses import replace

    from docshelf.search.fuse import FusionParams, zconf

    # 100 candidates, 6 holding a query word (as for that question); the weak match's BM25 z is 5.4
    lexical = {"weak": 2.9, "gold": 0.0} | {f"n{i}": (2.0 if i < 5 else 0.0) for i in range(98)}
    dense = {"weak": 0.325, "gold": 0.338} | {f"n{i}": 0.1 + 0.002 * i for i in range(98)}
    assert FusionParams().lexical_floor == 5.0
    fused = zconf(lexical, dense, FusionParams(), lexical_coverage=0.14)
    assert max(fused, key=fused.__getitem__) == "gold"
    off = zconf(lexical, dense, replace(FusionParams(), lexical_floor=0.0), lexical_coverage=0.14)
    assert max(off, key=off.__getitem__) == "weak"  # the z-score alone: what the floor fixes
    # A match at or above the floor keeps its whole z: strong keyword evidence is untouched.
    strong = {k: v * 10 for k, v in lexical.items()}
    assert zconf(strong, dense) == zconf(strong, dense, replace(FusionParams(), lexical_floor=0.0))
