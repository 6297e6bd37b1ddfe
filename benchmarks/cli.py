"""``docshelf search`` from a shell, the way agents call it: cold, and with a server running.

Three ways, each a fresh ``docshelf search QUESTION --json`` process timed from spawn to
exit (wall) with its CPU time (user + system, from ``RUSAGE_CHILDREN``):

- **cold**: nothing running, the CLI searches in-process (imports, opens the store, loads
  the model). ``DOCSHELF_QUERY_TIMEOUT=0`` makes sure no server is asked.
- **via serve**: a ``docshelf serve --read-only --no-watch`` holds the index; the CLI asks
  it over the local query socket (``live/query_socket.py``) and loads nothing heavy.
- **via watch**: the same with ``docshelf watch`` holding (a copy of) the index.

The CLI is started the way the ``docshelf`` script starts it (``cli_entry.main``). A cold
search reads the score calibration recorded for the index's version (``calibration.json``,
written by the untimed first search), as every search after the first on an unchanged index
does; a served search is read and printed by the thin client without Typer or pydantic
(its settings key recorded by the untimed first call).

Each run asks a different real SciFact question (hybrid, k=10); the figures are medians.
Every answer from a server is compared with the in-process answer to the same question
(the JSON minus ``took_ms``): ``identical`` must be true. ``--baseline-src`` times the
cold CLI of another source tree (e.g. main before this change) in the same run,
alternating with this one, so machine noise hits both alike, and its CLI asking the same
running servers. ``python -c pass`` is the
interpreter's own floor on this machine.

    python benchmarks/cli.py [--chunks 10000] [--runs 7] [--baseline-src /path/to/old/src] [--json out.jsonl]

The index is ``benchmarks/corpus.py``'s cached one (real SciFact text and model vectors).
``run(...)`` is what ``benchmarks/run.py`` calls.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
sys.path[:0] = [str(HERE), str(SRC)]


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, CPU s, the finished process) of one command."""
    cpu = _child_cpu()
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{argv[3:]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return wall, _child_cpu() - cpu, done


def cli_argv(*args: str) -> list[str]:
    """What the ``docshelf`` script runs (its entry point; ``cli.main`` in trees from before it)."""
    code = ("try:\n    from docshelf.interfaces.cli_entry import main\n"
            "except ImportError:\n    from docshelf.interfaces.cli import main\nmain()")
    return [sys.executable, "-c", code, *args]


def _env(index_dir: Path, src: Path = SRC, **extra: str) -> dict[str, str]:
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(index_dir), "DOCSHELF_CONFIG": os.devnull,
           "PYTHONPATH": str(src), **extra}
    env.pop("DOCSHELF_MODEL", None)
    # An installed docshelf has its bytecode compiled (pip does it); without this, a shell that
    # sets PYTHONDONTWRITEBYTECODE made every timed run recompile docshelf's changed modules.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _json(out: str) -> dict:
    data = json.loads(out)
    data.pop("took_ms", None)
    return data


def start_server(argv: list[str], env: dict[str, str], index_dir: Path, log: Path) -> subprocess.Popen:
    from docshelf.live.query_socket import announcements

    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=log.open("w"))
    deadline = time.monotonic() + 600
    while not any(a["pid"] == proc.pid for a in announcements(index_dir)):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"{argv[3:]} never announced its query socket; see {log}")
        time.sleep(0.2)
    return proc


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        if proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def via_server(kind: str, argv: list[str], env: dict[str, str], index_dir: Path, questions: list[str],
               local: dict[str, dict], log: Path, baseline_env: dict[str, str] | None = None) -> dict:
    """Median wall/CPU of the CLI answered by a running ``kind``; checks every answer against ``local``.
    With ``baseline_env`` the other tree's CLI asks the same server, alternating with this one."""
    proc = start_server(argv, env, index_dir, log)
    clients = {"new": env, **({"baseline": baseline_env} if baseline_env else {})}
    try:
        walls, cpus, identical = {c: [] for c in clients}, {c: [] for c in clients}, True
        for client_env in clients.values():  # the first asks the server to measure its calibration
            timed(cli_argv("search", "warm-up", "--json"), client_env)  # the new CLI also records its key here
        for q in questions:
            for client, client_env in clients.items():
                wall, cpu, done = timed(cli_argv("-v", "search", q, "--json"), client_env)
                if f"answered by docshelf {kind} (pid {proc.pid})" not in done.stderr:
                    raise RuntimeError(f"the {client} CLI was not answered by {kind}: {done.stderr[-1000:]}")
                walls[client].append(wall)
                cpus[client].append(cpu)
                identical &= _json(done.stdout) == local[q]
    finally:
        stop_server(proc)
    result = {"wall_s": statistics.median(walls["new"]), "cpu_s": statistics.median(cpus["new"]),
              "runs": len(walls["new"]), "identical": identical}
    if baseline_env:
        result["baseline"] = {"wall_s": statistics.median(walls["baseline"]), "cpu_s": statistics.median(cpus["baseline"])}
    return result


