"""Indexing speed and peak memory with the real packaged model.

Writes the first N SciFact abstracts (../shared/eval/scifact) as Markdown files, then in a
fresh subprocess per configuration: a full index, a no-op re-index (nothing changed), and
one edited file. Reports chunks/s, peak RSS and timings as JSON lines and a Markdown table.

    python benchmarks/indexing.py --docs 200 --batch-sizes 8,32 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCIFACT = HERE.parent.parent / "shared" / "eval" / "scifact" / "corpus.jsonl"


def write_corpus(folder: Path, n: int) -> None:
    with SCIFACT.open() as f:
        for i, line in enumerate(f):
            if i >= n:
                break
            doc = json.loads(line)
            (folder / f"{doc['_id']}.md").write_text(f"# {doc['title']}\n\n{doc['text']}\n")


def child(docs: Path, index_dir: Path, batch: int, threads: int) -> None:
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index_dir, embed_batch_size=batch, embed_threads=threads))
    t0 = time.perf_counter()
    shelf.embedder.load()
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = shelf.index([docs])
    full_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    noop = shelf.index([docs])
    noop_s = time.perf_counter() - t0
    first = sorted(docs.glob("*.md"))[0]
    first.write_text(first.read_text() + "\nAn added sentence about something new.\n")
    t0 = time.perf_counter()
    shelf.index([docs])
    edit_s = time.perf_counter() - t0
    latencies = {}
    for mode in ("keyword", "semantic", "hybrid"):
        times = []
        for q in ("cancer cells and immune response", "vitamin D deficiency", "protein folding in bacteria") * 5:
            t = time.perf_counter()
            shelf.search(q, k=10, mode=mode)
            times.append((time.perf_counter() - t) * 1000)
        latencies[mode] = statistics.median(times)
    print(json.dumps({
        "batch": batch, "threads": threads, "docs": len(report.added), "chunks": report.chunks_embedded,
        "model_load_s": round(load_s, 2), "full_s": round(full_s, 1),
        "chunks_per_s": round(report.chunks_embedded / full_s, 1), "noop_reindex_s": round(noop_s, 2),
        "one_edit_s": round(edit_s, 2), "unchanged_after_noop": noop.unchanged,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "query_ms_p50": {k: round(v, 1) for k, v in latencies.items()},
    }))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--batch-sizes", default="8,32")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        docs, index_dir, batch, threads = args.child
        child(Path(docs), Path(index_dir), int(batch), int(threads))
        return
    rows = []
    for batch in (int(b) for b in args.batch_sizes.split(",")):
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as tmp:
                docs = Path(tmp) / "docs"
                docs.mkdir()
                write_corpus(docs, args.docs)
                out = subprocess.run(
                    [sys.executable, __file__, "--child", str(docs), str(Path(tmp) / "index"), str(batch), str(args.threads)],
                    capture_output=True, text=True, check=True,
                )
                row = json.loads(out.stdout.strip().splitlines()[-1])
                print(json.dumps(row), flush=True)
                rows.append(row)
    print("\n| batch | threads | docs | chunks | chunks/s | full index s | no-op re-index s | one edit s | peak RSS MB | query p50 ms (kw / sem / hyb) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        q = r["query_ms_p50"]
        print(f"| {r['batch']} | {r['threads']} | {r['docs']} | {r['chunks']} | {r['chunks_per_s']} | {r['full_s']} | "
              f"{r['noop_reindex_s']} | {r['one_edit_s']} | {r['peak_rss_mb']} | {q['keyword']} / {q['semantic']} / {q['hybrid']} |")


if __name__ == "__main__":
    main()
