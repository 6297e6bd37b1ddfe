"""``docshelf api``: the HTTP API and web page (FastAPI on uvicorn), one writer per index.

Imported by ``cli.py`` at start-up, so this module stays light: FastAPI, uvicorn, the
store and the model are imported inside the command.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ..errors import ConfigError
from .cli_app import app, close_server, err, settings, verbosity

log = logging.getLogger(__name__)


def build_api(runtime: Any, host: str, *, token: Optional[str], ingest_token: Optional[str], insecure: bool,
              max_body_mb: float, allow_host: list[str], allow_origin: list[str], mcp_app: Any = None) -> Any:
    """The ASGI app to serve and its read policy: the API and page (plus, given ``mcp_app``, the
    MCP streamable HTTP app at /mcp, behind the same read token), body limit, Host/Origin checks.

    Refuses (ConfigError) a non-loopback ``host`` without a read ``token`` unless ``insecure``.
    """
    from ..access import access_policy, host_header_name, is_loopback
    from .http_api import PathDispatch, create_app, wrap

    # The page posts its token form to itself: the server's own names are allowed origins.
    names = [n.rsplit(":", 1)[0] if n.count(":") == 1 else n for n in allow_host]
    if not is_loopback(host):
        names.append(host_header_name(host))
    allow_origin = [*allow_origin, *(f"{scheme}://{n}:*" for n in names for scheme in ("http", "https")),
                    *(f"{scheme}://{n}" for n in names for scheme in ("http", "https"))]
    read = access_policy(host, token, insecure=insecure, extra_hosts=allow_host, extra_origins=allow_origin)
    ingest = access_policy("127.0.0.1", ingest_token) if ingest_token else None
    limit = int(max_body_mb * 1024 * 1024)
    api = create_app(runtime, read_policy=read, ingest_policy=ingest, extra_lifespan=mcp_app)
    guard = access_policy(host, None, insecure=True, extra_hosts=allow_host, extra_origins=allow_origin)
    asgi = wrap(api, max_body_bytes=limit, guard=guard)
    if mcp_app is not None:
        from ..access import AccessGuard

        asgi = PathDispatch(asgi, AccessGuard(mcp_app, read))
    return asgi, read


@app.command()
def api(
    paths: Annotated[Optional[list[Path]], typer.Argument(help="Folders to index and watch (added to the known roots).")] = None,
    host: Annotated[str, typer.Option("--host", help="Address to bind (loopback by default).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port.")] = 8002,
    token: Annotated[Optional[str], typer.Option("--token", envvar="DOCSHELF_TOKEN", help="Require this bearer token to read (search, documents, the page).")] = None,
    ingest_token: Annotated[Optional[str], typer.Option("--ingest-token", envvar="DOCSHELF_INGEST_TOKEN", help="Accept pushed records (/ingest/*) with this bearer token; without one, ingest is disabled.")] = None,
    insecure: Annotated[bool, typer.Option("--insecure", help="Allow a non-loopback --host without --token (anyone who can reach it can read).")] = False,
    allow_host: Annotated[Optional[list[str]], typer.Option("--allow-host", help="Extra allowed Host header (e.g. docs.lan:8002).")] = None,
    allow_origin: Annotated[Optional[list[str]], typer.Option("--allow-origin", help="Extra allowed Origin (e.g. https://app.example).")] = None,
    max_body_mb: Annotated[float, typer.Option("--max-body-mb", envvar="DOCSHELF_MAX_BODY_MB", help="Largest request body accepted, in MB.")] = 64.0,
    watch: Annotated[bool, typer.Option("--watch/--no-watch", help="Watch the roots and update the index live.")] = True,
    read_only: Annotated[bool, typer.Option("--read-only", help="Never write the index (ingest answers 503).")] = False,
    writer_retry: Annotated[float, typer.Option("--writer-retry", envvar="DOCSHELF_WRITER_RETRY", help="Seconds between a reader's tries to become the writer.")] = 3.0,
    log_file: Annotated[Optional[Path], typer.Option("--log-file", envvar="DOCSHELF_LOG_FILE", help="Rotating log file (10 MB × 5); default in the user log dir.")] = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /docs), push ingest and the search page at / (needs no MCP client)."""
    import uvicorn

    from ..live.runtime import ServerRuntime
    from ..logs import setup_logging

    from ..access import listen_socket

    config = settings()
    used = setup_logging(verbosity(), log_file or config.log_file)
    for p in paths or []:
        if not p.expanduser().exists():
            raise ConfigError(f"{p} does not exist")
    sock = listen_socket(host, port)  # a busy port is refused before anything starts
    runtime = ServerRuntime(config, list(paths or []), watch=watch, writer_retry=writer_retry, read_only=read_only,
                            kind="api")
    asgi, read = build_api(runtime, host, token=token, ingest_token=ingest_token, insecure=insecure,
                           max_body_mb=max_body_mb, allow_host=allow_host or [], allow_origin=allow_origin or [])
    log.info("docshelf api pid %d, index %s, log %s", os.getpid(), config.index_dir, used)
    err.print(f"docshelf API at http://{host}:{port}/ (OpenAPI: /docs; {read.describe()}; "
              f"ingest {'on' if ingest_token else 'off: set --ingest-token'})")
    try:
        uvicorn.Server(uvicorn.Config(asgi, host=host, port=port, log_config=None, log_level="warning")).run(
            sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        close_server(runtime)
