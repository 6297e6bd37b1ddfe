"""Search quality benchmark: ``docshelf eval`` on every BEIR set, results as JSONL + a table.

    python benchmarks/quality.py [--sets ../shared/eval/scifact ../shared/eval/gorilla-huggingface]
                                 [--modes keyword,semantic,hybrid] [--out benchmarks/results/quality.jsonl]

The first run embeds each corpus (minutes; cached per corpus, model and chunker), later
runs only search. Each line of the JSONL is one (set, split, mode) with the machine facts.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "eval"
METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="*", default=[str(SHARED / "scifact"), str(SHARED / "gorilla-huggingface")])
    ap.add_argument("--modes", default="keyword,semantic,hybrid")
    ap.add_argument("--splits", default="test")
    ap.add_argument("--out", default=str(HERE / "results" / "quality.jsonl"))
    args = ap.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    facts = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
             "when": time.strftime("%Y-%m-%d %H:%M:%S")}
    rows = []
    for path in args.sets:
        for split in args.splits.split(","):
            if not (Path(path) / "qrels" / f"{split}.tsv").exists():
                continue
            proc = subprocess.run(
                [sys.executable, "-c", "import sys; from docshelf.interfaces.cli import main; main(sys.argv[1:])",
                 "eval", path, "--modes", args.modes, "--split", split, "--json"],
                capture_output=True, text=True, check=False,
            )
            if proc.returncode:
                print(proc.stderr, file=sys.stderr)
                continue
            report = json.loads(proc.stdout)
            for m in report["modes"]:
                row = {"set": report["dataset"], "split": split, "mode": m["mode"], **m["metrics"],
                       "p50_ms": m["latency_p50_ms"], "p95_ms": m["latency_p95_ms"], "queries": report["queries"],
                       "documents": report["documents"], "chunks": report["chunks"], "model": report["model"], **facts}
                rows.append(row)
    with out.open("a") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    print("| set | split | mode | " + " | ".join(METRICS) + " | p50 ms | p95 ms |")
    print("|---|---|---|" + "---:|" * (len(METRICS) + 2))
    for r in rows:
        print(f"| {r['set']} | {r['split']} | {r['mode']} | " + " | ".join(f"{r[m]:.4f}" for m in METRICS)
              + f" | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} |")


if __name__ == "__main__":
    main()
