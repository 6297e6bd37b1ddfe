"""``docshelf doctor``: print the core's checks (``docshelf.diagnostics``) plus a real MCP handshake.

The handshake is the one check that belongs to an interface: it spawns ``docshelf serve``
the way a client would and speaks MCP to it.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from ..diagnostics import Check, diagnose, run_check
from .cli_app import app, escape, out, print_json, settings, state
from .cli_serve import server_command

MARKS = {"ok": "[green]ok[/]  ", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]"}


@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the server handshake.")] = 30.0,
) -> None:
    """Check the index, the model, the roots, the writer lock, and that `docshelf serve` answers MCP."""
    import anyio

    checks: list[Check] = diagnose(settings())
    checks.append(run_check("server handshake", lambda: anyio.run(_handshake, timeout)))
    ok = all(c.ok for c in checks)
    if as_json:
        print_json({"ok": ok, "checks": [{**asdict(c), "ok": c.ok} for c in checks]})
    else:
        for c in checks:
            out.print(f"{MARKS[c.status]} {c.check}: {escape(c.detail)} [dim]({c.seconds:.2f}s)[/]")
    if not ok:
        # SystemExit, not typer.Exit: cli.main runs Click with standalone_mode=False, where an
        # Exit's code is returned (and dropped) instead of becoming the process status.
        raise SystemExit(1)


async def _handshake(timeout: float) -> str:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command, args = server_command()
    if state.config:
        args = ["--config", str(state.config), *args]
    env = {"DOCSHELF_INDEX_DIR": str(Path(settings().index_dir).expanduser().resolve())}
    params = StdioServerParameters(command=command, args=[*args, "--read-only", "--no-watch"], env=env)
    with anyio.fail_after(timeout), open(os.devnull, "w") as devnull:
        started = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            took = time.perf_counter() - started
            tools = await session.list_tools()
    return f"{init.server_info.name} {init.server_info.version} answered in {took:.2f}s with {len(tools.tools)} tools"
