"""Which pgvector index, and which query settings, reach recall@10 >= 0.95 at a table's size.

The PostgreSQL twin of ``ann_index.py``, on the same copies of a ``corpus.py`` index's vectors
(``ann_index.py extract`` writes them), loaded into a bare table (``row``, ``embedding``) of a
server of your own, so no docshelf table is touched and a rebuild costs only the index:

    python benchmarks/ann_index.py extract /tmp/docshelf-bench/n1000000-…/index /tmp/ann-study
    python benchmarks/pg_vector_index.py /tmp/ann-study 300000 --postgres-url URL \\
        --plans '[["hnsw", {"m": 16, "ef_construction": 64}, [{"hnsw.ef_search": 40}, {"hnsw.ef_search": 400}]],
                  ["ivfflat", {"lists": 300}, [{"ivfflat.probes": 12}]]]' --json pg-300k.json

Per index (``hnsw`` with m / ef_construction, or ``ivfflat`` with lists; an index already
there with the same parameters is reused, any other on the table dropped first) and per query
setting (any ``SET``-able name: ``hnsw.ef_search``, ``ivfflat.probes``): recall@10 of a top-10
query and recall@100 of a top-100 query against the exact cosine top-k (numpy over the same
rows), with the query's wall p50 / p95 (one ``ORDER BY embedding <=> q LIMIT k`` statement,
as ``PostgresStore.vector_search`` issues it) and the build's time and size. Settings are
chosen on held-out queries (SciFact sentences outside the corpus's pool); the 100 timed
questions (``--sets timed``) are reported beside them, never used to choose.
"""

from __future__ import annotations

import argparse
import json
import statistics
import struct
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from ann_index import exact_top, query_sets  # noqa: E402

HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
TRAILER = struct.pack(">h", -1)


def load(conn, table: str, vecs: np.ndarray) -> None:
    """``table`` holding ``vecs`` (row number, vector); kept when it already has that many rows."""
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()[0]
    if exists and conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == len(vecs):
        return
    conn.execute(f"DROP TABLE IF EXISTS {table}")
    conn.execute(f"CREATE TABLE {table} (row bigint NOT NULL, embedding vector({vecs.shape[1]}) NOT NULL)")
    t = time.perf_counter()
    head = struct.pack(">hiq", 2, 8, 0)[:6]  # two fields, then the int8 field's length
    vec_len = struct.pack(">ihh", 4 + 4 * vecs.shape[1], vecs.shape[1], 0)
    with conn.cursor() as cur, cur.copy(f"COPY {table} (row, embedding) FROM STDIN (FORMAT binary)") as copy:
        copy.write(HEADER)
        for start in range(0, len(vecs), 10_000):
            part = np.asarray(vecs[start:start + 10_000], dtype=">f4")
            copy.write(b"".join(head + struct.pack(">q", start + i) + vec_len + v.tobytes() for i, v in enumerate(part)))
        copy.write(TRAILER)
    conn.execute(f"VACUUM (ANALYZE) {table}")
    print(f"loaded {len(vecs)} rows into {table} in {time.perf_counter() - t:.0f} s", flush=True)


def build(conn, table: str, kind: str, params: dict, memory_mb: int) -> tuple[str, float, int]:
    """The index of ``kind`` with ``params`` on ``table`` (reused when there), its build seconds
    (0 when reused) and size in bytes; every other index on the table is dropped first."""
    name = f"{table}_{kind}_" + "_".join(f"{k}{v}" for k, v in sorted(params.items()))
    others = [r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", (table,)).fetchall()]
    for other in others:
        if other != name:
            conn.execute(f"DROP INDEX {other}")
    seconds = 0.0
    if name not in others:
        conn.execute(f"SET maintenance_work_mem = '{memory_mb}MB'")
        with_ = ", ".join(f"{k} = {int(v)}" for k, v in params.items())
        t = time.perf_counter()
        conn.execute(f"CREATE INDEX {name} ON {table} USING {kind} (embedding vector_cosine_ops) WITH ({with_})")
        seconds = time.perf_counter() - t
        conn.execute("RESET maintenance_work_mem")
    size = conn.execute("SELECT pg_relation_size(%s)", (name,)).fetchone()[0]
    return name, seconds, size


def measure(conn, table: str, queries: np.ndarray, exact: np.ndarray, settings: dict) -> dict:
    res = {}
    for limit in (10, 100):
        recalls, wall = [], []
        for qv, ex in zip(queries, exact, strict=True):
            text = "[" + ",".join(f"{x:.7g}" for x in qv) + "]"
            with conn.transaction():
                for key, value in settings.items():
                    conn.execute("SELECT set_config(%s, %s, true)", (key, str(value)))
                t = time.perf_counter()
                got = conn.execute(f"SELECT row FROM {table} ORDER BY embedding <=> %s::vector LIMIT %s",
                                   (text, limit)).fetchall()
                wall.append((time.perf_counter() - t) * 1000)
            recalls.append(len({r[0] for r in got} & set(ex[:limit].tolist())) / limit)
        res[f"recall@{limit}"] = round(statistics.mean(recalls), 4)
        res[f"p50_ms@{limit}"] = round(float(np.percentile(wall, 50)), 2)
        res[f"p95_ms@{limit}"] = round(float(np.percentile(wall, 95)), 2)
    return res


def study(out: Path, n: int, url: str, plans: list, sets: list[str], memory_mb: int) -> list[dict]:
    import psycopg

    vecs = np.ascontiguousarray(np.load(out / "vectors.npy", mmap_mode="r")[:n])
    qs = query_sets(out)
    exact = {}
    for name in sets:
        path = out / f"exact-{n}-{name}.npy"
        if not path.exists():
            np.save(path, exact_top(vecs, qs[name]))
        exact[name] = np.load(path)
    table = f"pgstudy_{n}"
    rows = []
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        load(conn, table, vecs)
        del vecs
        for kind, params, settings_list in plans:
            index, seconds, size = build(conn, table, kind, params, memory_mb)
            print(f"{index}: built in {seconds:.0f} s, {size / 2**20:.0f} MB", flush=True)
            for settings in settings_list:
                for name in sets:
                    r = {"n": n, "index": kind, "params": params, "build_s": round(seconds, 1), "size_mb": round(size / 2**20),
                         "settings": settings, "queries": name, **measure(conn, table, qs[name], exact[name], settings)}
                    rows.append(r)
                    print(f"  {json.dumps(settings):40s} {name:8s} r@10 {r['recall@10']:.3f} r@100 {r['recall@100']:.3f}"
                          f"  p50/p95 {r['p50_ms@10']:.1f}/{r['p95_ms@10']:.1f} ms (top 100: {r['p50_ms@100']:.1f}/"
                          f"{r['p95_ms@100']:.1f})", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path, help="the folder ann_index.py extract wrote")
    ap.add_argument("n", type=int, help="the first N rows")
    ap.add_argument("--postgres-url", required=True)
    ap.add_argument("--plans", required=True, help="JSON list of [hnsw|ivfflat, {params}, [{settings}, ...]]")
    ap.add_argument("--sets", default="held-out")
    ap.add_argument("--memory-mb", type=int, default=2048, help="maintenance_work_mem for a build")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = study(args.out, args.n, args.postgres_url, json.loads(args.plans), args.sets.split(","), args.memory_mb)
    if args.json:
        old = json.loads(args.json.read_text()) if args.json.exists() else []
        args.json.write_text(json.dumps(old + rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
