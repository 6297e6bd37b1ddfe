"""The search modes over a Store and an Embedder, with filters, diversity and citations.

- keyword: BM25 from the store's full-text index.
- semantic: dense vectors (cosine).
- fuzzy: the full-text index with edit-distance term matching, plus joined compound names.
- hybrid (default): both lists fused by score combination.

Scores are mapped to [0, 1], higher is better, in every mode.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..analysis import query_text
from ..errors import InvalidQuery
from ..models import Chunk, Hit, SearchFilters, SearchMode, SearchResult
from ..protocols import Embedder, Store
from .fuse import convex
from .highlight import highlight_spans

MODES: tuple[SearchMode, ...] = ("hybrid", "semantic", "keyword", "fuzzy")
MAX_K = 100


@dataclass(frozen=True)
class SearchOptions:
    """Tunable defaults. ``bm25_half`` is the raw BM25 score that maps to 0.5."""

    candidates: int = 50
    keyword_weight: float = 0.5
    semantic_weight: float = 0.5
    max_per_doc: int = 3
    bm25_half: float = 10.0


def bm25_to_unit(score: float, half: float) -> float:
    return score / (score + half) if score > 0 else 0.0


class Searcher:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        options: SearchOptions | None = None,
        semantic_ready: Callable[[], bool] | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.options = options or SearchOptions()
        # When the embedder is still loading (a server warming up), semantic work is skipped.
        self.semantic_ready = semantic_ready or (lambda: True)

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        filters: SearchFilters | None = None,
        min_score: float = 0.0,
        max_per_doc: int | None = None,
    ) -> SearchResult:
        started = time.perf_counter()
        query = query.strip()
        if not query:
            raise InvalidQuery("the query is empty; pass some words to search for")
        if mode not in MODES:
            raise InvalidQuery(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        if not 1 <= k <= MAX_K:
            raise InvalidQuery(f"k must be between 1 and {MAX_K}, got {k}")
        per_doc = self.options.max_per_doc if max_per_doc is None else max_per_doc
        n = max(self.options.candidates, k * max(per_doc, 1) * 3)
        note = ""
        ran: SearchMode = mode
        if mode in ("semantic", "hybrid") and not self.semantic_ready():
            note = "the embedding model is still loading: these are keyword results; semantic ranking follows shortly"
            ran = "keyword"
        if ran == "keyword":
            scored = self._keyword(query, n, filters)
        elif ran == "fuzzy":
            scored = self._fuzzy(query, n, filters)
        elif ran == "semantic":
            scored = self._semantic(query, n, filters)
        else:
            scored = self._hybrid(query, n, filters)
        hits = self._diversify(scored, k, per_doc, min_score, query, ran)
        return SearchResult(query, ran, tuple(hits), note, (time.perf_counter() - started) * 1000)

    # -- modes --------------------------------------------------------------------------
    def _keyword(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        rows = self.store.text_search(query_text(query), n, filters)
        return [(c, bm25_to_unit(s, self.options.bm25_half)) for c, s in rows]

    def _fuzzy(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        longest = max((len(w) for w in query.split()), default=0)
        fuzziness = 0 if longest <= 3 else 1 if longest <= 6 else 2
        rows = self.store.text_search(query_text(query), n, filters, fuzziness=fuzziness)
        return [(c, bm25_to_unit(s, self.options.bm25_half)) for c, s in rows]

    def _semantic(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        vector = self.embedder.embed_query(query)
        return [(c, max(0.0, min(1.0, s))) for c, s in self.store.vector_search(vector, n, filters)]

    def _hybrid(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        lexical = self.store.text_search(query_text(query), n, filters)
        dense = self._semantic(query, n, filters)
        chunks = {c.id: c for c, _ in lexical} | {c.id: c for c, _ in dense}
        fused = convex(
            [{c.id: s for c, s in lexical}, {c.id: s for c, s in dense}],
            [self.options.keyword_weight, self.options.semantic_weight],
        )
        total = self.options.keyword_weight + self.options.semantic_weight
        ranked = sorted(fused.items(), key=lambda kv: -kv[1])
        return [(chunks[cid], score / total) for cid, score in ranked]

    # -- shaping --------------------------------------------------------------------------
    def _diversify(
        self, scored: list[tuple[Chunk, float]], k: int, per_doc: int, min_score: float, query: str, mode: SearchMode
    ) -> list[Hit]:
        """At most ``per_doc`` chunks per document, near-duplicate texts collapsed."""
        hits: list[Hit] = []
        per_doc_count: dict[tuple[str, str], int] = {}
        seen_text: set[str] = set()
        for chunk, score in sorted(scored, key=lambda cs: -cs[1]):
            if score < min_score:
                continue
            key = (chunk.root, chunk.path)
            if per_doc and per_doc_count.get(key, 0) >= per_doc:
                continue
            fingerprint = hashlib.sha1(" ".join(chunk.text.lower().split()).encode()).hexdigest()
            if fingerprint in seen_text:
                continue
            seen_text.add(fingerprint)
            per_doc_count[key] = per_doc_count.get(key, 0) + 1
            hits.append(to_hit(chunk, score, mode, query))
            if len(hits) >= k:
                break
        return hits


def to_hit(chunk: Chunk, score: float, mode: SearchMode, query: str = "") -> Hit:
    return Hit(
        chunk_id=chunk.id, path=chunk.path, root=chunk.root, title=chunk.title, heading_path=chunk.heading_path,
        collection=chunk.collection, doc_type=chunk.doc_type, text=chunk.text, score=round(float(score), 6),
        mode=mode, chunk_index=chunk.chunk_index, page=chunk.page, start_line=chunk.start_line,
        end_line=chunk.end_line, tags=chunk.tags, date=chunk.date,
        highlights=highlight_spans(chunk.text, query) if query else (),
    )


__all__ = ["Searcher", "SearchOptions", "MODES", "to_hit", "replace"]
