"""Docs-folder evaluation sets: a documentation folder plus questions with gold sections.

Layout (``docshelf eval DIR`` picks it when ``DIR/questions.jsonl`` exists)::

    DIR/docs/            the documentation, indexed as a user would index it
    DIR/questions.jsonl  one JSON object a line
    DIR/SOURCE.md        package, version, where the docs come from, licence

A question is ``{"query", "kind", "path", "heading", "start_line", "end_line"}``; ``kind``
is one of ``KINDS``; ``path`` is relative to ``docs/``; ``heading`` is the heading text of
the most specific section that answers and the lines (1-based, inclusive) are that
section's extent. An ``unanswerable`` question has no gold fields: the documentation does
not cover it, and the search's top score should say so.

A PDF is cited by page, not by line: a question on a ``.pdf`` gives ``start_page`` and
``end_page`` (1-based PDF page numbers, inclusive: the pages that answer) instead of lines,
and ``heading`` only where the PDF has a section there (its outline title, or the title as
printed on the page when the PDF has no outline); ``heading`` may be left out. The heading
must be printed, or be an outline entry, on the last gold page or before it (a section
begun on an earlier page answers on a later one).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from .beir import pipeline_fingerprint

KINDS = ("howto", "paraphrase", "identifier", "typo", "error", "unanswerable")
QUESTIONS = "questions.jsonl"
DOCS = "docs"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    kind: str
    path: str | None = None
    heading: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    start_page: int | None = None  # a PDF's gold: pages instead of lines
    end_page: int | None = None

    @property
    def answerable(self) -> bool:
        return self.path is not None

    @property
    def by_page(self) -> bool:
        return self.start_page is not None


@dataclass(frozen=True)
class DocSet:
    name: str
    root: Path
    docs_dir: Path
    questions: tuple[Question, ...]


def is_docset(root: Path) -> bool:
    return (Path(root) / QUESTIONS).is_file()


def _question(row: object, where: str, docs_dir: Path) -> Question:
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: expected a JSON object")
    query, kind = row.get("query"), row.get("kind")
    if not isinstance(query, str) or not query.strip():
        raise ConfigError(f"{where}: 'query' must be a non-empty string")
    if kind not in KINDS:
        raise ConfigError(f"{where}: 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    qid = str(row.get("id") or where.rsplit(":", 1)[-1])
    gold = [row.get(f) for f in ("path", "heading", "start_line", "end_line")]
    if kind == "unanswerable":
        if any(g is not None for g in gold) or row.get("start_page") is not None or row.get("end_page") is not None:
            raise ConfigError(f"{where}: an unanswerable question has no path, heading, lines or pages")
        return Question(qid, query, kind)
    path, heading, start, end = gold
    if isinstance(path, str) and path.lower().endswith(".pdf"):
        return _pdf_question(row, where, docs_dir, qid, query, kind)
    if not isinstance(path, str) or not isinstance(heading, str):
        raise ConfigError(f"{where}: an answerable question needs 'path' and 'heading' (strings)")
    if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end):
        raise ConfigError(f"{where}: 'start_line' and 'end_line' must be integers with 1 <= start_line <= end_line")
    file = docs_dir / path
    if not file.is_file():
        raise ConfigError(f"{where}: gold path {path!r} is not a file under {docs_dir}")
    lines = file.read_text(encoding="utf-8").splitlines()
    if end > len(lines) or not _holds_heading(file, lines, start, heading.strip()):
        raise ConfigError(
            f"{where}: line {start} of {path} should hold the heading {heading!r} and the section end within the file"
        )
    return Question(qid, query, kind, path, heading, start, end)


def _pdf_question(row: dict, where: str, docs_dir: Path, qid: str, query: str, kind: str) -> Question:
    """A question on a PDF: gold pages, and the section heading where the PDF has one there."""
    path, heading = row["path"], row.get("heading")
    start, end = row.get("start_page"), row.get("end_page")
    if row.get("start_line") is not None or row.get("end_line") is not None:
        raise ConfigError(f"{where}: a PDF is cited by page: give 'start_page' and 'end_page', not lines")
    if heading is not None and (not isinstance(heading, str) or not heading.strip()):
        raise ConfigError(f"{where}: 'heading' must be a non-empty string or absent")
    if not (isinstance(start, int) and isinstance(end, int) and 1 <= start <= end):
        raise ConfigError(f"{where}: 'start_page' and 'end_page' must be integers with 1 <= start_page <= end_page")
    file = docs_dir / path
    if not file.is_file():
        raise ConfigError(f"{where}: gold path {path!r} is not a file under {docs_dir}")
    pages, titles = _pdf_pages(file)
    if end > len(pages):
        raise ConfigError(f"{where}: {path} has {len(pages)} pages, not {end}")
    if heading is not None:
        want = heading_key(heading)
        if not any(want in pages[n - 1] for n in range(1, end + 1)) and not any(
                n <= end and t == want for n, t in titles):
            raise ConfigError(f"{where}: {path} should print the heading {heading!r} (or have an outline entry "
                              f"of that title) on page {end} or before")
    return Question(qid, query, kind, path, heading, start_page=start, end_page=end)


def heading_key(text: str) -> str:
    """A heading as compared across a PDF's text layer, its outline and a gold file: ligatures
    unfolded (NFKC: "ﬁ" is "fi"), typographic quotes as plain ones, spaces collapsed, case folded."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return " ".join(text.split()).casefold()


