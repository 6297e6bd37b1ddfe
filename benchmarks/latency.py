"""Query latency at N chunks through the product's own code path (``Docshelf.search``).

Per mode (hybrid, semantic, keyword, fuzzy): p50/p95 over Q real SciFact questions at k=10,
warm, query embedding included; hybrid with a collection filter (1 of 10 collections) and a
date filter (1 of 6 years) beside it; recall@10 of the store's vector search against exact
search (numpy over the same vectors). The index is synthetic at scale: texts of three real
SciFact sentences (BM25 sees real statistics), vectors the jittered mean of the real model's
embeddings of those sentences (``stacks.synthetic``). Built once per N and reused from
``$DOCSHELF_BENCH_DIR`` (default /tmp/docshelf-bench/latency-N).

    python benchmarks/latency.py --chunks 100000            # builds once (minutes), then measures
    python benchmarks/latency.py --chunks 10000 --queries 30 --json out.json
    python benchmarks/latency.py ann /tmp/docshelf-bench/n1000000-…/index   # ANN settings, held-out queries

``run(chunks, queries)`` returns the same dict for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("LANCEDB_LOG", "error")  # the engine reads its log level from this when it loads
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import stacks  # noqa: E402  (same folder)

MODES = ("hybrid", "semantic", "keyword", "fuzzy")


def bench_dir(chunks: int) -> Path:
    return Path(os.environ.get("DOCSHELF_BENCH_DIR", "/tmp/docshelf-bench")) / f"latency-{chunks}"


def build(chunks: int, folder: Path | None = None) -> Path:
    """The index (and its vectors, for exact recall) at ``folder``; built only when missing."""
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    folder = folder or bench_dir(chunks)
    if (folder / "vectors.npy").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    texts, vecs, cats, dates = stacks.synthetic(chunks, OnnxMiniLM())
    shelf, seconds = stacks.build_docshelf(folder, texts, vecs, cats, dates)
    np.save(folder / "vectors.npy", vecs)
    (folder / "build.json").write_text(json.dumps({"chunks": chunks, "build_s": seconds}))
    return folder


def open_shelf(folder: Path):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    return Docshelf(Settings(index_dir=folder / "docshelf"), create=False)


def timed(fn, queries, repeats: int = 1) -> list[float]:
    """Per-query milliseconds (the median over ``repeats`` passes), after one warm-up query."""
    fn(queries[0])
    passes = []
    for _ in range(repeats):
        out = []
        for q in queries:
            t = time.perf_counter()
            fn(q)
            out.append((time.perf_counter() - t) * 1000)
        passes.append(out)
    return [statistics.median(ms) for ms in zip(*passes, strict=True)]


def row_of(chunk_id: str) -> int:
    """``stacks.build_docshelf`` ids are ``d000123.md#<row>``."""
    return int(chunk_id.rsplit("#", 1)[1])


def vector_recall(shelf, vecs: np.ndarray, queries: list[str], k: int = 10) -> float:
    """Mean recall@k of the store's vector search against exact cosine over all vectors."""
    model = shelf.embedder
    recalls = []
    for q in queries:
        qv = model.embed_query(q)
        exact = set(np.argpartition(-(vecs @ qv), k)[:k].tolist())
        got = {row_of(c.id) for c, _ in shelf.store.vector_search(qv, k)}
        recalls.append(len(exact & got) / k)
    return statistics.mean(recalls)


def measure(shelf, queries: list[str], modes=MODES, repeats: int = 1, filters=None) -> dict[str, dict[str, float]]:
    """p50/p95 per mode, and hybrid with each of ``filters`` (name -> SearchFilters)."""
    from docshelf.models import SearchFilters

    def search(mode, filters=None):
        def run(q):  # every query embedded: the warm-up cached these questions' embeddings
            shelf.searcher.forget_query_embeddings()
            return shelf.search(q, k=10, mode=mode, filters=filters)
        return run

    runs = {mode: search(mode) for mode in modes}
    if filters is None:  # the documents of one year (a third of them in stacks.synthetic's dates)
        filters = {"date": SearchFilters(date_from="2022-01-01", date_to="2022-12-31")}
    if "hybrid" in modes:
        runs |= {f"hybrid + {name}": search("hybrid", f) for name, f in filters.items()}
    out = {}
    for name, fn in runs.items():
        ms = timed(fn, queries, repeats)
        out[name] = {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95))}
    return out


