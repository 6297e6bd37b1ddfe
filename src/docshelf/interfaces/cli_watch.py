"""``docshelf watch``: keep an index live (index, then follow file changes) without serving MCP."""

from __future__ import annotations

import logging
import signal
import threading
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import ConfigError, DocshelfError
from .cli_app import app, err, settings, verbosity
from .cli_app import service as _service

log = logging.getLogger("docshelf.watch")


@app.command()
def watch(
    paths: Annotated[
        Optional[list[Path]], typer.Argument(help="Folders or files to index and watch (added to the known roots).")
    ] = None,
    poll: Annotated[
        bool, typer.Option("--poll", envvar="DOCSHELF_WATCH_POLL", help="Watch by polling (network drives, no inotify).")
    ] = False,
) -> None:
    """Keep the index up to date: index the roots, then apply every change as it happens (Ctrl-C stops)."""
    from ..live.writer import WriterLoop
    from ..logs import setup_logging

    config = settings()
    for p in paths or []:
        if not p.expanduser().exists():
            raise ConfigError(f"{p} does not exist")
    # INFO on stderr, each update one line for a person (time and message); the file keeps the full log
    setup_logging(max(verbosity(), 1), config.log_file, console=True)
    shelf = _service(create=True)
    roots = shelf.live_roots(paths or [])
    if not roots:
        raise ConfigError("no folders to watch: pass a PATH (`docshelf watch ~/docs`) or set `roots` in the config")
    loop = WriterLoop(shelf, roots, watch=True, poll=poll)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    err.print(f"watching {', '.join(map(str, roots))} (index {shelf.index_dir}); Ctrl-C stops")
    loop.start()
    queries = _answer_searches(shelf, config, stop)
    try:
        while not stop.wait(0.5):
            if loop.phase == "failed":
                raise DocshelfError(f"the index writer stopped: {loop.last_error}")
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop.set()
        queries.join(5.0)
        stopped = loop.stop()
    if stopped and not queries.is_alive():
        # Every write is committed and the lock released: end now. The interpreter's teardown
        # (a full garbage collection over LanceDB, pyarrow, numpy and their native runtimes)
        # was most of the time from Ctrl-C to exit, seconds on a loaded machine
        # (benchmarks/README.md, "Ctrl-C under `docshelf watch`").
        from .cli_entry import leave

        leave(0)


def _answer_searches(shelf, config, stop: threading.Event) -> threading.Thread:
    """Answer ``docshelf search`` from this process once the model is loaded (``live/query_socket.py``)."""
    from ..live.query_socket import QueryServer, settings_key

    def run() -> None:
        try:
            shelf.embedder.load()
        except Exception as exc:  # noqa: BLE001 - the CLI searches in-process then
            log.warning("not answering `docshelf search` from this process: the model did not load (%s)", exc)
            return
        if stop.is_set():
            return
        server = QueryServer(shelf.index_dir, shelf.search, settings_key(config), "watch")
        if not server.start():
            return
        try:
            stop.wait()
        finally:
            server.close()

    thread = threading.Thread(target=run, name="docshelf-query-socket-start", daemon=True)
    thread.start()
    return thread
