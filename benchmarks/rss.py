"""Resident memory of docshelf processes as users run them (issue 11, target 6).

Two measurements, each in real processes with RSS read from ``/proc/PID/status``:

* ``server``: a real ``docshelf serve`` (stdio MCP, ``--read-only --no-watch``, so the
  synthetic index's fake root is never reconciled) over an existing index, driven by the MCP
  SDK's client. RSS after the handshake, once the model is loaded, and after ``--searches``
  searches in each mode (keyword, semantic, hybrid, fuzzy; k=10, distinct queries): right
  after the last one, and the headline figure 5 s later (a server at rest), plus the
  process's peak (VmHWM) and each mode's client-side p50 latency. Indexes of N chunks come
  from ``benchmarks/corpus.py`` (the shared cached builder: real SciFact text, synthetic
  vectors shaped like the model's, every document a file on disk).
* ``index``: peak RSS (``ru_maxrss`` from ``wait4``, the child alone) of ``docshelf index``
  from scratch with the real packaged model on a real documentation corpus: the Markdown
  and reStructuredText docs of Starlette and coverage.py in ``benchmarks/docsets`` (69
  files), repeated ``--copies`` times with each copy's words shifted so nothing is
  deduplicated. Peak RSS must not grow with the copies.

    python benchmarks/rss.py --chunks 10000,100000 --searches 25 --index-copies 1,3
    python benchmarks/rss.py --quick            # 10k server, one corpus copy

``measure(...)`` returns the same figures as a dict for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCSETS = HERE / "docsets"
MODES = ("keyword", "semantic", "hybrid", "fuzzy")
IDLE_S = 5.0  # the server's RSS is read this long after its last search (and right after it)


# -- /proc ------------------------------------------------------------------------------------
def proc_mb(pid: int | str = "self") -> dict[str, float]:
    """VmRSS (resident now) and VmHWM (peak resident) of a process, in MB (10^6 bytes)."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0]) * 1024 / 1e6
    return {"rss_mb": round(out["VmRSS"], 1), "peak_mb": round(out["VmHWM"], 1)}


def breakdown(pid: int | str = "self", top: int = 6) -> dict[str, Any]:
    """Where the resident memory is (``/proc/PID/smaps``): anonymous vs file-backed, largest mappings."""
    by_name: dict[str, int] = {}
    anon = 0
    name = "[anon]"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            head = line.split()
            if not head[0].endswith(":"):
                name = head[5] if len(head) > 5 else "[anon]"
            elif head[0] == "Rss:":
                by_name[name] = by_name.get(name, 0) + int(head[1])
            elif head[0] == "Anonymous:":
                anon += int(head[1])
    largest = sorted(by_name.items(), key=lambda kv: -kv[1])[:top]
    return {"anonymous_mb": round(anon * 1024 / 1e6), "file_backed_mb": round((sum(by_name.values()) - anon) * 1024 / 1e6),
            "largest": {Path(k).name or k: round(v * 1024 / 1e6) for k, v in largest}}


def children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def docshelf_command() -> list[str]:
    script = Path(sys.executable).parent / "docshelf"
    return [str(script)] if script.is_file() else [sys.executable, "-c", "from docshelf.interfaces.cli import main; main()"]


def queries(n: int) -> list[str]:
    """Real SciFact questions (the corpus's text is SciFact's), distinct, in a fixed order."""
    sys.path.insert(0, str(HERE))
    import corpus

    return corpus.questions(n, seed=11)


# -- indexes of N chunks ----------------------------------------------------------------------
def index_of(n_chunks: int) -> Path:
    """The shared cached index of ``n_chunks`` chunks (``benchmarks/corpus.py``), built once."""
    sys.path.insert(0, str(HERE))
    import corpus

    return corpus.cached_index(n_chunks).folder / "index"


# -- a server holding an index ------------------------------------------------------------------
async def _server(index_dir: Path, qs: list[str], per_mode: int, env: dict[str, str]) -> dict[str, Any]:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    cmd = docshelf_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "serve", "--read-only", "--no-watch"],
                                   env={**os.environ, **env, "DOCSHELF_INDEX_DIR": str(index_dir)})
    before = set(children(os.getpid()))
    res: dict[str, Any] = {"chunks": None, "modes": {}}
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            (pid,) = [p for p in children(os.getpid()) if p not in before]
            res["after_handshake"] = proc_mb(pid)
            deadline = time.monotonic() + 300
            while True:
                status = (await session.call_tool("index_status", {})).structured_content or {}
                if status.get("model_state") == "loaded" and status.get("state") not in ("starting", "opening"):
                    break
                if time.monotonic() > deadline or str(status.get("model_state", "")).startswith("failed"):
                    raise RuntimeError(f"server did not become ready: {status}")
                await anyio.sleep(0.2)
            res["chunks"] = status.get("chunks")
            res["ready"] = proc_mb(pid)
            used = 0
            for mode in MODES:
                took = []
                for q in qs[used : used + per_mode]:
                    t0 = time.perf_counter()
                    out = await session.call_tool("search_docs", {"query": q, "mode": mode, "k": 10})
                    took.append((time.perf_counter() - t0) * 1000)
                    if out.is_error:
                        raise RuntimeError(f"{mode} search failed: {out.content}")
                used += per_mode
                res["modes"][mode] = {"p50_ms": round(statistics.median(took), 1), **proc_mb(pid)}
            res["after_last_search"] = proc_mb(pid)
            await anyio.sleep(IDLE_S)  # a server at rest between an agent's searches
            res["after_searches"] = proc_mb(pid)
            res["breakdown"] = breakdown(pid)
    return res


