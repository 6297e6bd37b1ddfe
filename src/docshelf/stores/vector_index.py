"""The approximate vector index for a table's size, and the query settings that go with it.

Chosen by recall@10 against exact search on held-out queries (``benchmarks/ann_index.py``;
benchmarks/README.md, "The vector index by size"): IVF-HNSW-SQ (the engine's graphs over
scalar-quantised vectors, 50k-row partitions) reached 0.975 at 200k chunks but only 0.82–0.93
at 1M whatever the search breadth, and its build took 52 minutes at 1M. IVF-FLAT (exact
distances inside the probed partitions) with ~1,000-row partitions, probing 4% of them (at
least 20), gave 0.969–0.986 at 100k–200k and 0.975–0.995 at 1M (held-out queries, ``probes``),
and builds in seconds at 200k, ~4.5 minutes at 1M. Fewer, larger partitions did worse for the
rows scanned (500 at 1M, 40 probed: 0.977 for twice the rows).

Below ``FLAT_FROM_ROWS`` the store keeps IVF-HNSW-SQ: at 100k it had the better recall (0.977
against 0.957 on the timed questions), answered semantic searches 3.8 ms faster (paired, same
code), and a server holding it stayed ~60–100 MB smaller (IVF-FLAT keeps every vector in
float32 in its partitions: 535 against 433–471 MB at rest, where the target is 500).

The index's name records its kind and partition count (``vector_ivf_flat_p1000``), so the
query side reads its settings from the index actually built, and ``optimize`` knows when the
table has outgrown it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

KIND = "ivf_flat"
ROWS_PER_PARTITION = 1000
"""IVF-FLAT's partitions of about this many rows: ``rows // 1000`` (1,000 at 1M chunks)."""
HNSW_KIND = "ivf_hnsw_sq"
HNSW_ROWS_PER_PARTITION = 50_000
FLAT_FROM_ROWS = 250_000
"""IVF-FLAT from this many chunks; IVF-HNSW-SQ below (held-out recall 0.975–0.978 up to 200k)."""
MIN_PROBES = 20
PROBE_SHARE = 0.04
"""Partitions a query searches (``nprobes``): 4% of them, at least 20 (all of a smaller index).
Held-out recall@10: 0.986 at 100k (20 of 99), 0.969 at 200k (20 of 200), 0.975–0.995 at 1M
(40 of 1,000, two builds). 40 at 100k gave 0.998 but cost 5 ms more CPU a query, and made
semantic search at 100k about twice as slow as the old HNSW-SQ index in paired runs."""
REBUILD_GROWTH = 4
"""Rebuild once the table holds this many times the rows the index was trained on (or a
quarter of them): new rows join the old partitions, which then grow past their size."""

_NAME = re.compile(r"^vector_(?P<kind>[a-z_]+?)_p(?P<partitions>\d+)$")


@dataclass(frozen=True)
class VectorIndex:
    """An index's kind and its partition count (IVF's clusters)."""

    kind: str
    partitions: int

    @property
    def name(self) -> str:
        return f"vector_{self.kind}_p{self.partitions}"

    @classmethod
    def parse(cls, name: str) -> VectorIndex | None:
        """The index a name describes; None for an index this module did not name (older builds)."""
        m = _NAME.match(name or "")
        return cls(m["kind"], int(m["partitions"])) if m else None

    def config(self):
        from lancedb.index import IvfFlat, IvfHnswSq

        kind = IvfHnswSq if self.kind == HNSW_KIND else IvfFlat
        return kind(distance_type="cosine", num_partitions=self.partitions)


def index_for(rows: int) -> VectorIndex:
    """The index a table of ``rows`` chunks gets: IVF-HNSW-SQ with partitions of ~50,000 rows
    below ``FLAT_FROM_ROWS``, IVF-FLAT with partitions of ~1,000 rows from there."""
    if rows < FLAT_FROM_ROWS:
        return VectorIndex(HNSW_KIND, max(1, rows // HNSW_ROWS_PER_PARTITION))
    return VectorIndex(KIND, max(1, rows // ROWS_PER_PARTITION))


def needs_rebuild(current: VectorIndex | None, rows: int) -> bool:
    """Whether ``optimize`` should replace the table's vector index: one of another kind (or an
    older, unnamed one), or trained on a table a quarter or four times this size."""
    want = index_for(rows)
    if current is None or current.kind != want.kind:
        return True
    return not want.partitions / REBUILD_GROWTH <= current.partitions <= want.partitions * REBUILD_GROWTH


def probes(partitions: int) -> int:
    """Partitions a query searches: ``PROBE_SHARE`` of them, at least ``MIN_PROBES``, at most all."""
    return min(partitions, max(MIN_PROBES, math.ceil(partitions * PROBE_SHARE)))


HNSW_EF_MIN = 200
"""HNSW search breadth for a top-``k`` query: at least this, ``2 k`` for larger k (``hnsw_ef``).
At 100k chunks, top 10 against exact: recall 0.977 at the engine's default, 0.991 at 200 (embedded).
PostgreSQL's pgvector index has its own rule by table size (``pg_index.ef_search``)."""


def hnsw_ef(k: int) -> int:
    """The HNSW search breadth of the embedded store's IVF-HNSW-SQ index."""
    return max(HNSW_EF_MIN, 2 * k)


def query_settings(index: VectorIndex | None, k: int) -> dict[str, int]:
    """The vector query's settings for ``index`` (a method name of LanceDB's query → value)."""
    if index is None or index.kind == HNSW_KIND:  # IVF-HNSW-SQ, named or from an older build
        return {"refine_factor": 1, "ef": hnsw_ef(k)}
    return {"nprobes": probes(index.partitions)}