def run(chunks: int = 100_000, queries: int = 100, modes=MODES, repeats: int = 1) -> dict:
    folder = build(chunks)
    shelf = open_shelf(folder)
    qs = stacks.questions(queries)
    for q in qs:  # warm the query path (model, table handles, index caches) outside the timing
        shelf.search(q, k=10, mode="hybrid")
    res = {
        "chunks": shelf.store.count_chunks(), "queries": len(qs), "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
        "vector_index": bool(getattr(shelf.store, "has_vector_index", lambda: False)()),
        "latency_ms": measure(shelf, qs, modes, repeats),
        "vector_recall@10": vector_recall(shelf, np.load(folder / "vectors.npy"), qs),
    }
    return res


def run_corpus_index(index_dir: Path, queries: int = 100, modes=MODES, repeats: int = 1) -> dict:
    """The same on an index built by ``benchmarks/corpus.py`` (collections c0..c9 of 10% each,
    dates over six years): collection filter c3, date filter 2023; recall via ``corpus``."""
    import corpus
    from docshelf.config import Settings
    from docshelf.models import SearchFilters
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index_dir), create=False)
    qs, qvecs = corpus.query_set(queries)
    for q in qs:
        shelf.search(q, k=10, mode="hybrid")
    filters = {"collection": SearchFilters(collections=("c3",)),
               "date": SearchFilters(date_from="2023-01-01", date_to="2023-12-31")}
    return {
        "chunks": shelf.store.count_chunks(), "queries": len(qs), "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
        "vector_index": bool(getattr(shelf.store, "has_vector_index", lambda: False)()),
        "latency_ms": measure(shelf, qs, modes, repeats, filters),
        "vector_recall@10": corpus.vector_recall(shelf.store, qvecs[:30]),
    }


def table(res: dict) -> str:
    lines = [f"{res['chunks']:,} chunks, {res['queries']} queries, k=10, {res['cpus']} CPUs, {res['date']}",
             "", "| search | p50 ms | p95 ms |", "|---|---:|---:|"]
    lines += [f"| {k} | {v['p50']:.1f} | {v['p95']:.1f} |" for k, v in res["latency_ms"].items()]
    lines.append(f"\nvector recall@10 vs exact: {res['vector_recall@10']:.3f} (ANN index: {res['vector_index']})")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--repeats", type=int, default=1, help="passes over the queries (median per query)")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--index", type=Path, help="measure this corpus.py-built index instead (collection filter too)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.build_only:
        print(build(args.chunks))
        return
    if args.index:
        res = run_corpus_index(args.index, args.queries, tuple(args.modes.split(",")), args.repeats)
    else:
        res = run(args.chunks, args.queries, tuple(args.modes.split(",")), args.repeats)
    print(table(res))
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")


def held_out_vectors(n: int = 100) -> np.ndarray:
    """Queries for choosing index parameters: SciFact sentences the synthetic texts never use
    (sentences past the pool), embedded by the model, so nothing is tuned on the timed queries."""
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    pool = stacks.sentences(3000 + n)[3000:]
    return OnnxMiniLM().embed_documents(pool)


def ann_study(folder: Path, queries: np.ndarray, configs: dict[str, dict], limit: int = 100) -> dict[str, dict]:
    """recall@10 (top 10 of ``limit`` candidates vs exact top 10), recall of the whole candidate
    list vs the exact top ``limit``, and p50 ms, per vector-query setting (ef, refine_factor, nprobes)."""
    vecs = np.load(folder / "vectors.npy")
    table = open_shelf(folder).store._chunks
    exact = [np.argsort(-(vecs @ qv))[:limit] for qv in queries]
    out = {}
    for name, cfg in configs.items():
        r10, rall, ms = [], [], []
        for qv, ex in zip(queries, exact, strict=True):
            q = table.search(qv, vector_column_name="vector").distance_type("cosine")
            for key, value in cfg.items():
                q = getattr(q, key)(value)
            t = time.perf_counter()
            rows = q.select(["id"]).limit(limit).to_list()
            ms.append((time.perf_counter() - t) * 1000)
            got = [row_of(r["id"]) for r in rows]
            r10.append(len(set(got[:10]) & set(ex[:10].tolist())) / 10)
            rall.append(len(set(got) & set(ex.tolist())) / limit)
        out[name] = {"recall@10": statistics.mean(r10), f"recall@{limit}": statistics.mean(rall),
                     "p50_ms": statistics.median(ms)}
        print(f"{name:28s} recall@10 {out[name]['recall@10']:.3f}  recall@{limit} {out[name][f'recall@{limit}']:.3f}"
              f"  p50 {out[name]['p50_ms']:.1f} ms", flush=True)
    return out


