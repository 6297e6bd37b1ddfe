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
"""

from __future__ import annotations

import hashlib
import json
import re
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

    @property
    def answerable(self) -> bool:
        return self.path is not None


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
        if any(g is not None for g in gold):
            raise ConfigError(f"{where}: an unanswerable question has no path, heading or lines")
        return Question(qid, query, kind)
    path, heading, start, end = gold
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
