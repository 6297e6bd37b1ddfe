"""PDF files → one block per paragraph, each carrying its true 1-based page number.

Citations for PDFs are by page, so empty pages still count (page 3 stays page 3). A page
whose label differs from its number (a preface's "iv", an appendix's "A-1") is also cited
by the label a reader sees ("p. iv, PDF page 4").
pypdf logs recoverable problems as warnings; those go to our logger at DEBUG so
a stdio MCP server or a JSON CLI never gets noise on its streams.
"""

from __future__ import annotations

import io
import logging
import math
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
from ._common import HeadingStack, fence, split_tags

logger = logging.getLogger(__name__)

_PLACEHOLDER_TITLES = {"", "untitled", "untitled document", "title", "document"}
_SENTENCE_END = re.compile(r"[.!?:;)\]\"']$")
# Typeset ligatures a text layer keeps as one character ("deﬁned"): read as their letters, so
# "defined" finds the word and a heading compares with its outline title.
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})


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


def paragraphs(page_text: str) -> list[str]:
    """Split extracted page text into paragraphs.

    pypdf rarely emits blank lines, so besides blank lines a paragraph also ends
    at a clearly short line that ends a sentence. Lines are re-joined with spaces
    and words hyphenated across a line break are mended.
    """
    lines = [line.rstrip() for line in page_text.replace("\r", "\n").split("\n")]
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


def _sections(text: str, entries: list[tuple[int, str]], *, printed_only: bool = False,
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


def _page_text(page: Any, runs: list[Run] | None, code: set[str]) -> str:
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
        key = _line_key("".join(piece for piece, _ in line).translate(_LIGATURES))
        if len(key) >= 2 and all(mono for _, mono in line):
            code.add(key)
    return out


def _part_blocks(text: str, code: set[str], path: tuple[str, ...], page: int) -> Iterator[Block]:
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


def _type_headings(runs: dict[int, list[Run]]) -> dict[int, list[tuple[int, str]]]:
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
            title = " ".join("".join(piece for piece, _, _ in line).split()).translate(_LIGATURES)
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
_LEADER_ENTRY = re.compile(r"(?:\s*\.){4,}\s*[0-9ivxlcdm]+(?:\s*,\s*[0-9ivxlcdm]+)*\s*$", re.IGNORECASE)


def _running_lines(texts: dict[int, str], labels: dict[int, str]) -> dict[int, set[int]]:
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
                    texts[number] = _page_text(page, page_runs, code.setdefault(number, set())).translate(_LIGATURES)
                except Exception as exc:  # noqa: BLE001 - one bad page must not sink the file
                    logger.warning("%s: could not extract text from page %d: %s", path, number, exc)
                    failed.append(number)
                    continue
                if page_runs is not None:
                    runs[number] = page_runs
            running = _running_lines(texts, labels)
            typed = _type_headings(runs) if runs else {}
            for number, text in texts.items():
                if not first_line:
                    first_line = next((ln for ln in text.splitlines() if ln.strip()), "")
                drop = running.get(number, set())
                text = "\n".join(line for i, line in enumerate(text.split("\n"))
                                 if i not in drop and not _LEADER_ENTRY.search(line))
                entries = outline.get(number, []) if outline else typed.get(number, [])
                for entry, part in _sections(text, entries, printed_only=not outline):
                    if entry is not None:
                        path_ = headings.push(*entry)
                        blocks.append(Block("heading", entry[1], path_, number, level=entry[0]))
                    blocks.extend(_part_blocks(part, code.get(number, set()), headings.path, number))
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
