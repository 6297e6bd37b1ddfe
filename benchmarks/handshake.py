"""How fast does ``docshelf serve`` answer the MCP ``initialize`` handshake, next to a bare SDK server?

Both servers are spawned the same way (the SDK's stdio client, this Python, a fresh
process each run) and timed from spawn to the ``initialize`` result. Runs alternate
between the two so machine noise hits both alike; the medians are compared. The
docshelf server gets a real index and root (built once before timing) so its
background start-up (opening LanceDB, loading the model, reconciling, watching) runs
exactly as it would for a user.

    python benchmarks/handshake.py [--runs 9] [--json results.jsonl]

Exit status 1 when docshelf's median exceeds the bare median by more than --margin
(default 0.3 s): the issue's acceptance bar, checked loosely here rather than in a timed test.
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

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BARE_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer(name="bare")
@server.tool()
def echo(text: str) -> str:
    return text
server.run("stdio")
"""


def docshelf_command() -> tuple[str, list[str]]:
    script = Path(sys.executable).parent / "docshelf"
    if script.is_file():
        return str(script), []
    return sys.executable, ["-c", "from docshelf.interfaces.cli import main; main()"]


async def time_handshake(params: StdioServerParameters) -> float:
    with open(os.devnull, "w") as devnull:
        started = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            took = time.perf_counter() - started
            await session.list_tools()
    return took


def make_corpus(folder: Path, n: int = 20) -> None:
    for i in range(n):
        (folder / f"note{i:02d}.md").write_text(f"# Note {i}\n\nThis is note number {i} about topic {i % 5}.\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--margin", type=float, default=0.3)
    parser.add_argument("--json", type=Path, help="append a JSON line with the results")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="docshelf-handshake-"))
    try:
        docs, index = work / "docs", work / "index"
        docs.mkdir()
        make_corpus(docs)
        command, prefix = docshelf_command()
        env = {"DOCSHELF_INDEX_DIR": str(index), "DOCSHELF_LOG_FILE": str(work / "serve.log")}
        subprocess.run([command, *prefix, "index", str(docs)], env={**os.environ, **env}, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        bare = StdioServerParameters(command=sys.executable, args=["-c", BARE_SERVER])
        shelf = StdioServerParameters(command=command, args=[*prefix, "serve", str(docs)], env=env)
        anyio.run(time_handshake, bare)  # warm the OS file cache for both
        anyio.run(time_handshake, shelf)
        times: dict[str, list[float]] = {"bare": [], "docshelf": []}
        for _ in range(args.runs):
            times["bare"].append(anyio.run(time_handshake, bare))
            times["docshelf"].append(anyio.run(time_handshake, shelf))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items()}
    gap = med["docshelf"] - med["bare"]
    result = {
        "benchmark": "handshake", "runs": args.runs, "median_s": {k: round(v, 3) for k, v in med.items()},
        "min_s": {k: round(min(v), 3) for k, v in times.items()}, "gap_s": round(gap, 3), "margin_s": args.margin,
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    print(f"bare SDK server  median {med['bare']:.3f}s  (min {min(times['bare']):.3f}s)")
    print(f"docshelf serve   median {med['docshelf']:.3f}s  (min {min(times['docshelf']):.3f}s)")
    print(f"gap {gap:+.3f}s (allowed {args.margin:.1f}s) over {args.runs} alternating runs, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}")
    if args.json:
        with args.json.open("a") as f:
            f.write(json.dumps(result) + "\n")
    return 0 if gap <= args.margin else 1


if __name__ == "__main__":
    sys.exit(main())
