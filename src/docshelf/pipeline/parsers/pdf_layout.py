"""What a PDF page's typography says, which its text layer alone does not: the lines that are
running heads and page numbers, table-of-contents and index entries, headings set in larger
type, listings set in a typewriter face, and where the outline's titles are printed.

``parsers/pdf.py`` reads the file (pypdf, metadata, outline, page labels); this module turns
each page's text and type into blocks as a reader sees them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from ...models import Block
from ._common import fence

_SENTENCE_END = re.compile(r"[.!?:;)\]\"']$")
# Typeset ligatures a text layer keeps as one character ("deﬁned"): read as their letters, so
# "defined" finds the word and a heading compares with its outline title.
LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})


def paragraphs(text: str) -> list[str]:
    """Split extracted page text into paragraphs.

    pypdf rarely emits blank lines, so besides blank lines a paragraph also ends
    at a clearly short line that ends a sentence. Lines are re-joined with spaces
    and words hyphenated across a line break are mended.
    """
    lines = [line.rstrip() for line in text.replace("\r", "\n").split("\n")]
    widths = sorted(len(line) for line in lines if line.strip())
    if not widths:
        return []
    typical = widths[int(len(widths) * 0.8)] if len(widths) > 3 else 10**6
    out: list[str] = []
    current: list[str] = []

    def close() -> None:
        if current:
            joined = ""
            for part in current:
                if joined.endswith("-") and part[:1].islower():
                    joined = joined[:-1] + part
                else:
                    joined = f"{joined} {part}" if joined else part
            out.append(joined)
            current.clear()

    for line in lines:
        stripped = " ".join(line.split())
        if not stripped:
            close()
            continue
        current.append(stripped)
        if _SENTENCE_END.search(stripped) and len(stripped) < 0.7 * typical:
            close()
    close()
    return out


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "`": "'", "\u201c": '"', "\u201d": '"'})
# A printed section number before a title the outline gives bare: "2.5 ", "6.11.1 ", "3. ", "A.2 ".
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[a-z](?:\.\d+)+\.?|[a-z]\.)\s+")


def _title_key(text: str) -> str:
    return " ".join(text.translate(_QUOTES).split()).casefold()


def _title_lines(norm: list[str], i: int, title: str) -> int:
    """How many lines from ``i`` print ``title`` (0 when they do not): the title as the outline
    gives it, or with the section number the page prints before it ("2.5 Search paths" for the
    outline's "Search paths"), on one line or wrapped over up to three."""
    joined = ""
    for n in range(i, min(i + 3, len(norm))):
        if not norm[n]:
            return 0
        if joined.endswith("-") and norm[n][:1].islower():  # "calcula-" + "tions"
            joined = joined[:-1] + norm[n]
        else:
            joined = f"{joined} {norm[n]}" if joined else norm[n]
        bare = _SECTION_NUMBER.sub("", joined, count=1)
        # A text layer may lose the spaces of a tightly set line ("Preconstructingcommandnames(orotherwise").
        if title in (joined, bare) or bare.replace(" ", "") == title.replace(" ", ""):
            return n - i + 1
        if len(joined) >= len(title) + 16:  # past any number a title could carry
            return 0
    return 0


def sections(text: str, entries: list[tuple[int, str]], *, printed_only: bool = False,
              ) -> list[tuple[tuple[int, str] | None, str]]:
    """Cut a page's text at its outline entries: each entry starts at the line that is its
    title, or where the previous one starts when no line is (a bookmark to the page itself;
    with ``printed_only``, an entry no line prints is left out: a heading read from the type).
    Returns ``(entry or None for the text before the first, text)`` in page order."""
    lines = text.split("\n")
    norm = [_title_key(line) for line in lines]
    parts: list[tuple[tuple[int, str] | None, str]] = []
    current: tuple[int, str] | None = None
    start = 0
    for entry in entries:
        title = _title_key(entry[1])
        found = ((i, n) for i in range(start, len(lines)) if (n := _title_lines(norm, i, title)))
        at, taken = next(found, (None, 0))
        if at is None and printed_only:
            continue
        parts.append((current, "\n".join(lines[start:start if at is None else at])))
        current, start = entry, start if at is None else at + taken
    parts.append((current, "\n".join(lines[start:])))
    return parts


_BOLD = re.compile(r"bold|black|heavy|demi|^cmb\d|^cmbx|cmssbx|bx\d|-bd$|,bold")
Run = tuple[str, float, bool]  # text, size in points as set on the page, bold


def _bold(font: Any) -> bool:
    try:
        name = str(font.get("/BaseFont", "") if font else "")
    except Exception:  # noqa: BLE001 - a damaged font dictionary is no bold font
        return False
    return bool(_BOLD.search(name.rsplit("+", 1)[-1].lstrip("/").casefold()))


# Typewriter faces by name (TeX's cmtt/sftt/txtt/lmmono, Courier, the usual *Mono and console
# faces); a font descriptor's FixedPitch flag says the same of any other.
_MONOSPACE = re.compile(r"cmtt|cmvtt|sftt|txtt|lmmono|courier|pcrr|mono|consol|inconsolata|menlo|"
                        r"lucidatypewriter|andale|sourcecodepro|firacode|cousine")


def _monospace(font: Any) -> bool:
    try:
        if not font:
            return False
        name = str(font.get("/BaseFont", "")).rsplit("+", 1)[-1].lstrip("/").casefold()
        if _MONOSPACE.search(name.replace(" ", "").replace("-", "")):
            return True
        descriptor = font.get("/FontDescriptor")
        return bool(int(descriptor.get_object().get("/Flags", 0)) & 1) if descriptor is not None else False
    except Exception:  # noqa: BLE001 - a damaged font dictionary is no typewriter font
        return False


def _line_key(line: str) -> str:
    return " ".join(line.split())


def page_text(page: Any, runs: list[Run] | None, code: set[str]) -> str:
    """The page's text (pypdf's, read through its text visitor). Each line set wholly in a
    typewriter face goes to ``code`` (a listing, a command, a signature: joined into the prose
    around it, it read as one run-on sentence); with ``runs``, each piece of text also goes
    there with its type size and weight, to find headings by their type."""
    lines: list[list[tuple[str, bool]]] = [[]]

    def visit(text: str, cm: Any, tm: Any, font: Any, size: float) -> None:
        if not text:
            return
        mono = _monospace(font)
        for i, piece in enumerate(text.split("\n")):
            if i:
                lines.append([])
            if piece.strip():
                lines[-1].append((piece, mono))
        if runs is not None:
            scale = math.hypot(tm[2], tm[3]) * math.hypot(cm[2], cm[3])
            runs.append((text, round(size * scale, 1), _bold(font)))

    out = page.extract_text(visitor_text=visit) or ""
    for line in lines:
        key = _line_key("".join(piece for piece, _ in line).translate(LIGATURES))
        if len(key) >= 2 and all(mono for _, mono in line):
            code.add(key)
    return out


def part_blocks(text: str, code: set[str], path: tuple[str, ...], page: int) -> Iterator[Block]:
    """A page's text under one heading as blocks: each run of lines that ``code`` holds is one
    code block, line by line as printed; the prose between is cut into paragraphs."""
    prose: list[str] = []
    listing: list[str] = []

    def flush_prose() -> Iterator[Block]:
        yield from (Block("paragraph", para, path, page) for para in paragraphs("\n".join(prose)))
        prose.clear()

    for line in [*text.split("\n"), ""]:
        if _line_key(line) in code:
            if not listing:
                yield from flush_prose()
            listing.append(line.rstrip())
            continue
        if listing:
            yield Block("code", fence(listing, ""), path, page)
            listing.clear()
        prose.append(line)
    yield from flush_prose()


MIN_BODY_CHARS = 500
HEADING_SHARE = 0.15  # above it, "larger than the body" is no heading style


def type_headings(runs: dict[int, list[Run]]) -> dict[int, list[tuple[int, str]]]:
    """Headings read from the type where a PDF has no outline: a line set larger than the
    body text (the size most of its characters have), by 8 % at least and bold, or by 30 %
    ("2.6 Citation Aliasing" in 12 pt bold over an 11 pt body), every piece of it at least
    body size. Consecutive such lines of one size are one title; larger type is a higher
    level. None when the body size is unclear or "larger" is no rare style (a slide deck)."""
    chars: dict[float, int] = {}
    for page_runs in runs.values():
        for text, size, _ in page_runs:
            chars[size] = chars.get(size, 0) + len(text.strip())
    total = sum(chars.values())
    if total < MIN_BODY_CHARS:
        return {}
    body = max(chars, key=lambda size: chars[size])
    found: dict[int, list[tuple[float, str]]] = {}
    in_headings = 0
    for number, page_runs in runs.items():
        lines: list[list[Run]] = [[]]
        for text, size, bold in page_runs:
            for i, piece in enumerate(text.split("\n")):
                if i:
                    lines.append([])
                if piece.strip():
                    lines[-1].append((piece, size, bold))
        previous: float | None = None
        for line in lines:
            title = " ".join("".join(piece for piece, _, _ in line).split()).translate(LIGATURES)
            top = max((size for _, size, _ in line), default=0.0)
            if not (line and len(re.findall(r"[^\W\d_]", title)) >= 2 and len(title) <= 150
                    and min(size for _, size, _ in line) >= body * 0.98
                    and (top >= body * 1.3 or (top >= body * 1.08 and any(bold for _, _, bold in line)))):
                previous = None
                continue
            in_headings += len(title)
            page_found = found.setdefault(number, [])
            if previous == top and page_found:  # a title set over two lines
                page_found[-1] = (top, f"{page_found[-1][1]} {title}")
            else:
                page_found.append((top, title))
            previous = top
    if not found or in_headings > HEADING_SHARE * total:
        return {}
    levels = {size: n for n, size in enumerate(sorted({s for f in found.values() for s, _ in f}, reverse=True), 1)}
    return {number: [(levels[size], title) for size, title in f] for number, f in found.items()}


# A table-of-contents or index entry: a title, a dot leader and the page(s) it points to
# ("2.5 Search paths . . . . . 6", "xlimits . . . . . 112"). It is navigation, as a web page's
# sidebar is: indexed, it outranks the page it points to with the same words and no content.
LEADER_ENTRY = re.compile(r"(?:\s*\.){4,}\s*[0-9ivxlcdm]+(?:\s*,\s*[0-9ivxlcdm]+)*\s*$", re.IGNORECASE)


def running_lines(texts: dict[int, str], labels: dict[int, str]) -> dict[int, set[int]]:
    """The lines of each page that are its running header or footer, by page: the first or last
    line of a page that is its page number alone (or its label: "iv", "15" on PDF page 20), or
    that has the number at one end of a text the same edge line of at least one other page
    carries with its own number ("Chapter 6: Programming 55", "10 P. W. Daly"), or a text
    repeated unchanged at the top or bottom of half the pages (four at least). They are no
    part of the page's text: kept, they open a paragraph of every page with the chapter's title."""
    edges: dict[int, list[tuple[int, str]]] = {}
    for number, text in texts.items():
        lines = text.split("\n")
        filled = [i for i, line in enumerate(lines) if line.strip()]
        if filled:
            edges[number] = [(i, " ".join(lines[i].split())) for i in dict.fromkeys((filled[0], filled[-1]))]

    def rest(number: int, line: str) -> str | None:
        """The line without the page's number at one end (None when it has none there)."""
        token = labels.get(number, str(number))
        if line == token:
            return ""
        if line.startswith(token + " "):
            return line[len(token) + 1:]
        if line.endswith(" " + token):
            return line[: -len(token) - 1]
        return None

    numbered: dict[str, set[int]] = {}
    plain: dict[str, set[int]] = {}
    for number, found in edges.items():
        for _, line in found:
            if (r := rest(number, line)) is not None:
                numbered.setdefault(r, set()).add(number)
            plain.setdefault(line, set()).add(number)
    often = max(4, len(edges) // 2)
    out: dict[int, set[int]] = {}
    for number, found in edges.items():
        for i, line in found:
            r = rest(number, line)
            if (r is not None and (r == "" or len(numbered[r]) >= 2)) or len(plain[line]) >= often:
                out.setdefault(number, set()).add(i)
    return out
