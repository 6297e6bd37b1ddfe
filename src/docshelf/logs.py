"""Logging for the long-running interfaces: stderr plus a rotating file (10 MB × 5).

The library never configures logging; ``docshelf serve`` calls :func:`setup_logging`
once at start-up. Nothing here writes to stdout: under the stdio transport stdout
carries the MCP protocol and nothing else.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
from pathlib import Path

MAX_BYTES = 10 * 1024 * 1024
BACKUPS = 5
FORMAT = "%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"
CONSOLE_FORMAT = "%(asctime)s %(message)s"  # ``watch``: a person reads it; the file keeps FORMAT


class ConsoleFormatter(logging.Formatter):
    """A time and the message, as a person reads a running command's output; a warning or
    error says so (``12:03:04 warning: root ~/docs does not exist…``). Process ids, levels and
    logger names stay in the log file."""

    def __init__(self) -> None:
        super().__init__(CONSOLE_FORMAT, datefmt="%H:%M:%S")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        line = super().formatMessage(record)
        if record.levelno >= logging.WARNING:
            stamp, _, message = line.partition(" ")
            line = f"{stamp} {record.levelname.lower()}: {message}"
        return line
# Chatty third-party loggers: one INFO line per request is noise in a server log.
QUIET = ("mcp", "httpx", "httpx2", "uvicorn.access", "watchdog", "filelock", "lancedb")


def default_log_file() -> Path:
    import platformdirs

    return Path(platformdirs.user_log_dir("docshelf", appauthor=False)) / "docshelf.log"


def setup_logging(
    verbosity: int = 0, log_file: Path | None = None, *, file_enabled: bool = True, console: bool = False
) -> Path | None:
    """Send logs to stderr (WARNING, or INFO/DEBUG with -v/-vv) and to a rotating file (INFO+).

    ``console``: stderr lines for a person (``ConsoleFormatter``: ``docshelf watch``), not a log.

    Replaces handlers already on the root logger (the CLI's ``basicConfig``), so each
    record is written once. Returns the log file in use, or ``None`` when the file could
    not be opened (the server still runs; stderr keeps the logs).
    """
    stderr_level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    formatter = logging.Formatter(FORMAT)
    to_stderr = logging.StreamHandler(sys.stderr)
    to_stderr.setLevel(stderr_level)
    to_stderr.setFormatter(ConsoleFormatter() if console else formatter)
    root.addHandler(to_stderr)
    used: Path | None = None
    if file_enabled:
        path = Path(log_file).expanduser() if log_file else default_log_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            to_file = logging.handlers.RotatingFileHandler(
                path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True
            )
        except OSError as exc:
            logging.getLogger(__name__).warning("cannot write the log file %s: %s; logging to stderr only", path, exc)
        else:
            to_file.setLevel(logging.DEBUG if verbosity >= 2 else logging.INFO)
            to_file.setFormatter(formatter)
            root.addHandler(to_file)
            used = path
    root.setLevel(min(stderr_level, logging.INFO if used else stderr_level))
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.DEBUG if verbosity >= 3 else logging.WARNING)
    logging.captureWarnings(True)
    return used


__all__ = ["ConsoleFormatter", "setup_logging", "default_log_file", "MAX_BYTES", "BACKUPS"]
