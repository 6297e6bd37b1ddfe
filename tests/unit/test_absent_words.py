"""Words the index lacks altogether (``typos.WordCheck.absent``): the typo probes tell a
misspelling (an indexed word is near) from a term the documentation never uses (none is),
and names, never corrected, are probed for that too. The hybrid score counts such a word
against the documents answering (``calibrate``), and the note names it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docshelf.search.typos import ProbeMemo, TypoParams, WordCheck, check_words
from test_typo_probes import Counting  # the real store, counting the probes that reach it

PAGES = {
    "cookies.md": "# Cookies\n\nSet a cookie on the response with its max age and path.",
    "sessions.md": "# Sessions\n\nThe session middleware signs the session cookie.",
    "database.md": "# Database\n\nConnect SQLModel to a database with an engine and a connection URL.",
}


def index_pages(shelf, write, docs, pages: dict[str, str]) -> None:
    for name, text in pages.items():
        write(docs, name, text)
    shelf.index([docs])


@pytest.fixture
def indexed(write, tmp_path, shelf):
    index_pages(shelf, write, tmp_path / "docs", PAGES)
    return shelf, tmp_path / "docs"


def test_a_term_no_chunk_holds_and_no_indexed_word_is_near_is_absent(indexed):
    store = indexed[0].store
    checked = check_words("store the session cookie in mongodb", store, [], TypoParams())
    assert checked.absent == ("mongodb",) and checked.fixes == {}


def test_a_misspelling_is_corrected_not_absent(indexed):
    checked = check_words("sesion cokie", indexed[0].store, [], TypoParams())
    assert checked.fixes == {"sesion": "session", "cokie": "cookie"} and checked.absent == ()


def test_two_swapped_letters_in_a_short_word_are_a_typo_not_an_absent_word(indexed):
    # 'ptah' is two edits from 'path' to the engine (one to a typist): its swaps are probed too
    checked = check_words("cookie ptah", indexed[0].store, [], TypoParams())
    assert checked.fixes == {"ptah": "path"} and checked.absent == ()


def test_names_are_probed_never_corrected(indexed):
    store = indexed[0].store
    # 'GraphQL' is typed as a name: probed, and absent; 'SQLModel' is indexed: neither
    checked = check_words("connect SQLModel to GraphQL", store, [], TypoParams())
    assert checked.absent == ("graphql",) and checked.fixes == {}
    # a name is never corrected: one near an indexed word is absent unless it is that word
    checked = check_words("the SeSsion page", store, [], TypoParams())
    assert checked.fixes == {} and checked.absent == ()
    checked = check_words("the CokiE page", store, [], TypoParams())  # near 'cookie', typed as a name
    assert checked.fixes == {} and checked.absent == ("cokie",)


def test_ordinary_english_words_and_the_candidates_words_are_not_probed(indexed):
    store = Counting(indexed[0].store)
    # 'banana' is an English word the index lacks: the reader's own word, not a name
    checked = check_words("banana cookie", store, [], TypoParams())
    assert checked.absent == () and store.probes == 0


def test_the_memo_remembers_absence_until_the_word_is_indexed(indexed, write):
    shelf, docs = indexed
    store, memo = Counting(shelf.store), ProbeMemo()
    assert check_words("mongodb cookie", store, [], TypoParams(), memo=memo).absent == ("mongodb",)
    assert check_words("session in mongodb", store, [], TypoParams(), memo=memo).absent == ("mongodb",)
    assert store.probes == 2  # its probe and its swapped forms' (swapped_stems), once
    write(docs, "mongo.md", "# MongoDB\n\nThere is no MongoDB support.")
    shelf.index([docs])
    assert check_words("mongodb cookie", store, [], TypoParams(), memo=memo).absent == ()


def test_an_absent_word_lowers_the_hybrid_score_and_is_named_in_the_note(indexed):
    from docshelf.search.engine import Searcher

    shelf = indexed[0]
    searcher = shelf.searcher
    off = Searcher(searcher.store, searcher.embedder,
                   replace(searcher.options, calibration=replace(searcher.options.calibration, absent_weight=0.0)))
    query = "session cookie stored in mongodb"
    with_rule, without = searcher.search(query), off.search(query)
    assert [h.chunk_id for h in with_rule.hits] == [h.chunk_id for h in without.hits]  # ranking unchanged
    assert with_rule.hits[0].score < without.hits[0].score
    assert "no indexed document mentions mongodb" in with_rule.note
    plain = "session cookie max age"  # every word indexed: the same score either way
    assert searcher.search(plain).hits[0].score == off.search(plain).hits[0].score


def test_short_acronyms_and_inflected_english_words_are_the_readers_own(indexed):
    from docshelf.search.typos import is_english

    assert is_english("passwords") and is_english("cookies") and not is_english("mongodb")
    # 'API' (three letters) and 'passwords' (a plural the vocabulary lists only as 'password')
    # occur nowhere here, yet they are how a reader asks, not what the documents lack
    checked = check_words("rotate passwords through the API", indexed[0].store, [], TypoParams())
    assert checked.absent == ()


def test_an_identifier_no_chunk_holds_is_absent_unless_one_near_it_is(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "models.md", "# Models\n\nDeclare `created_at` and `updated_at` columns on the model.\n\n"
                             "Set `response_model` on the route; `max-age` sets the cookie lifetime.")
    write(docs, "delete.md", "# Delete rows\n\nDelete a row with `session.delete(hero)` and commit.")
    shelf.index([docs])
    store = shelf.store
    # the full-text index splits deleted_at into its parts, which are indexed: only the probe of the
    # whole name can tell that no page documents it
    checked = check_words("soft delete with a deleted_at column", store, [], TypoParams())
    assert checked.absent == ("deleted_at",) and checked.fixes == {}
    # held whole, hyphenated, or one edit from a real name (a typo of it: not absent; the name is
    # never corrected whole, its misspelt part is, as any word)
    for query in ("add an updated_at column", "cookie max_age"):
        assert check_words(query, store, [], TypoParams()) == WordCheck({}, ()), query
    assert check_words("route respons_model", store, [], TypoParams()) == WordCheck({"respons": "response"}, ())
    # in a pasted message the names may be the reader's own: not probed
    assert "deleted_at" not in check_words("ValueError: deleted_at must follow created_at", store, [], TypoParams()).absent


def test_identifiers_take_only_the_checks_the_words_leave(indexed):
    # three misspelt words use the three checks, as before identifiers were probed: the same
    # corrections, so the same ranking; the identifier is left unprobed
    checked = check_words("sesion cokie ptah deleted_at", indexed[0].store, [], TypoParams())
    assert checked == WordCheck({"sesion": "session", "cokie": "cookie", "ptah": "path"}, ())
    assert check_words("sesion deleted_at", indexed[0].store, [], TypoParams()) == WordCheck(
        {"sesion": "session"}, ("deleted_at",))


VERSIONED = {
    "flags.md": "# Flags\n\nThe zzedit5 flag turns on the fifth edit mode. Run it under Python 3 with UTF-8 files.",
    "other.md": "# Other\n\nNothing about flags here, only cooking and gardening notes.",
}


@pytest.fixture
def versioned(write, tmp_path, shelf):
    index_pages(shelf, write, tmp_path / "docs", VERSIONED)
    return shelf


def test_a_versioned_name_differing_only_in_its_number_is_absent_never_corrected(versioned):
    # 'zzedit3' shares 'zzedit' with the indexed 'zzedit5' (the index splits letters from digits):
    # before, it was not even probed, and the search answered 'high' for the other name
    checked = check_words("zzedit3", versioned.store, [], TypoParams())
    assert checked.absent == ("zzedit3",) and checked.fixes == {}
    result = versioned.search("zzedit3", mode="hybrid")
    assert result.confidence != "high" and "zzedit3" in result.note
    assert versioned.search("zzedit5", mode="hybrid").note == ""


def test_keyword_mode_is_not_sure_of_a_versioned_name_no_document_holds(versioned):
    """BM25 finds zzedit5's page for 'zzedit3' (it matches 'zzedit'): the same probe as hybrid's
    keeps the answer from 'high' and names the absent name; held names answer as before."""
    result = versioned.search("zzedit3 flag", mode="keyword")
    assert [h.path for h in result.hits][:1] == ["flags.md"]
    assert result.confidence != "high" and result.note == "no indexed document mentions zzedit3"
    for held in ("zzedit5 flag", "python3 utf8 files", "zzeidt5 flag"):  # whole, written apart, a letter slip
        answer = versioned.search(held, mode="keyword")
        assert answer.note == "" and answer.hits[0].path == "flags.md", held
    assert versioned.search("zzedit5 flag", mode="keyword").confidence == "high"


def test_a_versioned_name_written_apart_or_with_a_slip_in_its_letters_is_not_absent(versioned):
    store = versioned.store
    assert check_words("python3 and utf8 files", store, [], TypoParams()) == WordCheck({}, ())
    # a letter slip keeps the number: a real name, never corrected, not absent
    assert check_words("zzeidt5 flag", store, [], TypoParams()) == WordCheck({}, ())



def test_a_typo_of_a_word_the_stemmer_shortens_is_corrected_not_absent(write, tmp_path, shelf):
    """``namming``'s stem ``nam`` is one edit from the indexed stem ``name`` (``naming``); at the
    word's two edits it also reaches rare short terms (``aab``, hex codes, as on set J), whose
    chunks outrank every chunk of the common ``name``: the word was called absent (set J, t04)."""
    pages = {"naming.md": "# Naming\n\nEnvironment naming: each matrix environment is named after its variables."}
    for i, c in enumerate("bcdefghijklopqrstuvwxyz"):
        pages[f"colour{i}.md"] = f"# Colour {i}\n\nThe theme's colour code aa{c} is shown in the table."
    for i in range(5):
        pages[f"p{i}.md"] = f"# Page {i}\n\nGive the project a name; the name is shown with version {i}."
    index_pages(shelf, write, tmp_path / "docs", pages)
    assert check_words("matrix namming", shelf.store, [], TypoParams()) == WordCheck({"namming": "naming"})


def test_a_long_word_with_two_letters_swapped_is_corrected_not_absent(write, tmp_path, shelf):
    """A swap is the commonest slip, one edit to ``edits`` but two to the engine, and the index
    holds stems: ``valdiator`` is four engine edits from ``valid`` (``validator``'s stem), so it
    was called absent and its search found nothing. Its swapped forms' stems are probed as exact terms."""
    pages = {"validate.md": "# Validation\n\nA validator checks a field's value; pass validators to any field.",
             "fields.md": "# Fields\n\nFields serialize and deserialize values of many types."}
    index_pages(shelf, write, tmp_path / "docs", pages)
    assert check_words("custom valdiator", shelf.store, [], TypoParams()) == WordCheck({"valdiator": "validator"})
    assert check_words("custom vaildator", shelf.store, [], TypoParams()) == WordCheck({"vaildator": "validator"})


def test_a_changed_letter_far_from_the_one_typed_is_another_word_not_a_typo(write, tmp_path, shelf):
    # 'musl' (the C library) is one letter from 'must', but l and t lie apart on the keyboard:
    # no slip, so the documentation's silence on musl is reported (set K, u03); 'mudt' (d is
    # next to s) and 'wheals' (a vowel for a vowel) are slips, corrected as before
    index_pages(shelf, write, tmp_path / "docs", {"wheels.md": "# Wheels\n\nYou must build wheels from source."})
    store = shelf.store
    checked = check_words("binary wheels for musl", store, [], TypoParams())
    assert checked.fixes == {} and checked.absent == ("musl",)
    checked = check_words("you mudt build wheals", store, [], TypoParams())
    assert checked.fixes == {"mudt": "must", "wheals": "wheels"} and checked.absent == ()


def test_a_hyphenated_name_no_chunk_holds_is_absent_though_each_of_its_words_is_indexed(write, tmp_path, shelf):
    # set K, u04: pip's docs hold 'externally', 'managed' and 'environment', never the error's name;
    # a name the docs hold (an option), or write apart as words, is not absent; two words are a compound
    pages = {
        "envs.md": "# Environments\n\nAn environment managed externally by the system.",
        "build.md": "# Builds\n\nPass `--no-build-isolation` to build in the current environment.",
        "tls.md": "# TLS\n\nThe access control allow origin list is checked.",
    }
    index_pages(shelf, write, tmp_path / "docs", pages)
    store = shelf.store
    checked = check_words("error: externally-managed-environment when installing", store, [], TypoParams())
    assert checked.absent == ("externally-managed-environment",) and checked.fixes == {}
    assert check_words("what does --no-build-isolation do", store, [], TypoParams()).absent == ()
    assert check_words("the Access-Control-Allow-Origin list", store, [], TypoParams()).absent == ()
    assert check_words("a well-managed environment", store, [], TypoParams()).absent == ()
    # a slip in a real name is no absent name (its misspelt word is corrected as any word is)
    assert check_words("what does --no-build-isolaton do", store, [], TypoParams()).absent == ()


@pytest.mark.parametrize("typed, meant", [("sesion cokie max age", "session cookie max age"),
                                          ("session cokie path", "session cookie path")])
def test_a_corrected_query_ranks_and_scores_as_the_query_typed_right(indexed, typed, meant):
    # the corrected term counts as much as a typed one: a slip costs the reader nothing but the
    # note (it counted 0.8 of a typed term, and the hits scored lower than the same words typed right)
    shelf = indexed[0]
    slip, right = shelf.search(typed, k=3), shelf.search(meant, k=3)
    assert slip.note.startswith("corrected ") and not right.note
    assert [(h.path, h.score) for h in slip.hits] == [(h.path, h.score) for h in right.hits]
