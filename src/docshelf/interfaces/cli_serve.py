"""``docshelf serve``, ``docshelf install`` and ``docshelf doctor``: the MCP side of the CLI.

Imported by ``cli.py`` at start-up, so this module stays light: the MCP SDK, the store
and the model are imported inside the commands.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.markup import escape

from ..errors import ConfigError
from .cli import _settings, app, err, out, state

LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
log = logging.getLogger(__name__)


def _verbosity() -> int:
    level = logging.getLogger().level
    return 0 if level >= logging.WARNING or level == logging.NOTSET else 1 if level >= logging.INFO else 2


@app.command()
def serve(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Folders to index and watch (added to the known roots).")] = None,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")] = False,
    host: Annotated[str, typer.Option("--host", help="HTTP: address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP: port.")] = 8001,
    token: Annotated[Optional[str], typer.Option("--token", envvar="DOCSHELF_TOKEN", help="HTTP: require this bearer token.")] = None,
    allow_origin: Annotated[Optional[list[str]], typer.Option("--allow-origin", help="HTTP: extra allowed Origin (e.g. https://app.example).")] = None,
    allow_host: Annotated[Optional[list[str]], typer.Option("--allow-host", help="HTTP: extra allowed Host header (e.g. docs.lan:8001).")] = None,
    watch: Annotated[bool, typer.Option("--watch/--no-watch", help="Watch the roots and update the index live.")] = True,
    poll: Annotated[bool, typer.Option("--poll", envvar="DOCSHELF_WATCH_POLL", help="Watch by polling (network drives, no inotify).")] = False,
    read_only: Annotated[bool, typer.Option("--read-only", help="Never write the index; serve reads only.")] = False,
    max_response_chars: Annotated[int, typer.Option("--max-response-chars", envvar="DOCSHELF_MAX_RESPONSE_CHARS", help="Size budget of one search response.")] = 20_000,
    writer_retry: Annotated[float, typer.Option("--writer-retry", envvar="DOCSHELF_WRITER_RETRY", help="Seconds between a reader's tries to become the writer.")] = 3.0,
    log_file: Annotated[Optional[Path], typer.Option("--log-file", envvar="DOCSHELF_LOG_FILE", help="Rotating log file (10 MB × 5); default in the user log dir.")] = None,
) -> None:
    """Serve the index over MCP (stdio by default): search and reading tools, a live index, one writer per index."""
    from ..logs import setup_logging

    settings = _settings()
    used = setup_logging(_verbosity(), log_file or settings.log_file)
    for p in paths or []:
        if not p.expanduser().exists():
            raise ConfigError(f"{p} does not exist")
    from ..live.runtime import ServerRuntime
    from .mcp_server import build_server

    runtime = ServerRuntime(
        settings, list(paths or []), watch=watch, poll=poll, writer_retry=writer_retry, read_only=read_only
    )
    server = build_server(runtime, response_chars=max_response_chars)
    log.info("docshelf serve (%s) pid %d, index %s, log %s", "http" if http else "stdio", os.getpid(),
             settings.index_dir, used)
    try:
        if http:
            _serve_http(server, runtime, host, port, token, allow_origin or [], allow_host or [])
        else:
            server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        stopped = runtime.close()
        logging.shutdown()
        if not stopped:  # a write still running: leave without tearing down native threads
            os._exit(0)


def _serve_http(server: Any, runtime: Any, host: str, port: int, token: Optional[str],
                origins: list[str], hosts: list[str]) -> None:
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    if host not in LOOPBACK and not token:
        log.warning("serving on %s without a token: anyone who can reach this port can read the index; "
                    "set --token or DOCSHELF_TOKEN", host)
    allowed_hosts = ["127.0.0.1", "localhost", "[::1]", "127.0.0.1:*", "localhost:*", "[::1]:*", *hosts]
    if host not in LOOPBACK:
        allowed_hosts += [host, f"{host}:*"]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *origins],
    )
    asgi = server.streamable_http_app(host=host, transport_security=security)
    if token:
        asgi = BearerTokenMiddleware(asgi, token)
    runtime.start()
    err.print(f"docshelf MCP over HTTP at http://{host}:{port}/mcp" + (" (bearer token required)" if token else ""))
    uvicorn.Server(uvicorn.Config(asgi, host=host, port=port, log_config=None, log_level="warning")).run()


class BearerTokenMiddleware:
    """ASGI: reject HTTP requests without ``Authorization: Bearer <token>`` (401)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        import hmac

        if scope["type"] == "http":
            given = b""
            for name, value in scope.get("headers", []):
                if name == b"authorization":
                    given = value
            if not (given[:7].lower() == b"bearer " and hmac.compare_digest(given[7:].strip(), self.token)):
                body = b'{"error": "missing or wrong bearer token"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="docshelf"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


# -- client set-up ------------------------------------------------------------------------
CLIENTS = ("claude-desktop", "claude-code", "cursor")


def server_command() -> tuple[str, list[str]]:
    """How to start this installation's server: the ``docshelf`` script beside this Python."""
    bindir = Path(sys.executable).parent
    for name in ("docshelf", "docshelf.exe"):
        script = bindir / name
        if script.is_file():
            return str(script), ["serve"]
    return sys.executable, ["-c", "from docshelf.interfaces.cli import main; main()", "serve"]


def client_config_path(client: str) -> Path:
    home = Path.home()
    if client == "claude-desktop":
        if sys.platform == "darwin":
            return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
        if sys.platform == "win32":
            return Path(os.environ.get("APPDATA", home / "AppData" / "Roaming")) / "Claude" / "claude_desktop_config.json"
        return home / ".config" / "Claude" / "claude_desktop_config.json"
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    return Path.cwd() / ".mcp.json"  # claude-code, project scope


