"""Word documents → headings, paragraphs, lists and tables in reading order.

Structure comes from paragraph style names ("Title", "Heading 1".."Heading 9",
list styles), which is how Word itself builds its navigation pane. The body is
walked in document order so a table stays between the paragraphs around it.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from typing import Any

import docx
from docx.opc.exceptions import PackageNotFoundError
from docx.table import Table
from docx.text.paragraph import Paragraph

from ...dates import changed_day, document_day
from ...errors import ParseError
from ...models import Block, ParseContext, ParsedDocument
from ._common import HeadingStack, collapse, list_number, split_tags

MAX_UNPACKED_BYTES = 100_000_000
"""Most a DOCX may unpack to. python-docx inflates parts fully into memory, so a zip bomb
(a few MB inflating to gigabytes) is refused from its directory, before anything inflates.
Python's zipfile never inflates a member past its declared size, so the check holds."""

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^list\b", re.IGNORECASE)


def _style(paragraph: Paragraph) -> Any:
    try:
        return paragraph.style
    except (KeyError, ValueError):
        return None


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_STYLE_DEPTH = re.compile(r"^list\b.*?\s([2-9])$", re.IGNORECASE)  # "List Number 2" is a nested list


def _val(element: Any, tag: str) -> str | None:
    child = element.find(f"{_W}{tag}") if element is not None else None
    return child.get(f"{_W}val") if child is not None else None


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def _own_num_pr(ppr: Any) -> tuple[str | None, str | None]:
    num_pr = ppr.find(f"{_W}numPr") if ppr is not None else None
    return (None, None) if num_pr is None else (_val(num_pr, "numId"), _val(num_pr, "ilvl"))


def _style_num_pr(style: Any, cache: dict[Any, tuple[str | None, str | None]]) -> tuple[str | None, str | None]:
    """A paragraph style's (numId, level), from it or the styles it is based on (once per style)."""
    key = getattr(style, "style_id", None)
    if key in cache:
        return cache[key]
    num_id = level = None
    depth = 0
    while style is not None and num_id is None and depth < 10:
        own_id, own_level = _own_num_pr(style.element.pPr)
        num_id, level = own_id, level if level is not None else own_level
        style, depth = style.base_style, depth + 1
    cache[key] = (num_id, level)
    return num_id, level


def _num_pr(paragraph: Paragraph, style: Any, cache: dict[Any, tuple[str | None, str | None]]) -> tuple[str, int] | None:
    """The paragraph's (numId, level): its own ``w:numPr``, else its style's (a "List Number"
    paragraph is numbered by its style); None when not in a list, or numbering turned off (numId 0)."""
    num_id, level = _own_num_pr(paragraph._p.pPr)  # noqa: SLF001 - python-docx has no public numbering API
    if num_id is None and style is not None:
        num_id, style_level = _style_num_pr(style, cache)
        level = level if level is not None else style_level
    if num_id is None or num_id == "0":
        return None
    return num_id, min(max(_int(level, 0), 0), 8)


class _Numbering:
    """The labels Word shows before list paragraphs ("1.", "a.", "ii)"), from the numbering
    definitions: counters per list (numId) and level, a deeper level restarting under each item
    of the one above; bullets and formats with no text ("none") read as "-"."""

    def __init__(self, document: Any) -> None:
        self._levels: dict[str, dict[int, tuple[str, str, int]]] = {}  # numId → level → (format, text, start)
        self._counted_as: dict[str, str] = {}  # numId → whose counters it continues
        self._counters: dict[str, list[int | None]] = {}
        self.styles: dict[Any, tuple[str | None, str | None]] = {}  # style id → its (numId, level)
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            return
        abstract = {a.get(f"{_W}abstractNumId"): self._read_levels(a) for a in root.findall(f"{_W}abstractNum")}
        for num in root.findall(f"{_W}num"):
            num_id, abstract_id = num.get(f"{_W}numId"), _val(num, "abstractNumId")
            levels = dict(abstract.get(abstract_id, {}))
            # lists of one definition continue each other's numbers unless one restarts (an override)
            overrides = num.findall(f"{_W}lvlOverride")
            self._counted_as[num_id] = f"num {num_id}" if overrides else f"abstract {abstract_id}"
            for override in overrides:
                ilvl = _int(override.get(f"{_W}ilvl"), 0)
                if (lvl := override.find(f"{_W}lvl")) is not None:
                    levels.update(self._read_levels(override, lvl_ilvl=ilvl))
                if (start := _val(override, "startOverride")) is not None and ilvl in levels:
                    fmt, text, _ = levels[ilvl]
                    levels[ilvl] = (fmt, text, _int(start, 1))
            self._levels[num_id] = levels

    @staticmethod
    def _read_levels(parent: Any, lvl_ilvl: int | None = None) -> dict[int, tuple[str, str, int]]:
        levels = {}
        for lvl in parent.findall(f"{_W}lvl"):
            ilvl = _int(lvl.get(f"{_W}ilvl"), lvl_ilvl or 0)
            levels[ilvl] = (_val(lvl, "numFmt") or "decimal", _val(lvl, "lvlText") or "", _int(_val(lvl, "start"), 1))
        return levels

    def label(self, num_id: str, level: int) -> str:
        levels = self._levels.get(num_id, {})
        fmt, text, _ = levels.get(level, ("bullet", "", 1))
        counters = self._counters.setdefault(self._counted_as.get(num_id, num_id), [None] * 9)
        current = counters[level]
        counters[level] = levels.get(level, ("", "", 1))[2] if current is None else current + 1
        for deeper in range(level + 1, 9):
            counters[deeper] = None
        if fmt in ("bullet", "none") or "%" not in text:
            return "-"

        def value(match: re.Match[str]) -> str:
            at = int(match.group(1)) - 1
            if not 0 <= at <= level:
                return ""
            at_fmt, _, at_start = levels.get(at, ("decimal", "", 1))
            current = counters[at]
            return list_number(at_start if current is None else current, at_fmt)

        return re.sub(r"%([1-9])", value, text).strip() or "-"


