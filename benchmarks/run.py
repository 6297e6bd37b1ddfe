"""Every performance figure of issue 11 in one run, one table: target, measured median, met or missed.

    python benchmarks/run.py                # 10k and 100k chunks (about an hour on a busy 2-core machine)
    python benchmarks/run.py --full         # and 1M chunks (needs ~4 GiB free; the build ~45 min at load 17)
    python benchmarks/run.py --only latency --sizes 1000000   # the 1M rows alone
    python benchmarks/run.py --quick        # 10k only, fewer queries and files: minutes
    python benchmarks/run.py --smoke        # 1k chunks, a few queries: what CI runs (the figures mean nothing)
    ... --json results.json                 # the rows as JSON too

Run it with a Python that also has ``chromadb``, ``sqlite-vec`` and ``apsw``
(``pip install -e ".[bench]"``) for the comparison rows; without them those rows say
"not installed". Indexes come from ``corpus.py`` (cached under ``$DOCSHELF_BENCH_CACHE``);
queries are real SciFact questions; the text data is ../shared/eval/scifact. Every query is
timed with its embedding included, through the product's code path (``Docshelf.search``,
``docshelf search``, ``docshelf serve`` over MCP). Sections run independently: one that
fails becomes an "error" row, the others still run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402


# -- rows ---------------------------------------------------------------------------------------
@dataclass
class Row:
    id: str
    what: str
    value: float | None
    unit: str
    target: str = ""  # "<= 15", ">= 0.9", "" (no target)
    status: str = ""  # met / missed by … / no target / not installed / not run / error: …
    note: str = ""

    def judge(self) -> Row:
        if self.status:
            return self
        if self.value is None:
            self.status = "not measured"
        elif not self.target:
            self.status = "no target"
        else:
            op, bound = self.target.split()
            bound_f = float(bound)
            ok = self.value <= bound_f if op == "<=" else self.value >= bound_f
            if ok:
                self.status = "met"
            else:
                gap = abs(self.value - bound_f)
                factor = self.value / bound_f if op == "<=" and bound_f else (bound_f / self.value if self.value else 0)
                self.status = f"missed by {_fmt(gap)} {self.unit} ({factor:.1f}x)".replace("  ", " ")
        return self


def _fmt(v: float | None) -> str:
    if v is None:
        return "–"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3g}" if abs(v) < 1 else f"{v:.2f}"


def _k(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k" if n >= 1000 else str(n)


def median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def have(*modules: str) -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in modules)


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def docshelf_argv() -> list[str]:
    """``docshelf`` as a user runs it, from this Python (so PYTHONPATH picks the code under test):
    the console script's entry point (``cli_entry``, the thin client that asks a running server)."""
    return [sys.executable, "-c", "from docshelf.interfaces.cli_entry import main; main()"]


def child_env(index_dir: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "DOCSHELF_INDEX_DIR": str(index_dir), "DOCSHELF_LOG_FILE": os.devnull, **extra}


# -- 1. query latency and recall ------------------------------------------------------------------
def timed(fn, queries, rounds: int) -> list[float]:
    fn(queries[0])  # warm
    out = []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter()
            fn(q)
            out.append((time.perf_counter() - t) * 1000)
    return out


LATENCY_TARGETS = {  # (chunks, measure) -> target
    (100_000, "hybrid p50"): "<= 15", (100_000, "hybrid p95"): "<= 30",
    (100_000, "semantic p50"): "<= 8", (100_000, "keyword p50"): "<= 8",
    (1_000_000, "hybrid p50"): "<= 50",
}


