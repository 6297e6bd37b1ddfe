"""Search latency per mode on a docs-folder set's questions: median CPU and wall time (ms).

    python benchmarks/docset_latency.py INDEX_DIR benchmarks/docsets/starlette/questions.jsonl out.json
    # before/after: alternate processes with PYTHONPATH=<old src> and <new src> on the same index

Opens an index already built (``docshelf eval DOCSET`` builds one under the eval cache: nothing is
indexed here), warms each mode up on ten questions, then times ``Docshelf.search`` (k = 10) over
every question, three rounds per mode. The query-embedding cache is emptied before every timed
search, so each figure includes the query embedding. CPU time (``time.process_time``, all
threads of the process) is the figure to compare on a loaded machine; wall time is recorded too.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

MODES = ("hybrid", "keyword", "semantic", "fuzzy")


def measure(index: Path, questions: list[str], rounds: int = 3) -> dict[str, dict[str, float]]:
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index), create=False)
    shelf.embedder.load()
    out: dict[str, dict[str, float]] = {}
    for mode in MODES:
        for q in questions[:10]:
            shelf.search(q, k=10, mode=mode)
        cpu: list[float] = []
        wall: list[float] = []
        for _ in range(rounds):
            for q in questions:
                shelf.searcher.forget_query_embeddings()
                c0, w0 = time.process_time(), time.perf_counter()
                shelf.search(q, k=10, mode=mode)
                cpu.append((time.process_time() - c0) * 1000)
                wall.append((time.perf_counter() - w0) * 1000)
        out[mode] = {"cpu_p50_ms": round(statistics.median(cpu), 3), "wall_p50_ms": round(statistics.median(wall), 3)}
    return out


def main() -> None:
    index, qfile, target = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    questions = [json.loads(line)["query"] for line in qfile.read_text().splitlines() if line.strip()]
    result = measure(index, questions)
    target.write_text(json.dumps(result, indent=1))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
