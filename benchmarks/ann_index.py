"""Which vector index, and which query settings, reach recall@10 >= 0.95 at a table's size.

A study on copies of a ``corpus.py`` index's vectors (``id`` and ``vector`` only, the first N
rows), so the cached index others read is never touched:

    python benchmarks/ann_index.py extract /tmp/docshelf-bench/n1000000-…/index /tmp/ann-study
    python benchmarks/ann_index.py study /tmp/ann-study 200000 --json ann-200k.json

Per index (type, partitions, graph parameters; built with ``create_index`` on the copy) and per
query setting (nprobes, ef, refine_factor): recall@10 of a top-10 query and recall@100 of a
top-100 query (hybrid's pool) against exact cosine top-k (numpy over the same rows), with the
query's wall and CPU (all threads) p50. Settings are chosen on held-out queries (SciFact
sentences outside the corpus's pool, ``latency.held_out_corpus_queries``); the 100 timed
questions are reported beside them, never used to choose.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).parent))


def extract(index_dir: Path, out: Path) -> None:
    """``id`` and ``vector`` of every row of the chunks table, in table order, to .npy files."""
    import lancedb

    out.mkdir(parents=True, exist_ok=True)
    table = lancedb.connect(str(index_dir)).open_table("chunks")
    ids, vecs = [], []
    for batch in table.search().select(["id", "vector"]).limit(None).to_batches(50_000):
        ids.extend(batch.column("id").to_pylist())
        vecs.append(batch.column("vector").flatten().to_numpy().reshape(batch.num_rows, -1).astype(np.float32))
    np.save(out / "vectors.npy", np.concatenate(vecs))
    (out / "ids.json").write_text(json.dumps(ids))
    print(f"{len(ids)} rows to {out}", flush=True)


def query_sets(out: Path) -> dict[str, np.ndarray]:
    """Held-out (choosing) and timed (reporting) query vectors, cached beside the study."""
    path = out / "queries.npz"
    if not path.exists():
        import corpus
        from latency import held_out_corpus_queries

        from docshelf.embedders.onnx_minilm import OnnxMiniLM

        model = OnnxMiniLM()
        held = np.stack([model.embed_query(q) for q in held_out_corpus_queries(100)]).astype(np.float32)
        _, timed = corpus.query_set(100)
        np.savez(path, held=held, timed=np.asarray(timed, dtype=np.float32))
    data = np.load(path)
    return {"held-out": data["held"], "timed": data["timed"]}


def exact_top(vecs: np.ndarray, queries: np.ndarray, k: int = 100) -> np.ndarray:
    """Row numbers of the exact cosine top ``k`` per query."""
    norms = np.linalg.norm(vecs, axis=1)
    out = []
    for qv in queries:
        sims = (vecs @ (qv / np.linalg.norm(qv))) / norms
        top = np.argpartition(-sims, k)[:k]
        out.append(top[np.argsort(-sims[top])])
    return np.stack(out)


def make_table(out: Path, n: int, vecs: np.ndarray):
    """A LanceDB table of the first ``n`` rows (``row`` = row number, ``vector``)."""
    import lancedb

    db = lancedb.connect(str(out / f"db-{n}"))
    name = "chunks"
    if (out / f"db-{n}" / f"{name}.lance").exists():
        return db.open_table(name)
    dim = vecs.shape[1]
    schema = pa.schema([("row", pa.int64()), ("vector", pa.list_(pa.float32(), dim))])
    table = None
    for start in range(0, n, 100_000):
        part = vecs[start:min(n, start + 100_000)]
        batch = pa.table({"row": pa.array(np.arange(start, start + len(part))),
                          "vector": pa.FixedSizeListArray.from_arrays(pa.array(part.reshape(-1)), dim)}, schema=schema)
        if table is None:
            table = db.create_table(name, batch)
        else:
            table.add(batch)
    table.optimize()
    return table


def index_config(kind: str, params: dict):
    from lancedb import index

    return getattr(index, kind)(distance_type="cosine", **params)


def measure(table, queries: np.ndarray, exact: np.ndarray, settings: dict) -> dict:
    res = {}
    for limit in (10, 100):
        recalls, wall, cpu = [], [], []
        for qv, ex in zip(queries, exact, strict=True):
            q = table.search(qv, vector_column_name="vector").distance_type("cosine")
            for key, value in settings.items():
                q = getattr(q, key)(value)
            t, c = time.perf_counter(), time.process_time()
            got = q.select(["row", "_distance"]).limit(limit).to_arrow().column("row").to_numpy()
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            recalls.append(len(set(got.tolist()) & set(ex[:limit].tolist())) / limit)
        res[f"recall@{limit}"] = round(statistics.mean(recalls), 4)
        res[f"wall_ms@{limit}"] = round(statistics.median(wall), 2)
        res[f"cpu_ms@{limit}"] = round(statistics.median(cpu), 2)
    return res


def study(out: Path, n: int, plans: list[tuple[str, dict, list[dict]]], sets: list[str]) -> list[dict]:
    vecs = np.load(out / "vectors.npy", mmap_mode="r")[:n]
    vecs = np.ascontiguousarray(vecs)
    qs = query_sets(out)
    exact = {}
    for name in sets:
        path = out / f"exact-{n}-{name}.npy"
        if not path.exists():
            np.save(path, exact_top(vecs, qs[name]))
        exact[name] = np.load(path)
    table = make_table(out, n, vecs)
    del vecs
    rows = []
    for kind, params, settings_list in plans:
        t = time.perf_counter()
        table.create_index("vector", config=index_config(kind, params), replace=True)
        build = time.perf_counter() - t
        print(f"{kind} {params}: built in {build:.0f} s", flush=True)
        for settings in settings_list:
            for name in sets:
                r = {"n": n, "index": kind, "params": params, "build_s": round(build, 1), "settings": settings,
                     "queries": name, **measure(table, qs[name], exact[name], settings)}
                rows.append(r)
                print(f"  {json.dumps(settings):45s} {name:8s} r@10 {r['recall@10']:.3f} r@100 {r['recall@100']:.3f}"
                      f"  wall {r['wall_ms@10']:.1f}/{r['wall_ms@100']:.1f} ms  cpu {r['cpu_ms@10']:.1f}/"
                      f"{r['cpu_ms@100']:.1f} ms", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("index", type=Path)
    e.add_argument("out", type=Path)
    s = sub.add_parser("study")
    s.add_argument("out", type=Path)
    s.add_argument("n", type=int)
    s.add_argument("--plans", required=True, help="JSON list of [IndexType, {params}, [{settings}, ...]]")
    s.add_argument("--sets", default="held-out")
    s.add_argument("--json", type=Path)
    args = ap.parse_args()
    if args.cmd == "extract":
        extract(args.index, args.out)
        return
    rows = study(args.out, args.n, json.loads(args.plans), args.sets.split(","))
    if args.json:
        old = json.loads(args.json.read_text()) if args.json.exists() else []
        args.json.write_text(json.dumps(old + rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
