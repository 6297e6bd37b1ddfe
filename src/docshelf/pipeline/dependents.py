"""Which indexed documents must be parsed again because a file they include changed.

A page that includes other files (``--8<-- "file"``, ``{* path *}``, ``.. include::``) shows
their text, so its chunks go stale when one of them changes although its own bytes did not.
Its record keeps the root-relative paths its parse read (``includes``, nested includes too,
so one level of look-up covers a chain) and the places where an include that was not found
was looked for (``include_missing``). A full run stats them: an included file that is gone, or
whose mtime is not older than the page's read by more than the filesystem's timestamp step
(the rule that vouches for the page's own mtime), or a missing include that now exists, makes
the page stale. A live update knows which paths changed and re-parses the pages naming them.
Included files need not be indexed documents themselves (an excluded folder, a code file).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path

from ..models import DocumentRecord


def stale_includers(records: Iterable[DocumentRecord], racy_ns: int) -> set[tuple[str, str]]:
    """(root, path) of each indexed document whose included files changed since it was read."""
    stale: set[tuple[str, str]] = set()
    for record in records:
        if record.status != "indexed" or not (record.includes or record.include_missing):
            continue
        root = Path(record.root)
        read_before = record.indexed_at * 1e9 - racy_ns
        if any(_changed_since(root / rel, read_before) for rel in record.includes) or any(
            (root / rel).is_file() for rel in record.include_missing
        ):
            stale.add((record.root, record.path))
    return stale


def _changed_since(path: Path, mtime_ns: float) -> bool:
    try:
        return path.stat().st_mtime_ns >= mtime_ns
    except OSError:  # gone (or unreadable): the page shows something else now
        return True


def includers_of(records: Iterable[DocumentRecord], root: str, changed: Collection[str]) -> set[str]:
    """Paths of ``root``'s indexed documents that include, or looked for, one of the ``changed``
    root-relative paths or anything under one of them (a folder that moved or vanished)."""

    def hit(rel: str) -> bool:
        return any(rel == c or rel.startswith(c + "/") for c in changed)

    return {
        r.path for r in records
        if r.root == root and r.status == "indexed" and any(hit(rel) for rel in (*r.includes, *r.include_missing))
    }


__all__ = ["includers_of", "stale_includers"]