def run(chunks: int = 10_000, runs: int = 7, baseline_src: Path | None = None, quick: bool = False) -> dict:
    """The CLI figures on the cached ``chunks`` index (``quick``: 3 runs)."""
    import corpus

    runs = 3 if quick else runs
    built = corpus.cached_index(chunks)
    index_dir = Path(built.index_dir)
    questions = corpus.questions(runs + 1)
    env = _env(index_dir, DOCSHELF_QUERY_TIMEOUT="0")
    result: dict = {"bench": "cli", "chunks": chunks, "runs": runs, "python": platform.python_version(),
                    "cpus": os.cpu_count(), "machine": platform.machine(), "date": time.strftime("%Y-%m-%d")}

    floor = [timed([sys.executable, "-c", "pass"], env)[0] for _ in range(runs)]
    result["python_floor_wall_s"] = statistics.median(floor)
    timed(cli_argv("search", "warm the page cache", "--json"), env)  # first touch of the files, not timed

    cold, cold_cpu, base, base_cpu, local = [], [], [], [], {}
    for q in questions[:runs]:
        wall, cpu, done = timed(cli_argv("search", q, "--json"), env)
        cold.append(wall)
        cold_cpu.append(cpu)
        local[q] = _json(done.stdout)
        if baseline_src is not None:
            wall, cpu, _ = timed(cli_argv("search", q, "--json"), _env(index_dir, baseline_src))
            base.append(wall)
            base_cpu.append(cpu)
    result["cold"] = {"wall_s": statistics.median(cold), "cpu_s": statistics.median(cold_cpu)}
    if base:
        result["baseline"] = {"src": str(baseline_src), "wall_s": statistics.median(base),
                              "cpu_s": statistics.median(base_cpu)}

    server_env = _env(index_dir)
    with tempfile.TemporaryDirectory(prefix="docshelf-clibench-") as tmp:
        result["via_serve"] = via_server(
            "serve", cli_argv("serve", "--read-only", "--no-watch"), server_env, index_dir, questions[:runs], local,
            Path(tmp) / "serve.log", _env(index_dir, baseline_src) if baseline_src else None)
        # watch writes its index: a private copy of the cached one (same roots, unchanged files).
        copy = Path(tmp) / "index"
        shutil.copytree(index_dir, copy, ignore=shutil.ignore_patterns("query-*", "*.lock", "calibration.json"))
        result["via_watch"] = via_server(
            "watch", cli_argv("watch"), _env(copy), copy, questions[:runs], local, Path(tmp) / "watch.log",
            _env(copy, baseline_src) if baseline_src else None)
    return result


def table(r: dict) -> str:
    rows = [("python -c pass (floor)", r["python_floor_wall_s"], None, "")]
    if "baseline" in r:
        rows.append((f"cold, baseline ({r['baseline']['src']})", r["baseline"]["wall_s"], r["baseline"]["cpu_s"], ""))
    rows.append(("cold (in-process)", r["cold"]["wall_s"], r["cold"]["cpu_s"], ""))
    for kind in ("serve", "watch"):
        v = r[f"via_{kind}"]
        if "baseline" in v:
            rows.append((f"via running {kind}, baseline", v["baseline"]["wall_s"], v["baseline"]["cpu_s"], ""))
        rows.append((f"via running {kind}", v["wall_s"], v["cpu_s"], "identical" if v["identical"] else "DIFFERENT"))
    lines = ["| `docshelf search` | wall s (median) | CPU s (median) | answers |", "|---|---:|---:|---|"]
    for name, wall, cpu, note in rows:
        lines.append(f"| {name} | {wall:.2f} | {'' if cpu is None else f'{cpu:.2f}'} | {note} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--baseline-src", type=Path, help="time the cold CLI of this source tree too")
    parser.add_argument("--json", type=Path, help="append the result as one JSON line")
    args = parser.parse_args()
    result = run(args.chunks, args.runs, args.baseline_src, args.quick)
    print(table(result))
    if args.json:
        with args.json.open("a") as f:
            f.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    main()
