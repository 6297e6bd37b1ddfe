"""Qdrant-only mechanics: BM25's average chunk length is known from totals every write keeps
in the meta collection, so ``optimize`` (which the writer loop runs often) reads no chunk
unless the sparse vectors must be rewritten. Run on qdrant-client's local mode (a real server
with ``DOCSHELF_TEST_QDRANT_URL``)."""

from __future__ import annotations

import numpy as np
import pytest

from backend_urls import fresh_url
from docshelf.analysis import searchable_text
from docshelf.stores import lexical, open_store, qdrant_bm25
from test_postgres_store import DIM, doc


@pytest.fixture
def store(request, tmp_path):
    store = open_store(tmp_path / "unused", DIM, fresh_url("qdrant", request, tmp_path))
    yield store
    store.close()


def chunks_read(store, monkeypatch) -> list[int]:
    """From now on, the number of chunk points each scroll or retrieve returns."""
    seen: list[int] = []
    client = store.client
    for name in ("scroll", "retrieve"):
        original = getattr(client, name)

        def counting(collection, *args, _original=original, **kwargs):
            found = _original(collection, *args, **kwargs)
            if collection == store.chunks:
                seen.append(len(found[0] if isinstance(found, tuple) else found))
            return found

        monkeypatch.setattr(client, name, counting)
    return seen


def recount(store) -> tuple[int, int]:
    """Chunks and their total length, counted from every chunk's text."""
    lengths = [lexical.term_counts(searchable_text(p.payload["embed_text"]))[1] for p in store._scroll(store.chunks)]
    return len(lengths), sum(lengths)


def kept(store) -> tuple[int, int]:
    state = store._bm25_state()
    return state["chunks"], state["length"]


def test_optimize_reads_no_chunk_when_the_average_length_has_not_moved(store, monkeypatch):
    """After a small edit, ``optimize`` reads nothing, and the edit itself read only the
    edited document's chunks (before: every chunk, re-tokenised, on every call)."""
    rng = np.random.default_rng(1)
    store.replace_documents([doc(f"q{i}.md", [f"alpha beta {i}", f"gamma delta epsilon {i}"], rng) for i in range(40)])
    store.optimize()
    seen = chunks_read(store, monkeypatch)
    store.replace_documents([doc("q7.md", ["alpha beta seven", "gamma delta epsilon seven"], rng)])
    assert sum(seen) <= 2  # the two chunks it replaces
    del seen[:]
    store.optimize()
    assert seen == []
    monkeypatch.undo()
    assert kept(store) == recount(store) == (80, 280)


def test_kept_totals_equal_a_recount_after_edits_deletes_and_an_interrupted_write(store, monkeypatch):
    """Edits (more, fewer, no chunks), deletes and a write that failed half way: the kept
    totals equal a recount (the interrupted write marked them pending, so ``optimize`` counted
    them again), and ``optimize`` re-fits the sparse vectors to the exact average."""
    monkeypatch.setattr(qdrant_bm25, "AVGDL_DRIFT", 0.0)
    rng = np.random.default_rng(2)
    store.replace_documents([doc(f"e{i}.md", ["word " * (i + 1)] * 2, rng) for i in range(6)])
    store.replace_documents([doc("e1.md", ["a longer chunk of several words here", "and one more", "third"], rng)])
    store.replace_documents([doc("e2.md", [], rng), doc("e9.md", ["new document text"], rng)])
    store.delete_documents([("/r", "e3.md"), ("/r", "absent.md")])
    assert kept(store) == recount(store)
    monkeypatch.setattr(store.client, "delete", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("killed")))
    with pytest.raises(Exception, match="killed"):
        store.replace_documents([doc("e4.md", ["only one short chunk now"], rng)])
    monkeypatch.undo()
    monkeypatch.setattr(qdrant_bm25, "AVGDL_DRIFT", 0.0)
    assert store._bm25_state()["pending"]  # the old chunks of e4.md are still there beside the new one
    store.replace_documents([doc("e5.md", ["x"], rng)])
    store.optimize()
    state = store._bm25_state()
    assert kept(store) == recount(store) and not state.get("pending")
    n, length = recount(store)
    assert state["avgdl"] == max(1.0, length / n)
    store.replace_documents([doc("e4.md", ["only one short chunk now"], rng)])
    store.delete_documents([("/r", "e0.md")])
    store.optimize()
    n, length = recount(store)
    assert kept(store) == (n, length) and store._bm25_state()["avgdl"] == length / n


def test_an_index_of_the_previous_version_learns_its_totals_once(store, monkeypatch):
    """An index written before the totals were kept (no ``chunks`` / ``length`` in the meta
    point, no ``tlen`` in the payloads) is counted by the first ``optimize``, once; writes
    before and after keep the totals right, chunks without ``tlen`` counted from their text."""
    m = store.m
    rng = np.random.default_rng(3)
    store.replace_documents([doc(f"o{i}.md", [f"old chunk {i}", "more words in this one"], rng) for i in range(10)])
    store._meta_put("bm25", {"avgdl": store._bm25_state()["avgdl"]})
    store.client.delete_payload(store.chunks, keys=["tlen"], points=m.FilterSelector(filter=m.Filter()))
    store.replace_documents([doc("o1.md", ["rewritten"], rng)])  # totals unknown: not counted yet
    assert "chunks" not in store._bm25_state()
    seen = chunks_read(store, monkeypatch)
    store.optimize()
    assert sum(seen) >= 19  # counted once, from the chunks
    del seen[:]
    store.optimize()
    assert seen == []
    store.delete_documents([("/r", "o2.md")])  # chunks without ``tlen``: their text is read
    assert sum(seen) == 2 + 2
    monkeypatch.undo()
    assert kept(store) == recount(store) and kept(store)[0] == 17
