"""The ``docshelf`` command's entry point: a search a running server answers, before any framework.

Agents call ``docshelf search "question" --json`` from a shell, one process per question.
When a ``docshelf serve``/``watch`` holds the index (``live/query_socket.py``), the answer
is milliseconds away, and importing Typer, pydantic and the settings would cost several
times more than the rest of the command. So this module, which imports only the standard
library and docshelf's light modules, tries that first:

1. ``cli_args.parse_search`` understands the command line (else: the full CLI);
2. ``query_keys.recall`` finds the settings key the full CLI recorded for this working
   folder, these options, environment and config files (else: the full CLI, which records it);
3. ``query_socket.ask`` sends the request's fields; the server validates them into a
   ``SearchRequest`` as for any client and searches (else, a decline included: the full CLI,
   which then reports a bad value or searches in-process exactly as before).

Only ``--json`` output is printed here, through the same ``output.json_text`` as the full
CLI; anything else runs ``cli.main``, so help, errors and exit codes have one source. A
search the full CLI ran ends through ``leave`` (no interpreter teardown).
"""

from __future__ import annotations

import gc
import logging
import sys

log = logging.getLogger("docshelf.cli")


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    from .cli_args import command_of

    if command_of(args) != "search":
        from .cli import main as full_cli

        full_cli(args)
        return
    # One search, then ``leave``: the cyclic garbage collector would only re-scan the objects
    # the imports create (its passes cost a cold search ~80 ms of CPU, see benchmarks/README.md,
    # "`docshelf search` from a shell"); nothing lives long enough for cycles to matter, and
    # reference counting still frees everything else. Restored if this returns (a caller's process).
    collecting = gc.isenabled()
    gc.disable()
    try:
        _search(args)
    finally:
        if collecting:
            gc.enable()


def _search(args: list[str]) -> None:
    if answer_from_server(args):
        return
    from .cli import main as full_cli

    try:
        full_cli(args)
        code = 0
    except SystemExit as exc:
        if exc.code is not None and not isinstance(exc.code, int):
            raise
        code = exc.code or 0
    leave(code)


def leave(code: int) -> None:
    """End a finished search now: flush, run the exit handlers, skip the interpreter's teardown.

    Tearing down a process that imported LanceDB, pyarrow, numpy and onnxruntime (thousands
    of modules, native runtimes and the model's session) took longer than the search itself
    (benchmarks/README.md, "`docshelf search` from a shell"); a search has nothing left to
    save. Where that cannot be done safely (a thread still running that is not a daemon, no
    exit-handler hook, output that does not flush), the process exits the ordinary way.
    """
    import atexit
    import os
    import threading

    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if run_exit_handlers is None or others:
        raise SystemExit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # e.g. a closed pipe: let Python report it as it always has
        raise SystemExit(code) from None
    run_exit_handlers()  # logging.shutdown among them; atexit skips them at os._exit
    os._exit(code)


def answer_from_server(args: list[str]) -> bool:
    """Print a running server's answer to this ``docshelf search … --json``; False when the
    full CLI must run instead (nothing has been printed then)."""
    try:
        text = _served_json(args)
    except Exception:  # noqa: BLE001 - whatever went wrong, the full CLI does it properly
        log.debug("thin client failed; running the full CLI", exc_info=True)
        return False
    if text is None:
        return False
    sys.stdout.write(text)
    sys.stdout.flush()
    return True


def _served_json(args: list[str]) -> str | None:
    from .cli_args import command_of

    if command_of(args) != "search":
        return None
    from ..live import query_socket
    from .cli_args import configure_logging, parse_search

    call = parse_search(args)
    if call is None or not call.as_json or not query_socket.supported():
        return None
    configure_logging(call.verbose)
    from ..live import query_keys

    recorded = query_keys.recall(call.settings_args)
    if recorded is None:
        return None
    index_dir, key = recorded
    answer = query_socket.ask(index_dir, key, call.request)
    if answer is None:
        return None
    log.info(query_socket.answered_line(answer))
    from .output import json_text

    return json_text(answer.result)


if __name__ == "__main__":
    main()