def latency(n: int, cfg, compare: bool) -> tuple[list[Row], dict]:
    from docshelf.models import SearchFilters

    built = corpus.cached_index(n)
    qs, qvecs = corpus.query_set(cfg.queries)
    shelf = built.open()
    shelf.embedder.load()
    rows: list[Row] = []
    lat: dict[str, list[float]] = {}

    def ds(mode, filters=None):
        def search(q):  # every query embedded: a cached embedding would skip the model
            shelf.searcher.forget_query_embeddings()
            return shelf.search(q, k=10, mode=mode, filters=filters)
        return search

    for mode in ("hybrid", "semantic", "keyword"):
        lat[mode] = timed(ds(mode), qs, cfg.rounds)
        for pct in (50, 95):
            key = f"{mode} p{pct}"
            rows.append(Row(f"latency.{_k(n)}.{mode}.p{pct}", f"{mode} search, {_k(n)} chunks, p{pct}",
                            corpus.p(lat[mode], pct), "ms", LATENCY_TARGETS.get((n, key), "")))
    filters = {"collection": SearchFilters(collections=("c3",)),
               "date": SearchFilters(date_from="2023-01-01", date_to="2023-12-31")}
    for name, f in filters.items():
        lat[f"hybrid+{name}"] = t = timed(ds("hybrid", f), qs, cfg.rounds)
        rows.append(Row(f"latency.{_k(n)}.hybrid_{name}.p50", f"hybrid + {name} filter, {_k(n)} chunks, p50",
                        corpus.p(t, 50), "ms"))
        rows.append(Row(f"latency.{_k(n)}.hybrid_{name}.ratio", f"hybrid + {name} filter ÷ unfiltered, {_k(n)}, p50",
                        corpus.p(t, 50) / corpus.p(lat["hybrid"], 50), "x", "<= 1.5" if n >= 100_000 else ""))
    recall_q = qvecs[: cfg.recall_queries]
    rows.append(Row(f"recall.{_k(n)}", f"vector index recall@10 vs exact, {_k(n)} chunks", corpus.vector_recall(
        shelf.store, recall_q), "", ">= 0.95" if n >= 100_000 else "",
        note="index: " + ("ANN" if shelf.store.has_vector_index() else "none (exact scan)")))
    rows.append(Row(f"load.{_k(n)}", f"load average (1 min) after timing {_k(n)}", os.getloadavg()[0], "",
                    note=f"{os.cpu_count()} CPUs; figures above were timed at this load"))
    rows += build_rows(built)
    if compare:
        rows += compare_stacks(n, qs, shelf, corpus.p(lat["hybrid"], 50), corpus.p(lat["hybrid+collection"], 50), cfg)
    shelf.store.close() if hasattr(shelf.store, "close") else None
    return rows, {"chunks": built.chunks, "build_s": built.build_seconds}


def build_rows(built) -> list[Row]:
    """How long the cached index took to build (``corpus.py``: write path + optimize) and its size."""
    facts = built.facts()
    size_mb = (facts.get("index_bytes") or corpus.folder_bytes(built.index_dir)) / 2**20
    parts = ", ".join(f"{name} {facts[key]:.0f} s" for name, key in (("write", "write_seconds"),
                      ("optimize", "optimize_seconds")) if facts.get(key) is not None)
    rss = f"peak RSS {facts['peak_rss_mb']:.0f} MB" if facts.get("peak_rss_mb") else ""
    return [
        Row(f"index.{_k(built.chunks)}.build_s", f"build of the {_k(built.chunks)}-chunk index (corpus.py)",
            built.build_seconds, "s", note="; ".join(x for x in (parts, rss) if x) or "cached build"),
        Row(f"index.{_k(built.chunks)}.disk", f"index size on disk, {_k(built.chunks)} chunks", size_mb, "MB"),
    ]


