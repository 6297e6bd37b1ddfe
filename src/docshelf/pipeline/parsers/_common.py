"""Small helpers every parser shares: decoding bytes, dates, tags and whitespace.

Kept in one place so that all formats normalise metadata the same way (the store
filters on ``tags`` and ISO ``date`` whatever the source format was).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...errors import ParseError

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def decode_text(path: Path, data: bytes) -> str:
    """Bytes → text with ``\\n`` line ends. UTF-8 (BOM allowed), UTF-16 with a BOM, else latin-1.

    Raises ParseError("binary file") for NUL bytes or a latin-1 fallback that is
    mostly control characters, so binaries never reach the index as mojibake.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise ParseError(str(path), "binary file (invalid UTF-16)") from exc
    else:
        if b"\x00" in data:
            raise ParseError(str(path), "binary file")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = _decode_damaged(data)
            if len(_CONTROL.findall(text)) > max(1, len(text) // 20):
                raise ParseError(str(path), "binary file (not UTF-8 or latin-1 text)") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


_UTF8_MULTIBYTE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def _decode_damaged(data: bytes) -> str:
    """Text that is not valid UTF-8: UTF-8 with a few bad bytes replaced when most of its
    non-ASCII bytes form UTF-8 sequences (as many as bad bytes), else latin-1 (which decodes any byte)."""
    text = data.decode("utf-8-sig", errors="replace")
    sequences = len(_UTF8_MULTIBYTE.findall(data))
    if sequences and sequences >= text.count("\ufffd"):
        return text
    return data.decode("latin-1")


def _roman(n: int) -> str:
    out = ""
    for value, numeral in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                           (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        count, n = divmod(n, value)
        out += numeral * count
    return out


def _letters(n: int) -> str:
    """Letter numbering as Word and browsers show it: a..z, then aa..zz, aaa.. (the letter repeated)."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def list_number(n: int, style: str) -> str:
    """``n`` as an ordered list shows it: ``decimal`` (and anything else), ``lowerLetter``,
    ``upperLetter``, ``lowerRoman``, ``upperRoman`` (Word's names); letters and numerals from 1 on."""
    if n > 0 and style in ("lowerLetter", "upperLetter"):
        return _letters(n) if style == "lowerLetter" else _letters(n).upper()
    if 0 < n < 40_000 and style in ("lowerRoman", "upperRoman"):
        return _roman(n) if style == "lowerRoman" else _roman(n).upper()
    return str(n)


def split_tags(value: Any) -> list[str]:
    """Tags from a list or a comma/space separated string; leading '#' stripped, order kept."""
    if value is None:
        return []
    items: Iterable[Any] = [value] if isinstance(value, str) else value
    if not isinstance(items, Iterable):
        items = [items]
    out: list[str] = []
    for item in items:
        if item is None:
            continue
        for part in re.split(r"[,\s]+", str(item)) if isinstance(value, str) else [str(item)]:
            tag = part.strip().lstrip("#").strip()
            if tag:
                out.append(tag)
    return unique(out)


def as_str_list(value: Any) -> list[str]:
    """A scalar or a list → list of non-empty strings (for aliases)."""
    if value is None:
        return []
    items = [value] if isinstance(value, (str, int, float)) else list(value)
    return [str(item).strip() for item in items if item is not None and str(item).strip()]


def unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    return [x for x in items if not (x in seen or seen.add(x))]


def collapse(text: str) -> str:
    """Collapse runs of whitespace into single spaces (HTML/DOCX inline text)."""
    return " ".join(text.split())


Numbered = list[tuple[str, int]]
"""A file's lines with their 1-based numbers (an included file's lines carry the directive's number)."""


def dedent(lines: Numbered) -> Numbered:
    """``lines`` without the indentation they all share (spaces: tabs are expanded on reading);
    blank lines become empty."""
    width = min((len(t) - len(t.lstrip(" ")) for t, _ in lines if t.strip()), default=0)
    return [(t[width:] if t.strip() else "", n) for t, n in lines]


def fence(code: list[str], language: str) -> str:
    """``code`` as a Markdown fence, longer than any backtick run inside it (so it cannot close early)."""
    ticks = "`" * max(3, 1 + max((len(m) for line in code for m in re.findall(r"`+", line)), default=0))
    return "\n".join([ticks + language, *code, ticks])


class HeadingStack:
    """Tracks the chain of headings above the current block, by level."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, str]] = []

    def push(self, level: int, title: str) -> tuple[str, ...]:
        while self._stack and self._stack[-1][0] >= level:
            self._stack.pop()
        self._stack.append((level, title))
        return self.path

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(title for _, title in self._stack)

    @property
    def level(self) -> int:
        """The innermost heading's level (0 above the first heading)."""
        return self._stack[-1][0] if self._stack else 0

    def mark(self) -> list[tuple[int, str]]:
        """The chain as it is now, for ``restore`` once a nested scope (an API entry) ends."""
        return list(self._stack)

    def restore(self, mark: list[tuple[int, str]]) -> None:
        self._stack = list(mark)
