"""Indexing speed and peak memory with the real packaged model.

Two benchmarks:

``--throughput`` (issue 11, target 2): the whole pipeline's chunks/s next to embed-only, the
packaged model alone on the very texts the pipeline embeds (parsed and chunked by the
pipeline's own parsers and chunker beforehand, untimed) — the limit of this machine for this
model. Both run side by side in fresh processes, alternating, at 1 and 2 threads, repeated;
medians and the paired pipeline ÷ embed-only ratio are reported, in chunks per wall second
and per CPU second (the second is steadier on a shared machine). The corpus is the two
documentation sites in ``docsets/`` (Starlette and coverage.py pages), so it needs no
``../shared``. ``throughput()`` is the function ``run.py`` can call.

    python benchmarks/indexing.py --throughput --threads 1,2 --repeat 3

Default: the first N SciFact abstracts (../shared/eval/scifact) as Markdown files, then in a
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
DOCSETS = ("starlette", "coverage")


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


# -- throughput: pipeline vs embed-only ------------------------------------------------------
def write_docs_site(folder: Path, docsets: tuple[str, ...] = DOCSETS, max_files: int | None = None) -> Path:
    """Copy the pages of ``docsets/<name>/docs`` into ``folder`` (one subfolder each; the first
    ``max_files`` of each by name when given)."""
    import shutil

    for name in docsets:
        pages = sorted(p for p in (HERE / "docsets" / name / "docs").rglob("*") if p.is_file())
        source = HERE / "docsets" / name / "docs"
        for page in pages[:max_files]:
            target = folder / name / page.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, target)
    return folder


def _pipeline_texts(shelf, docs: Path) -> list[str]:
    """The texts the pipeline embeds for ``docs``: its own discovery, parsers and chunker, each text once."""
    from docshelf.pipeline.discover import discover
    from docshelf.pipeline.indexer import Indexer, sha256_bytes

    indexer = Indexer(shelf.settings, shelf.store, shelf.embedder, shelf.registry, shelf.chunker)
    found = discover([docs], registry=shelf.registry, max_bytes=shelf.settings.max_file_bytes,
                     exclude=shelf.settings.exclude, skip=shelf.settings.own_paths())
    texts: dict[str, None] = {}
    for src in found.files:
        data = src.path.read_bytes()
        for chunk in indexer._prepare(src, data, sha256_bytes(data)).chunks:
            texts.setdefault(chunk.embed_text)
    return list(texts)


def throughput_child(mode: str, docs: Path, index_dir: Path, threads: int) -> dict:
    """One timed pass in this (fresh) process: ``pipeline`` (index ``docs``) or ``embed`` (model alone)."""
    from docshelf.config import Settings
    from docshelf.pipeline.indexer import COMMIT_CHUNKS
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index_dir, embed_threads=threads), create=True)
    # Untimed in both modes: the model, and the pipeline's lazily imported modules (parsers).
    import docshelf.pipeline.indexer  # noqa: F401

    shelf.embedder.load()
    shelf.embedder.embed_documents(["warm up the session", "and its thread pool"])
    texts = _pipeline_texts(shelf, docs) if mode == "embed" else []
    wall, cpu = time.perf_counter(), time.process_time()
    if mode == "embed":
        for start in range(0, len(texts), COMMIT_CHUNKS):  # the pipeline's commit batches
            shelf.embedder.embed_documents(texts[start : start + COMMIT_CHUNKS])
        chunks = len(texts)
    else:
        chunks = shelf.index([docs]).chunks_embedded
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return {"mode": mode, "threads": threads, "chunks": chunks, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "chunks_per_s": round(chunks / wall, 2), "chunks_per_cpu_s": round(chunks / cpu, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def throughput(docs: Path | None = None, threads: tuple[int, ...] = (1, 2), repeat: int = 3,
               log=None, docsets: tuple[str, ...] = DOCSETS, max_files: int | None = None) -> dict[int, dict]:
    """Pipeline and embed-only chunks/s per thread count: medians of ``repeat`` alternating pairs.

    Returns ``{threads: {"embed_only", "pipeline", "ratio", "embed_only_cpu", "pipeline_cpu",
    "ratio_cpu", "chunks", "peak_rss_mb", "runs"}}``; ratios are medians of per-pair ratios.
    ``docs`` defaults to the documentation sites ``docsets`` (in ``docsets/``).
    """
    out: dict[int, dict] = {}
    with tempfile.TemporaryDirectory(prefix="docshelf-throughput-") as tmp:
        if docs is None:
            docs = write_docs_site(Path(tmp) / "docs", docsets, max_files)
        runs: dict[int, list[tuple[dict, dict]]] = {t: [] for t in threads}
        for r in range(repeat):
            for t in threads:
                pair = {}
                for mode in (("embed", "pipeline") if r % 2 == 0 else ("pipeline", "embed")):
                    proc = subprocess.run(
                        [sys.executable, __file__, "--throughput-child", mode, str(docs),
                         str(Path(tmp) / f"index-{r}-{t}-{mode}"), str(t)],
                        capture_output=True, text=True, check=True,
                    )
                    pair[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
                    if log:
                        log(pair[mode])
                runs[t].append((pair["embed"], pair["pipeline"]))
        for t, pairs in runs.items():
            def med(values) -> float:
                return round(statistics.median(values), 2)

            out[t] = {
                "embed_only": med(e["chunks_per_s"] for e, _ in pairs),
                "pipeline": med(p["chunks_per_s"] for _, p in pairs),
                "ratio": round(med(p["chunks_per_s"] / e["chunks_per_s"] for e, p in pairs), 3),
                "embed_only_cpu": med(e["chunks_per_cpu_s"] for e, _ in pairs),
                "pipeline_cpu": med(p["chunks_per_cpu_s"] for _, p in pairs),
                "ratio_cpu": round(med(p["chunks_per_cpu_s"] / e["chunks_per_cpu_s"] for e, p in pairs), 3),
                "chunks": pairs[0][1]["chunks"],
                "peak_rss_mb": max(p["peak_rss_mb"] for _, p in pairs),
                "runs": len(pairs),
            }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--batch-sizes", default="8,32")
    ap.add_argument("--threads", default=None, help="thread count (--throughput: counts, default 1,2)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--throughput", action="store_true", help="pipeline vs embed-only chunks/s")
    ap.add_argument("--json", action="store_true", help="--throughput: print the result as JSON only")
    ap.add_argument("--docsets", default=",".join(DOCSETS), help="--throughput: which docsets/ sites to index")
    ap.add_argument("--max-files", type=int, default=None, help="--throughput: the first N pages of each site")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    ap.add_argument("--throughput-child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.throughput_child:
        mode, docs, index_dir, threads = args.throughput_child
        print(json.dumps(throughput_child(mode, Path(docs), Path(index_dir), int(threads))))
        return
    if args.throughput:
        thread_counts = tuple(int(t) for t in (args.threads or "1,2").split(","))
        log = None if args.json else (lambda row: print(json.dumps(row), flush=True))
        result = throughput(threads=thread_counts, repeat=max(1, args.repeat), log=log,
                            docsets=tuple(args.docsets.split(",")), max_files=args.max_files)
        if args.json:
            print(json.dumps(result))
            return
        print("\n| threads | chunks | embed-only chunks/s | pipeline chunks/s | pipeline ÷ embed-only | "
              "per CPU-s: embed-only / pipeline / ratio | peak RSS MB (pipeline) | runs |")
        print("|---|---|---|---|---|---|---|---|")
        for t, r in result.items():
            print(f"| {t} | {r['chunks']} | {r['embed_only']} | {r['pipeline']} | {r['ratio']} | "
                  f"{r['embed_only_cpu']} / {r['pipeline_cpu']} / {r['ratio_cpu']} | {r['peak_rss_mb']} | {r['runs']} |")
        return
    args.threads = int(args.threads or 2)
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
