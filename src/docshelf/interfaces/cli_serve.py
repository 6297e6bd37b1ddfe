"""``docshelf serve`` and ``docshelf install``: the MCP side of the CLI.

Imported by ``cli.py`` at start-up, so this module stays light: the MCP SDK, the store
and the model are imported inside the commands. Who may connect over HTTP is decided in
``docshelf.access``; this module only wires that policy into the server.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..access import AccessGuard, AccessPolicy, access_policy, listen_socket
from ..errors import ConfigError
from .cli_app import app, close_server, err, escape, out, settings, state, verbosity

log = logging.getLogger(__name__)


@app.command()
def serve(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Folders to index and watch (added to the known roots).")] = None,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP instead of stdio.")] = False,
    host: Annotated[str, typer.Option("--host", help="HTTP: address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP: port.")] = 8001,
    token: Annotated[Optional[str], typer.Option("--token", envvar="DOCSHELF_TOKEN", help="HTTP: require this bearer token.")] = None,
    insecure: Annotated[bool, typer.Option("--insecure", help="HTTP: allow a non-loopback address without a token (anyone who reaches it can read the index).")] = False,
    allow_origin: Annotated[Optional[list[str]], typer.Option("--allow-origin", help="HTTP: extra allowed Origin (e.g. https://app.example).")] = None,
    allow_host: Annotated[Optional[list[str]], typer.Option("--allow-host", help="HTTP: extra allowed Host header (e.g. docs.lan:8001).")] = None,
    watch: Annotated[bool, typer.Option("--watch/--no-watch", help="Watch the roots and update the index live.")] = True,
    poll: Annotated[bool, typer.Option("--poll", envvar="DOCSHELF_WATCH_POLL", help="Watch by polling (network drives, no inotify).")] = False,
    read_only: Annotated[bool, typer.Option("--read-only", help="Never write the index; serve reads only.")] = False,
    max_response_chars: Annotated[int, typer.Option("--max-response-chars", envvar="DOCSHELF_MAX_RESPONSE_CHARS", help="Size budget of one search response.")] = 20_000,
    writer_retry: Annotated[float, typer.Option("--writer-retry", envvar="DOCSHELF_WRITER_RETRY", help="Seconds between a reader's tries to become the writer.")] = 3.0,
    log_file: Annotated[Optional[Path], typer.Option("--log-file", envvar="DOCSHELF_LOG_FILE", help="Rotating log file (10 MB × 5); default in the user log dir.")] = None,
    profile: Annotated[Optional[str], typer.Option("--profile", envvar="DOCSHELF_PROFILE", help="Add the tools of another server: vault, docs or builder (see docs/mcp.md).")] = None,
    api: Annotated[bool, typer.Option("--api", help="HTTP: also serve the HTTP API and search page (as `docshelf api`) beside /mcp.")] = False,
    ingest_token: Annotated[Optional[str], typer.Option("--ingest-token", envvar="DOCSHELF_INGEST_TOKEN", help="With --api: accept pushed records with this bearer token.")] = None,
    max_body_mb: Annotated[float, typer.Option("--max-body-mb", envvar="DOCSHELF_MAX_BODY_MB", help="With --api: largest request body, in MB.")] = 64.0,
) -> None:
    """Serve the index over MCP (stdio by default): search and reading tools, a live index, one writer per index."""
    from ..logs import setup_logging

    config = settings()
    if profile:
        from ..profiles import check

        check(profile)
    if api and not http:
        raise ConfigError("--api needs --http (the API is served over HTTP, beside MCP at /mcp)")
    # Decide who may connect before anything starts: a refused address costs nothing.
    policy = access_policy(host, token, insecure=insecure, extra_hosts=allow_host or [],
                           extra_origins=allow_origin or []) if http else None
    sock = listen_socket(host, port) if http else None  # a busy port is refused before anything starts
    used = setup_logging(verbosity(), log_file or config.log_file)
    for p in paths or []:
        if not p.expanduser().exists():
            raise ConfigError(f"{p} does not exist")
    from ..live.runtime import ServerRuntime
    from .mcp_server import build_server

    runtime = ServerRuntime(
        config, list(paths or []), watch=watch, poll=poll, writer_retry=writer_retry, read_only=read_only
    )
    server = build_server(runtime, response_chars=max_response_chars)
    if profile:
        from ..profiles import glossary_scope
        from .mcp_profiles import add_profile

        add_profile(server, profile, runtime.search, runtime.service, glossary_scope(config), max_response_chars)
    log.info("docshelf serve (%s) pid %d, index %s, log %s", "http" if http else "stdio", os.getpid(),
             config.index_dir, used)
    try:
        if policy is not None and api:
            _serve_http_and_api(server, runtime, policy, port, sock, ingest_token=ingest_token,
                                max_body_mb=max_body_mb, allow_host=allow_host or [], allow_origin=allow_origin or [])
        elif policy is not None:
            _serve_http(server, runtime, policy, port, sock)
        else:
            server.run("stdio")
    except KeyboardInterrupt:
        pass
    finally:
        close_server(runtime)


def _serve_http(server: Any, runtime: Any, policy: AccessPolicy, port: int, sock: Any) -> None:
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    if policy.insecure and not policy.token and not policy.loopback:
        log.warning("serving on %s without a token (--insecure): anyone who can reach this port can read the index",
                    policy.host)
    # The SDK checks the same allow-lists again behind the guard (defence in depth).
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=list(policy.allowed_hosts),
                                         allowed_origins=list(policy.allowed_origins))
    asgi = AccessGuard(server.streamable_http_app(host=policy.host, transport_security=security), policy)
    runtime.start()
    err.print(f"docshelf MCP over HTTP at http://{policy.host}:{port}/mcp ({policy.describe()})")
    uvicorn.Server(uvicorn.Config(asgi, host=policy.host, port=port, log_config=None, log_level="warning")).run(
        sockets=[sock])


def _serve_http_and_api(server: Any, runtime: Any, policy: AccessPolicy, port: int, sock: Any, **options: Any) -> None:
    """MCP at /mcp and the HTTP API + page everywhere else: one process, one service, one writer."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    from .cli_api import build_api

    security = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=list(policy.allowed_hosts),
                                         allowed_origins=list(policy.allowed_origins))
    mcp_app = server.streamable_http_app(host=policy.host, transport_security=security)
    asgi, _ = build_api(runtime, policy.host, token=policy.token, insecure=policy.insecure, mcp_app=mcp_app, **options)
    runtime.start()
    err.print(f"docshelf MCP at http://{policy.host}:{port}/mcp and the API at http://{policy.host}:{port}/ "
              f"({policy.describe()}; ingest {'on' if options.get('ingest_token') else 'off'})")
    uvicorn.Server(uvicorn.Config(asgi, host=policy.host, port=port, log_config=None, log_level="warning")).run(
        sockets=[sock])


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
    config = settings()
    command, args = server_command()
    if state.config:
        args = ["--config", str(Path(state.config).expanduser().resolve()), *args]
    args = args + [str(r.expanduser().resolve()) for r in roots]
    entry: dict[str, Any] = {"command": command, "args": args,
                             "env": {"DOCSHELF_INDEX_DIR": str(Path(config.index_dir).expanduser().resolve())}}
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
    for root in roots or []:
        if not root.expanduser().exists():
            err.print(f"[yellow]Warning:[/] {escape(str(root))} does not exist; the server will not index it until it does.")
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


