"""One process indexing continuously while N clients search: zero failed queries, no mixed versions.

The writer (a separate process, holding the writer lock like ``docshelf index``) rewrites
documents in a loop. Every paragraph of a document carries the document's current version
(``v17v``), and every paragraph is long enough to be its own chunk, so a response that
showed one document at two versions (one chunk old, one new) would be caught. Half-way the
writer deletes ``ephemeral.md`` and logs when the delete committed; no search that starts
after that moment may return it. Readers are threads, each with its own ``Docshelf`` (its
own store connection), searching in every mode.

    python benchmarks/concurrency.py --seconds 60 --readers 8     # the soak run
    (tests/robust/test_concurrency.py runs the same check for a few seconds)

Prints a JSON summary: queries, failures, mixed-version responses, deleted-doc sightings,
writer commits and query latency percentiles.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

DOCS = 6
PARAGRAPHS = 4
MARKER = re.compile(r"\bv(\d+)v\b")
MODES = ("keyword", "hybrid", "semantic", "fuzzy")
MIN_COMMITS = 3


def document(n: int, version: int) -> str:
    """A document whose every paragraph (one chunk each) names its version."""
    filler = " ".join(f"w{n}x{j}" for j in range(150))
    paragraphs = [f"Marker v{version}v for doc{n} paragraph {p}: granitefalcon {filler}." for p in range(PARAGRAPHS)]
    return f"# Document {n}\n\n" + "\n\n".join(paragraphs) + "\n"


def write_all(root: Path, version: int, ephemeral: bool) -> None:
    for n in range(DOCS):
        tmp = root / f".doc{n}.tmp"
        tmp.write_text(document(n, version))
        tmp.replace(root / f"doc{n}.md")  # atomic, as editors save
    if ephemeral:
        (root / "ephemeral.md").write_text(document(99, version))


def writer(root: Path, index: Path, seconds: float, events: Path) -> None:
    """Runs in its own process: rewrite, index, log each commit; delete ephemeral.md half-way."""
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index), embedder=FakeEmbedder())
    started = time.time()
    version, deleted = 1, False
    with events.open("a") as log:
        # At least MIN_COMMITS commits (the delete among them) even when readers starve the writer
        # of CPU on a busy machine: the check needs commits to race against.
        while (elapsed := time.time() - started) < seconds or (version - 1 < MIN_COMMITS and elapsed < 10 * seconds):
            version += 1
            half = time.time() - started > seconds / 2
            if half and not deleted:
                (root / "ephemeral.md").unlink()
            write_all(root, version, ephemeral=not half)
            report = shelf.index([root])
            event = {"t": time.time(), "version": version, "updated": len(report.updated)}
            if half and not deleted:
                assert report.removed == ["ephemeral.md"], report.removed
                event["deleted"] = "ephemeral.md"
                deleted = True
            log.write(json.dumps(event) + "\n")
            log.flush()


def check_response(hits) -> list[str]:
    """Problems in one response: a document seen at two versions, or a hit whose text mixes two."""
    problems, seen = [], {}
    for hit in hits:
        versions = set(MARKER.findall(hit.text))
        if len(versions) > 1:
            problems.append(f"{hit.path}: one hit mixes versions {sorted(versions)}")
        for v in sorted(versions):
            if seen.setdefault(hit.path, v) != v:
                problems.append(f"{hit.path}: versions {seen[hit.path]} and {v} in one response")
    return problems


def run(seconds: float = 5.0, readers: int = 8, workdir: Path | None = None) -> dict:
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        root, index, events = Path(tmp) / "docs", Path(tmp) / "index", Path(tmp) / "events.jsonl"
        root.mkdir()
        write_all(root, 1, ephemeral=True)
        first = Docshelf(Settings(index_dir=index), embedder=FakeEmbedder())
        first.index([root])
        code = "import sys; from concurrency import writer; from pathlib import Path; " \
               "writer(Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3]), Path(sys.argv[4]))"
        proc = subprocess.Popen([sys.executable, "-c", code, str(root), str(index), str(seconds), str(events)],
                                cwd=Path(__file__).parent, stderr=subprocess.PIPE, text=True)
        results: list[dict] = []
        lock = threading.Lock()
        stop = threading.Event()

        def client(i: int) -> None:
            shelf = Docshelf(Settings(index_dir=index), embedder=FakeEmbedder())
            n = 0
            while not stop.is_set():
                mode = MODES[(i + n) % len(MODES)]
                n += 1
                start = time.time()
                entry: dict = {"start": start, "mode": mode}
                try:
                    result = shelf.search("granitefalcon marker", k=20, mode=mode, max_per_doc=0)
                    entry["paths"] = sorted({h.path for h in result.hits})
                    entry["problems"] = check_response(result.hits)
                except Exception as exc:  # noqa: BLE001 - a failed query is what we count
                    entry["error"] = f"{type(exc).__name__}: {exc}"
                entry["ms"] = (time.time() - start) * 1000
                with lock:
                    results.append(entry)

        threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(readers)]
        for t in threads:
            t.start()
        _, err = proc.communicate(timeout=seconds + 300)
        stop.set()
        for t in threads:
            t.join(60)
        log = [json.loads(line) for line in events.read_text().splitlines()] if events.exists() else []
    deleted_at = next((e["t"] for e in log if e.get("deleted")), None)
    sightings = [r for r in results if deleted_at and r["start"] > deleted_at and "ephemeral.md" in r.get("paths", ())]
    latencies = sorted(r["ms"] for r in results if "error" not in r)
    return {
        "seconds": seconds, "readers": readers, "queries": len(results),
        "failed": [r["error"] for r in results if "error" in r][:10],
        "failed_count": sum(1 for r in results if "error" in r),
        "mixed": [p for r in results for p in r.get("problems", ())][:10],
        "mixed_count": sum(1 for r in results if r.get("problems")),
        "deleted_seen_after_commit": len(sightings), "delete_committed": deleted_at is not None,
        "writer_commits": len(log), "writer_exit": proc.returncode, "writer_stderr": err[-2000:],
        "empty_responses": sum(1 for r in results if "paths" in r and not r["paths"]),
        "ms_p50": round(statistics.median(latencies), 1) if latencies else None,
        "ms_p95": round(latencies[int(len(latencies) * 0.95) - 1], 1) if latencies else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--readers", type=int, default=8)
    args = parser.parse_args()
    print(json.dumps(run(args.seconds, args.readers), indent=2))


if __name__ == "__main__":
    main()
