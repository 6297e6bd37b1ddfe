"""LanceDB query pieces for the embedded store: hybrid's candidate-pool rounds (async API, run
on the engine's event loop), the vector index's search settings, exact cosines from fetched vectors,
Arrow rows to Chunks, fuzzy full-text queries and typo probes. ``lancedb_store.LanceStore`` composes them."""

from __future__ import annotations

import asyncio

import numpy as np
import pyarrow as pa

from ..models import Chunk
from .ties import TIE_SLACK, best_k, tie_key

CHUNK_COLUMNS = [
    "id", "root", "path", "collection", "doc_type", "title", "heading_path", "chunk_index",
    "text", "embed_text", "page", "start_line", "end_line", "tags", "date", "metadata_json", "overlap",
]
"""The columns a Chunk is made of (``chunks_of`` reads them in this order)."""
HIT_COLUMNS = [c for c in CHUNK_COLUMNS if c not in ("embed_text", "metadata_json")]
"""What a hit shows (``engine.to_hit``): keyword and semantic search read only these (the two
left out are as large as the text and cost ~1.4 ms CPU per 100-row query at 100k chunks)."""


async def arrow(query) -> pa.Table:
    """Run a built async-API query and collect its rows, without lancedb's per-query blob check.

    ``AsyncQueryBase.to_arrow`` first asks the engine for the table's schema (to find blob
    columns, which the chunks table never has), an extra round trip per query: ~0.5-1 ms of
    CPU at 100k chunks, so every search paid it once per engine query. The rows are the same
    (``tests/unit/test_lance_queries_arrow.py``); a query object without the engine handle this
    relies on (lancedb is pinned to 0.40.x) goes the public way."""
    inner = getattr(query, "_inner", None)
    execute = getattr(inner, "execute", None)
    if execute is None:
        return await query.to_arrow()
    reader = await execute()
    batches = [batch async for batch in reader]
    return pa.Table.from_batches(batches, schema=reader.schema)


def with_settings(query, settings: dict[str, int]):
    """A vector query with its index's search settings (``vector_index.query_settings``)."""
    for method, value in settings.items():
        query = getattr(query, method)(value)
    return query


def chunks_of(table: pa.Table) -> list[Chunk]:
    """The rows of ``table`` as Chunks, converted column by column: one ``to_pylist`` per
    column, not a dict per row (half the Python work for a pool of 200 candidates). A column
    not read is left empty (``HIT_COLUMNS``: no ``embed_text``, ``metadata_json`` ``{}``)."""
    n = table.num_rows
    cols = [table.column(name).to_pylist() if name in table.column_names else [None] * n for name in CHUNK_COLUMNS]
    return [
        Chunk(
            id=id_, root=root, path=path, collection=collection, doc_type=doc_type, title=title or "",
            heading_path=tuple(heading_path or ()), chunk_index=chunk_index, text=text, embed_text=embed_text or "",
            page=page, start_line=start_line, end_line=end_line, tags=tuple(tags or ()), date=date,
            metadata_json=metadata_json or "{}", overlap=overlap or 0,
        )
        for (id_, root, path, collection, doc_type, title, heading_path, chunk_index, text, embed_text, page,
             start_line, end_line, tags, date, metadata_json, overlap) in zip(*cols, strict=True)
    ]


def found_ids(table: pa.Table) -> list[str]:
    return table.column("id").to_pylist()


TIE_COLUMNS = ["id", "path", "chunk_index"]
"""What ``top_rows`` orders equal scores by (``ties.tie_key``): every top-k query selects them."""


def top_rows(table: pa.Table, k: int, score: str) -> pa.Table:
    """The ``k`` best rows of a query fetched with ``k + TIE_SLACK`` rows, equal scores by
    (path, chunk index, id) (``ties.py``); ``score`` is ``_score`` (higher first) or ``_distance``
    (lower first)."""
    if table.num_rows == 0:
        return table
    keys = list(map(tie_key, table.column("path").to_pylist(), table.column("chunk_index").to_pylist(), found_ids(table)))
    keep = best_k(table.column(score).to_pylist(), keys, k, higher_first=score != "_distance")
    # Runs of consecutive rows as slices: ``Table.take`` would import pyarrow.compute (~40 ms
    # of a cold search, see lancedb_import.py); usually the engine's order holds and one slice does.
    runs: list[list[int]] = []
    for i in keep:
        if runs and i == runs[-1][0] + runs[-1][1]:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    if len(runs) == 1:
        return table.slice(*runs[0])
    return pa.concat_tables([table.slice(start, length) for start, length in runs])