def compare_stacks(n: int, qs, shelf, hybrid_p50: float, hybrid_filtered_p50: float, cfg) -> list[Row]:
    """Chroma (dense, dense + where) and sqlite-vec (exact KNN) + FTS5 on the same chunks and queries."""
    import stacks

    model = shelf.embedder
    rows: list[Row] = []
    texts, vecs, cats, _ = corpus.synthetic(n)
    with tempfile.TemporaryDirectory(prefix="docshelf-run-stacks-") as tmp:
        work = Path(tmp)
        if have("chromadb"):
            col, build_s = stacks.build_chroma(work, texts, vecs, cats)
            dense = timed(lambda q: col.query(query_embeddings=[model.embed_query(q)], n_results=10), qs, cfg.rounds)
            where = timed(lambda q: col.query(query_embeddings=[model.embed_query(q)], n_results=10,
                                              where={"category": "c3"}), qs, cfg.rounds)
            rows += [
                Row(f"chroma.{_k(n)}.dense.p50", f"Chroma dense, {_k(n)}, p50", corpus.p(dense, 50), "ms"),
                Row(f"chroma.{_k(n)}.where.p50", f"Chroma dense + where, {_k(n)}, p50", corpus.p(where, 50), "ms"),
                Row(f"chroma.{_k(n)}.speedup_unfiltered", f"Chroma dense ÷ docshelf hybrid, {_k(n)} (p50)",
                    corpus.p(dense, 50) / hybrid_p50, "x"),
                Row(f"chroma.{_k(n)}.speedup_filtered", f"Chroma dense + where ÷ docshelf hybrid + collection, {_k(n)}",
                    corpus.p(where, 50) / hybrid_filtered_p50, "x", ">= 30" if n >= 100_000 else ""),
                Row(f"chroma.{_k(n)}.build_s", f"Chroma add of {_k(n)} prepared vectors", build_s, "s"),
            ]
        else:
            rows += [Row(f"chroma.{_k(n)}.{x}", f"Chroma {x}, {_k(n)}", None, "", status="not installed")
                     for x in ("dense.p50", "where.p50", "speedup_unfiltered", "speedup_filtered")]
        if have("sqlite_vec", "apsw"):
            db, _ = stacks.build_sqlite(work, texts, vecs)
            exact = timed(lambda q: db.execute("select rowid, distance from vec where embedding match ? and k = 10",
                                               (model.embed_query(q).tobytes(),)).fetchall(), qs, cfg.rounds)
            fts = timed(lambda q: db.execute("select rowid, bm25(fts) from fts where fts match ? order by bm25(fts) "
                                             "limit 10", (stacks.fts_query(q),)).fetchall(), qs, cfg.rounds)
            rows += [
                Row(f"sqlite.{_k(n)}.vec_exact.p50", f"sqlite-vec exact KNN, {_k(n)}, p50", corpus.p(exact, 50), "ms"),
                Row(f"sqlite.{_k(n)}.fts5.p50", f"SQLite FTS5 BM25, {_k(n)}, p50", corpus.p(fts, 50), "ms"),
                Row(f"sqlite.{_k(n)}.speedup", f"sqlite-vec exact ÷ docshelf hybrid, {_k(n)} (p50)",
                    corpus.p(exact, 50) / hybrid_p50, "x", ">= 6" if n >= 100_000 else ""),
            ]
        else:
            rows += [Row(f"sqlite.{_k(n)}.{x}", f"sqlite-vec {x}, {_k(n)}", None, "", status="not installed")
                     for x in ("vec_exact.p50", "fts5.p50", "speedup")]
    return rows


# -- 2. indexing throughput and peak memory -------------------------------------------------------
def index_child(docs: str, index_dir: str, threads: str) -> None:
    """In a fresh process: the pipeline on ``docs``, then the model alone on the same chunks.
    The allocator is tuned as the ``docshelf`` command tunes it, so the peak RSS is the CLI's."""
    from docshelf import allocator
    from docshelf.config import Settings

    allocator.tune()
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=Path(index_dir), embed_threads=int(threads)))
    t0 = time.perf_counter()
    shelf.embedder.load()
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    report = shelf.index([Path(docs)])
    pipeline_s = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    texts = shelf.store._chunks.to_arrow().column("embed_text").to_pylist()
    t0 = time.perf_counter()
    shelf.embedder.embed_documents(texts)
    embed_s = time.perf_counter() - t0
    print(json.dumps({"chunks": report.chunks_embedded, "pipeline_s": pipeline_s, "embed_s": embed_s,
                      "embedded": len(texts), "load_s": load_s, "peak_rss_mb": peak}))


