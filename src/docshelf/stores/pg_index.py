"""pgvector's vector index for a table's size, and the query settings that go with it.

Chosen by recall@10 against exact search (``benchmarks/pg_vector_index.py``; benchmarks/README.md,
"PostgreSQL: the vector index by size"), on the synthetic ``corpus.py`` corpus (real SciFact
text and embeddings, each real chunk reused with jitter: ~28 near-copies a chunk at 100k, ~280
at 1M), held-out queries choosing, the timed SciFact questions reported:

* **HNSW** (pgvector's default graph, m 16, ef_construction 64) below ``IVFFLAT_FROM_ROWS``, its
  search breadth ``hnsw.ef_search`` growing with the table (``ef_search``): at 300k, 200 gave
  recall 0.86, 1,000 gave 0.99. A graph of that many near-copies needs a search that visits all
  of the right clusters, and pgvector caps ``ef_search`` at 1,000: at 500k 1,000 gave 0.95 / 0.93,
  at 1M 0.44–0.60 (a denser m 32 / ef_construction 128 graph 0.69–0.90, built in 634 s). A denser
  build helps at 300k (ef_construction 200: 0.99 at ef_search 200–400) for 3.3× the build time.
* **IVFFlat** from ``IVFFLAT_FROM_ROWS``: ~1,000-row lists (``lists`` = rows / 1,000, as pgvector
  advises up to 1M rows), exact distances inside the probed lists, so a cluster of near-copies
  is read whole. 1M: recall 0.976 probing 30 of 1,000 lists, built in 128 s (the HNSW graph: 545 s).
  The embedded store made the same choice for the same reason (``vector_index.py``).

Filtered queries use both methods' iterative scans (``relaxed_order``), so a filter still
returns k rows; the store falls back to an exact scan when even that runs dry. Both methods'
settings are sent with every vector query: a reader whose cached view of the index is stale
(another server rebuilt it) still searches it sensibly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .pg_sql import set_local

HNSW = "hnsw"
IVFFLAT = "ivfflat"
IVFFLAT_FROM_ROWS = 400_000
"""IVFFlat from this many chunks, HNSW below: where ``ef_search`` reaches pgvector's 1,000. HNSW at
1,000 gave recall@10 0.989 / 0.991 at 300k (held-out / timed), 0.967 / 0.960 at 400k, 0.950 / 0.928
at 500k; IVFFlat probing 30 lists 0.983 / 0.969 at 400k, 0.986 / 0.983 at 500k."""
ROWS_PER_LIST = 1000
MIN_PROBES = 30
PROBE_SHARE = 0.03
"""Lists a query reads: 3% of them, at least 30 (all of a smaller index). Held-out / timed
recall@10 at 1M (1,000 lists): 20 probes 0.970 / 0.966, 30 0.976 / 0.978, 40 0.985 / 0.991; at
400k (400 lists) 20 gave only 0.938 / 0.962, hence 30. Each probe is ~1,000 exact distances."""
EF_SEARCH_MIN = 200
ROWS_PER_EF = 400
EF_SEARCH_MAX = 1000  # pgvector's ceiling
"""HNSW search breadth: one candidate per ``ROWS_PER_EF`` rows, at least ``EF_SEARCH_MIN`` (and
2 k for larger k), at most pgvector's 1,000: 250 at 100k, 750 at 300k, 1,000 at 400k. Chosen on
held-out queries for recall@10 ≈ 0.97: 100k gave 0.960 at 200, 0.985 at 250, 0.991 at 400; 300k
0.960 at 600, 0.961 at 750, 0.974 at 800, 0.989 at 1,000 (builds vary by ~0.01–0.03)."""
BUILD_MEMORY_MB = (512, 4096)  # maintenance_work_mem for a bulk build: at least, at most
HNSW_BYTES_PER_ROW = 800  # pgvector's graph beside each 4·d-byte vector (m = 16), with some slack
DESCRIBE = ("SELECT am.amname, c.reloptions, (SELECT chunks FROM {stats}) FROM (SELECT to_regclass(%s) AS oid) r "
            "LEFT JOIN pg_class c ON c.oid = r.oid LEFT JOIN pg_am am ON am.oid = c.relam")
"""The index's access method and options, and the table's rows (the stats table's count), in one read."""
REBUILD_GROWTH = 4
"""An IVFFlat index is rebuilt once the table holds four times (or a quarter of) the rows its
lists were trained for: new rows join the old lists, which then grow past their size."""


@dataclass(frozen=True)
class PgVectorIndex:
    """An index's access method and its build options (``pg_class.reloptions``)."""

    method: str
    options: tuple[tuple[str, int], ...] = ()

    @property
    def lists(self) -> int:
        return dict(self.options).get("lists", 1)

    def ddl(self, table: str, name: str) -> str:
        with_ = f" WITH ({', '.join(f'{k} = {v}' for k, v in self.options)})" if self.options else ""
        return f"CREATE INDEX {name} ON {table} USING {self.method} (embedding vector_cosine_ops){with_}"

    @classmethod
    def from_catalog(cls, method: str | None, reloptions: list[str] | None) -> PgVectorIndex | None:
        """The index the catalog describes (None: no index)."""
        if not method:
            return None
        options = []
        for item in reloptions or ():
            key, _, value = item.partition("=")
            if value.isdigit():
                options.append((key, int(value)))
        return cls(method, tuple(sorted(options)))


METHODS = ("auto", HNSW, IVFFLAT)
"""What ``vector_index=`` in the store URL may say: ``auto`` (the size rule, the default) or a
method the operator chose (for a corpus unlike the one the rule was measured on: e.g. HNSW past
400k rows when its chunks have few near-copies). Either way the method's parameters follow the
table's size (IVFFlat's lists, HNSW's ``ef_search``)."""


def index_for(rows: int, method: str | None = None) -> PgVectorIndex:
    """The index a table of ``rows`` chunks gets: pgvector's default HNSW graph below
    ``IVFFLAT_FROM_ROWS``, IVFFlat with ~1,000-row lists from there (``method``: that one instead)."""
    if method not in (None, "auto", HNSW, IVFFLAT):
        raise ValueError(f"unknown vector index method {method!r}")
    if method == HNSW or (method in (None, "auto") and rows < IVFFLAT_FROM_ROWS):
        return PgVectorIndex(HNSW)
    return PgVectorIndex(IVFFLAT, (("lists", max(1, rows // ROWS_PER_LIST)),))


def needs_rebuild(current: PgVectorIndex | None, rows: int, method: str | None = None) -> bool:
    """Whether ``optimize`` should replace the index: none, one of the other method, or IVFFlat
    lists trained for a quarter or four times this many rows."""
    want = index_for(rows, method)
    if current is None or current.method != want.method:
        return True
    if want.method == IVFFLAT:
        return not want.lists / REBUILD_GROWTH <= current.lists <= want.lists * REBUILD_GROWTH
    return False


def ef_search(rows: int, k: int) -> int:
    """HNSW's search breadth for a top-``k`` query on ``rows`` chunks (see ``ROWS_PER_EF``)."""
    return min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, 2 * k, math.ceil(rows / ROWS_PER_EF)))


def probes(lists: int) -> int:
    """IVFFlat lists a query reads: ``PROBE_SHARE`` of them, at least ``MIN_PROBES``, at most all."""
    return min(lists, max(MIN_PROBES, math.ceil(lists * PROBE_SHARE)))


def query_settings(index: PgVectorIndex | None, rows: int, k: int) -> dict[str, str]:
    """The server settings of a top-``k`` vector query (``SET LOCAL``-able name → value), for
    both methods: the one not in use ignores its settings."""
    lists = index.lists if index is not None and index.method == IVFFLAT else max(1, rows // ROWS_PER_LIST)
    return {
        "hnsw.ef_search": str(ef_search(rows, k)),
        "hnsw.iterative_scan": "relaxed_order",
        "ivfflat.probes": str(probes(lists)),
        "ivfflat.iterative_scan": "relaxed_order",
    }


def build_memory_mb(conn, rows: int, dimensions: int) -> int:
    """``maintenance_work_mem`` for building the vector index over ``rows``: the whole HNSW
    graph (vectors and neighbour lists) in memory, since pgvector builds several times slower
    once it spills (IVFFlat needs far less: its k-means sample); never below what the server is
    already set to (an operator's choice wins), capped so a 1M-row build does not take the
    machine's memory."""
    have = conn.execute("SELECT setting::bigint * 1024 FROM pg_settings WHERE name = 'maintenance_work_mem'").fetchone()[0]
    need = rows * (4 * dimensions + HNSW_BYTES_PER_ROW) // 2**20
    low, high = BUILD_MEMORY_MB
    return max(int(have) // 2**20, min(max(need, low), high))


def build(conn, index: PgVectorIndex, table: str, name: str, memory_mb: int) -> None:
    """Build ``index`` as ``name`` on ``table`` (a connection in autocommit mode): under a new
    name first, then swapped in in one transaction, so searches use the old index until then."""
    with conn.transaction(), conn.cursor() as cur:  # SET LOCAL: Citus builds the shards' indexes with it too
        set_local(cur, {"maintenance_work_mem": f"{memory_mb}MB"})
        cur.execute(f"DROP INDEX IF EXISTS {name}_new")
        cur.execute(index.ddl(table, f"{name}_new"))
    with conn.transaction():
        conn.execute(f"DROP INDEX IF EXISTS {name}")
        conn.execute(f"ALTER INDEX {name}_new RENAME TO {name}")