def window_limit(k: int, want: int, refined: bool) -> int:
    """Rows to ask for when only the first ``want`` of a top-``k`` query may be needed
    (``settled_rows`` then keeps those that are certain): ``want + 1`` (the last row returned
    is never certain), and ``k + TIE_SLACK`` (the whole query) when that is no more. A refined
    vector query (IVF-HNSW-SQ: ``refine_factor``) re-ranks ``limit × refine_factor`` of the
    index's candidates exactly, so its limit divides ``k + TIE_SLACK``: with refine factor
    ``(k + TIE_SLACK) / limit`` the engine re-ranks the very candidates of the whole query, and
    its first rows are the whole query's first rows."""
    full = k + TIE_SLACK
    if want + 1 >= full:
        return full
    if not refined:
        return want + 1
    return next(d for d in range(want + 1, full + 1) if full % d == 0)


def settled_rows(table: pa.Table, limit: int, k: int, score: str) -> tuple[pa.Table, bool]:
    """The rows of a query asked for ``limit`` rows (``window_limit``) that the whole top-``k``
    query (``top_rows`` of ``k + TIE_SLACK``) would list first, in its order, and whether they
    are all of its rows. With fewer than ``limit`` rows the engine found no more: all of them
    (the best ``k``). Else only the rows scoring strictly better than the last one: every row
    of the table that scores better is among them, so their order by (score, ``tie_key``) is
    the whole query's; a row tied with the last may have tied rows the engine left out."""
    if table.num_rows < limit:
        return top_rows(table, k, score), True
    scores = table.column(score).to_pylist()
    last = scores[-1]
    better = sum(1 for s in scores if (s > last if score == "_score" else s < last))
    return top_rows(table, min(better, k), score) if better else table.slice(0, 0), better >= k


def matrix(column, dimensions: int) -> np.ndarray:
    """A fixed-size-list column of vectors as one float32 matrix (no Python floats).

    Without nulls the rows' values are a slice of the child array: read it directly, since
    ``flatten()`` goes through ``pyarrow.compute``, whose import (~40 ms of CPU) a cold
    ``docshelf search`` otherwise pays for this one call (see ``lancedb_import.py``)."""
    arr = column.combine_chunks() if hasattr(column, "combine_chunks") else column
    if pa.types.is_fixed_size_list(arr.type) and arr.null_count == 0:
        flat = arr.values.slice(arr.offset * arr.type.list_size, len(arr) * arr.type.list_size)
    else:
        flat = arr.flatten()
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


async def probe_texts(table, probes, k: int) -> list[list[str]]:
    """Typo probes (``search/typos.py``) at once: for each ``(text, fuzziness)`` the top ``k``
    chunks' ``embed_text`` by edit-distance BM25, the only column a probe reads."""

    async def one(text: str, fuzziness: int) -> list[str]:
        fts = fuzzy_query(text, fuzziness) if text.strip() else None
        if fts is None:
            return []
        found = await arrow(table.query().nearest_to_text(fts).select([*TIE_COLUMNS, "embed_text", "_score"]).limit(
            k + TIE_SLACK))
        return top_rows(found, k, "_score").column("embed_text").to_pylist()

    return list(await asyncio.gather(*(one(text, fuzziness) for text, fuzziness in probes)))


async def lexical_ids(table, text: str, k: int, where: str | None):
    """BM25's top ``k`` (``k + TIE_SLACK`` rows, see ``contenders``) as row ids and scores only,
    None without query terms: the candidates' columns come in one ``take`` afterwards (``pool_rounds``)."""
    from lancedb.query import MatchQuery

    if not text.strip():
        return None
    q = table.query().nearest_to_text(MatchQuery(text, "search_text"))
    if where:
        q = q.where(where)
    return await arrow(q.select(["_score"]).with_row_id().limit(k + TIE_SLACK))