def run_child(*args: str, env: dict | None = None) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True,
                         env=env or os.environ)
    if out.returncode:
        raise RuntimeError(f"child {args[0]} failed: {out.stderr.strip().splitlines()[-1:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def indexing(cfg, compare: bool) -> list[Row]:
    import stacks

    rows: list[Row] = []
    peaks = []
    with tempfile.TemporaryDirectory(prefix="docshelf-run-index-") as tmp:
        docs = Path(tmp) / "docs"
        if corpus.HAVE_SCIFACT:
            stacks.write_docs(docs, cfg.index_docs)
        else:
            docs.mkdir()
            for i, f in enumerate(corpus.repo_documents(cfg.index_docs)):
                (docs / f"{i:03d}-{f.name}").write_bytes(f.read_bytes())
        ratios = {}
        for threads in (1, 2):
            runs = [run_child("index", str(docs), str(Path(tmp) / f"i{threads}-{r}"), str(threads))
                    for r in range(cfg.index_repeat)]
            pipe = median(r["chunks"] / r["pipeline_s"] for r in runs)
            emb = median(r["embedded"] / r["embed_s"] for r in runs)
            peaks += [r["peak_rss_mb"] for r in runs]
            ratios[threads] = pipe / emb
            rows += [
                Row(f"indexing.embed_only.t{threads}", f"embed-only (the model alone), {threads} thread(s)", emb,
                    "chunks/s"),
                Row(f"indexing.pipeline.t{threads}", f"whole pipeline, {threads} thread(s)", pipe, "chunks/s",
                    note=f"{runs[0]['chunks']} chunks from {cfg.index_docs} files"),
                Row(f"indexing.ratio.t{threads}", f"pipeline ÷ embed-only, {threads} thread(s)", ratios[threads], "x",
                    ">= 0.9"),
            ]
        rows.append(Row("memory.index_peak", "peak RSS of `index` (pipeline, fresh process)", max(peaks), "MB",
                        "<= 800"))
        if compare and have("chromadb"):
            args = argparse.Namespace(docs=cfg.index_docs, chroma=True)
            work = Path(tmp) / "cmp"
            work.mkdir()
            res = stacks.indexing(args, work)
            ds, ch = res["docshelf"], res["chroma"]
            rows += [
                Row("chroma.index_s", f"Chroma pipeline (500/50 windows), {cfg.index_docs} files, fresh process",
                    ch["seconds"], "s", note=f"{ch['chunks']} windows"),
                Row("docshelf.index_s", f"docshelf index, {cfg.index_docs} files, fresh process", ds["seconds"], "s",
                    note=f"{ds['chunks']} chunks"),
                Row("chroma.index_ratio", "docshelf ÷ Chroma, indexing time", ds["seconds"] / ch["seconds"], "x"),
                Row("chroma.index_rss_ratio", "docshelf ÷ Chroma, peak RSS while indexing",
                    ds["peak_rss_mb"] / ch["peak_rss_mb"], "x", note=f"{ds['peak_rss_mb']:.0f} vs "
                    f"{ch['peak_rss_mb']:.0f} MB"),
            ]
        elif compare:
            rows += [Row(f"chroma.{x}", f"Chroma {x}", None, "", status="not installed")
                     for x in ("index_s", "index_ratio", "index_rss_ratio")]
    return rows


# -- 3. re-index --------------------------------------------------------------------------------
def reindex(n: int, cfg) -> list[Row]:
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    # The shared cached index: an unchanged re-index writes nothing, and the edited file is put
    # back (and re-indexed) afterwards, so only that one document's chunks differ from the build.
    built = corpus.cached_index(n)
    shelf = Docshelf(Settings(index_dir=built.index_dir))
    shelf.embedder.load()
    files = sum(1 for _ in built.docs_dir.rglob("*.md"))
    noop = []
    for _ in range(cfg.reindex_repeat):
        t0 = time.perf_counter()
        report = shelf.index([built.docs_dir])
        noop.append(time.perf_counter() - t0)
    target = sorted(built.docs_dir.rglob("*.md"))[len(noop)]
    original = target.read_bytes()
    edits = []
    try:
        for i in range(cfg.reindex_repeat):
            target.write_bytes(original + f"\nAn added sentence about a new finding, number {i}.\n".encode())
            t0 = time.perf_counter()
            edit = shelf.index([built.docs_dir])
            edits.append(time.perf_counter() - t0)
    finally:
        target.write_bytes(original)
        shelf.index([built.docs_dir])
    rel = str(target.relative_to(built.docs_dir))
    chunks = shelf.store.document_chunks(str(built.docs_dir), rel)
    t0 = time.perf_counter()
    shelf.embedder.embed_documents([c.embed_text for c in chunks][: max(1, edit.chunks_embedded)])
    own_embed = time.perf_counter() - t0
    edit_s = median(edits)
    return [
        Row(f"reindex.unchanged.{files}", f"re-index of an unchanged tree, {files} files", median(noop), "s",
            "<= 2" if files >= 10_000 else "", note=f"{report.unchanged} unchanged"),
        Row(f"reindex.one_edit.{files}", f"one edited file in it, minus its own embedding ({files} files)",
            edit_s - own_embed, "s", "<= 1", note=f"total {edit_s:.2f} s, embedding {edit.chunks_embedded} "
            f"chunk(s) {own_embed:.2f} s"),
    ]


# -- 4./5./6. servers: start-up, first search, RSS; the CLI ----------------------------------------
def _server_children() -> list[int]:
    me, found = os.getpid(), []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == me:
                    found.append(int(proc.name))
            except (OSError, ValueError, IndexError):
                continue
    return found


REST_S = 5.0  # a server's RSS is read this long after its last search (rss.py's IDLE_S)


async def _serve_session(index_dir: Path, query: str, searches: int) -> dict:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    argv = docshelf_argv()
    params = StdioServerParameters(command=argv[0], args=[*argv[1:], "serve", "--read-only"], env=child_env(index_dir))
    out: dict = {}
    with open(os.devnull, "w") as devnull:
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            out["initialize_s"] = time.perf_counter() - t0
            r = await session.call_tool("search_docs", {"query": query, "k": 10})
            out["first_search_s"] = time.perf_counter() - t0
            out["first_note"] = "error" if _is_error(r) else _structured(r).get("note", "")
            deadline = time.perf_counter() + 120
            while searches and time.perf_counter() < deadline:  # until the model has loaded
                r = await session.call_tool("search_docs", {"query": query, "k": 10})
                if not _structured(r).get("note"):
                    break
                await _sleep(0.5)
            for i in range(searches):
                await session.call_tool("search_docs", {"query": f"{query} {i}", "k": 10})
            pids = _server_children()
            if searches:  # at rest, as rss.py reads it: the idle trim (2 s after a search) has run
                out["right_after_mb"] = max((rss_mb(p) or 0) for p in pids) if pids else None
                await _sleep(REST_S)
            out["rss_mb"] = max((rss_mb(p) or 0) for p in pids) if pids else None
            out["peak_mb"] = max((peak_rss_mb(p) or 0) for p in pids) if pids else None
    return out


def _structured(result) -> dict:
    return getattr(result, "structured_content", None) or getattr(result, "structuredContent", None) or {}


def _is_error(result) -> bool:
    return bool(getattr(result, "is_error", None) or getattr(result, "isError", None))


async def _sleep(s: float) -> None:
    import anyio

    await anyio.sleep(s)


def servers(n: int, cfg, rss_sizes: list[int]) -> list[Row]:
    import anyio
    from handshake import BARE_SERVER, time_handshake
    from mcp.client.stdio import StdioServerParameters

    rows: list[Row] = []
    qs, _ = corpus.query_set(cfg.queries)
    built = corpus.cached_index(n)
    argv = docshelf_argv()
    bare = StdioServerParameters(command=sys.executable, args=["-c", BARE_SERVER])
    shelf = StdioServerParameters(command=argv[0], args=[*argv[1:], "serve", "--read-only"],
                                  env=child_env(built.index_dir))
    times: dict[str, list[float]] = {"bare": [], "docshelf": []}
    for _ in range(cfg.startup_runs):
        times["bare"].append(anyio.run(time_handshake, bare))
        times["docshelf"].append(anyio.run(time_handshake, shelf))
    gap = median(times["docshelf"]) - median(times["bare"])
    rows.append(Row("startup.initialize_gap", f"MCP initialize, docshelf serve − bare SDK server ({_k(n)} index)",
                    gap, "s", "<= 0.3", note=f"{median(times['docshelf']):.2f} vs {median(times['bare']):.2f} s"))
    first = [anyio.run(_serve_session, built.index_dir, qs[i % len(qs)], 0) for i in range(cfg.startup_runs)]
    rows.append(Row(f"startup.first_search.{_k(n)}", f"first search answered after spawn, {_k(n)} chunks",
                    median(r["first_search_s"] for r in first), "s", "<= 3" if n >= 100_000 else "",
                    note=(first[0]["first_note"][:60] or "full answer")))
    for size in rss_sizes:
        b = corpus.cached_index(size)
        r = anyio.run(_serve_session, b.index_dir, qs[0], cfg.rss_searches)
        target = "<= 300" if size <= 10_000 else "<= 500"
        rows.append(Row(f"memory.server.{_k(size)}", f"RSS of a warm server holding {_k(size)} chunks, at rest",
                        r["rss_mb"], "MB", target, note=f"{r['right_after_mb']:.0f} MB right after the last search; "
                        f"peak {r['peak_mb']:.0f} MB" if r["peak_mb"] else ""))
    return rows


def cli(n: int, cfg) -> list[Row]:
    qs, _ = corpus.query_set(cfg.queries)
    built = corpus.cached_index(n)
    env = child_env(built.index_dir)

    def once(q: str, cold: bool = False) -> float:
        # cold means in-process, even if some server on this index is up
        run_env = {**env, "DOCSHELF_QUERY_TIMEOUT": "0"} if cold else env
        t0 = time.perf_counter()
        subprocess.run([*docshelf_argv(), "search", q, "--json", "-k", "10"], env=run_env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t0

    once(qs[0], cold=True)  # the OS file cache, as for a user who searched before
    cold = [once(qs[i % len(qs)], cold=True) for i in range(cfg.cli_runs)]
    rows = [Row(f"cli.cold.{_k(n)}", f"cold `docshelf search`, {_k(n)} chunks (wall)", median(cold), "s", "<= 1")]
    server = subprocess.Popen([*docshelf_argv(), "serve", "--read-only"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        deadline = time.perf_counter() + cfg.server_wait
        while time.perf_counter() < deadline and not list(built.index_dir.glob("query-*.json")):
            time.sleep(0.2)
        announced = bool(list(built.index_dir.glob("query-*.json")))
        time.sleep(1 if announced else 0)
        # One question first, untimed, as cli.py does: a server that has just started loads its
        # model and measures its calibration on the first query it gets; the target is about
        # a server that is already running.
        once(qs[-1])
        warm = [once(qs[i % len(qs)]) for i in range(cfg.cli_runs)]
    finally:
        server.stdin.close()
        server.terminate()
        server.wait(timeout=30)
    rows.append(Row(f"cli.via_server.{_k(n)}", f"`docshelf search` with `docshelf serve` running, {_k(n)} (wall)",
                    median(warm), "s", "<= 0.3", note="server announced its socket" if announced else
                    "no query socket announced: the CLI searched in-process"))
    return rows


# -- 7. retrieval quality beside Chroma -----------------------------------------------------------
def quality(cfg, compare: bool) -> list[Row]:
    import backends

    from docshelf.eval.beir import load_dataset
    from docshelf.eval.metrics import evaluate_run
    from docshelf.eval.runner import open_eval_index, run_eval

    if not corpus.HAVE_SCIFACT:
        return [Row(f"quality.{x}", f"nDCG@10 {x}", None, "", status="not run", note="no ../shared/eval/scifact")
                for x in ("docshelf.hybrid", "chroma.dense")]
    folder = backends.subset(corpus.SCIFACT, cfg.quality_queries, cfg.quality_docs, "test")
    dataset = load_dataset(folder, "test")
    report = run_eval(dataset, open_eval_index(dataset), ["hybrid", "semantic"])
    scores = {m.mode: m.metrics["ndcg@10"] for m in report.modes}
    label = f"SciFact test subset ({report.queries} queries, {report.chunks} chunks)"
    rows = [Row(f"quality.docshelf.{m}", f"docshelf {m} nDCG@10, {label}", s, "") for m, s in scores.items()]
    if compare and have("chromadb"):
        import chromadb
        import stacks

        with tempfile.TemporaryDirectory(prefix="docshelf-run-quality-") as tmp:
            docs, names = Path(tmp) / "docs", {}
            docs.mkdir()
            for line in (folder / "corpus.jsonl").open():
                doc = json.loads(line)
                (docs / f"{doc['_id']}.md").write_text(f"# {doc['title']}\n\n{doc['text']}\n")
                names[f"{doc['_id']}.md"] = doc["_id"]
            stacks.chroma_pipeline(docs, Path(tmp) / "chroma")
            col = chromadb.PersistentClient(path=str(Path(tmp) / "chroma")).get_collection("docs")
            model = corpus._embedder()
            run = {}
            for qid, text in dataset.judged_queries:
                r = col.query(query_embeddings=[model.embed_query(text)], n_results=100)
                ranked: list[str] = []
                for meta in r["metadatas"][0]:
                    if names[meta["source"]] not in ranked:
                        ranked.append(names[meta["source"]])
                run[qid] = ranked
            chroma = evaluate_run(run, dataset.qrels)["ndcg@10"]
        rows += [Row("quality.chroma.dense", "Chroma dense (500/50 windows) nDCG@10, same subset", chroma, ""),
                 Row("quality.ratio", "docshelf hybrid ÷ Chroma dense, nDCG@10", scores["hybrid"] / chroma, "x")]
    elif compare:
        rows += [Row(f"quality.{x}", f"Chroma {x}", None, "", status="not installed") for x in ("chroma.dense", "ratio")]
    return rows


# -- the run --------------------------------------------------------------------------------------
PRESETS = {  # sizes, queries, rounds, recall queries, index docs/repeats, reindex repeats, startup runs, cli runs
    "smoke": dict(sizes=[1000], compare_size=1000, queries=5, rounds=1, recall_queries=5, index_docs=3,
                  index_repeat=1, reindex_repeat=1, startup_runs=1, cli_runs=1, rss_searches=2, server_wait=10,
                  quality_queries=3, quality_docs=3),
    "quick": dict(sizes=[10_000], compare_size=10_000, queries=30, rounds=1, recall_queries=30, index_docs=40,
                  index_repeat=1, reindex_repeat=3, startup_runs=3, cli_runs=3, rss_searches=20, server_wait=30,
                  quality_queries=20, quality_docs=60),
    "default": dict(sizes=[10_000, 100_000], compare_size=100_000, queries=100, rounds=1, recall_queries=100,
                    index_docs=60, index_repeat=1, reindex_repeat=3, startup_runs=3, cli_runs=5, rss_searches=30,
                    server_wait=60, quality_queries=30, quality_docs=100),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--smoke", action="store_true", help="seconds: 1k chunks, a few queries (CI)")
    size.add_argument("--quick", action="store_true", help="minutes: 10k chunks, 30 queries")
    size.add_argument("--full", action="store_true", help="also 1M chunks")
    ap.add_argument("--json", type=Path, help="write the rows here as JSON")
    ap.add_argument("--only", help="comma-separated sections: latency,indexing,reindex,servers,cli,quality")
    ap.add_argument("--sizes", help="comma-separated chunk counts for the latency section (e.g. 1000000), "
                    "instead of the preset's")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        index_child(*args.child[1:])
        return 0
    preset = "smoke" if args.smoke else "quick" if args.quick else "default"
    cfg = argparse.Namespace(**PRESETS[preset])
    if args.full:
        cfg.sizes = [*cfg.sizes, 1_000_000]
    small, big = cfg.sizes[0], min(cfg.sizes[-1], 100_000)
    latency_sizes = [int(n) for n in args.sizes.split(",")] if args.sizes else cfg.sizes
    sections = {
        "latency": lambda: [r for n in latency_sizes for r in latency(n, cfg, n == cfg.compare_size)[0]],
        "indexing": lambda: indexing(cfg, compare=True),
        "reindex": lambda: reindex(big, cfg),
        "servers": lambda: servers(big, cfg, sorted({small, big})),
        "cli": lambda: cli(small, cfg),
        "quality": lambda: quality(cfg, compare=True),
    }
    wanted = args.only.split(",") if args.only else list(sections)
    started = time.time()
    rows: list[Row] = []
    for name in wanted:
        t0 = time.perf_counter()
        print(f"[run] {name}…", file=sys.stderr, flush=True)
        try:
            rows += sections[name]()
        except Exception as exc:  # noqa: BLE001 - one broken section must not hide the others
            traceback.print_exc()
            rows.append(Row(f"{name}.error", f"{name} section", None, "", status=f"error: {type(exc).__name__}: {exc}"))
        print(f"[run] {name} done in {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
        if args.json:  # what is measured so far survives a run that is stopped later
            partial = [Row(**asdict(r)).judge() for r in rows]
            args.json.write_text(json.dumps({"partial": True, "rows": [asdict(r) for r in partial]}, indent=1) + "\n")
    if 1_000_000 not in latency_sizes and (not args.only or "latency" in wanted):
        rows += [Row("latency.1M.hybrid.p50", "hybrid search, 1M chunks, p50", None, "ms", "<= 50", status="not run",
                     note="`--full` (builds a 1M-chunk index)"),
                 Row("recall.1M", "vector index recall@10 vs exact, 1M chunks", None, "", ">= 0.95", status="not run",
                     note="`--full`")]
    rows.append(Row("gpu.embed", "GPU embedding throughput (onnxruntime-gpu)", None, "chunks/s",
                    status="not run", note="no accelerator on this machine"))
    rows.append(Row("quality.full_eval", "`docshelf eval` on ../shared/eval, every mode within 0.005 nDCG@10", None,
                    "", status="not run", note="`python benchmarks/quality.py` (embeds all of SciFact)"))
    for r in rows:
        r.judge()
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)), "preset": preset,
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at start",
            "python": platform.python_version(), "seconds": round(time.time() - started),
            "chromadb": have("chromadb"), "sqlite_vec": have("sqlite_vec")}
    print(markdown(rows, meta))
    if args.json:
        args.json.write_text(json.dumps({**meta, "rows": [asdict(r) for r in rows]}, indent=1) + "\n")
    return 0


def markdown(rows: list[Row], meta: dict) -> str:
    lines = [f"Run {meta['date']} ({meta['preset']}), {meta['machine']}, Python {meta['python']}, "
             f"{meta['seconds']} s", "", "| figure | target | measured | status | note |", "|---|---|---:|---|---|"]
    for r in rows:
        target = f"{r.target} {r.unit}".strip() if r.target else "–"
        value = f"{_fmt(r.value)} {r.unit}".strip() if r.value is not None else "–"
        lines.append(f"| {r.what} | {target} | {value} | {r.status} | {r.note} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
