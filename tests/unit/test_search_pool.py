"""Hybrid search's one-call candidate pool (LanceDB) against the generic four-query path.

``LanceStore.candidate_pool`` replaces four store queries (BM25, dense, each retriever on the
other's candidates) with fewer, faster ones; it must return the same pool and the same
scores, so ranking is unchanged. Plus the query-embedding cache and the cached snapshot.
"""

from __future__ import annotations

import pytest

from docshelf.analysis import query_text
from docshelf.models import SearchFilters
from docshelf.search import engine

TOPICS = ["volcano lava", "glacier ice", "desert dune", "river delta", "coral reef", "tundra moss"]


@pytest.fixture
def indexed(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    for i in range(30):
        topic = TOPICS[i % len(TOPICS)]
        meta = f"---\ndate: 202{i % 3}-03-1{i % 9}\n---\n"
        write(docs, f"n{i:02d}.md", f"{meta}# Note {i}\n\nThe {topic} survey {i} counted {i * 7} samples near site{i}.")
    shelf.index([docs])
    return shelf


def four_queries(store, text, vector, k, filters):
    lexical = store.text_search(text, k, filters)
    dense = store.vector_search(vector, k, filters)
    ids = {c.id for c, _ in lexical} | {c.id for c, _ in dense}
    lex = {c.id: s for c, s in lexical}
    den = {c.id: s for c, s in dense}
    den |= store.vector_scores(vector, [i for i in ids if i not in den])
    lex |= store.text_scores(text, [i for i in ids if i not in lex])
    return lexical, dense, den, lex


@pytest.mark.parametrize("filters", [None, SearchFilters(date_from="2021-01-01", date_to="2021-12-31")])
@pytest.mark.parametrize("query", ["volcano lava survey", "coral reef samples site12", "glacier", "zzzz unknownword"])
def test_candidate_pool_equals_the_four_query_path(indexed, query, filters):
    store, text = indexed.store, query_text(query)
    vector = indexed.embedder.embed_query(query)
    with store.snapshot():
        lexical, dense, den, lex = four_queries(store, text, vector, 8, filters)
        p_lexical, p_dense, p_den, p_lex = store.candidate_pool(text, lambda: vector, 8, filters)
    assert [(c.id, round(s, 4)) for c, s in p_lexical] == [(c.id, round(s, 4)) for c, s in lexical]
    assert [(c.id, round(s, 4)) for c, s in p_dense] == [(c.id, round(s, 4)) for c, s in dense]
    assert [c for c, _ in p_lexical + p_dense] == [c for c, _ in lexical + dense]  # whole chunks, every field
    assert {i: round(s, 4) for i, s in p_den.items()} == {i: round(s, 4) for i, s in den.items()}
    assert {i: round(s, 4) for i, s in p_lex.items()} == {i: round(s, 4) for i, s in lex.items()}


def test_hybrid_ranks_as_the_four_query_path(indexed, monkeypatch):
    query = "desert dune survey samples"
    pooled = indexed.search(query, k=6, mode="hybrid").hits
    monkeypatch.setattr(engine, "PoolSearch", type("NoPool", (), {}))  # the generic path (other stores)
    generic = indexed.search(query, k=6, mode="hybrid").hits
    assert [(h.chunk_id, h.score) for h in pooled] == [(h.chunk_id, h.score) for h in generic]


def test_a_repeated_query_is_embedded_once(indexed, monkeypatch):
    calls = []
    embed = indexed.embedder.embed_query
    monkeypatch.setattr(indexed.embedder, "embed_query", lambda text: calls.append(text) or embed(text))
    first = indexed.search("river delta", k=3, mode="semantic")
    again = indexed.search("river delta", k=3, mode="hybrid")
    assert calls.count("river delta") == 1  # (calibration embeds its own null queries too)
    assert first.hits and [h.chunk_id for h in again.hits][:1] == [h.chunk_id for h in first.hits][:1]


def test_a_search_sees_a_commit_made_after_the_previous_search(indexed, write, tmp_path):
    assert indexed.search("aurora borealis", k=3, mode="keyword").hits == ()
    write(tmp_path / "docs", "late.md", "# Late\n\nAn aurora borealis display.")
    indexed.index([tmp_path / "docs"])
    assert [h.path for h in indexed.search("aurora borealis", k=3, mode="keyword").hits] == ["late.md"]
    assert indexed.search("aurora borealis", k=3, mode="hybrid").hits[0].path == "late.md"


def test_chunks_read_back_equal_the_chunks_written(tmp_path):
    """Every read path builds Chunks from Arrow columns (``chunks_of``): each field, None and
    empty values included, comes back as written, by id, by document and from each query."""
    import numpy as np

    from docshelf.models import Chunk, DocumentRecord
    from docshelf.stores.lancedb_store import LanceStore

    store = LanceStore(tmp_path / "index", dimensions=4)
    full = Chunk(
        id="a#0", root="/r", path="a.md", collection="docs", doc_type="markdown", title="A", heading_path=("A", "B"),
        chunk_index=0, text="alpha beta text", embed_text="A > B\nalpha beta text", page=3, start_line=1, end_line=4,
        tags=("x", "y"), date="2024-05-01", metadata_json='{"k": "v"}', overlap=0,
    )
    bare = Chunk(id="a#1", root="/r", path="a.md", collection="docs", doc_type="markdown", title="",
                 heading_path=(), chunk_index=1, text="gamma text", embed_text="gamma text", overlap=5)
    record = DocumentRecord(root="/r", path="a.md", sha256="0", size=1, mtime_ns=1, status="indexed",
                            collection="docs", doc_type="markdown", chunk_count=2)
    store.replace_documents([(record, [full, bare], np.array([[1, 0, 0, 0], [0, 1, 0, 0]], dtype=np.float32))])
    assert store.get_chunks(["a#1", "a#0"]) == [bare, full]
    assert store.document_chunks("/r", "a.md") == [full, bare]
    assert sorted((c for c, _ in store.text_search("text", 5)), key=lambda c: c.id) == [full, bare]
    assert [c for c, _ in store.vector_search(np.array([0, 1, 0, 0], dtype=np.float32), 2)] == [bare, full]
    lexical, dense, _, _ = store.candidate_pool("gamma", lambda: np.array([1, 0, 0, 0], dtype=np.float32), 2, None)
    assert [c for c, _ in lexical] == [bare] and [c for c, _ in dense] == [full, bare]
