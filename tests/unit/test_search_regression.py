"""Search results on a real documentation set must not move when the query path is made faster.

The repository's own Starlette docs (``benchmarks/docsets/starlette``) indexed with the fake
embedder (the ranking logic runs for real: BM25 from the store, fusion, short-passage prior,
exact-token bonus, typo correction, diversity, merges, highlights, calibrated scores), searched
with the set's 65 questions plus typo, identifier and one-word queries in every mode. The
ids, scores, highlights, notes and confidences are compared with a snapshot. A deliberate
ranking change regenerates it with
``DOCSHELF_UPDATE_SNAPSHOTS=1 python -m pytest tests/unit/test_search_regression.py``
(review the diff: it shows which answers moved).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

DOCSET = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "starlette"
SNAPSHOT = Path(__file__).parent / "snapshots" / "search_regression.json"
EXTRA = [
    "how do I enable CORS for any orign",  # a typo
    "midleware ordering and exceptoin handlers",
    "StaticFiles html=True",  # identifiers: the exact-token bonus
    "`request.url_for` with path params",
    "TestClient websocket_connect",
    "HTTPException 404",
    "lifespan",  # a one-word query
    "Middleware",
    "zzqx frobnicate",  # nothing known
]


def _results(shelf, queries):
    out = {}
    for mode in ("hybrid", "keyword", "semantic", "fuzzy"):
        for q in queries:
            r = shelf.search(q, k=10, mode=mode)
            out[f"{mode} | {q}"] = {
                "note": r.note, "confidence": r.confidence,
                "hits": [[_where(h), round(h.score, 5), [list(s) for s in h.highlights], h.start_line, h.end_line]
                         for h in r.hits],
            }
    r = shelf.search("routing and mounting applications", k=5, mode="hybrid", max_per_doc=1)
    out["hybrid per_doc=1 | routing"] = {"hits": [[_where(h), round(h.score, 5)] for h in r.hits]}
    return out


def _where(hit) -> str:
    """The chunk, named the same in every checkout (a chunk id hashes the root's absolute path)."""
    return f"{hit.path}#{hit.chunk_index}"


def _dump(results: dict) -> str:
    """One line per search, so a diff shows which answers moved."""
    lines = (f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in sorted(results.items()))
    return "{\n" + ",\n".join(lines) + "\n}\n"


def test_search_results_match_the_snapshot(shelf):
    shelf.index([DOCSET / "docs"])
    questions = [json.loads(line)["query"] for line in (DOCSET / "questions.jsonl").read_text().splitlines() if line]
    current = _results(shelf, questions + EXTRA)
    if os.environ.get("DOCSHELF_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(_dump(current))
    expected = json.loads(SNAPSHOT.read_text())
    moved = [key for key in expected if current.get(key) != expected[key]]
    assert not moved, f"{len(moved)} results changed, e.g. {moved[:3]}: {current.get(moved[0])} != {expected[moved[0]]}"
    assert current.keys() == expected.keys()
    # The snapshot exercises the typo path too (it is part of what must not move).
    assert any(v.get("note", "").startswith("corrected") for v in current.values())


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
