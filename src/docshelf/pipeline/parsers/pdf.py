"""PDF files → blocks (headings, paragraphs, listings), each carrying its true 1-based page number.

This module reads the file: pypdf, the document info, the outline, page labels, and the errors
a damaged file gives. What each page's type says (running heads, headings set large, listings
in a typewriter face) is ``pdf_layout``'s.

Citations for PDFs are by page, so empty pages still count (page 3 stays page 3). A page
whose label differs from its number (a preface's "iv", an appendix's "A-1") is also cited
by the label a reader sees ("p. iv, PDF page 4").
pypdf logs recoverable problems as warnings; those go to our logger at DEBUG so
a stdio MCP server or a JSON CLI never gets noise on its streams.
"""

from __future__ import annotations

import io
import logging
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pypdf import PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError

from ...dates import changed_day, document_day, iso_day_or_none
from ...errors import ParseError
from ...models import Block, ParseContext, ParsedDocument
from ._common import HeadingStack, split_tags
from .pdf_layout import (
    LEADER_ENTRY, LIGATURES, Run, page_text, part_blocks, running_lines, sections, type_headings,
)

logger = logging.getLogger(__name__)

_PLACEHOLDER_TITLES = {"", "untitled", "untitled document", "title", "document"}


class _ToDebug(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        logger.debug("pypdf: %s", record.getMessage())


_pypdf_logger = logging.getLogger("pypdf")
_forward = _ToDebug()
_lock = threading.Lock()
_depth = 0
_saved_propagate = True


@contextmanager
def pypdf_logs_at_debug() -> Iterator[None]:
    """While active (re-entrant, thread-safe), pypdf's log records go to our DEBUG log."""
    global _depth, _saved_propagate
    with _lock:
        if _depth == 0:
            _saved_propagate = _pypdf_logger.propagate
            _pypdf_logger.addHandler(_forward)
            _pypdf_logger.propagate = False
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _pypdf_logger.removeHandler(_forward)
                _pypdf_logger.propagate = _saved_propagate


def _reason(data: bytes, exc: Exception) -> str:
    detail = str(exc) or type(exc).__name__
    if b"%PDF-" not in data[:1024]:
        return f"not a valid PDF (no %PDF- header; {detail})"
    if b"%%EOF" not in data[-2048:]:
        return f"not a valid PDF (truncated: the end-of-file marker is missing; {detail})"
    return f"not a valid PDF ({detail})"


def _open(path: Path, data: bytes) -> PdfReader:
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            OSError, RecursionError) as exc:
        raise ParseError(str(path), _reason(data, exc)) from exc
    if reader.is_encrypted:
        try:
            ok = reader.decrypt("")
        except DependencyError as exc:
            raise ParseError(str(path), f"encrypted PDF (cannot decrypt: {exc})") from exc
        except (PdfReadError, ValueError, KeyError, NotImplementedError) as exc:
            raise ParseError(str(path), f"encrypted PDF ({exc})") from exc
        if not ok:
            raise ParseError(str(path), "encrypted PDF (a password is required to open it)")
    return reader


def _info(reader: PdfReader) -> Any:
    """The document-info dictionary, or None when absent or damaged (metadata never fails a file)."""
    try:
        return reader.metadata
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a broken trailer
        logger.debug("document info unreadable, indexed without it: %s", exc)
        return None


def _metadata(reader: PdfReader) -> dict[str, Any]:
    meta: dict[str, Any] = {"format": "pdf"}
    info = _info(reader)
    if not info:
        return meta
    author = (info.author or "").strip()
    if author and author.lower() not in ("anonymous", "unknown"):
        meta["author"] = author
    subject = (info.subject or "").strip()
    if subject and subject.lower() != "unspecified":
        meta["subject"] = subject
    keywords = split_tags(str(info.get("/Keywords") or "").replace(";", ","))
    if keywords:
        meta["tags"] = keywords
    modified, created = _info_day(info, "/ModDate"), _info_day(info, "/CreationDate")
    if created:
        meta["created"] = created
    if modified:
        meta["modified"] = modified
    if day := changed_day(modified, created):  # the last save, as "docs changed since March" means
        meta["date"] = day
    return meta


_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})(\d{2})(\d{2})")  # D:20240305120000+01'00' (PDF 1.7, 7.9.4)


def _info_day(info: Any, key: str) -> str | None:
    """The day of a document-info date as written (the writer's local day); a date that is not
    the PDF form is read as people write dates, and a damaged one is absent, never a failed file."""
    try:
        raw = info.get(key)
        text = str(raw.get_object() if hasattr(raw, "get_object") else raw).strip() if raw is not None else ""
    except Exception:  # noqa: BLE001 - a broken info dictionary is no date
        return None
    if m := _PDF_DATE.match(text):
        return iso_day_or_none(f"{m.group(1)}-{m.group(2)}-{m.group(3)}")  # None for month 00 or day 31 Feb
    return document_day(text) if text else None