def server_rss(index_dir: Path, per_mode: int = 25, env: dict[str, str] | None = None) -> dict[str, Any]:
    import anyio

    qs = queries(per_mode * len(MODES))
    return anyio.run(_server, index_dir, qs, per_mode, env or {})


# -- indexing a real documentation corpus -----------------------------------------------------------
def docs_corpus(folder: Path, copies: int) -> int:
    """The docsets' documentation files, ``copies`` times; copy c rotates every word's letters by
    c (a Caesar shift of the prose), so no copy's chunks repeat another's and all are embedded."""
    sources = [p for p in sorted(DOCSETS.rglob("*")) if p.suffix in (".md", ".rst") and "docs" in p.parts]
    n = 0
    for c in range(copies):
        table = str.maketrans("abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"[c:] + "abcdefghijklmnopqrstuvwxyz"[:c])
        for src in sources:
            dest = folder / f"copy{c}" / src.relative_to(DOCSETS)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(src.read_text(encoding="utf-8").translate(table), encoding="utf-8")
            n += 1
    return n


def index_peak(docs: Path, index_dir: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Peak RSS of ``docshelf index DOCS`` from scratch (wait4's ru_maxrss: this child alone)."""
    shutil.rmtree(index_dir, ignore_errors=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([*docshelf_command(), "index", str(docs), "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env={**os.environ, **(env or {}), "DOCSHELF_INDEX_DIR": str(index_dir)})
    stdout = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise RuntimeError(f"docshelf index exited {proc.returncode}: {stdout[-500:]!r}")
    chunks = None
    try:
        chunks = json.loads(stdout).get("chunks_embedded")
    except ValueError:
        pass
    return {"peak_mb": round(usage.ru_maxrss * 1024 / 1e6, 1), "seconds": round(time.perf_counter() - t0, 1),
            "chunks_embedded": chunks}


# -- the whole measurement ----------------------------------------------------------------------
def measure(chunks: tuple[int, ...] = (10_000,), searches: int = 25, index_copies: tuple[int, ...] = (1,),
            repeat: int = 1, work: Path | None = None, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Server RSS per index size and indexing peak per corpus size (medians over ``repeat`` runs)."""
    work = work or Path(tempfile.mkdtemp(prefix="docshelf-rss-"))
    out: dict[str, Any] = {"machine": f"{platform.machine()} {os.cpu_count()} cpu, Python {platform.python_version()}",
                           "date": time.strftime("%Y-%m-%d"), "server": {}, "index": {}}
    for n in chunks:
        index_dir = index_of(n)
        runs = [server_rss(index_dir, searches, env) for _ in range(repeat)]
        out["server"][n] = {
            "runs": runs,
            "rss_mb": statistics.median(r["after_searches"]["rss_mb"] for r in runs),
            "peak_mb": statistics.median(r["after_searches"]["peak_mb"] for r in runs),
            "ready_mb": statistics.median(r["ready"]["rss_mb"] for r in runs),
            "right_after_mb": statistics.median(r["after_last_search"]["rss_mb"] for r in runs),
            "p50_ms": {m: statistics.median(r["modes"][m]["p50_ms"] for r in runs) for m in MODES},
        }
    for copies in index_copies:
        docs = work / f"docs-x{copies}"
        if not docs.exists():
            docs_corpus(docs, copies)
        runs = [index_peak(docs, work / f"index-x{copies}", env) for _ in range(repeat)]
        out["index"][copies] = {"runs": runs, "files": sum(1 for p in docs.rglob("*") if p.is_file()),
                                "chunks": runs[0]["chunks_embedded"],
                                "peak_mb": statistics.median(r["peak_mb"] for r in runs),
                                "seconds": statistics.median(r["seconds"] for r in runs)}
    return out


def table(res: dict[str, Any]) -> str:
    lines = ["| measurement | size | RSS MB (median) | peak MB | target | p50 ms keyword / semantic / hybrid / fuzzy (MCP round trip) |",
             "|---|---|---:|---:|---|---|"]
    for n, row in res["server"].items():
        target = 300 if int(n) <= 10_000 else 500
        p50 = " / ".join(f"{row['p50_ms'][m]:.0f}" for m in MODES)
        lines.append(f"| server after searches | {int(n):,} chunks | {row['rss_mb']:.0f} | {row['peak_mb']:.0f} "
                     f"| ≤ {target} | {p50} |")
    for copies, row in res["index"].items():
        lines.append(f"| `docshelf index` | {row['files']} files, {row['chunks']} chunks | — | {row['peak_mb']:.0f} "
                     f"| ≤ 800 | {row['seconds']:.0f} s |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", default="10000,100000", help="index sizes for the server (comma-separated; '' for none)")
    parser.add_argument("--searches", type=int, default=25, help="searches per mode")
    parser.add_argument("--index-copies", default="1,3", help="copies of the docs corpus to index ('' for none)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--work", type=Path, help="folder for indexes and corpora (kept; default: a temp dir)")
    parser.add_argument("--quick", action="store_true", help="10k server and one corpus copy")
    parser.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args()
    ints = lambda s: tuple(int(x) for x in s.split(",") if x)  # noqa: E731
    chunks, copies = (10_000,), (1,)
    if not args.quick:
        chunks, copies = ints(args.chunks), ints(args.index_copies)
    res = measure(chunks, args.searches, copies, args.repeat, args.work)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2))
    print(json.dumps({k: v for k, v in res.items()}, default=str)[:4000])
    print(table(res))


if __name__ == "__main__":
    main()
