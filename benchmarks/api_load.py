"""Load on the HTTP API: N concurrent clients on POST /search for S seconds against a pushed index.

Starts the real ``docshelf api`` (uvicorn, one process) on a fresh index, pushes CHUNKS
synthetic records through ``/ingest/upsert`` (random unit vectors named as the index's
model, so the index builds in seconds; texts drawn from a fixed vocabulary so BM25 has
something to match), then runs the clients and reports latency percentiles, throughput
and errors as one JSON line (also appended to ``benchmarks/results/api_load.jsonl``).
Exit status 1 when any request failed.

    python benchmarks/api_load.py                    # 10k chunks, 50 clients, 60 s, real model
    python benchmarks/api_load.py --chunks 500 --clients 10 --seconds 3 --model fake   # CI size
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

TOKEN = "load-test-token"
WORDS = (
    "install configure token rotate server client index search query filter collection document chunk vector "
    "model embed cache retry timeout proxy header cookie session upload export import backup restore cluster "
    "replica shard schema migrate upgrade rollback deploy release build test lint format log metric alert trace "
    "user group role permission policy audit quota billing invoice payment refund account profile password"
).split()
MODES = ("hybrid", "keyword", "semantic")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _docshelf() -> list[str]:
    script = Path(sys.executable).parent / "docshelf"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from docshelf.interfaces.cli import main; main()"]


def _wait(base: str, proc: subprocess.Popen, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"docshelf api exited with {proc.returncode}")
        try:
            health = httpx.get(f"{base}/health", timeout=2).json()
            if health["status"] == "ok":
                return health
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("docshelf api did not become ready")


def push(base: str, chunks: int, dims: int, model: str, batch: int = 500, seed: int = 7) -> float:
    """Push ``chunks`` synthetic records (200 per source); returns the seconds it took."""
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).standard_normal((chunks, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    started = time.perf_counter()
    with httpx.Client(base_url=base, timeout=300, headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        for start in range(0, chunks, batch):
            records = [
                {"id": f"r{i}", "content": " ".join(rng.choices(WORDS, k=60)), "embedding": vectors[i].tolist(),
                 "metadata": {"source": f"https://load.example/{i // 200}", "chunk_index": i % 200,
                              "collection": f"c{i % 5}", "title": f"Page {i // 200}"}}
                for i in range(start, min(start + batch, chunks))
            ]
            r = client.post("/ingest/upsert", json={"model": model, "records": records})
            r.raise_for_status()
    return time.perf_counter() - started


async def hammer(base: str, clients: int, seconds: float, seed: int = 11) -> dict:
    """``clients`` concurrent loops of POST /search until ``seconds`` pass; latencies and errors."""
    latencies: list[float] = []
    errors: list[str] = []
    stop = time.perf_counter() + seconds

    async def one(n: int) -> None:
        rng = random.Random(seed + n)
        async with httpx.AsyncClient(base_url=base, timeout=60) as client:
            while time.perf_counter() < stop:
                body = {"query": " ".join(rng.choices(WORDS, k=rng.randint(1, 4))), "k": 10, "mode": rng.choice(MODES)}
                if rng.random() < 0.3:
                    body["collections"] = [f"c{rng.randrange(5)}"]
                t0 = time.perf_counter()
                try:
                    r = await client.post("/search", json=body)
                    if r.status_code != 200 or "hits" not in r.json():
                        errors.append(f"{r.status_code}: {r.text[:200]}")
                except httpx.HTTPError as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                latencies.append(time.perf_counter() - t0)

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(clients)))
    wall = time.perf_counter() - started
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return round(1000 * ordered[min(len(ordered) - 1, int(p * len(ordered)))], 1) if ordered else 0.0

    return {"requests": len(latencies), "errors": len(errors), "first_errors": errors[:3],
            "rps": round(len(latencies) / wall, 1), "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
            "max_ms": round(1000 * ordered[-1], 1) if ordered else 0.0,
            "mean_ms": round(1000 * statistics.fmean(ordered), 1) if ordered else 0.0}


def run(chunks: int = 10_000, clients: int = 50, seconds: float = 60, model: str = "all-MiniLM-L6-v2",
        index_dir: Path | None = None) -> dict:
    """Start the server, push, hammer, stop; the result as a dict."""
    tmp = Path(tempfile.mkdtemp(prefix="docshelf-load-")) if index_dir is None else index_dir
    port = _free_port()
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp / "index"), "DOCSHELF_CONFIG": os.devnull,
           "DOCSHELF_MODEL": model, "DOCSHELF_LOG_FILE": str(tmp / "api.log")}
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen([*_docshelf(), "api", "--port", str(port), "--ingest-token", TOKEN, "--no-watch"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait(base, proc)
        index = httpx.get(f"{base}/status", timeout=30).json()
        push_s = push(base, chunks, index["dimensions"], index["model"])  # vectors named as the index's model
        status = httpx.get(f"{base}/status", timeout=30).json()
        time.sleep(5)  # the writer optimizes (full-text index over the pushed rows) once pushes pause
        asyncio.run(hammer(base, min(clients, 2), 1.0))  # warm-up: model loaded, caches filled
        result = asyncio.run(hammer(base, clients, seconds))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"chunks": status["chunks"], "documents": status["documents"], "clients": clients, "seconds": seconds,
            "model": model, "push_s": round(push_s, 1), **result, "machine": f"{platform.machine()}, {os.cpu_count()} cpus",
            "date": time.strftime("%Y-%m-%d")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--model", default="all-MiniLM-L6-v2")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "api_load.jsonl")
    args = parser.parse_args()
    result = run(args.chunks, args.clients, args.seconds, args.model)
    line = json.dumps(result)
    print(line)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as f:
        f.write(line + "\n")
    sys.exit(1 if result["errors"] else 0)


if __name__ == "__main__":
    main()
