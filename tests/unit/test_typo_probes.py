"""Typo probes: the embedded store's batched probe reads what ``text_search`` would, and the
per-index-version memo answers a repeated word without a store query, until the index changes."""

from __future__ import annotations

import pytest

from docshelf.search.typos import ProbeMemo, ProbeSearch, TypoParams, correct, probe_all

WORDS = ["cookie", "response", "middleware", "session", "template", "websocket", "lifespan", "routing"]


@pytest.fixture
def indexed(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    for i, word in enumerate(WORDS):
        write(docs, f"p{i}.md", f"# {word.title()}\n\nHow to use a {word} in a handler, with an example {i}.")
    shelf.index([docs])
    return shelf, docs


class Counting:
    """The real store, counting the probes that reach it."""

    def __init__(self, store) -> None:
        self.store, self.probes = store, 0

    def text_search(self, *args, **kwargs):
        self.probes += 1
        return self.store.text_search(*args, **kwargs)

    def content_version(self):
        return self.store.content_version()


@pytest.mark.parametrize("words", [["cokie"], ["cokie", "respnse", "midlewar"], ["xyzzyq", "tempalte"]])
def test_the_batched_probe_returns_what_one_text_search_per_word_returns(indexed, words):
    store = indexed[0].store
    assert isinstance(store, ProbeSearch)
    params = TypoParams()
    with store.snapshot():
        batched = probe_all(store, words, params)
        one_by_one = probe_all(Counting(store), words, params)  # no ProbeSearch: the generic path
    assert batched == one_by_one
    assert [len(texts) > 0 for texts in batched] == [w != "xyzzyq" for w in words]


def test_the_memo_answers_a_repeated_word_until_the_index_changes(indexed, write):
    shelf, docs = indexed
    store, memo, params = Counting(shelf.store), ProbeMemo(), TypoParams()
    assert correct("cokie respnse", store, [], params, memo=memo) == {"cokie": "cookie", "respnse": "response"}
    assert store.probes == 3  # 'cokie' one; 'respnse' two (its swapped forms' stems apart: swapped_stems)
    assert correct("a respnse with a cokie", store, [], params, memo=memo) == {"respnse": "response", "cokie": "cookie"}
    assert store.probes == 3  # both answered by the memo
    assert correct("respnse", store, [], params) == {"respnse": "response"} and store.probes == 5  # no memo: probed
    write(docs, "slang.md", "# Slang\n\nSome people write cokie for cookie.")
    shelf.index([docs])  # a new version: 'cokie' is now an indexed word, so no typo
    assert correct("cokie respnse", store, [], params, memo=memo) == {"respnse": "response"}
    assert store.probes == 8


def test_a_store_without_a_version_is_never_memoised(indexed):
    store, memo = Counting(indexed[0].store), ProbeMemo()
    store.content_version = lambda: None
    for _ in range(2):
        assert correct("cokie", store, [], TypoParams(), memo=memo) == {"cokie": "cookie"}
    assert store.probes == 2


def test_inside_a_snapshot_the_content_version_is_the_pinned_commit(indexed, write):
    shelf, docs = indexed
    store = shelf.store
    before = store.content_version()
    with store.snapshot():
        assert store.content_version() == before
        write(docs, "late.md", "# Late\n\nWritten while a search held its snapshot.")
        shelf.index([docs])  # a commit meanwhile: this thread still reads the pinned one
        assert store.content_version() == before
    after = store.content_version()
    assert after is not None and after != before
    with store.snapshot():
        assert store.content_version() == after


def test_a_misspelling_inside_a_longer_candidate_word_is_still_corrected(write, tmp_path, shelf):
    """``aprox`` occurs inside ``haproxy`` (a plugin name in the candidates), yet no indexed word
    is ``aprox``: it is a typo of ``approx`` (pytest's docs, where it went uncorrected)."""
    docs = tmp_path / "docs"
    write(docs, "approx.md", "# Approximate equality\n\nCompare floats with pytest.approx in assertions.")
    write(docs, "plugins.md", "# Plugins\n\npytest-docker-haproxy-fixtures: fixtures for haproxy in docker.")
    shelf.index([docs])
    candidates = shelf.store.text_search("plugins haproxy", 10, None)
    assert any("haproxy" in c.embed_text for c, _ in candidates)
    fixes = correct("pytest.aprox", shelf.store, [c for c, _ in candidates], TypoParams())
    assert fixes == {"aprox": "approx"}
