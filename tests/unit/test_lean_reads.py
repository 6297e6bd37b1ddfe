"""Keyword and semantic search read hits without ``embed_text`` and ``metadata_json``
(``engine.LeanSearch``): the same ranking, scores and hits as reading whole chunks."""

from __future__ import annotations

import dataclasses

import pytest

from docshelf.models import SearchFilters
from docshelf.search import engine

TOPICS = ["volcano lava", "glacier ice", "desert dune", "river delta", "coral reef", "tundra moss"]


@pytest.fixture
def indexed(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    for i in range(24):
        topic = TOPICS[i % len(TOPICS)]
        meta = f"---\ndate: 202{i % 3}-03-1{i % 9}\ntags: [t{i % 4}]\n---\n"
        write(docs, f"n{i:02d}.md", f"{meta}# Note {i}\n\n## {topic.title()}\n\nThe {topic} survey {i} counted {i * 7} samples.")
    shelf.index([docs])
    return shelf


@pytest.mark.parametrize("filters", [None, SearchFilters(date_from="2021-01-01", date_to="2021-12-31")])
def test_lean_reads_are_whole_chunks_less_two_fields(indexed, filters):
    store = indexed.store
    assert isinstance(store, engine.LeanSearch)
    vector = indexed.embedder.embed_query("coral reef survey")
    for lean, whole in ((store.text_hits("coral reef survey", 10, filters), store.text_search("coral reef survey", 10, filters)),
                        (store.vector_hits(vector, 10, filters), store.vector_search(vector, 10, filters))):
        assert whole and [s for _, s in lean] == [s for _, s in whole]
        assert all(c.embed_text for c, _ in whole)  # the full read has them ...
        assert [c for c, _ in lean] == [dataclasses.replace(c, embed_text="", metadata_json="{}") for c, _ in whole]


@pytest.mark.parametrize("mode", ["keyword", "semantic"])
def test_lean_search_answers_as_the_whole_chunk_path(indexed, monkeypatch, mode):
    queries = ["coral reef samples", "glacier", "survey 14 desert dune"]
    lean = [indexed.search(q, k=5, mode=mode) for q in queries]
    monkeypatch.setattr(engine, "LeanSearch", type("NoLean", (), {}))  # whole chunks, as other stores
    whole = [indexed.search(q, k=5, mode=mode) for q in queries]
    strip = lambda r: (r.hits, r.note, r.confidence)  # noqa: E731
    assert [strip(r) for r in lean] == [strip(r) for r in whole]
    assert all(r.hits for r in lean)
