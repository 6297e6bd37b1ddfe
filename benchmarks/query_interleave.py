"""Paired query latency, query by query: two long-lived processes, one per code version, on one index.

    python benchmarks/query_interleave.py INDEX_DIR OLD_SRC NEW_SRC --modes hybrid --rounds 2 --json out.json

``query_pairs.py`` alternates whole runs, so on this shared 2-core machine the load moves
between the two sides' runs. Here each process (``PYTHONPATH`` = one checkout's ``src``) opens
the index, loads the model and warms up with other questions, then the driver sends the 100
SciFact questions to both in turn, the order swapped every question; each process times its
own ``Docshelf.search`` (k = 10, query embedding cache emptied first: every query embedded):
process CPU of all its threads and wall. Prints per mode the medians, the median of the
per-question CPU ratios (new ÷ old), and how many answers (ids, scores to 6 decimals, note)
are identical. Two processes of the same code differ by up to ~10 % (memory layout, cores):
run an A/A pair (the same ``src`` twice) beside it, and read a mode whose code did not change
as a control.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CHILD = r'''
import json, os, sys, time
os.environ.setdefault("LANCEDB_LOG", "error")
sys.path.insert(0, sys.argv[2])
import corpus
from docshelf.config import Settings
from docshelf.service import Docshelf
shelf = Docshelf(Settings(index_dir=sys.argv[1]), create=False)
shelf.embedder.load()
if os.environ.get("DOCSHELF_BENCH_FREEZE"):  # what a server does once its index is open and model loaded
    from docshelf import collector
    collector.enable()
    collector.freeze_startup()
for q in corpus.questions(140, seed=11)[-20:]:  # other questions than the timed ones
    for m in ("hybrid", "semantic", "keyword"):
        shelf.search(q, k=10, mode=m)
print("ready", flush=True)
for line in sys.stdin:
    q, mode = json.loads(line)
    shelf.searcher.forget_query_embeddings()
    c, t = time.process_time(), time.perf_counter()
    r = shelf.search(q, k=10, mode=mode)
    wall, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
    print(json.dumps([cpu, wall, [[h.chunk_id, round(h.score, 6)] for h in r.hits] + [r.note]]), flush=True)
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("index", type=Path)
    ap.add_argument("old_src", type=Path)
    ap.add_argument("new_src", type=Path)
    ap.add_argument("--modes", default="hybrid,semantic,keyword")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--new-env", action="append", default=[], metavar="KEY=VALUE",
                    help="an environment variable for the new side only, e.g. DOCSHELF_QUERY_INT8=1 (repeatable)")
    ap.add_argument("--freeze", choices=("old", "new"), help="freeze start-up's objects in this side only, "
                    "as `docshelf serve` does (collector.py); give the same src twice to pair the freeze alone")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import corpus

    qs, _ = corpus.query_set(100)
    procs = {}
    for name, src in (("old", args.old_src), ("new", args.new_src)):
        procs[name] = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(args.index), str(HERE)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, env=dict(os.environ, PYTHONPATH=str(src), DOCSHELF_BENCH_FREEZE="1" if args.freeze == name else "",
                    **(dict(kv.split("=", 1) for kv in args.new_env) if name == "new" else {})))
    for p in procs.values():
        if p.stdout.readline().strip() != "ready":
            raise SystemExit("a child did not start (run it by hand to see why)")
    out: dict = {"load_before": os.getloadavg()[0], "modes": {}}
    for mode in args.modes.split(","):
        res: dict[str, list] = {"old": [], "new": []}
        for r in range(args.rounds):
            for i, q in enumerate(qs):
                for name in (("old", "new") if (i + r) % 2 == 0 else ("new", "old")):
                    procs[name].stdin.write(json.dumps([q, mode]) + "\n")
                    procs[name].stdin.flush()
                    res[name].append(json.loads(procs[name].stdout.readline()))
        cpu = {s: np.array([x[0] for x in res[s]]) for s in res}
        wall = {s: np.array([x[1] for x in res[s]]) for s in res}
        m = {f"{s}_{what}_{p}": float(np.percentile(v[s], p)) for what, v in (("cpu", cpu), ("wall", wall))
             for s in ("old", "new") for p in (50, 95)}
        m |= {"cpu_ratio_p50": float(np.median(cpu["new"] / cpu["old"])),
              "identical": sum(a[2] == b[2] for a, b in zip(res["old"], res["new"], strict=True)), "searches": len(cpu["old"])}
        out["modes"][mode] = m
        print(f"{mode:9s} CPU p50 {m['old_cpu_50']:6.1f} -> {m['new_cpu_50']:6.1f} (per-question ratio {m['cpu_ratio_p50']:.3f}), "
              f"p95 {m['old_cpu_95']:6.1f} -> {m['new_cpu_95']:6.1f}; wall p50 {m['old_wall_50']:6.1f} -> {m['new_wall_50']:6.1f}; "
              f"identical {m['identical']}/{m['searches']}", flush=True)
    out["load_after"] = os.getloadavg()[0]
    print(f"load {out['load_before']:.1f} -> {out['load_after']:.1f}")
    for p in procs.values():
        p.stdin.close()
        p.wait()
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
