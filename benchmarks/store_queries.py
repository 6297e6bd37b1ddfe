"""What a search's store side is made of: LanceDB's raw queries beside docshelf's store calls.

Times, on an index built by ``corpus.py``, the query embedding, the raw full-text and vector
queries (ids only, whole chunks, with and without refinement), LanceDB's native hybrid query,
the store's ``text_search`` / ``vector_search`` / ``candidate_pool`` and ``Docshelf.search``
per mode: 100 candidates per query (what a k=10 search asks for), median wall and CPU
(process time, every thread) per query. Results in benchmarks/README.md ("The engine's raw
queries at 100k").

    python benchmarks/store_queries.py /tmp/docshelf-bench/n100000-s1-<key>/index --queries 50
    python benchmarks/store_queries.py INDEX --only fts,store.   # a subset, by name fragment
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("LANCEDB_LOG", "error")  # before lancedb loads (the engine reads it then)
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402

import corpus  # noqa: E402  (same folder)

CANDIDATES = 100


def cases(shelf, qs: list[str], qvecs: np.ndarray) -> dict:
    from lancedb.background_loop import LOOP
    from lancedb.query import MatchQuery

    from docshelf.analysis import query_text
    from docshelf.stores.lance_queries import CHUNK_COLUMNS, with_settings

    store, texts, n = shelf.store, [query_text(q) for q in qs], CANDIDATES
    t = store._chunks._table  # the engine's async table

    def fts(i, cols, k=n):
        return LOOP.run(t.query().nearest_to_text(MatchQuery(texts[i], "search_text")).select(cols).limit(k).to_arrow())

    settings = store.vector_query_settings(store._chunks, n)  # the store's own, for its index

    def vec(i, cols, refine=True):
        q = t.query().nearest_to(qvecs[i]).column("vector").distance_type("cosine")
        q = with_settings(q, settings if refine else {k: v for k, v in settings.items() if k != "refine_factor"})
        return LOOP.run(q.select(cols).limit(n).to_arrow())

    def native(i, cols, k):
        q = t.query().nearest_to(qvecs[i]).column("vector").distance_type("cosine").nearest_to_text(
            MatchQuery(texts[i], "search_text"))
        return LOOP.run(q.select(cols).limit(k).to_arrow())

    return {
        "query embedding": lambda i: shelf.embedder.embed_query(qs[i]),
        "fts top-100 id,_score": lambda i: fts(i, ["id", "_score"]),
        "fts top-100 all chunk columns": lambda i: fts(i, CHUNK_COLUMNS + ["_score"]),
        "fts top-10 all chunk columns": lambda i: fts(i, CHUNK_COLUMNS + ["_score"], 10),
        "vector top-100 id,_distance (store settings)": lambda i: vec(i, ["id", "_distance"]),
        "vector top-100 id,_distance (no refine)": lambda i: vec(i, ["id", "_distance"], refine=False),
        "vector top-100 all chunk columns (store settings)": lambda i: vec(i, CHUNK_COLUMNS + ["_distance"]),
        "lancedb native hybrid top-10 all chunk columns": lambda i: native(i, CHUNK_COLUMNS, 10),
        "lancedb native hybrid top-100 id": lambda i: native(i, ["id"], n),
        "store.text_search": lambda i: store.text_search(texts[i], n),
        "store.vector_search": lambda i: store.vector_search(qvecs[i], n),
        "store.candidate_pool": lambda i: store.candidate_pool(texts[i], lambda: qvecs[i], n, None),
        "search keyword": lambda i: shelf.search(qs[i], k=10, mode="keyword"),
        "search semantic": lambda i: shelf.search(qs[i], k=10, mode="semantic"),
        "search hybrid": lambda i: shelf.search(qs[i], k=10, mode="hybrid"),
    }


def timed(fn, count: int) -> tuple[float, float, float]:
    """p50 and p95 wall ms and median CPU ms per query, after one warm-up query."""
    fn(0)
    wall, cpu = [], []
    for i in range(count):
        c, w = time.process_time(), time.perf_counter()
        fn(i)
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return float(np.percentile(wall, 50)), float(np.percentile(wall, 95)), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path, help="an index folder built by corpus.py")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--only", default="", help="comma-separated name fragments")
    args = ap.parse_args()
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=args.index), create=False)
    qs, qvecs = corpus.query_set(args.queries)
    for q in qs[:5]:
        shelf.search(q, k=10, mode="hybrid")
    only = [w for w in args.only.split(",") if w]
    print(f"{shelf.store.count_chunks():,} chunks, {len(qs)} queries, {CANDIDATES} candidates, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f}\n\n| query | p50 ms | p95 ms | CPU ms |\n|---|---:|---:|---:|")
    for name, fn in cases(shelf, qs, qvecs).items():
        if only and not any(w in name for w in only):
            continue
        p50, p95, cpu = timed(fn, len(qs))
        print(f"| {name} | {p50:.1f} | {p95:.1f} | {cpu:.1f} |", flush=True)


if __name__ == "__main__":
    main()