def server_entry(client: str, roots: list[Path]) -> dict[str, Any]:
    settings = _settings()
    command, args = server_command()
    if state.config:
        args = ["--config", str(Path(state.config).expanduser().resolve()), *args]
    args = args + [str(r.expanduser().resolve()) for r in roots]
    entry: dict[str, Any] = {"command": command, "args": args,
                             "env": {"DOCSHELF_INDEX_DIR": str(Path(settings.index_dir).expanduser().resolve())}}
    if client == "claude-code":
        entry = {"type": "stdio", **entry}
    return entry


@app.command()
def install(
    client: Annotated[str, typer.Argument(help="claude-desktop, claude-code or cursor.")],
    roots: Annotated[Optional[list[Path]], typer.Argument(help="Folders the server should index and watch.")] = None,
    print_only: Annotated[bool, typer.Option("--print", help="Show the configuration; change nothing.")] = False,
    name: Annotated[str, typer.Option("--name", help="Server name in the client's configuration.")] = "docshelf",
    config_path: Annotated[Optional[Path], typer.Option("--config-path", help="Client config file to write (default: the client's usual place).")] = None,
) -> None:
    """Add this docshelf installation as an MCP server to Claude Desktop, Claude Code or Cursor."""
    if client not in CLIENTS:
        raise typer.BadParameter(f"use one of {', '.join(CLIENTS)}", param_hint="CLIENT")
    entry = server_entry(client, list(roots or []))
    snippet = {"mcpServers": {name: entry}}
    path = (config_path or client_config_path(client)).expanduser()
    if print_only:
        sys.stdout.write(json.dumps(snippet, indent=2) + "\n")
        err.print(f"Add this to {escape(str(path))}.")
        return
    data: dict[str, Any] = {}
    if path.exists():
        try:
            data = json.loads(path.read_text() or "{}")
        except ValueError as exc:
            raise ConfigError(f"{path} is not valid JSON ({exc}); fix it or use --print and edit it by hand") from exc
        path.with_suffix(path.suffix + ".bak").write_text(path.read_text())
    if not isinstance(data.get("mcpServers", {}), dict):
        raise ConfigError(f"{path}: 'mcpServers' is not an object; fix it or use --print")
    data.setdefault("mcpServers", {})[name] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)
    out.print(f"Added MCP server '{escape(name)}' to {escape(str(path))}. Restart {client} to load it.")


# -- doctor -------------------------------------------------------------------------------
@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to wait for the server handshake.")] = 30.0,
) -> None:
    """Check the model, the index store, the roots, and that `docshelf serve` answers an MCP handshake."""
    checks: list[dict[str, Any]] = []

    def check(name: str, fn: Any) -> Any:
        started = time.perf_counter()
        try:
            detail = fn()
            checks.append({"check": name, "ok": True, "detail": detail, "seconds": round(time.perf_counter() - started, 3)})
        except Exception as exc:  # noqa: BLE001 - every failure is a finding
            checks.append({"check": name, "ok": False, "detail": str(exc) or type(exc).__name__,
                           "seconds": round(time.perf_counter() - started, 3)})

    holder: dict[str, Any] = {}

    def store() -> str:
        from ..service import Docshelf

        holder["svc"] = svc = Docshelf(_settings())
        st = svc.status()
        return f"{st.index_dir}: {st.documents} documents, {st.chunks} chunks, {len(st.failed)} failed"

    def model() -> str:
        svc = holder.get("svc")
        if svc is None:
            from ..embedders import embedder_from_settings

            emb = embedder_from_settings(_settings())
        else:
            emb = svc.embedder
        emb.load()
        vec = emb.embed_query("docshelf doctor")
        return f"{emb.model_id} loaded, {len(vec)}-d query vector"

    def roots() -> str:
        svc = holder.get("svc")
        if svc is None:
            raise RuntimeError("store not open")
        rs = svc.roots
        if not rs:
            return "no roots yet (docshelf index PATH or docshelf serve PATH adds one)"
        missing = [str(r) for r in rs if not Path(r).exists()]
        if missing:
            raise RuntimeError(f"missing: {', '.join(missing)}")
        return ", ".join(map(str, rs))

    def writer() -> str:
        svc = holder.get("svc")
        if svc is None:
            raise RuntimeError("store not open")
        if svc.try_become_writer():
            svc.release_writer()
            return "free (no server is writing this index now)"
        return "held by a running docshelf process (a server keeps the index up to date)"

    def handshake() -> str:
        import anyio

        return anyio.run(_handshake, timeout)

    check("store", store)
    check("model", model)
    check("roots", roots)
    check("writer lock", writer)
    check("server handshake", handshake)
    ok = all(c["ok"] for c in checks)
    if as_json:
        sys.stdout.write(json.dumps({"ok": ok, "checks": checks}, indent=2) + "\n")
    else:
        for c in checks:
            mark = "[green]ok[/]  " if c["ok"] else "[red]FAIL[/]"
            out.print(f"{mark} {c['check']}: {escape(str(c['detail']))} [dim]({c['seconds']:.2f}s)[/]")
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
    env = {"DOCSHELF_INDEX_DIR": str(Path(_settings().index_dir).expanduser().resolve())}
    params = StdioServerParameters(command=command, args=[*args, "--read-only", "--no-watch"], env=env)
    with anyio.fail_after(timeout), open(os.devnull, "w") as devnull:
        started = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            took = time.perf_counter() - started
            tools = await session.list_tools()
    return f"{init.server_info.name} {init.server_info.version} answered in {took:.2f}s with {len(tools.tools)} tools"