def _list_line(paragraph: Paragraph, style_obj: Any, style: str, text: str, numbering: _Numbering) -> str | None:
    """A list paragraph as a line ("1. text", "  a. text", "- text"); None when not in a list."""
    num = _num_pr(paragraph, style_obj, numbering.styles)
    if num is None and not _LIST_STYLE.match(style):
        return None
    depth = 0
    if num is not None:
        depth = num[1]
    if not depth and (m := _STYLE_DEPTH.match(style)):
        depth = int(m.group(1)) - 1
    label = numbering.label(*num) if num is not None else "-"
    return f"{'  ' * depth}{label} {text}"


def _table_rows(table: Table) -> list[str]:
    rows = []
    for row in table.rows:
        cells, seen = [], set()
        for cell in row.cells:  # merged cells come back repeated; keep each once
            if id(cell._tc) in seen:  # noqa: SLF001
                continue
            seen.add(id(cell._tc))  # noqa: SLF001
            cells.append(collapse(cell.text))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


def _metadata(document: Any) -> tuple[dict[str, Any], str]:
    props = document.core_properties
    meta: dict[str, Any] = {"format": "docx"}
    if (props.author or "").strip():
        meta["author"] = props.author.strip()
    if (props.subject or "").strip():
        meta["subject"] = props.subject.strip()
    tags = split_tags((props.keywords or "").replace(";", ","))
    if tags:
        meta["tags"] = tags
    modified, created = _property(props, "modified"), _property(props, "created")
    if created:
        meta["created"] = created
    if modified:
        meta["modified"] = modified
    if day := changed_day(modified, created):  # the last save, as "docs changed since March" means
        meta["date"] = day
    return meta, (props.title or "").strip()


def _property(props: Any, name: str) -> str | None:
    """A core-property date as ``YYYY-MM-DD``; a damaged one reads as absent, never fails the file."""
    try:
        return document_day(getattr(props, name))
    except Exception:  # noqa: BLE001 - python-docx raises several kinds on a malformed core.xml
        return None


def _check_unpacked_size(path: Path, data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise ParseError(str(path), f"not a valid DOCX (not a Word package: {exc})") from exc
    if unpacked > MAX_UNPACKED_BYTES:
        raise ParseError(str(path), f"refusing to unpack: {unpacked / 1e6:,.0f} MB inflated from "
                         f"{len(data) / 1e6:,.1f} MB is over the {MAX_UNPACKED_BYTES / 1e6:g} MB limit "
                         "(a zip bomb?)")


class DocxParser:
    """Parses ``.docx`` with python-docx (text, headings, lists and tables; no images)."""

    name = "docx"
    suffixes = (".docx",)

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        _check_unpacked_size(path, data)
        try:
            document = docx.Document(io.BytesIO(data))
        except (PackageNotFoundError, zipfile.BadZipFile) as exc:
            raise ParseError(str(path), f"not a valid DOCX (not a Word package: {exc})") from exc
        except (KeyError, ValueError, OSError, EOFError) as exc:
            raise ParseError(str(path), f"not a valid DOCX ({exc})") from exc
        except Exception as exc:  # lxml syntax errors and other corruption
            raise ParseError(str(path), f"not a valid DOCX ({type(exc).__name__}: {exc})") from exc
        meta, props_title = _metadata(document)

        blocks: list[Block] = []
        headings = HeadingStack()
        style_title = first_heading = ""
        pending_list: list[str] = []
        numbering = _Numbering(document)

        def flush_list() -> None:
            if pending_list:
                blocks.append(Block("list", "\n".join(pending_list), headings.path))
                pending_list.clear()

        for item in document.iter_inner_content():
            if isinstance(item, Table):
                flush_list()
                rows = _table_rows(item)
                if rows:
                    blocks.append(Block("table", "\n".join(rows), headings.path))
                continue
            text = item.text.strip()
            if not text:
                continue
            style_obj = _style(item)
            style = (style_obj.name or "") if style_obj is not None else ""
            match = _HEADING_STYLE.match(style)
            if style.lower() == "title" or match:
                flush_list()
                level = int(match.group(1)) if match else 0
                heading = collapse(text)
                if level == 0:
                    style_title = style_title or heading
                else:
                    first_heading = first_heading or heading
                path_ = headings.push(level, heading)
                blocks.append(Block("heading", heading, path_, level=level))
            elif (line := _list_line(item, style_obj, style, text, numbering)) is not None:
                pending_list.append(line)
            else:
                flush_list()
                blocks.append(Block("paragraph", text, headings.path))
        flush_list()
        title = props_title or style_title or first_heading or path.stem
        return ParsedDocument(title, tuple(blocks), "docx", meta)
