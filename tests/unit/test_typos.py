"""Typo correction's pure parts: the edit distance, the English-word guard, the rewritten query."""

from __future__ import annotations

import pytest

from docshelf.search.typos import (
    corrected_query, edits, english_words, holds_identifier, holds_word, identifiers, in_message, probe_text, short_stem,
    swapped_stems, typed_names,
)


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("cookie", "cookie", 0),
        ("cokie", "cookie", 1),  # a letter missing
        ("exceptoin", "exception", 1),  # two letters swapped: one slip, not two
        ("subdomians", "subdomains", 1),
        ("compile", "complex", 2),
        ("kitten", "sitting", 3),
    ],
)
def test_edits_counts_a_swap_as_one(a, b, expected):
    assert edits(a, b, 3) == expected


def test_edits_stops_past_the_limit():
    assert edits("kitten", "sitting", 1) == 2
    assert edits("a", "abcdef", 2) == 3


def test_ordinary_english_words_are_never_typos_but_docs_jargon_is_no_english_word():
    vocabulary = english_words()
    assert {"went", "bread", "helm", "dying"} <= vocabulary
    assert not {"cokie", "midleware", "websocket", "gzip"} & vocabulary


def test_the_corrected_query_replaces_whole_words_in_any_case():
    assert corrected_query("Cokie respnse cokies", {"cokie": "cookie", "respnse": "response"}) == "cookie response cokies"


def test_the_probe_also_tries_the_stem_and_a_shorter_prefix():
    assert probe_text("recieve") == "recieve reciev recie"
    assert probe_text("alow") == "alow aolw alwo"  # a short word's swaps: one edit each to the reader


def test_words_with_a_capital_inside_are_names_not_typos():
    assert typed_names("Is PDPN raised in ComYMV-infected cRCT cells? TatAd, ureH") == {
        "pdpn", "comymv", "crct", "tatad", "ureh"}
    assert typed_names("Cokie respnse in the Session middleware") == set()


@pytest.mark.parametrize(
    "texts, word, held",
    [
        ("pytest-docker-haproxy-fixtures\x00a plugin", "aprox", False),  # inside a longer token only
        ("use pytest.approx here", "approx", True),
        ("approx", "approx", True),  # at the very start and end
        ("the fixtures of a test", "fixture", True),  # another form of the same stem
        ("prefixtures", "fixture", False),
        ("a snake_case_name", "case", True),  # '_' separates tokens, as the index reads it
        ("haproxy approx", "aprox", False),
    ],
)
def test_a_word_is_held_only_as_a_whole_token(texts, word, held):
    assert holds_word(texts, word) is held


def test_snake_case_identifiers_are_read_whole():
    assert identifiers("soft delete with a deleted_at column") == ["deleted_at"]
    # a dotted path's snake_case parts; leading and trailing underscores dropped; no lone names
    assert identifiers("app.teardown_appcontext and __init__, or_, Response_Model") == [
        "teardown_appcontext", "response_model"]
    assert identifiers("werkzeug.exceptions.BadRequestKeyError: 400 pyproject.toml") == []
    # as the index holds it: joined (analysis.extra_terms), and its parts (no stop words)
    assert probe_text("deleted_at") == "deletedat deleted"
    assert probe_text("response_model_exclude_unset") == "responsemodelexcludeunset response model exclude unset"


@pytest.mark.parametrize(
    "texts, ident, held",
    [
        ("add a deleted_at column", "deleted_at", True),
        ("is_deleted_at\x00deleted_at_utc", "deleted_at", False),  # inside longer names only
        ("set the max-age attribute", "max_age", True),  # the same name, hyphenated
        ("pass maxage=600", "max_age", True),  # or joined (camelCase, lowered)
        ("the deleted column", "deleted_at", False),
    ],
)
def test_holds_identifier_whole_or_as_the_docs_spell_it(texts, ident, held):
    assert holds_identifier(texts, ident) is held


def test_a_pasted_message_is_told_from_a_question_naming_an_identifier():
    # a message's or a line of code's names may be the reader's own, a question's are asked about
    assert in_message("ValidationError: ship_date must be greater than order_date")
    assert in_message("Spider-Boy without team: squad_id=2 team=None") and in_message("pass_many=True")
    assert not in_message("how to implement soft delete with a deleted_at column")
    assert not in_message("how does app.teardown_appcontext work") and not in_message("sqlmodel_update")


def test_only_a_long_words_short_stem_is_probed_apart():
    assert short_stem("namming") == "nam"  # two edits for the word, one for its three-letter stem
    assert short_stem("respnse") is None  # its stem is long: the word's own probe reaches it
    assert short_stem("cokie") is None and short_stem("deleted_at") is None  # a short word; an identifier


def test_only_a_long_plain_words_swapped_forms_are_probed_apart():
    assert "valid" in swapped_stems("valdiator").split()  # 'validator', stemmed as the index holds it
    assert swapped_stems("cokie") is None  # a short word: its own probe holds its swaps
    assert swapped_stems("deleted_at") is None and swapped_stems("externally-managed-environment") is None
