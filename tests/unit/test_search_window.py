"""Keyword and semantic search read the columns of their first candidates only
(``engine.WindowSearch``): the window is the whole top-k's first rows, and the hits are the
same as reading all of it, also when the window does not settle them and the rest is read."""

from __future__ import annotations

import pytest

from docshelf.config import Settings
from docshelf.models import SearchFilters
from docshelf.search import engine
from docshelf.service import Docshelf
from docshelf.stores import lancedb_store
from docshelf.stores.lance_queries import window_limit
from docshelf.stores.ties import TIE_SLACK

TOPICS = ["volcano lava", "glacier ice", "desert dune", "river delta", "coral reef", "tundra moss"]
DEFAULT_WINDOW = engine.WINDOW_PER_HIT
QUERIES = ["coral reef survey", "glacier ice samples", "volcano", "survey of the river delta 12", "moss tundra lava"]


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, request) -> Docshelf:
    """Pages of several sections (merges, the per-page cap), exact copies of one page (tied
    BM25 scores and equal vectors), dates for a filter; with an approximate vector index."""
    root = tmp_path_factory.mktemp("window")
    docs = root / "docs"
    docs.mkdir()
    for i in range(90):
        topic, other = TOPICS[i % len(TOPICS)], TOPICS[(i + 1) % len(TOPICS)]
        sections = "\n\n".join(
            f"## {t.title()} part {j}\n\nThe {t} survey {i} counted {i * 7 + j} samples near site {j}"
            f"{' basalt' * ((i * 5 + j) % 11)}." for j, t in
            enumerate((topic, topic, other, topic))
        )
        (docs / f"n{i:02d}.md").write_text(f"---\ndate: 202{i % 3}-03-1{i % 9}\n---\n# Note {i}\n\n{sections}")
    for i in range(8):  # the same page eight times
        (docs / f"copy{i}.md").write_text("# Copy\n\nThe coral reef survey counted reef samples near the glacier.")
    from docshelf.embedders.fake import FakeEmbedder

    shelf = Docshelf(Settings(index_dir=root / "index"), embedder=FakeEmbedder())
    shelf.store.vector_index_min_rows = 100  # the real threshold is 50,000 chunks
    shelf.index([docs])
    assert shelf.store.has_vector_index() and isinstance(shelf.store, engine.WindowSearch)
    return shelf


@pytest.mark.parametrize("filters", [None, SearchFilters(date_from="2021-01-01", date_to="2021-12-31")])
@pytest.mark.parametrize("want", [0, 1, 5, 12, 20, 60, 200])
def test_a_window_is_the_first_rows_of_the_whole_query(indexed, filters, want):
    store, found = indexed.store, 0
    for query in QUERIES:
        vector = indexed.embedder.embed_query(query)
        for window, whole in ((store.text_window(query, 100, want, filters), store.text_hits(query, 100, filters)),
                              (store.vector_window(vector, 100, want, filters), store.vector_hits(vector, 100, filters))):
            rows, complete = window
            found += bool(whole)
            assert rows == whole[: len(rows)]
            if complete:
                assert rows == whole
    assert found >= 2 * len(QUERIES) - 1  # "volcano" is in no 2021 page


def test_a_refined_window_reranks_the_whole_querys_candidates(indexed, monkeypatch):
    seen = []
    original = lancedb_store.with_settings
    monkeypatch.setattr(lancedb_store, "with_settings", lambda q, s: seen.append(s) or original(q, s))
    vector = indexed.embedder.embed_query("coral reef")
    indexed.store.vector_window(vector, 100, 20, None)
    assert seen[-1]["refine_factor"] * window_limit(100, 20, refined=True) == 100 + TIE_SLACK
    assert window_limit(100, 20, refined=True) == 22 and window_limit(100, 20, refined=False) == 21
    assert window_limit(100, 109, refined=True) == window_limit(100, 500, refined=False) == 100 + TIE_SLACK


@pytest.mark.parametrize("mode", ["keyword", "semantic"])
@pytest.mark.parametrize("per_hit", [0, 1, DEFAULT_WINDOW])
def test_windowed_search_answers_as_reading_every_candidate(indexed, monkeypatch, mode, per_hit):
    calls = {"window": 0, "whole": 0}
    store = indexed.store
    for name, kind in (("text_window", "window"), ("vector_window", "window"), ("text_hits", "whole"), ("vector_hits", "whole")):
        method = getattr(store, name)
        monkeypatch.setattr(store, name, lambda *a, _m=method, _k=kind, **kw: calls.__setitem__(_k, calls[_k] + 1) or _m(*a, **kw))
    monkeypatch.setattr(engine, "WINDOW_PER_HIT", per_hit)
    shapes = [dict(k=10), dict(k=3, max_per_doc=1), dict(k=5, max_per_doc=0),
              dict(k=10, date_from="2021-01-01", date_to="2021-12-31")]
    windowed = [indexed.search(q, mode=mode, **shape) for q in QUERIES for shape in shapes]
    assert calls["window"] == len(windowed)
    if per_hit == 0:  # an empty window settles nothing: every search read the whole list ...
        assert calls["whole"] == len(windowed) - (mode == "keyword")  # ... but "volcano" in 2021 pages (no match)
    elif per_hit == DEFAULT_WINDOW:  # most searches are settled by their window
        assert calls["whole"] < len(windowed) / 2
    monkeypatch.setattr(engine, "WindowSearch", type("NoWindow", (), {}))  # every candidate, as before
    whole = [indexed.search(q, mode=mode, **shape) for q in QUERIES for shape in shapes]
    strip = lambda r: (r.hits, r.note, r.confidence)  # noqa: E731
    assert [strip(r) for r in windowed] == [strip(r) for r in whole]
    assert sum(bool(r.hits) for r in windowed) >= len(windowed) - 1
