"""docshelf beside the stacks it replaces, in one run: ChromaDB and SQLite + sqlite-vec + FTS5.

The ChromaDB pipeline is the one the servers docshelf replaces used: the same embedding model
(the packaged all-MiniLM-L6-v2), fixed 500-token windows with 50 tokens of overlap, dense-only
search, and a category filter as a ``where`` on metadata. SQLite + sqlite-vec (exact KNN) +
FTS5 is what most peer MCP servers use.

Parts (each optional):
  latency   N synthetic chunks from ``corpus.py`` (text: real SciFact chunks, so BM25 has real
            statistics; vectors: the real model's embeddings of those chunks, mixed and
            jittered; docshelf's index is the cached one built through its write path), one index per
            stack, 100 real questions, k=10, query embedding included everywhere; docshelf
            through ``Docshelf.search`` (its product code path), filtered and unfiltered;
            recall@10 of docshelf's vector index against exact search.
  indexing  the first D SciFact abstracts as Markdown files, indexed from scratch by
            ``docshelf index`` and by the Chroma pipeline, each in a fresh process: wall time
            and peak RSS.
  quality   SciFact test nDCG@10: ``docshelf eval`` (hybrid and semantic) against the Chroma
            pipeline on the same corpus and queries.

Needs ``pip install chromadb sqlite-vec apsw`` beside docshelf, and ../shared/eval/scifact.

    python benchmarks/stacks.py --quick                # 10k chunks, 30 queries, 100 docs
    python benchmarks/stacks.py --chunks 100000 --docs 300 --quality --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import SCIFACT, cached_index, p, questions, synthetic, vector_recall  # noqa: E402

CATEGORIES = [f"c{i}" for i in range(10)]  # the corpus' collections; Chroma's `category`


def build_chroma(folder: Path, texts, vecs, cats):
    import chromadb

    client = chromadb.PersistentClient(path=str(folder / "chroma"))
    col = client.get_or_create_collection("docs", metadata={"hnsw:space": "cosine"}, embedding_function=None)
    t0 = time.perf_counter()
    step = 5000
    for s in range(0, len(texts), step):
        col.add(ids=[str(i) for i in range(s, min(s + step, len(texts)))], embeddings=vecs[s : s + step],
                documents=texts[s : s + step], metadatas=[{"category": c} for c in cats[s : s + step]])
    return col, time.perf_counter() - t0


def build_sqlite(folder: Path, texts, vecs):
    import apsw
    import sqlite_vec

    db = apsw.Connection(str(folder / "sqlite.db"))
    db.enable_load_extension(True)
    db.load_extension(sqlite_vec.loadable_path())
    t0 = time.perf_counter()
    db.execute(f"create virtual table vec using vec0(embedding float[{vecs.shape[1]}])")
    db.execute("create virtual table fts using fts5(text)")
    with db:
        db.executemany("insert into vec(rowid, embedding) values (?, ?)",
                       ((i, v.tobytes()) for i, v in enumerate(vecs)))
        db.executemany("insert into fts(rowid, text) values (?, ?)", enumerate(texts))
    return db, time.perf_counter() - t0


def fts_query(q: str) -> str:
    words = [w for w in "".join(c if c.isalnum() else " " for c in q).split() if len(w) > 1]
    return " OR ".join(f'"{w}"' for w in words) or '""'


def timed(fn, queries) -> list[float]:
    fn(queries[0])  # warm
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1000)
    return out


def latency(args, work: Path) -> dict:
    built = cached_index(args.chunks)  # the product's write path; built once, reused
    texts, vecs, cats, _ = synthetic(args.chunks)  # the same chunks, for the other stacks
    qs = questions(args.queries)
    shelf = built.open()
    model = shelf.embedder  # the packaged model, the same one every stack uses for its queries
    res: dict = {"chunks": built.chunks, "queries": len(qs), "build_s": {"docshelf": built.build_seconds}}

    from docshelf.models import SearchFilters

    def ds(mode, filters=None):
        return lambda q: shelf.search(q, k=10, mode=mode, filters=filters)

    lat = {}
    for mode in ("hybrid", "semantic", "keyword"):
        lat[f"docshelf {mode}"] = timed(ds(mode), qs)
    lat["docshelf hybrid + collection"] = timed(ds("hybrid", SearchFilters(collections=("c3",))), qs)
    lat["docshelf hybrid + date"] = timed(ds("hybrid", SearchFilters(date_from="2023-01-01", date_to="2023-12-31")), qs)

    # recall@10 of the vector index (whatever the store built) against exact search
    res["docshelf_vector_recall@10"] = vector_recall(shelf.store, np.stack([model.embed_query(q) for q in qs]))
    res["docshelf_vector_index"] = bool(getattr(shelf.store, "has_vector_index", lambda: False)())

    if args.chroma:
        col, t = build_chroma(work, texts, vecs, cats)
        res["build_s"]["chroma"] = t
        lat["chroma dense"] = timed(lambda q: col.query(query_embeddings=[model.embed_query(q)], n_results=10), qs)
        lat["chroma dense + where"] = timed(
            lambda q: col.query(query_embeddings=[model.embed_query(q)], n_results=10, where={"category": "c3"}), qs)
    if args.sqlite:
        db, t = build_sqlite(work, texts, vecs)
        res["build_s"]["sqlite-vec"] = t
        lat["sqlite-vec exact"] = timed(lambda q: db.execute(
            "select rowid, distance from vec where embedding match ? and k = 10",
            (model.embed_query(q).tobytes(),)).fetchall(), qs)
        lat["sqlite fts5"] = timed(lambda q: db.execute(
            "select rowid, bm25(fts) from fts where fts match ? order by bm25(fts) limit 10",
            (fts_query(q),)).fetchall(), qs)
    res["latency_ms"] = {k: {"p50": p(v, 50), "p95": p(v, 95)} for k, v in lat.items()}
    res["rss_mb_after_queries"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return res


# -- indexing from files --------------------------------------------------------------------------
def chroma_pipeline(docs: Path, store: Path, window: int = 500, overlap: int = 50) -> int:
    """What the replaced server did: fixed token windows, one Chroma add per file batch."""
    import chromadb

    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    model = OnnxMiniLM()
    tok = model.tokenizer
    col = chromadb.PersistentClient(path=str(store)).get_or_create_collection(
        "docs", metadata={"hnsw:space": "cosine"}, embedding_function=None)
    n = 0
    for f in sorted(docs.glob("*.md")):
        text = f.read_text()
        spans = tok.token_spans(text)
        pieces = []
        for s in range(0, max(1, len(spans)), window - overlap):
            part = spans[s : s + window]
            if part:
                pieces.append(text[part[0][0] : part[-1][1]])
        if not pieces:
            continue
        col.add(ids=[f"{f.name}:{i}" for i in range(len(pieces))], embeddings=model.embed_documents(pieces),
                documents=pieces, metadatas=[{"source": f.name, "category": "docs"}] * len(pieces))
        n += len(pieces)
    return n


def write_docs(folder: Path, n: int) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    names = {}
    with (SCIFACT / "corpus.jsonl").open() as f:
        for i, line in enumerate(f):
            if i >= n:
                break
            doc = json.loads(line)
            (folder / f"{doc['_id']}.md").write_text(f"# {doc['title']}\n\n{doc['text']}\n")
            names[f"{doc['_id']}.md"] = doc["_id"]
    return names


def run_child(code: str) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and last output line of a fresh Python process running ``code``."""
    code += "\nimport resource; print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    *lines, rss_kb = out.stdout.strip().split("\n")
    return wall, int(rss_kb) / 1024, lines[-1] if lines else ""