def held_out_corpus_queries(n: int = 100) -> list[str]:
    """Queries for choosing index parameters on a ``corpus.py`` index: one sentence from each of
    ``n`` SciFact abstracts whose chunks are not in the corpus's pool (so not in the index),
    never the timed questions."""
    import corpus

    in_pool = set(corpus.pool().titles)
    out = []
    for line in (corpus.SCIFACT / "corpus.jsonl").open():
        doc = json.loads(line)
        sents = [s.strip() for s in doc["text"].split(". ") if len(s.split()) > 8]
        if doc["title"] not in in_pool and sents:
            out.append(sents[0])
        if len(out) == n:
            break
    return out


def ann_study_corpus(index_dir: Path, queries: np.ndarray, configs: dict[str, dict],
                     limits=(10, 100)) -> dict[str, dict]:
    """``ann_study`` for a ``corpus.py`` index (no vectors file): the exact top ids come from
    the engine's flat scan (``bypass_vector_index``), once per query; then per setting (ef,
    refine_factor, nprobes), recall of a top-``limit`` query against the exact top ``limit``
    and its p50 ms, for each of ``limits`` (10: a semantic search; 100: hybrid's pool)."""
    import corpus
    from docshelf.stores.lancedb_store import LanceStore

    table = LanceStore(index_dir, queries.shape[1])._chunks
    t = time.perf_counter()
    exact = [corpus.exact_top_ids_of(table, qv, max(limits)) for qv in queries]
    print(f"exact top-{max(limits)} of {len(queries)} queries: {time.perf_counter() - t:.0f} s", flush=True)
    out = {}
    for name, cfg in configs.items():
        res = {}
        for limit in limits:
            recalls, ms = [], []
            for qv, ex in zip(queries, exact, strict=True):
                q = table.search(qv, vector_column_name="vector").distance_type("cosine")
                for key, value in cfg.items():
                    q = getattr(q, key)(value)
                t = time.perf_counter()
                got = [r["id"] for r in q.select(["id", "_distance"]).limit(limit).to_list()]
                ms.append((time.perf_counter() - t) * 1000)
                recalls.append(len(set(got) & set(ex[:limit])) / limit)
            res[f"recall@{limit}"] = statistics.mean(recalls)
            res[f"p50_ms@{limit}"] = statistics.median(ms)
        out[name] = res
        print(f"{name:28s} " + "  ".join(f"{k} {v:.3f}" for k, v in res.items()), flush=True)
    return out


def ann_main() -> None:
    """``python benchmarks/latency.py ann INDEX_DIR [--queries 100] [--json out.json]``: the
    vector-query settings on held-out queries (``held_out_corpus_queries``)."""
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    ap = argparse.ArgumentParser(prog="latency.py ann")
    ap.add_argument("index", type=Path)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(sys.argv[2:])
    model = OnnxMiniLM()
    vecs = np.stack([model.embed_query(q) for q in held_out_corpus_queries(args.queries)]).astype(np.float32)
    configs = {"engine default": {}, "refine 1": {"refine_factor": 1}}
    for ef in (100, 200, 300, 400):
        configs[f"ef {ef}, refine 1"] = {"ef": ef, "refine_factor": 1}
    for nprobes in (5, 10, 20):
        configs[f"ef 200, refine 1, nprobes {nprobes}"] = {"ef": 200, "refine_factor": 1, "nprobes": nprobes}
    res = ann_study_corpus(args.index, vecs, configs)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    ann_main() if sys.argv[1:2] == ["ann"] else main()