def contenders(table: pa.Table, k: int, score: str) -> tuple[list[int], list[float]]:
    """Row ids and scores of the rows of a ``k + TIE_SLACK`` query that can be among its best
    ``k`` (``top_rows``): those scoring at least as well as its ``k``-th best. A row scoring
    worse never is, whatever its tie key, so only these rows' columns need reading."""
    rows, scores = table.column("_rowid").to_pylist(), table.column(score).to_pylist()
    if len(scores) > k:
        cut = sorted(scores, reverse=score != "_distance")[k - 1] if k > 0 else None
        keep = [i for i, s in enumerate(scores) if cut is not None and (s >= cut if score != "_distance" else s <= cut)]
        rows, scores = [rows[i] for i in keep], [scores[i] for i in keep]
    return rows, scores


def best_of(rows: list[int], scores: list[float], keys: dict[int, tuple], k: int, score: str) -> list[tuple[int, float]]:
    """``top_rows``'s choice among ``contenders``: the ``k`` best by score, then ``tie_key``."""
    keep = best_k(scores, [keys[r] for r in rows], k, higher_first=score != "_distance")
    return [(rows[i], scores[i]) for i in keep]


async def pool_rounds(table, text: str, qv: np.ndarray, k: int, where: str | None, columns: list[str],
                      settings: dict[str, int]):
    """The engine's part of ``LanceStore.candidate_pool``, on its loop. Both retrievers run at
    once and return row ids and scores only; then at once one ``take`` of every contender's ``columns`` and
    vector by row id (reading a row's columns is most of an engine query's cost, so each row is
    read once, not by its retriever and again by the take), and BM25 of the dense contenders
    BM25's query did not return, restricted to their row ids. Returns (lexical, dense) as
    ``[(row id, score)]`` in ``top_rows`` order, the rows (with ``_rowid``) and the restricted
    BM25 by row id."""
    from lancedb.query import MatchQuery

    q = with_settings(table.query().nearest_to(qv).column("vector").distance_type("cosine"), settings)
    if where:
        q = q.where(where)
    dense_found, lexical_found = await asyncio.gather(
        arrow(q.select(["_distance"]).with_row_id().limit(k + TIE_SLACK)), lexical_ids(table, text, k, where))
    lex_rows, lex_scores = contenders(lexical_found, k, "_score") if lexical_found is not None else ([], [])
    dense_rows, dense_scores = contenders(dense_found, k, "_distance")
    # every row BM25 returned has its score already; the others are scored by a restricted query
    scored = set(lexical_found.column("_rowid").to_pylist()) if lexical_found is not None else set()
    unscored = [r for r in dense_rows if r not in scored]
    row_ids = list(dict.fromkeys([*lex_rows, *dense_rows]))

    async def restricted_bm25() -> dict[int, float]:
        if not unscored or not text.strip():
            return {}
        found = await arrow(
            table.query().nearest_to_text(MatchQuery(text, "search_text"))
            .where(f"_rowid IN ({', '.join(map(str, unscored))})")
            .select(["_score"]).with_row_id().limit(len(unscored))
        )
        return dict(zip(found.column("_rowid").to_pylist(), found.column("_score").to_pylist(), strict=True))

    async def fetch_columns() -> pa.Table | None:
        if not row_ids:
            return None
        return await arrow(table.take_row_ids(row_ids).select([*columns, "vector"]).with_row_id())

    rows, bm25 = await asyncio.gather(fetch_columns(), restricted_bm25())
    if rows is None:
        return [], [], None, {}
    keys = dict(zip(rows.column("_rowid").to_pylist(), map(
        tie_key, rows.column("path").to_pylist(), rows.column("chunk_index").to_pylist(), found_ids(rows)), strict=True))
    if lexical_found is not None:
        bm25 |= dict(zip(lexical_found.column("_rowid").to_pylist(), lexical_found.column("_score").to_pylist(),
                         strict=True))
    lexical = best_of(lex_rows, lex_scores, keys, k, "_score")
    dense = best_of(dense_rows, dense_scores, keys, k, "_distance")
    return lexical, dense, rows, bm25
