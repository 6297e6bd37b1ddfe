"""``benchmarks/run.py --smoke``: the one benchmark command runs end to end and fills every row.

The figures of a smoke run mean nothing (1k chunks, a few queries); what this checks is that
each section of issue 11's table still measures something after the code it measures changed:
every row has a number, or says plainly why not (a comparison stack not installed, a run that
needs an accelerator or the full SciFact set), and no section raised.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"

# Each prefix must match at least one row.
REQUIRED = [
    "latency.1k.hybrid.p50", "latency.1k.hybrid.p95", "latency.1k.semantic.p50", "latency.1k.keyword.p50",
    "latency.1k.hybrid_collection.p50", "latency.1k.hybrid_collection.ratio", "latency.1k.hybrid_date.p50",
    "latency.1k.hybrid_date.ratio", "recall.1k", "load.1k", "index.1k.build_s", "index.1k.disk",
    "chroma.1k.dense.p50", "chroma.1k.where.p50", "chroma.1k.speedup_filtered", "sqlite.1k.vec_exact.p50",
    "sqlite.1k.speedup",
    "indexing.embed_only.t1", "indexing.embed_only.t2", "indexing.pipeline.t1", "indexing.pipeline.t2",
    "indexing.ratio.t1", "indexing.ratio.t2", "memory.index_peak", "chroma.index_",
    "reindex.unchanged.", "reindex.one_edit.",
    "startup.initialize_gap", "startup.first_search.1k", "memory.server.1k",
    "cli.cold.1k", "cli.via_server.1k",
    "quality.docshelf.hybrid", "quality.chroma.dense", "gpu.embed", "quality.full_eval",
]
# Rows that may lack a number, and the only reasons they may give.
OPTIONAL = {"chroma.": {"not installed"}, "sqlite.": {"not installed"}, "quality.": {"not installed", "not run"},
            "gpu.": {"not run"}, "latency.1M.": {"not run"}, "recall.1M": {"not run"}}


def test_smoke_run_fills_every_row(tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    env = {**os.environ, "DOCSHELF_BENCH_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(SCRIPT), "--smoke", "--json", str(out)], env=env,
                          capture_output=True, text=True, timeout=580)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    rows = {r["id"]: r for r in result["rows"]}
    assert result["preset"] == "smoke"

    missing = [p for p in REQUIRED if not any(i.startswith(p) for i in rows)]
    assert missing == []
    errors = {i: r["status"] for i, r in rows.items() if r["status"].startswith("error")}
    assert errors == {}
    unexplained = {}
    for i, r in rows.items():
        if isinstance(r["value"], (int, float)) and math.isfinite(r["value"]):
            assert r["status"] in {"met", "no target"} or r["status"].startswith("missed by"), (i, r)
            continue
        allowed = next((why for prefix, why in OPTIONAL.items() if i.startswith(prefix)), set())
        if r["status"] not in allowed:
            unexplained[i] = r["status"]
    assert unexplained == {}
    assert "| figure | target | measured | status | note |" in proc.stdout


def test_gpu_script_runs_from_a_texts_file_without_the_store(tmp_path: Path) -> None:
    """A lent GPU machine gets only the texts and the embedder: the file path must work on its own.

    The texts are written by the same script (the pipeline's chunks of the docsets), then read
    back and embedded on the CPU; the row reports the provider it really ran on.
    """
    gpu = SCRIPT.parent / "gpu.py"
    texts = tmp_path / "texts.json"
    subprocess.run([sys.executable, str(gpu), "--save-texts", str(texts), "--texts", "16"], check=True, timeout=300)
    saved = json.loads(texts.read_text(encoding="utf-8"))
    assert len(saved) == 16 and all(isinstance(t, str) and t.strip() for t in saved)
    out = subprocess.run(
        [sys.executable, str(gpu), "--device", "cpu", "--texts-file", str(texts), "--texts", "8",
         "--batch-sizes", "1,4", "--repeat", "1"],
        check=True, capture_output=True, text=True, timeout=300,
    ).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert [r["batch"] for r in rows] == [1, 4]
    assert all(r["provider"] == "CPUExecutionProvider" and r["texts"] == 8 and r["chunks_per_s"] > 0 for r in rows)