_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "`": "'", "\u201c": '"', "\u201d": '"'})


def _pdf_pages(file: Path) -> tuple[list[str], list[tuple[int, str]]]:
    """Each page's text (as ``heading_key`` compares it) and the outline as (page, title)."""
    stat = file.stat()
    return _read_pdf_pages(str(file.resolve()), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)  # read once per file, not once per question
def _read_pdf_pages(file: str, size: int, mtime_ns: int) -> tuple[list[str], list[tuple[int, str]]]:
    from pypdf import PdfReader

    from ..pipeline.parsers.pdf import _outline, pypdf_logs_at_debug

    with pypdf_logs_at_debug():
        reader = PdfReader(file)
        pages = [heading_key(page.extract_text() or "") for page in reader.pages]
        titles = [(n, heading_key(t)) for n, entries in _outline(reader).items() for _, t in entries]
    return pages, titles


def _holds_heading(file: Path, lines: list[str], start: int, heading: str) -> bool:
    """Whether line ``start`` holds the heading: as written, or on an HTML page as a reader
    reads that line (``<h2>Why <code>x</code>?</h2>`` holds "Why x?")."""
    if heading in lines[start - 1]:
        return True
    if file.suffix.lower() not in (".html", ".htm"):
        return False
    from ..documents import reading_lines

    return heading in reading_lines(file, file.read_bytes(), len(lines))[start - 1]


def load_docset(root: Path) -> DocSet:
    """Read and validate ``questions.jsonl``: every gold heading must stand at its start line."""
    root = Path(root).expanduser().resolve()
    docs_dir, qfile = root / DOCS, root / QUESTIONS
    if not docs_dir.is_dir():
        raise ConfigError(f"{docs_dir} not found: a docs-folder set holds docs/ and {QUESTIONS}")
    questions: list[Question] = []
    with qfile.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if not line.strip():
                continue
            where = f"{qfile.name}:{n}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"{where}: not valid JSON ({exc.msg})") from exc
            questions.append(_question(row, where, docs_dir))
    if not questions:
        raise ConfigError(f"{qfile} holds no questions")
    return DocSet(root.name, root, docs_dir, tuple(questions))


def docs_hash(docs_dir: Path) -> str:
    """A hash of every file's relative path and bytes: the cache key of the embedded folder."""
    h = hashlib.sha256()
    for p in sorted(q for q in Path(docs_dir).rglob("*") if q.is_file()):
        h.update(p.relative_to(docs_dir).as_posix().encode() + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def docset_cache_key(docset: DocSet, model_id: str, chunk_tokens: int, overlap: int) -> str:
    from ..service import SCHEMA_VERSION

    return (
        f"docset-{docset.name}-{docs_hash(docset.docs_dir)}/"
        f"{_SAFE.sub('_', model_id)}-c{chunk_tokens}o{overlap}-s{SCHEMA_VERSION}p{pipeline_fingerprint()}"
    )
