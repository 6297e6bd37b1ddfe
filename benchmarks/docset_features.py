"""Dump, per docs-set question, what the default search saw: for offline studies of the
no-answer score and of which section is cited (issue 8).

For each question: the hybrid ranking (every fused candidate with its cosine, raw BM25 and
citation), the hits the eval scores (k = 10, one per document) with their shown scores, the
query's cosine to every chunk of the index, the calibration's background, and the typo
corrections made. Studies then re-score in numpy in seconds:

    python benchmarks/docset_features.py benchmarks/docsets/starlette /tmp/feat-a.pkl
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np

from docshelf.eval.docset import load_docset
from docshelf.eval.docset_runner import DEPTH, ask, open_docset_index
from docshelf.search import engine


def main(root: str, out: str) -> None:
    docset = load_docset(Path(root))
    index = open_docset_index(docset)
    service = index.service
    service.embedder.load()
    searcher = service.searcher
    table = service.store._chunks.to_arrow().select(["id", "vector"])
    ids = table.column("id").to_pylist()
    vectors = np.asarray(table.column("vector").to_pylist(), dtype=np.float32)
    captured: dict[str, object] = {}
    real_diversify = engine.diversify

    def spy(scored, *args, **kwargs):  # the ranked candidates, before grouping
        captured["scored"] = [(c, s) for c, s in scored]
        captured["fixes"] = dict(getattr(searcher._local, "fixes", {}))
        return real_diversify(scored, *args, **kwargs)

    real_hybrid = searcher.hybrid

    def hybrid(*args, **kwargs):  # the evidence (cosine, raw BM25) of every candidate
        out = real_hybrid(*args, **kwargs)
        captured["evidence"] = dict(searcher._local.evidence)
        return out

    engine.diversify = spy
    searcher.hybrid = hybrid
    rows = []
    background = searcher.calibrator.background()
    for q in docset.questions:
        outcome = ask(service, q, "hybrid")
        scored, evidence = captured["scored"], captured["evidence"]
        cands = [
            {"id": c.id, "path": c.path, "heading": c.heading_path, "lines": (c.start_line, c.end_line),
             "text": c.text, "title": c.title, "chunk_index": c.chunk_index, "overlap": c.overlap, "fused": s,
             "cosine": evidence.get(c.id, (None, None))[0], "bm25": evidence.get(c.id, (None, None))[1]}
            for c, s in scored
        ]
        qvec = searcher.embed_query(q.query)
        rows.append({
            "question": q, "outcome": outcome, "candidates": cands, "fixes": captured["fixes"],
            "all_cosines": vectors @ np.asarray(qvec, dtype=np.float32),
        })
    engine.diversify = real_diversify
    with open(out, "wb") as f:
        pickle.dump({"name": docset.name, "background": background, "chunk_ids": ids, "rows": rows,
                     "depth": DEPTH}, f)
    print(f"{docset.name}: {len(rows)} questions, background {background:.3f}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
