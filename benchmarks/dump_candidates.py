"""Dump per-query candidate lists from a cached eval index, for offline fusion studies.

For each judged query (every qrels split present): the store's BM25 top-N chunks with raw
scores, the query vector; plus every chunk's vector and document. Fusion methods can then
be compared in numpy in seconds instead of re-running searches:

    python benchmarks/dump_candidates.py ../shared/eval/scifact /tmp/scifact.pkl
"""

from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path

import numpy as np

from docshelf.analysis import query_text
from docshelf.eval.beir import load_dataset
from docshelf.eval.runner import open_eval_index


def main(dataset_dir: str, out: str, depth: int = 1000) -> None:
    root = Path(dataset_dir)
    splits = sorted(p.stem for p in (root / "qrels").glob("*.tsv"))
    datasets = {s: load_dataset(root, s) for s in splits}
    first = datasets[splits[0]]
    index = open_eval_index(first)
    service = index.service
    table = service.store._chunks.to_arrow().select(["id", "path", "chunk_index", "vector"])
    ids = table.column("id").to_pylist()
    paths = table.column("path").to_pylist()
    vecs = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
    doc_ids = [index.names[Path(p).name] for p in paths]
    row = {cid: i for i, cid in enumerate(ids)}
    queries: dict[str, str] = {}
    for d in datasets.values():
        queries.update({q: t for q, t in d.judged_queries})
    service.embedder.load()
    started = time.time()
    bm25: dict[str, list[tuple[int, float]]] = {}
    qvecs: dict[str, np.ndarray] = {}
    for n, (qid, text) in enumerate(queries.items()):
        rows = service.store.text_search(query_text(text), depth)
        bm25[qid] = [(row[c.id], s) for c, s in rows]
        qvecs[qid] = service.embedder.embed_query(text)
        if n % 200 == 0:
            print(f"{n}/{len(queries)} {time.time() - started:.0f}s", file=sys.stderr)
    with open(out, "wb") as f:
        pickle.dump(
            {
                "chunk_ids": ids, "chunk_doc": doc_ids, "chunk_index": table.column("chunk_index").to_pylist(),
                "vectors": vecs, "queries": queries, "qvecs": qvecs, "bm25": bm25,
                "qrels": {s: d.qrels for s, d in datasets.items()},
            },
            f,
        )


if __name__ == "__main__":
    main(*sys.argv[1:])
