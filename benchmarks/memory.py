"""Peak memory of `index` does not grow with the number of files (issue 7, item 1).

Indexes N generated files of 1 MB each in a fresh subprocess per run and reports the
child's peak RSS (``ru_maxrss``). Two corpora:

* ``html`` (default, real packaged model): each file is a 1 MB HTML page whose bulk is an
  inline ``<style>`` block the parser drops, plus three paragraphs of prose, so every
  byte is read, hashed and parsed while only a few chunks per file reach the model
  (the real model on 300 MB of prose would take hours on a laptop CPU).
* ``markdown`` (``--embedder fake``): each file is 1 MB of prose, so every byte is also
  chunked and stored (about 1,000 chunks per file); the deterministic fake embedder
  stands in for the model to keep the run short.

    python benchmarks/memory.py --corpus html --files 3,300 --repeat 3
    python benchmarks/memory.py --corpus markdown --embedder fake --files 3,300 --repeat 1
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MB = 1_000_000
WORDS = (
    "index search document folder vector chunk model query parser token memory stream batch record "
    "commit reader writer crash recover version config glob watcher root heading section page line"
).split()


def prose(seed: int, n_chars: int) -> str:
    out, i = [], seed
    size = 0
    while size < n_chars:
        sentence = " ".join(WORDS[(i * 7 + k * 13) % len(WORDS)] for k in range(12)).capitalize() + f" n{i}."
        out.append(sentence)
        size += len(sentence) + 1
        i += 1
        if i % 8 == 0:
            out.append("\n\n")
    return " ".join(out)[:n_chars]


def write_corpus(folder: Path, n: int, kind: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for f in range(n):
        if kind == "html":
            body = "".join(f"<p>{prose(f * 3 + p, 600)}</p>\n" for p in range(3))
            head = f"<html><head><title>Page {f}</title><style>\n"
            tail = f"</style></head><body><h1>Page {f}</h1>\n{body}</body></html>\n"
            filler = (".c{color:#123456;margin:0 auto;}\n" * (MB // 30))[: MB - len(head) - len(tail)]
            (folder / f"page{f:04d}.html").write_text(head + filler + tail)
        else:
            text = f"# Document {f}\n\n" + prose(f, MB - 40)
            (folder / f"doc{f:04d}.md").write_text(text)


def child(docs: Path, index_dir: Path, embedder: str) -> None:
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index_dir), embedder=FakeEmbedder(384) if embedder == "fake" else None)
    shelf.embedder.load()
    after_load = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    report = shelf.index([docs])
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({
        "files": len(report.added), "chunks": shelf.store.count_chunks(), "seconds": round(seconds, 1),
        "peak_rss_mb": round(peak, 1), "rss_after_model_load_mb": round(after_load, 1),
    }))


def run_one(n: int, kind: str, embedder: str, work: Path) -> dict:
    docs, index_dir = work / f"docs-{kind}-{n}", work / f"index-{kind}-{n}-{time.time_ns()}"
    if not docs.exists():
        write_corpus(docs, n, kind)
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(docs), str(index_dir), embedder],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", choices=("html", "markdown"), default="html")
    parser.add_argument("--embedder", choices=("real", "fake"), default="real")
    parser.add_argument("--files", default="3,300", help="comma-separated file counts")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=None, help="folder for corpora and indexes (default: a temp dir)")
    parser.add_argument("--child", nargs=3, metavar=("DOCS", "INDEX", "EMBEDDER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]), args.child[2])
        return
    counts = [int(x) for x in args.files.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        rows = []
        for n in counts:
            runs = []
            for _ in range(args.repeat):
                runs.append(run_one(n, args.corpus, args.embedder, work))
                print(json.dumps({"files": n, "run": len(runs), **runs[-1]}), flush=True)
            row = {
                "corpus": args.corpus, "embedder": args.embedder, "files": n, "mb_on_disk": n,
                "chunks": runs[0]["chunks"], "runs": len(runs),
                "peak_rss_mb": statistics.median(r["peak_rss_mb"] for r in runs),
                "seconds": statistics.median(r["seconds"] for r in runs),
                "machine": f"{platform.machine()} {platform.python_version()}",
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    base = rows[0]["peak_rss_mb"]
    print("\n| corpus | embedder | files (1 MB each) | chunks | peak RSS MB (median) | vs first | index s (median) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['corpus']} | {r['embedder']} | {r['files']} | {r['chunks']} | {r['peak_rss_mb']:.0f} "
            f"| {r['peak_rss_mb'] - base:+.0f} MB | {r['seconds']:.1f} |"
        )


if __name__ == "__main__":
    main()
