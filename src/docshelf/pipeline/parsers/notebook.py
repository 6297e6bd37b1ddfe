"""Jupyter notebooks (``.ipynb``) → markdown and code cells as blocks, cited by cell number.

A notebook's JSON lines mean nothing to a reader; its cells do. Every block carries its
1-based cell number (counting every cell, as Jupyter shows them) in ``page``, so a hit
cites "cell N" and ``get_document(page=N)`` returns that cell; line numbers are left out.
Markdown cells are read like Markdown files (headings nest across cells, site markup
rewritten); code cells become fenced code in the kernel's language.

Outputs: a short text result is what a reader glances at under a cell, so plain-text
outputs (stdout/stderr streams, ``text/plain`` results) are kept, cut to
``OUTPUT_LINES`` lines and ``OUTPUT_CHARS`` characters; an error keeps its name and
message (what people paste into a search), not its traceback; images, HTML and widget
outputs are dropped. Raw cells are kept as text.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...errors import ParseError
from ...models import Block, ParseContext, ParsedDocument
from ._common import HeadingStack, decode_text, unique
from .markdown import new_markdown_it, read_markdown
from .sitemarkup import normalize_markup

OUTPUT_LINES = 10
OUTPUT_CHARS = 1000
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# Images pasted into markdown cells are inlined as base64 data or cell attachments: keep the alt text.
_INLINE_IMAGE = re.compile(r"!\[([^\]]*)\]\((?:data:|attachment:)[^)]*\)")


def _source(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return value if isinstance(value, str) else ""


def _short(text: str) -> str:
    """At most OUTPUT_LINES lines and OUTPUT_CHARS characters, marked with … when cut."""
    text = _ANSI.sub("", text).strip("\n")
    lines = text.split("\n")
    cut = len(lines) > OUTPUT_LINES or len(text) > OUTPUT_CHARS
    text = "\n".join(lines[:OUTPUT_LINES])[:OUTPUT_CHARS]
    return text + "\n…" if cut else text


def _outputs(outputs: Any) -> str:
    """The readable text of a code cell's outputs (see the module docstring)."""
    parts: list[str] = []
    for output in outputs if isinstance(outputs, list) else []:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(_source(output.get("text")))
        elif kind in ("execute_result", "display_data", "pyout"):
            data = output.get("data") if isinstance(output.get("data"), dict) else output
            plain = data.get("text/plain", data.get("text"))
            if plain is not None and not any(k.startswith(("image/", "text/html")) for k in data):
                parts.append(_source(plain))
        elif kind in ("error", "pyerr"):
            parts.append(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": "))
    text = "\n".join(p.rstrip("\n") for p in parts if p.strip())
    return _short(text) if text.strip() else ""


def _cells(data: Any) -> list[dict[str, Any]]:
    """Cells of an nbformat 4 notebook, or of nbformat 3's worksheets."""
    if not isinstance(data, dict):
        raise ValueError(f"the JSON is a {type(data).__name__}, not a notebook object")
    if isinstance(data.get("cells"), list):
        cells = data["cells"]
    elif isinstance(data.get("worksheets"), list):
        cells = [c for sheet in data["worksheets"] if isinstance(sheet, dict)
                 for c in sheet.get("cells", []) if isinstance(sheet.get("cells"), list)]
    else:
        raise ValueError("no 'cells' list (not a Jupyter notebook)")
    return [c for c in cells if isinstance(c, dict)]


def _language(meta: Any) -> str:
    if not isinstance(meta, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = meta.get(key, {}).get(field) if isinstance(meta.get(key), dict) else None
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return "python"


class NotebookParser:
    """Parses ``.ipynb`` Jupyter notebooks (nbformat 4, and 3); see the module docstring."""

    name = "notebook"
    suffixes = (".ipynb",)

    def __init__(self) -> None:
        self._md = new_markdown_it()

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        text = decode_text(path, data)
        try:
            notebook = json.loads(text) if text.strip() else None
        except json.JSONDecodeError as exc:
            raise ParseError(str(path), f"not a valid notebook (invalid JSON at line {exc.lineno} "
                                        f"column {exc.colno}: {exc.msg})") from exc
        if notebook is None:
            raise ParseError(str(path), "not a valid notebook (empty file)")
        try:
            cells = _cells(notebook)
        except ValueError as exc:
            raise ParseError(str(path), f"not a valid notebook ({exc})") from exc
        meta_json = notebook.get("metadata", {})
        language = _language(meta_json)
        headings = HeadingStack()
        blocks: list[Block] = []
        tags: list[str] = []
        first_h1: str | None = None
        for number, cell in enumerate(cells, start=1):
            kind = cell.get("cell_type")
            source = _source(cell.get("source", cell.get("input")))
            if kind == "markdown" or kind == "heading":
                if kind == "heading":  # nbformat 3 heading cells
                    source = "#" * int(cell.get("level", 1) or 1) + " " + source
                source = _INLINE_IMAGE.sub(r"\1", source)
                numbered = [(line, i + 1) for i, line in enumerate(source.split("\n"))]
                found = read_markdown(self._md, normalize_markup(numbered), headings)
                blocks.extend(replace(b, page=number, start_line=None, end_line=None) for b in found.blocks)
                tags.extend(found.tags)
                first_h1 = first_h1 or found.first_h1
            elif kind == "code":
                if source.strip():
                    code = source.rstrip("\n")
                    blocks.append(Block("code", f"```{language}\n{code}\n```", headings.path, number))
                shown = _outputs(cell.get("outputs"))
                if shown:
                    blocks.append(Block("paragraph", f"Output:\n{shown}", headings.path, number))
            elif kind == "raw" and source.strip():
                blocks.append(Block("paragraph", source.strip("\n"), headings.path, number))
        meta: dict[str, Any] = {"format": "notebook", "language": language, "cells": len(cells)}
        if tags:
            meta["tags"] = unique(tags)
        name = meta_json.get("title") if isinstance(meta_json, dict) else None
        title = first_h1 or (name if isinstance(name, str) and name.strip() else "") or path.stem
        return ParsedDocument(title, tuple(blocks), "notebook", meta, page_count=len(cells))
