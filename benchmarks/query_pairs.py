"""Query latency per mode, every query's embedding computed (no cache hits), wall and CPU time.

    python benchmarks/query_pairs.py INDEX_DIR --json out.json      # one code version
    # before/after: alternate processes with PYTHONPATH=<old src> and <new src> on the same index

Opens a ``corpus.py``-built index (read-only use: nothing is indexed), warms up with other
questions than the timed ones, then times ``Docshelf.search`` (k=10) over the 100 SciFact
questions per mode. The searcher's query-embedding cache is emptied before every timed search,
so each figure includes the query embedding (``latency.py`` and ``run.py`` warm up with the
timed questions, so their semantic and hybrid figures were cache hits). Also records each
search's process CPU time (all threads) and, for a check that results did not change, each
search's top-10 ids, rounded scores and note.

``--server-process`` sets the process up as ``docshelf serve`` does: the CLI's allocator
settings (``allocator.tune()``) before anything starts and, right after the model loads,
``allocator.drop_startup_pages()`` (when the code has it); the warm-up's CPU time then shows
what the first searches pay to fault back the library pages they need.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("LANCEDB_LOG", "error")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MODES = ("hybrid", "semantic", "keyword")


def forget(shelf) -> None:
    """Drop cached query embeddings (a cache hit would skip the model: not what is measured)."""
    clear = getattr(shelf.searcher, "forget_query_embeddings", None)
    if clear is not None:
        clear()
    else:  # code from before the method existed
        shelf.searcher._vectors.clear()


def measure(index: Path, queries: int = 100, modes=MODES, rounds: int = 1, server_process: bool = False) -> dict:
    import corpus
    from docshelf import allocator
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    if server_process:
        allocator.tune()
    shelf = Docshelf(Settings(index_dir=index), create=False)
    shelf.embedder.load()
    dropped = getattr(allocator, "drop_startup_pages", lambda: 0)() if server_process else 0
    qs, _ = corpus.query_set(queries)
    warm = corpus.questions(queries + 20, seed=11)[-20:]  # other questions than the timed ones
    c = time.process_time()
    for mode in modes:
        for q in warm:
            shelf.search(q, k=10, mode=mode)
    out: dict = {"load_before": os.getloadavg()[0], "modes": {}, "dropped_mb": round(dropped / 1e6, 1),
                 "warmup_cpu_s": round(time.process_time() - c, 3)}
    for mode in modes:
        wall, cpu, results = [], [], []
        for _ in range(rounds):
            for q in qs:
                forget(shelf)
                c, t = time.process_time(), time.perf_counter()
                r = shelf.search(q, k=10, mode=mode)
                wall.append((time.perf_counter() - t) * 1000)
                cpu.append((time.process_time() - c) * 1000)
                results.append([[h.chunk_id, round(h.score, 4)] for h in r.hits] + [r.note])
        out["modes"][mode] = {
            "p50": float(np.percentile(wall, 50)), "p95": float(np.percentile(wall, 95)),
            "cpu_p50": float(np.percentile(cpu, 50)), "cpu_p95": float(np.percentile(cpu, 95)),
            "results": results[: len(qs)],
        }
    out["load_after"] = os.getloadavg()[0]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--server-process", action="store_true", help="allocator settings and page drop as in `docshelf serve`")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    res = measure(args.index, args.queries, tuple(args.modes.split(",")), args.rounds, args.server_process)
    for mode, m in res["modes"].items():
        print(f"{mode:9s} p50 {m['p50']:6.1f}  p95 {m['p95']:6.1f}  cpu p50 {m['cpu_p50']:6.1f}  cpu p95 {m['cpu_p95']:6.1f}")
    print(f"load {res['load_before']:.1f} -> {res['load_after']:.1f}; warm-up {res['warmup_cpu_s']} CPU-s, "
          f"start-up pages dropped {res['dropped_mb']} MB")
    if args.json:
        args.json.write_text(json.dumps(res))


if __name__ == "__main__":
    main()
