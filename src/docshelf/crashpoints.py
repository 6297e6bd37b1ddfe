"""Named points where a test can make this process die, to prove that no crash corrupts an index.

The crash tests start ``docshelf index`` in a child process with
``DOCSHELF_CRASH_AT=point:N``: the N-th time the child reaches ``crash_point("point")`` it
writes ``point:N`` to ``DOCSHELF_CRASH_MARKER`` (so the test knows where it died) and kills
itself with SIGKILL (no cleanup, no ``finally``, like a power cut or the OOM killer).
Without the variable a crash point costs one comparison.

Points: ``parse`` (before a file is parsed), ``embed`` (before an embedder call),
``chunk_write`` (before a batch of chunks is committed), ``record_write`` (after the
chunks were committed, before their document records), ``prune`` (after a deleted
document's chunks were removed, before its record), ``compaction`` (in the middle of
``optimize``, between the full-text index build and the table compaction).
"""

from __future__ import annotations

import os
import signal

POINTS = ("parse", "embed", "chunk_write", "record_write", "prune", "compaction")

_SPEC = os.environ.get("DOCSHELF_CRASH_AT", "")
_POINT, _, _N = _SPEC.partition(":")
_counts: dict[str, int] = {}


def crash_point(name: str) -> None:
    """Die here (SIGKILL) if the environment asks for it; otherwise do nothing."""
    if name != _POINT:
        return
    count = _counts[name] = _counts.get(name, 0) + 1
    if count != int(_N or 1):
        return
    marker = os.environ.get("DOCSHELF_CRASH_MARKER")
    if marker:
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, f"{name}:{count}".encode())
        os.fsync(fd)
        os.close(fd)
    os.kill(os.getpid(), getattr(signal, "SIGKILL", signal.SIGTERM))


__all__ = ["POINTS", "crash_point"]
