"""Cyclic-GC pauses inside a long-running server's searches (issue 11).

One process does what ``docshelf serve`` does at start-up (the allocator tuning, the MCP
server's imports, a ``ServerRuntime`` opening the index and loading the model), then runs
``--searches`` searches through ``runtime.search`` with ``gc.callbacks`` timing every
collection (wall and the collecting thread's CPU, per generation) and each search's thread
CPU and wall. Then the server's RSS 5 s after the last search (at rest, after the idle trim),
and the same after a *reopen*: a second ``Docshelf`` over the same index replaces the first
(what a server does after ``index --force``, at its worst: every start-up object of the old
service becomes garbage), the old one dropped, a few searches, 5 s of rest.

    PYTHONPATH=src python benchmarks/gc_pauses.py INDEX_DIR --searches 240 [--freeze] --json OUT

``--freeze`` calls ``gc.freeze()`` here once the model is loaded (for code that does not).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024 / 1e6
    return 0.0


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("--searches", type=int, default=240)
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--freeze", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    os.environ["DOCSHELF_INDEX_DIR"] = str(args.index)
    from docshelf import allocator

    allocator.tune()
    from docshelf.config import load_settings
    from docshelf.interfaces import mcp_server  # noqa: F401 - the server's imports, as serve has them
    from docshelf.live.runtime import ServerRuntime
    from docshelf.requests import SearchRequest

    sys.path.insert(0, str(HERE))
    import corpus

    qs = corpus.questions(args.searches + 40, seed=11)
    runtime = ServerRuntime(load_settings(), read_only=True, watch=False, query_socket=False)
    runtime.start()
    runtime.service(timeout=120)
    deadline = time.monotonic() + 300
    while runtime.model_state != "loaded" and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # the model thread's last steps (drop_startup_pages, whatever follows it)
    if args.freeze:
        gc.freeze()
    res: dict = {"freeze_arg": args.freeze, "frozen_at_start": gc.get_freeze_count(),
                 "tracked_at_start": len(gc.get_objects()), "threshold": gc.get_threshold(),
                 "rss_ready_mb": round(rss_mb(), 1)}

    pauses: list[tuple[int, float, float]] = []
    state: dict = {}

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            state["t"], state["c"] = time.perf_counter(), time.thread_time()
        else:
            pauses.append((info["generation"], (time.perf_counter() - state["t"]) * 1000,
                           (time.thread_time() - state["c"]) * 1000))

    for q in qs[:5]:  # warm-up, not counted
        runtime.search(SearchRequest(query=q, mode=args.mode, k=10))
    gc.callbacks.append(on_gc)
    cpu, wall = [], []
    for q in qs[5 : 5 + args.searches]:
        c0, t0 = time.thread_time(), time.perf_counter()
        runtime.search(SearchRequest(query=q, mode=args.mode, k=10))
        cpu.append((time.thread_time() - c0) * 1000)
        wall.append((time.perf_counter() - t0) * 1000)
    gc.callbacks.remove(on_gc)
    time.sleep(5)
    res["rss_rest_mb"] = round(rss_mb(), 1)
    c0, t0 = time.thread_time(), time.perf_counter()
    found = gc.collect()  # what one full pass costs in this server now, whenever it comes
    res["full_pass"] = {"wall_ms": round((time.perf_counter() - t0) * 1000, 1),
                        "cpu_ms": round((time.thread_time() - c0) * 1000, 1), "collected": found,
                        "tracked": len(gc.get_objects()), "frozen": gc.get_freeze_count()}
    by_gen = {g: [p for p in pauses if p[0] == g] for g in (0, 1, 2)}
    res["gc"] = {f"gen{g}": {"n": len(v), "wall_ms_total": round(sum(p[1] for p in v), 1),
                             "wall_ms_max": round(max((p[1] for p in v), default=0), 1),
                             "cpu_ms_max": round(max((p[2] for p in v), default=0), 1)} for g, v in by_gen.items()}
    res["gc_pauses_over_10ms_wall"] = sorted(round(p[1], 1) for p in pauses if p[1] > 10)
    res["search"] = {k: {"p50": round(statistics.median(v), 1), "p95": round(pct(v, 95), 1),
                         "p99": round(pct(v, 99), 1), "max": round(max(v), 1)} for k, v in (("cpu_ms", cpu), ("wall_ms", wall))}

    # A reopen: a second service over the same index replaces the first (the model kept).
    from docshelf.service import Docshelf

    old = runtime._service
    new = Docshelf(runtime.settings)
    new.wait_for_model = False
    new.embedder = old.embedder
    runtime._service = new
    del old
    for q in qs[5 + args.searches :]:
        runtime.search(SearchRequest(query=q, mode=args.mode, k=10))
    gc.collect()
    time.sleep(5)
    res["after_reopen"] = {"rss_rest_mb": round(rss_mb(), 1), "tracked": len(gc.get_objects()),
                           "frozen": gc.get_freeze_count()}
    print(json.dumps(res, indent=1))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1))
    os._exit(0)


if __name__ == "__main__":
    main()
