"""Reading indexed documents back: which chunks a range selects, which note a name means.

Pure functions over records and chunks, used by ``Docshelf``: a range (lines, page,
section) that selects nothing is an error that says why and what the document does
have (its sections, its page count, its last line), and a section matches however its
heading is written (case, backticks and other inline markup, numbering, a ``#`` prefix).

A line range is served exactly, from the source file, when the file on disk is still the
version the index holds (its sha256 matches the record's): chunks span whole paragraphs and
sections, and a reader citing lines 45-48 expects those four lines. When the file changed or is
gone, the chunks holding the range are all there is, and the caller says so (``source_lines``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from .errors import NotFound, ParseError
from .models import Chunk, DocumentRecord

PUSHED = "push:"  # ingest.PUSH_ROOT: the root of records a builder pushed (ingest imports numpy and pydantic)

_MARKUP = re.compile(r"[`*_~]|^#+\s*|\[\[|\]\]")
# "2.", "3.1", and a manual's labels as DocBook numbers its titles: "Chapter 11.", "Part II.",
# "Appendix F.", "F.3." (PostgreSQL's "Chapter 11. Indexes", "F.29. pg_stat_statements").
_NUMBERING = re.compile(r"^(?:(?:chapter|part|appendix)\s+(?:\d+|[ivxlc]+|[a-z])\.?\s+"
                        r"|[a-z]\.(?:\d+\.)*\d+\.?\s+|(?:\d+[.)]?)+\s+)", re.I)
_FENCE_OPEN = re.compile(r"(`{3,}|~{3,})")
_FENCE_CLOSE = re.compile(r"(`{3,}|~{3,})\s*")
_PATH_SEP = re.compile(r"\s*(?:>|›)\s*")
MAX_LISTED = 40


def failed_file_note(record: DocumentRecord) -> str:
    """What a reader of a document whose file now fails to index must know: the text shown is its
    last version that indexed (kept so a broken save loses nothing), and since when and why the
    file no longer reads. ``get`` shows it on the document, a search on each hit from it."""
    import time

    since = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(record.indexed_at)) if record.indexed_at else "a later run"
    return f"this is the last version that indexed; the file now fails to: {record.error} (since {since})"


def heading_key(text: str) -> str:
    """A heading as compared: lower case, no inline markup or leading numbering, single spaces."""
    text = _MARKUP.sub("", text.strip())
    text = _NUMBERING.sub("", text.strip())
    return " ".join(text.lower().split()).rstrip(":")


def sections(chunks: Sequence[Chunk]) -> list[str]:
    """Every heading of a document, in reading order, once each."""
    return list(dict.fromkeys(h for c in chunks for h in c.heading_path))


def _matches(heading_path: Sequence[str], wanted: list[str]) -> bool:
    keys = [heading_key(h) for h in heading_path]
    n = len(wanted)
    return any(keys[i : i + n] == wanted for i in range(len(keys) - n + 1))


def select_section(record: DocumentRecord, chunks: Sequence[Chunk], section: str) -> list[Chunk]:
    """The chunks under heading ``section`` (or a path of headings, ``A > B``); NotFound lists the sections."""
    wanted = [heading_key(part) for part in _PATH_SEP.split(section) if heading_key(part)]
    if not wanted:
        wanted = [heading_key(section)]
    chosen = [c for c in chunks if _matches(c.heading_path, wanted)]
    if chosen:
        return chosen
    names = sections(chunks)
    if not names:
        raise NotFound(f"{record.path} has no sections (no headings); {_read_instead(record, chunks)}")
    listed = "; ".join(names[:MAX_LISTED]) + ("; …" if len(names) > MAX_LISTED else "")
    raise NotFound(f"{record.path} has no section {section!r}; its sections are: {listed}")


def heading_only(record: DocumentRecord, section: str) -> tuple[str, int | None, int | None] | None:
    """``(heading text, first line, last line)`` of a heading the file has but no chunk holds:
    one with no text before the next heading of its level (``## Empty`` then ``## Next``), or
    at the end of the file. Read from the file while it is the indexed version; else None."""
    from .models import ParseContext
    from .pipeline.parsers import default_registry

    if source_lines(record)[0] is None:
        return None
    wanted = [heading_key(part) for part in _PATH_SEP.split(section) if heading_key(part)] or [heading_key(section)]
    path = Path(record.root) / record.path
    try:
        parsed = default_registry().parse(path, path.read_bytes(), ParseContext(Path(record.root)))
    except (OSError, ParseError):
        return None
    for block in parsed.blocks:
        if block.kind == "heading" and [heading_key(h) for h in block.heading_path[-len(wanted):]] == wanted:
            return block.text, block.start_line, block.end_line
    return None


def _read_instead(record: DocumentRecord, chunks: Sequence[Chunk]) -> str:
    """The ranges this document has, for an error about one it lacks: a Word file or a notebook
    has neither lines nor pages, so "use page" sent a reader from one refusal to the other."""
    ways = [name for name, has in (
        ("lines", any(c.start_line is not None for c in chunks)),
        ("page (its cell number)" if record.format == "notebook" else "page",
         record.page_count is not None or any(c.page is not None for c in chunks)),
        ("section", any(c.heading_path for c in chunks)),
    ) if has]
    return f"read it by {' or '.join(ways)}, or whole" if ways else "read it whole"


def select_page(record: DocumentRecord, chunks: Sequence[Chunk], page: int) -> list[Chunk]:
    """The chunks of one page; NotFound says how many pages there are (or that there are none)."""
    pages = sorted({c.page for c in chunks if c.page is not None})
    if record.page_count is None and not pages:
        raise NotFound(f"{record.path} has no pages ({record.format or 'text'} format); {_read_instead(record, chunks)}")
    count = record.page_count or pages[-1]
    if page > count:
        raise NotFound(f"{record.path} has {count} page{'s' if count != 1 else ''}; there is no page {page}")
    chosen = [c for c in chunks if c.page == page]
    if not chosen:
        with_text = ", ".join(str(p) for p in pages[:MAX_LISTED]) or "none"
        raise NotFound(f"page {page} of {record.path} has no indexed text; pages with text: {with_text}")
    return chosen


def page_for_label(record: DocumentRecord, chunks: Sequence[Chunk], label: str) -> int:
    """The PDF page number printed with ``label`` (``iv``, ``A-1``; case ignored), from the labels
    its chunks store (``indexer.make_chunks``); NotFound lists the labels there are."""
    labels: dict[str, int] = {}
    for c in sorted(chunks, key=lambda c: (c.page or 0, c.chunk_index)):
        if c.page is not None and '"page_label"' in c.metadata_json:
            found = json.loads(c.metadata_json).get("page_label")
            if isinstance(found, str) and found:
                labels.setdefault(found, c.page)
    for found, page in labels.items():
        if found.lower() == label.lower():
            return page
    if not labels:
        raise NotFound(f"{record.path} has no page labels (its pages are cited by number); pass the page number")
    listed = ", ".join(f"{found} (PDF page {page})" for found, page in list(labels.items())[:MAX_LISTED])
    raise NotFound(f"{record.path} has no page labelled {label!r} with indexed text; its labels: {listed}"
                   + ("; …" if len(labels) > MAX_LISTED else "") + "; or pass the page number")


def select_lines(record: DocumentRecord, chunks: Sequence[Chunk], lines: tuple[int, int]) -> list[Chunk]:
    """The chunks overlapping an inclusive line range; NotFound says where the document ends."""
    numbered = [c for c in chunks if c.start_line is not None and c.end_line is not None]
    if not numbered:
        raise NotFound(f"{record.path} has no line numbers ({record.format or 'this'} format); {_read_instead(record, chunks)}")
    chosen = [c for c in numbered if not (c.end_line < lines[0] or c.start_line > lines[1])]  # type: ignore[operator]
    if not chosen:
        last = max(c.end_line for c in numbered)  # type: ignore[type-var]
        raise NotFound(f"{record.path} has text on lines 1-{last}; lines {lines[0]}-{lines[1]} hold none")
    return chosen


def source_lines(record: DocumentRecord) -> tuple[list[str] | None, str]:
    """The document's source lines as its parser numbered them, when the file is the indexed
    version; else ``(None, why not)``, a sentence naming the document. A pushed document has no
    file: its records are its text, numbered as its builder numbered them (``(None, "")``)."""
    from .pipeline.parsers._common import decode_text

    if record.root == PUSHED:
        return None, ""
    path = Path(record.root) / record.path
    try:
        data = path.read_bytes()
    except OSError:
        return None, f"{record.path} is not on disk under {record.root} any more"
    if hashlib.sha256(data).hexdigest() != record.sha256:
        return None, f"{record.path} changed on disk since it was indexed"
    try:
        text = decode_text(path, data)
    except ParseError:
        return None, f"{record.path} no longer reads as text"
    lines = text.split("\n")
    lines = lines[:-1] if lines and lines[-1] == "" and len(lines) > 1 else lines
    if record.format == "html":
        return reading_lines(path, data, len(lines)), ""
    return lines, ""


LONG_LINE = 2_000  # characters: a hit inside a longer line cites the characters it holds too
_SHORT_ONLY: dict[Path, tuple[int, int]] = {}  # files read and found to have no long line: (mtime_ns, size)
_LONG_LINES: dict[Path, tuple[int, int, dict[int, str]]] = {}  # the few files that have: their long lines


def _remember(cache: dict, path: Path, value: tuple, kept: int) -> None:  # type: ignore[type-arg]
    if len(cache) >= kept:
        try:
            cache.pop(next(iter(cache)))
        except (RuntimeError, StopIteration, KeyError):  # another thread changed it: nothing to free
            pass
    cache[path] = value


def _long_lines(path: Path) -> dict[int, str]:
    """``path``'s lines longer than ``LONG_LINE``, by number. Each file version is read once: a
    search then costs one ``stat`` per single-line hit (most files have no long line, and that
    is all that is kept of them)."""
    from .pipeline.parsers._common import decode_text

    try:
        st = path.stat()
    except OSError:
        return {}
    version = (st.st_mtime_ns, st.st_size)
    if st.st_size <= LONG_LINE or _SHORT_ONLY.get(path) == version:
        return {}
    cached = _LONG_LINES.get(path)
    if cached is not None and cached[:2] == version:
        return cached[2]
    try:
        text = decode_text(path, path.read_bytes())
    except (OSError, ParseError):
        return {}
    long = {n: line for n, line in enumerate(text.split("\n"), start=1) if len(line) > LONG_LINE}
    if long:
        _remember(_LONG_LINES, path, (*version, long), kept=16)
    else:
        _remember(_SHORT_ONLY, path, version, kept=65_536)
    return long


def line_columns(root: str, path: str, line: int | None, text: str) -> tuple[int, int] | None:
    """Where ``text`` lies in line ``line`` of the file (1-based first and last character), when
    that line is longer than ``LONG_LINE``: a minified file's one line holds hundreds of chunks,
    and "lines 3-3" alone does not find one of them. None when the line is short, or the text is
    not found word for word in it (a changed file, a format whose text is not the source's), and
    for a pushed record: it has no file (its path names a source, which is never read from disk)."""
    if line is None or not text.strip() or root == PUSHED:
        return None
    source = _long_lines(Path(root) / path).get(line)
    if source is None:
        return None
    at = source.find(text)
    if at >= 0:
        return at + 1, at + len(text)
    # The chunker joins a long line's sentences with one space: any whitespace may stand between words.
    match = re.search(r"\s+".join(map(re.escape, text.split())), source)
    return (match.start() + 1, match.end()) if match else None


def reading_lines(path: Path, data: bytes, count: int) -> list[str]:
    """An HTML page's lines as a reader sees them: each block's text on the source lines it was
    parsed from, markup and site chrome blank. Citations number an HTML page's source lines, so
    the lines a hit cites hold its text, not the tags around it."""
    from .pipeline.parsers.html import HtmlParser

    out = [""] * count
    for block in HtmlParser().parse(path, data).blocks:
        if block.start_line is None:
            continue
        last = min(block.end_line or block.start_line, count)
        for i, line in enumerate(block.text.split("\n")):
            at = min(block.start_line + i, last) - 1
            if 0 <= at < count:
                out[at] = f"{out[at]}\n{line}" if out[at] else line
    return out


def cut_lines(
    record: DocumentRecord, scope: Sequence[Chunk], lines: tuple[int, int], source: Sequence[str], scoped: bool
) -> tuple[str, int, int, list[Chunk]]:
    """Exactly the requested lines of ``source`` (clamped to the file, or to ``scope``'s lines when a
    page or section narrowed it), their first and last line, and the chunks holding them."""
    numbered = [c for c in scope if c.start_line is not None and c.end_line is not None]
    if not numbered:
        raise NotFound(f"{record.path} has no line numbers ({record.format or 'this'} format); {_read_instead(record, scope)}")
    lo, hi = (min(c.start_line for c in numbered), max(c.end_line for c in numbered)) if scoped else (1, len(source))  # type: ignore[type-var]
    start, end = max(lines[0], lo), min(lines[1], hi, len(source))
    if start > end:
        where = "the requested section or page" if scoped else record.path
        raise NotFound(f"{where} has text on lines {lo}-{hi}; lines {lines[0]}-{lines[1]} hold none")
    held = [c for c in numbered if not (c.end_line < start or c.start_line > end)]  # type: ignore[operator]
    text = "\n".join(source[start - 1 : end])
    if record.format == "html":  # reading lines: the blank lines that held markup are squeezed
        text = re.sub(r"\n{3,}", "\n\n", text).strip("\n")
    return text, start, end, held


def cut_columns(record: DocumentRecord, line_text: str, line: int, columns: tuple[int, int]) -> str:
    """Characters ``columns`` (1-based, inclusive) of one line's text, as a hit inside a long line cites them."""
    first, last = columns
    if first > len(line_text):
        raise NotFound(f"line {line} of {record.path} has {len(line_text)} characters; characters {first}-{last} "
                       "hold none")
    return line_text[first - 1 : last]


def select(
    record: DocumentRecord, chunks: Sequence[Chunk], lines: tuple[int, int] | None, page: int | None, section: str | None
) -> list[Chunk]:
    """Apply every requested range in turn (they narrow each other)."""
    chosen = list(chunks)
    if page is not None:
        chosen = select_page(record, chosen, page)
    if section is not None:
        try:
            chosen = select_section(record, chosen, section)
        except NotFound:
            if page is None:
                raise
            try:  # the section may be on other pages: say where, then list this page's sections
                elsewhere = sorted({c.page for c in select_section(record, chunks, section) if c.page is not None})
            except NotFound:
                elsewhere = []
            pages = ", ".join(map(str, elsewhere[:MAX_LISTED]))
            where = f" (it is on page{'s' if len(elsewhere) > 1 else ''} {pages})" if elsewhere else ""
            names = sections(chosen)
            listed = ("its sections are: " + "; ".join(names[:MAX_LISTED]) + ("; …" if len(names) > MAX_LISTED else "")
                      if names else "it has no headings")
            raise NotFound(f"page {page} of {record.path} has no section {section!r}{where}; {listed}") from None
    if lines is not None:
        chosen = select_lines(record, chosen, lines)
    return chosen


def section_depth(heading_path: Sequence[str], section: str) -> int:
    """Where in ``heading_path`` the asked ``section`` heading sits (0 = the page title), so a
    section read starts at its own heading, not at the first subsection that holds text."""
    wanted = [heading_key(part) for part in _PATH_SEP.split(section) if heading_key(part)] or [heading_key(section)]
    keys = [heading_key(h) for h in heading_path]
    n = len(wanted)
    found = next((i for i in range(len(keys) - n + 1) if keys[i : i + n] == wanted), None)
    return max(len(keys) - 1, 0) if found is None else found + n - 1


def _continues_code(before: str, body: str, previous: Chunk, chunk: Chunk) -> bool:
    """Whether ``body`` opens with the rest of the code block that ends ``before``: the chunker cuts
    an oversized block at lines and fences each part (``Chunker._split_code``), so a whole read
    showed one example as two, broken where a chunk ended."""
    if (chunk.heading_path != previous.heading_path or previous.end_line is None
            or chunk.start_line != previous.end_line + 1):
        return False
    lines = before.split("\n")
    opener = body.split("\n", 1)[0]
    if not (_FENCE_CLOSE.fullmatch(lines[-1]) and opener.startswith(lines[-1].strip())):
        return False
    return next((line for line in reversed(lines[:-1]) if _FENCE_OPEN.match(line)), None) == opener


def reassemble(chunks: Sequence[Chunk], first_depth: int | None = None) -> str:
    """Join chunk bodies in order, dropping the text each chunk repeats from the one before.

    Each chunk is preceded by the headings it enters: those of its heading path not shared with
    the chunk before, so a heading with no text of its own (a page title right above its first
    section) is printed too. The first chunk prints its path from ``first_depth`` (0 for a whole
    document, which then starts at its title); None prints only its own heading (a page or lines).
    A chunk that continues the previous one's last line (a long paragraph cut in two)
    is joined with a space, not a blank line.
    """
    parts: list[str] = []
    previous: Chunk | None = None
    for c in chunks:
        body = c.text
        adjacent = previous is not None and previous.chunk_index == c.chunk_index - 1
        if c.overlap and adjacent:
            body = body[c.overlap :]
        path = c.heading_path
        if adjacent and parts and _continues_code(parts[-1], body, previous, c):
            opener = body.split("\n", 1)[0]
            parts[-1] = parts[-1][: parts[-1].rindex("\n")] + body[len(opener):]  # one block again
            previous = c
            continue
        if path and (previous is None or path != previous.heading_path):
            if previous is None:
                start = len(path) - 1 if first_depth is None else first_depth
            else:
                shared = next((i for i, (a, b) in enumerate(zip(path, previous.heading_path)) if a != b),
                              min(len(path), len(previous.heading_path)))
                start = shared
            for depth in range(min(max(start, 0), len(path) - 1), len(path)):
                parts.append("#" * min(depth + 1, 6) + " " + path[depth])
        elif adjacent and parts and previous.end_line is not None and previous.end_line == c.start_line:
            parts[-1] = parts[-1] + " " + body
            previous = c
            continue
        if body and not (path and body.lstrip("#").strip() == path[-1]):  # a heading-only page's stand-in chunk
            parts.append(body)
        previous = c
    return "\n\n".join(parts)


def resolve_note(records: Sequence[DocumentRecord], name: str) -> DocumentRecord:
    """The note ``name`` means: a path, a file name without folder or extension, a wiki link, a title or an alias.

    The first rule that matches exactly one note wins; several matches under one rule
    are an error listing them.
    """
    from .notes import clean_target

    want = name.strip()
    if want.startswith("[[") and want.endswith("]]"):
        want = clean_target(want)
    want = want.lstrip("/")
    indexed = [r for r in records if r.status == "indexed"]
    # the name as written first (a file may be called "C# notes"), then as a link target
    # without its "#Heading", "|alias" or "^block" (agents copy "Note#Heading" from a note's text)
    for want in dict.fromkeys(w for w in (want, clean_target(want)) if w):
        lowered = want.lower()
        for test in (
            lambda r: r.path == want,
            lambda r: r.path == want + ".md",
            lambda r: r.path.lower() in (lowered, lowered + ".md"),
            lambda r: r.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower() == lowered,
            lambda r: r.title.lower() == lowered,
            lambda r: any(a.lower() == lowered for a in r.aliases),
        ):
            found = [r for r in indexed if test(r)]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                paths = ", ".join(sorted(r.path for r in found)[:10])
                raise NotFound(f"{name!r} matches several notes ({paths}); pass the full path")
    raise NotFound(f"no note named {name!r}; search_docs or list_documents shows the indexed paths")


__all__ = [
    "cut_columns", "cut_lines", "heading_key", "line_columns", "reading_lines", "reassemble", "resolve_note",
    "section_depth", "sections", "select", "select_lines", "source_lines",
]