def indexing(args, work: Path) -> dict:
    docs = work / "files"
    write_docs(docs, args.docs)
    res = {"docs": args.docs}
    wall, rss, out = run_child(
        "from docshelf.config import Settings; from docshelf.service import Docshelf; "
        f"r = Docshelf(Settings(index_dir={str(work / 'ds-files')!r})).index([{str(docs)!r}]); "
        "print(r.chunks_embedded)")
    res["docshelf"] = {"seconds": wall, "peak_rss_mb": rss, "chunks": int(out)}
    if args.chroma:
        wall, rss2, out = run_child(
            f"import sys; sys.path.insert(0, {str(HERE)!r}); import stacks; "
            f"print(stacks.chroma_pipeline(__import__('pathlib').Path({str(docs)!r}), "
            f"__import__('pathlib').Path({str(work / 'chroma-files')!r})))")
        res["chroma"] = {"seconds": wall, "peak_rss_mb": rss2, "chunks": int(out)}
    return res


# -- quality ------------------------------------------------------------------------------------
def quality(args, work: Path) -> dict:
    from docshelf.eval.beir import load_dataset
    from docshelf.eval.metrics import evaluate_run
    from docshelf.eval.runner import open_eval_index, run_eval

    dataset = load_dataset(SCIFACT, "test")
    report = run_eval(dataset, open_eval_index(dataset), ["hybrid", "semantic"])
    res = {f"docshelf {m.mode}": m.metrics["ndcg@10"] for m in report.modes}
    if args.chroma:
        import chromadb

        from docshelf.embedders.onnx_minilm import OnnxMiniLM

        docs = work / "scifact-files"
        names = write_docs(docs, 10**9)
        store = work / "chroma-scifact"
        t0 = time.perf_counter()
        chroma_pipeline(docs, store)
        res["chroma index seconds"] = time.perf_counter() - t0
        col = chromadb.PersistentClient(path=str(store)).get_collection("docs")
        model = OnnxMiniLM()
        run = {}
        for qid, text in dataset.judged_queries:
            r = col.query(query_embeddings=[model.embed_query(text)], n_results=100)
            ranked: list[str] = []
            for meta in r["metadatas"][0]:
                doc = names[meta["source"]]
                if doc not in ranked:
                    ranked.append(doc)
            run[qid] = ranked
        res["chroma dense"] = evaluate_run(run, dataset.qrels)["ndcg@10"]
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--docs", type=int, default=300, help="files for the indexing comparison (0: skip)")
    ap.add_argument("--quality", action="store_true", help="SciFact test nDCG@10, both pipelines (slow)")
    ap.add_argument("--no-chroma", dest="chroma", action="store_false")
    ap.add_argument("--no-sqlite", dest="sqlite", action="store_false")
    ap.add_argument("--quick", action="store_true", help="10k chunks, 30 queries, 50 files")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args()
    if args.quick:
        args.chunks, args.queries, args.docs = 10_000, 30, 50
    results = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="docshelf-stacks-") as tmp:
        work = Path(tmp)
        if args.chunks:
            results["latency"] = latency(args, work)
        if args.docs:
            results["indexing"] = indexing(args, work)
        if args.quality:
            results["quality"] = quality(args, work)
    print(json.dumps(results, indent=2))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    lat = results.get("latency", {}).get("latency_ms", {})
    if lat:
        print("\n| search (k=10, query embedding included) | p50 ms | p95 ms |\n|---|---:|---:|")
        for k, v in lat.items():
            print(f"| {k} | {v['p50']:.1f} | {v['p95']:.1f} |")
        hyb = lat["docshelf hybrid"]["p50"]
        for other in ("sqlite-vec exact", "chroma dense + where"):
            if other in lat:
                print(f"docshelf hybrid is {lat[other]['p50'] / hyb:.1f}x faster than {other} (p50)")


if __name__ == "__main__":
    main()
