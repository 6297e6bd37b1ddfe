"""LanceDB query pieces for the embedded store: hybrid's candidate-pool rounds (async API, run
on the engine's event loop), the HNSW search breadth, exact cosines from fetched vectors, and
fuzzy full-text queries. ``lancedb_store.LanceStore`` composes them."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pyarrow as pa

from .filters import quote

ANN_EF_MIN = 200


def ann_ef(k: int) -> int:
    """HNSW search breadth for a top-``k`` query. At 100k chunks, 100 candidates (a k=10
    search), held-out queries: recall@10 0.977 at the engine's default, 0.991 at 200, 0.997
    at 300 (benchmarks/latency.py ``ann_study``; README)."""
    return max(ANN_EF_MIN, 2 * k)


def found_ids(table: pa.Table) -> list[str]:
    return table.column("id").to_pylist()


def matrix(column, dimensions: int) -> np.ndarray:
    """A fixed-size-list column of vectors as one float32 matrix (no Python floats)."""
    flat = column.combine_chunks().flatten() if hasattr(column, "combine_chunks") else column.flatten()
    return flat.to_numpy(zero_copy_only=False).reshape(len(column), dimensions).astype(np.float32, copy=False)


def cosines(vectors: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Exact cosine of each row with ``query`` (what the engine's cosine distance computes)."""
    norms = np.linalg.norm(vectors, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    return (vectors @ query) / np.clip(norms, 1e-12, None)


_FUZZY_SUFFIXES = ("ing", "es", "ed", "s")


def fuzzy_terms(term: str) -> list[str]:
    """The term, and (for a long one) the term less a common suffix: the index holds stems and
    matches a fuzzy term against them, so ``kubrnetes`` must also be tried as ``kubrnet``."""
    out = [term]
    for suffix in _FUZZY_SUFFIXES:
        if len(term) > len(suffix) + 4 and term.endswith(suffix):
            out.append(term[: -len(suffix)])
            break
    return out


def fuzzy_query(query: str, fuzziness: int | None):
    """One SHOULD clause per term: exact (boost 2) and within an edit distance of it."""
    from lancedb.query import BooleanQuery, MatchQuery, Occur

    clauses = []
    for term in dict.fromkeys(query.lower().split()):
        clauses.append((Occur.SHOULD, MatchQuery(term, "search_text", boost=2.0)))
        distance = fuzziness if fuzziness is not None else (0 if len(term) <= 3 else 1 if len(term) <= 6 else 2)
        if distance:
            for variant in fuzzy_terms(term):
                clauses.append((Occur.SHOULD, MatchQuery(variant, "search_text", fuzziness=distance, max_expansions=20)))
    return BooleanQuery(clauses) if clauses else None


async def lexical_ids(table, text: str, k: int, where: str | None):
    """BM25's top ``k``: ids, scores, row ids and vectors only (None without query terms)."""
    from lancedb.query import MatchQuery

    if not text.strip():
        return None
    q = table.query().nearest_to_text(MatchQuery(text, "search_text"))
    if where:
        q = q.where(where)
    return await q.select(["id", "vector", "_score"]).with_row_id().limit(k).to_arrow()

async def pool_rounds(table, text: str, qv: np.ndarray, k: int, where: str | None, lexical_job, columns: list[str]):
    """The rest of ``LanceStore.candidate_pool`` on the engine's loop: the vector query, then at
    once the candidates' ``columns`` by row id and BM25 of the dense-only candidates."""
    from lancedb.query import MatchQuery

    q = table.query().nearest_to(qv).column("vector").distance_type("cosine").refine_factor(1).ef(ann_ef(k))
    if where:
        q = q.where(where)
    # _distance is selected (not used: cosines come from the vectors) so LanceDB does not warn
    dense = await q.select(["id", "vector", "_distance"]).with_row_id().limit(k).to_arrow()
    lexical = await asyncio.wrap_future(lexical_job)
    if lexical is None:
        lexical = dense.schema.empty_table().append_column("_score", pa.array([], pa.float32()))
    seen = set(found_ids(lexical))
    dense_only = [i for i in found_ids(dense) if i not in seen]
    row_ids = list(dict.fromkeys([*lexical.column("_rowid").to_pylist(), *dense.column("_rowid").to_pylist()]))

    async def restricted_bm25() -> dict[str, float]:
        if not dense_only or not text.strip():
            return {}
        ids = ", ".join(quote(i) for i in dense_only)
        found = await (
            table.query().nearest_to_text(MatchQuery(text, "search_text")).where(f"id IN ({ids})")
            .select(["id", "_score"]).limit(len(dense_only)).to_arrow()
        )
        return dict(zip(found.column("id").to_pylist(), found.column("_score").to_pylist(), strict=True))

    async def fetch_columns() -> list[dict[str, Any]]:
        if not row_ids:
            return []
        return (await table.take_row_ids(row_ids).select(columns).to_arrow()).to_pylist()

    rows, bm25 = await asyncio.gather(fetch_columns(), restricted_bm25())
    return lexical, dense, rows, bm25
