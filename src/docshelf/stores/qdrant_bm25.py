"""BM25's average chunk length for the Qdrant store (a mixin of ``QdrantStore``).

The sparse vectors hold BM25's term-frequency part for an average chunk length ``avgdl``; the
true average is the chunk count and total length that every write keeps in the meta point
``bm25`` (each chunk's length is in its payload, ``tlen``), so ``optimize``, which the writer
loop runs often, reads no chunk unless the vectors must be rewritten for a new average. Kept
apart so ``qdrant_store`` stays about collections, writes and searches.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

from ..analysis import searchable_text
from . import lexical

log = logging.getLogger(__name__)

AVGDL_DRIFT = 0.005  # optimize() rewrites the sparse vectors when the average length moved more
BATCH = 256  # points a request (upserts, vector updates)


class Bm25Totals:
    """Kept totals and ``optimize`` for ``QdrantStore`` (which supplies ``_call``, ``_scroll``,
    ``_meta_get``, ``_meta_put``, ``_doc_sparse``, ``count_chunks``, ``client``, ``chunks``, ``m``)."""

    def _bm25_state(self) -> dict[str, Any]:
        """The meta point ``bm25``: ``avgdl`` (the average chunk length the sparse vectors were
        written for), ``chunks`` and ``length`` (the index's chunk count and total length, kept
        by every write; absent in an index of an older docshelf until ``optimize`` counts them
        once) and ``pending`` (a write that changes them is under way: a crash then leaves them
        unknown, and ``optimize`` counts them again)."""
        return self._meta_get("bm25") or {}

    def _lengths_of(self, flt: Any, ids: Sequence[str] = ()) -> dict[Any, int]:
        """Point id → chunk length of the chunks ``flt`` matches and those of ``ids`` (the points
        a write replaces or deletes: reads only them). A chunk written by an older docshelf has no
        ``tlen`` in its payload: its text is read and counted."""
        found = {p.id: p.payload.get("tlen") for p in self._scroll(self.chunks, flt, payload=["tlen"])}
        for p in self._retrieve([i for i in ids if i not in found], ["tlen"]):
            found[p.id] = p.payload.get("tlen")
        for p in self._retrieve([i for i, n in found.items() if n is None], ["embed_text"]):
            found[p.id] = lexical.term_counts(searchable_text(p.payload.get("embed_text", "")))[1]
        return found

    def _retrieve(self, ids: Sequence[Any], payload: Any) -> list[Any]:
        out: list[Any] = []
        for i in range(0, len(ids), 1024):
            part = list(ids[i : i + 1024])
            out += self._call("read", lambda p=part: self.client.retrieve(self.chunks, p, with_payload=payload))
        return out

    def _begin_counted_write(self) -> dict[str, Any]:
        """The BM25 state before a write, marked ``pending`` in the index while it runs."""
        state = self._bm25_state()
        if "chunks" in state and not state.get("pending"):
            self._meta_put("bm25", state | {"pending": True})
        return state

    def _end_counted_write(self, state: dict[str, Any], gone: dict[Any, int], added: Sequence[int], avgdl: float | None) -> None:
        """Store the totals after a write that removed the chunks ``gone`` and added ``added``
        (unknown totals stay unknown, for ``optimize`` to count), and the first write's ``avgdl``."""
        new = state | ({"avgdl": avgdl} if avgdl is not None and "avgdl" not in state else {})
        if "chunks" in state and not state.get("pending"):
            new |= {"chunks": state["chunks"] - len(gone) + len(added), "length": state["length"] - sum(gone.values()) + sum(added)}
        if new != state or "chunks" in state and not state.get("pending"):  # the latter: clears the mark
            self._meta_put("bm25", new)

    def optimize(self) -> None:
        """Qdrant's optimizer merges segments and builds HNSW in the background. Here: BM25's
        length normalisation. The sparse vectors hold ``tf_weight`` for the average chunk length
        of the first write (a migration's first batch, say); when the index's true average (its
        kept totals: no chunk is read) has moved more than ``AVGDL_DRIFT`` from it, every chunk's
        sparse vector is rewritten for the true one, so scores equal the embedded store's
        (LanceDB uses the current average). The totals are counted from the chunks only when
        unknown: an index of an older docshelf (once), a write that did not finish, or a count
        that disagrees with Qdrant's own."""
        state = self._bm25_state()
        if "chunks" not in state or state.get("pending") or state["chunks"] != self.count_chunks():
            state = self._recount(state)
        if not state["chunks"]:
            return
        true = max(1.0, state["length"] / state["chunks"])
        stored = float(state.get("avgdl") or 1.0)
        if abs(true - stored) <= AVGDL_DRIFT * true:
            return
        m = self.m
        for batch in self._scroll_pages(self.chunks, ["embed_text"]):
            updates = [m.PointVectors(id=p.id, vector={"bm25": self._doc_sparse(
                *lexical.term_counts(searchable_text(p.payload.get("embed_text", ""))), true)}) for p in batch]
            self._call("update vectors", lambda b=updates: self.client.update_vectors(self.chunks, b, wait=True))
        self._meta_put("bm25", state | {"avgdl": true})
        log.info("BM25 re-normalised for an average chunk length of %.1f terms (was %.1f)", true, stored)

    def _recount(self, state: dict[str, Any]) -> dict[str, Any]:
        """Count the chunks and their total length from the chunks themselves, and keep them."""
        lengths = self._lengths_of(None)
        state = {k: v for k, v in state.items() if k != "pending"} | {"chunks": len(lengths), "length": sum(lengths.values())}
        self._meta_put("bm25", state)
        log.info("counted %d chunks (%d terms) in %s for BM25", state["chunks"], state["length"], self.chunks)
        return state

    def _scroll_pages(self, collection: str, payload: Any) -> Iterator[list[Any]]:
        """Every point of ``collection``, a page at a time (not all held at once)."""
        offset = None
        while True:
            page, offset = self._call("scroll", lambda o=offset: self.client.scroll(
                collection, limit=BATCH, offset=o, with_payload=payload, with_vectors=False))
            yield page
            if offset is None:
                return


__all__ = ["AVGDL_DRIFT", "Bm25Totals"]