def _page_labels(reader: PdfReader, count: int) -> dict[int, str]:
    """The page labels a PDF viewer shows ("iv" in a preface, "A-1" in an appendix), by page
    number, where they differ from the page's number: a citation gives the page the reader
    sees. Damaged labels are no labels, not a failed file."""
    try:
        labels = list(reader.page_labels) if "/PageLabels" in reader.root_object else []
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a broken number tree
        logger.debug("page labels unreadable, pages cited by number: %s", exc)
        return {}
    return {n: label for n, label in enumerate(labels[:count], start=1) if label and label != str(n)}


MAX_OUTLINE_ENTRIES = 10_000


def _outline(reader: PdfReader) -> dict[int, list[tuple[int, str]]]:
    """The outline (bookmarks) as ``page number -> [(level, title)]`` in outline order: the
    sections a reader of the PDF navigates by. A damaged outline is no outline, not a failed file."""
    found: dict[int, list[tuple[int, str]]] = {}
    count = 0

    def walk(items: Any, level: int) -> None:
        nonlocal count
        for item in items:
            if isinstance(item, list):  # the children of the entry before it
                walk(item, level + 1)
                continue
            count += 1
            if count > MAX_OUTLINE_ENTRIES:
                return
            title = " ".join(str(getattr(item, "title", "") or "").split())
            number = reader.get_destination_page_number(item)
            if title and number is not None and number >= 0:
                found.setdefault(number + 1, []).append((level, title))

    try:
        walk(reader.outline, 1)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a broken outline
        logger.debug("outline unreadable, PDF read without sections: %s", exc)
        return {}
    return found


class PdfParser:
    """Parses ``.pdf`` with pypdf (text layer only: scanned pages yield no blocks)."""

    name = "pdf"
    suffixes = (".pdf",)

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        with pypdf_logs_at_debug():
            reader = _open(path, data)
            try:
                pages = list(reader.pages)
                meta = _metadata(reader)
                info_title = (str(info.title or "").strip() if (info := _info(reader)) else "")
            except FileNotDecryptedError as exc:
                raise ParseError(str(path), f"encrypted PDF ({exc})") from exc
            except (PdfReadError, ValueError, KeyError, TypeError, AttributeError,
                    IndexError, RecursionError) as exc:
                raise ParseError(str(path), _reason(data, exc)) from exc
            outline = _outline(reader)
            labels = _page_labels(reader, len(pages))
            headings = HeadingStack()
            blocks: list[Block] = []
            failed: list[int] = []
            first_line = ""
            texts: dict[int, str] = {}
            runs: dict[int, list[Run]] = {}
            code: dict[int, set[str]] = {}
            for number, page in enumerate(pages, start=1):
                page_runs: list[Run] | None = None if outline else []
                try:
                    texts[number] = page_text(page, page_runs, code.setdefault(number, set())).translate(LIGATURES)
                except Exception as exc:  # noqa: BLE001 - one bad page must not sink the file
                    logger.warning("%s: could not extract text from page %d: %s", path, number, exc)
                    failed.append(number)
                    continue
                if page_runs is not None:
                    runs[number] = page_runs
            running = running_lines(texts, labels)
            typed = type_headings(runs) if runs else {}
            for number, text in texts.items():
                if not first_line:
                    first_line = next((ln for ln in text.splitlines() if ln.strip()), "")
                drop = running.get(number, set())
                text = "\n".join(line for i, line in enumerate(text.split("\n"))
                                 if i not in drop and not LEADER_ENTRY.search(line))
                entries = outline.get(number, []) if outline else typed.get(number, [])
                for entry, part in sections(text, entries, printed_only=not outline):
                    if entry is not None:
                        path_ = headings.push(*entry)
                        blocks.append(Block("heading", entry[1], path_, number, level=entry[0]))
                    blocks.extend(part_blocks(part, code.get(number, set()), headings.path, number))
        if pages and len(failed) == len(pages):
            raise ParseError(str(path), "not a valid PDF (no page could be read)")
        if pages and not failed and all(b.kind == "heading" for b in blocks):  # outline titles alone are no text
            raise ParseError(str(path), f"no text layer on any of its {len(pages)} page(s): a scanned or "
                             "image-only PDF (docshelf does not run OCR)")
        if failed:
            meta["failed_pages"] = failed
        if labels:  # each chunk keeps its page's label (indexer.make_chunks), not the whole map
            meta["page_labels"] = labels
        title = info_title if info_title.lower() not in _PLACEHOLDER_TITLES else ""
        title = title or " ".join(first_line.split())[:200] or path.stem
        return ParsedDocument(title, tuple(blocks), "pdf", meta, len(pages))
