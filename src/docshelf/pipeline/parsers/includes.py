"""Reading included files (snippets, ``literalinclude``) safely, from inside the indexed root.

Documentation sites keep their examples in separate files and pull them into pages
(``--8<-- "file"``, ``{* path *}``, ``.. literalinclude::``). A reader sees that text on
the page, so the parsers expand it. Only files inside the indexed root are read: an
absolute path, a URL, or a path whose resolved location (symlinks followed) leaves the
root is refused, so indexing one folder can never leak another's content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import ParseError
from ...models import ParseContext
from ._common import decode_text

MAX_INCLUDE_BYTES = 1_000_000
MAX_DEPTH = 5
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


class IncludeRefused(Exception):
    """An include that is not expanded; the message says why (kept in the document metadata).

    ``looked_for``: the root-relative places a file that was not found was looked for (a file
    appearing at one of them changes the page, so the index watches them)."""

    def __init__(self, reason: str, looked_for: tuple[str, ...] = ()) -> None:
        super().__init__(reason)
        self.looked_for = looked_for


@dataclass
class Includes:
    """Resolves and reads included files for one parse, and records what happened.

    ``included`` lists root-relative paths that were read; ``errors`` one line per include
    that was not expanded; ``missing`` the root-relative places where a file that was not found
    was looked for. All go to the document's metadata, and the indexer records ``included`` and
    ``missing`` with the document, so that a change to either re-parses the page.
    """

    context: ParseContext | None
    path: Path
    included: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    _root: Path | None = None

    def __post_init__(self) -> None:
        if self.context is not None:
            self._root = Path(self.context.root).resolve()

    def resolve(self, target: str, base: Path, *, root_relative_slash: bool = False) -> Path:
        """The file ``target`` names, looked up from ``base`` (a folder) and then its ancestors.

        Doc tools resolve include paths against different folders (the page's, the config
        file's, the project's); trying the page's folder first and walking up to the root
        finds the file all of them mean. ``root_relative_slash`` lets a leading ``/`` mean
        "from the top" (Sphinx) instead of being refused as absolute.
        """
        if self._root is None:
            raise IncludeRefused("no indexed root to read includes from")
        target = target.strip()
        if not target:
            raise IncludeRefused("empty include path")
        if _URL.match(target):
            raise IncludeRefused("URLs are not fetched")
        if target.startswith(("/", "\\")) or Path(target).is_absolute() or re.match(r"^[A-Za-z]:", target):
            if not root_relative_slash or Path(target).drive:
                raise IncludeRefused("absolute paths are not read")
            target = target.lstrip("/\\")
        folder = Path(base).resolve()
        if not _inside(folder, self._root):
            folder = self._root
        looked_for: list[str] = []
        while True:
            candidate = (folder / target).resolve()
            if candidate.is_file():
                if not _inside(candidate, self._root):
                    raise IncludeRefused("outside the indexed root")
                return candidate
            if _inside(candidate, self._root) and candidate != self._root:
                looked_for.append(candidate.relative_to(self._root).as_posix())
            if folder == self._root or folder.parent == folder:
                break
            folder = folder.parent
        raise IncludeRefused("not found inside the indexed root", tuple(looked_for))

    def read(self, target: str, base: Path, *, root_relative_slash: bool = False) -> tuple[Path, str]:
        """(resolved path, text with ``\\n`` line ends) of an included file; IncludeRefused if not."""
        try:
            found = self.resolve(target, base, root_relative_slash=root_relative_slash)
        except IncludeRefused as exc:
            self.missing.extend(p for p in exc.looked_for if p not in self.missing)
            raise
        if found.stat().st_size > MAX_INCLUDE_BYTES:
            raise IncludeRefused(f"larger than {MAX_INCLUDE_BYTES} bytes")
        try:
            text = decode_text(found, found.read_bytes())
        except (OSError, ParseError) as exc:
            raise IncludeRefused(f"unreadable ({getattr(exc, 'reason', exc)})") from exc
        assert self._root is not None
        rel = found.relative_to(self._root).as_posix()
        if rel not in self.included:
            self.included.append(rel)
        return found, text

    def refuse(self, target: str, line: int, reason: str) -> None:
        self.errors.append(f"{target!r} (line {line}): {reason}")

    def metadata(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if self.included:
            out["includes"] = list(self.included)
        if self.errors:
            out["include_errors"] = list(self.errors)
        if self.missing:
            out["include_missing"] = list(self.missing)
        return out


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def parse_ranges(
    spec: str, *, sep: str = ":", single_to_end: bool = False
) -> list[tuple[int | None, int | None]]:
    """``"3:5,9"`` → [(3, 5), (9, 9)]; open ends are None (``"4:"`` → (4, None)).

    ``sep`` is the range separator inside one item (``:`` for snippets, ``-`` for Sphinx).
    Items are separated by commas or spaces. ``single_to_end`` reads a lone number as
    "from there to the end" (pymdownx snippets). Raises ValueError on anything else.
    """
    ranges: list[tuple[int | None, int | None]] = []
    for item in re.split(r"[,\s]+", spec.strip()):
        if not item:
            continue
        if sep in item:
            first, _, last = item.partition(sep)
            start = int(first) if first.strip() else None
            end = int(last) if last.strip() else None
        else:
            start = int(item)
            end = None if single_to_end else start
        if (start is not None and start < 1) or (end is not None and end < 1):
            raise ValueError(f"line numbers start at 1: {item!r}")
        ranges.append((start, end))
    if not ranges:
        raise ValueError("no line range")
    return ranges


def select_lines(lines: list[str], ranges: list[tuple[int | None, int | None]]) -> list[str]:
    """The lines the 1-based inclusive ``ranges`` name, in the order given."""
    out: list[str] = []
    for start, end in ranges:
        a = (start or 1) - 1
        b = len(lines) if end is None else min(end, len(lines))
        out.extend(lines[a:b])
    return out
