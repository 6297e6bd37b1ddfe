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

from ...errors import ParseError
from ...models import Block, ParseContext, ParsedDocument
from ._common import HeadingStack, collapse, normalize_date, split_tags

MAX_UNPACKED_BYTES = 100_000_000
"""Most a DOCX may unpack to. python-docx inflates parts fully into memory, so a zip bomb
(a few MB inflating to gigabytes) is refused from its directory, before anything inflates.
Python's zipfile never inflates a member past its declared size, so the check holds."""

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)
_LIST_STYLE = re.compile(r"^list\b", re.IGNORECASE)


def _style_name(paragraph: Paragraph) -> str:
    try:
        style = paragraph.style
    except (KeyError, ValueError):
        return ""
    return (style.name or "") if style is not None else ""


def _is_list(paragraph: Paragraph, style: str) -> bool:
    if _LIST_STYLE.match(style):
        return True
    ppr = paragraph._p.pPr  # noqa: SLF001 - python-docx has no public numbering API
    return ppr is not None and ppr.numPr is not None


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
    created = normalize_date(props.created)
    if created:
        meta["created"] = created
    return meta, (props.title or "").strip()


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
            style = _style_name(item)
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
            elif _is_list(item, style):
                pending_list.append(f"- {text}")
            else:
                flush_list()
                blocks.append(Block("paragraph", text, headings.path))
        flush_list()
        title = props_title or style_title or first_heading or path.stem
        return ParsedDocument(title, tuple(blocks), "docx", meta)
