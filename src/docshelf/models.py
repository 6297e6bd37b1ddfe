"""The records that flow through the pipeline: discover → parse → chunk → embed → store → search.

Frozen dataclasses, so every stage hands the next one values it cannot mutate.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

BlockKind = Literal["heading", "paragraph", "code", "table", "list", "quote"]
SearchMode = Literal["hybrid", "semantic", "keyword", "fuzzy"]


def doc_id(root: str, path: str) -> str:
    """A document's stable id: the same root and path always give the same 16 hex digits."""
    return hashlib.sha1(f"{root}\x00{path}".encode()).hexdigest()[:16]


def listed_paths(value: Any) -> tuple[str, ...]:
    """A parser's metadata list of root-relative paths (``includes``, ``include_missing``);
    anything else under that key (a frontmatter field of the same name) lists none."""
    return tuple(p for p in value if isinstance(p, str) and p) if isinstance(value, list | tuple) else ()


@dataclass(frozen=True)
class SourceFile:
    """A file found under a root. ``rel_path`` (POSIX, relative to ``root``) is its key."""

    root: Path
    rel_path: str
    size: int
    mtime_ns: int

    @cached_property
    def path(self) -> Path:
        """Built when first asked for: a re-index of an unchanged tree never needs it."""
        return self.root / self.rel_path


@dataclass(frozen=True)
class ParseContext:
    """What a parser may know beyond one file's bytes: the indexed root the file lies under.

    Parsers that expand includes (Markdown snippets, reST ``include``/``literalinclude``)
    read other files only inside ``root``; parsed without a context, they expand nothing.
    """

    root: Path


@dataclass(frozen=True)
class Block:
    """One structural unit of a parsed document (a heading, a paragraph, a code fence…).

    ``heading_path`` is the chain of headings the block sits under (for a heading,
    including itself). ``page`` is 1-based (PDF); lines are 1-based and inclusive.
    ``line_map`` gives the source line of each line of ``text`` when they do not follow
    one another from ``start_line`` (a parser that dropped blank lines between list items);
    empty when they do. The chunker cites a part of a split block by it.
    """

    kind: BlockKind
    text: str
    heading_path: tuple[str, ...] = ()
    page: int | None = None
    start_line: int | None = None
    end_line: int | None = None
    level: int = 0
    line_map: tuple[int, ...] = ()


@dataclass(frozen=True)
class ParsedDocument:
    """What a parser returns: the document's title, blocks in reading order and metadata.

    ``metadata`` holds frontmatter/document properties: ``tags`` (list of str),
    ``type``, ``date`` (ISO ``YYYY-MM-DD``), ``aliases`` and any other fields.
    """

    title: str
    blocks: tuple[Block, ...]
    format: str
    metadata: dict[str, Any] = field(default_factory=dict)
    page_count: int | None = None


@dataclass(frozen=True)
class Chunk:
    """A piece of a document sized for the embedder, with everything needed to cite it."""

    id: str
    root: str
    path: str
    collection: str
    doc_type: str
    title: str
    heading_path: tuple[str, ...]
    chunk_index: int
    text: str
    embed_text: str
    page: int | None = None
    start_line: int | None = None
    end_line: int | None = None
    tags: tuple[str, ...] = ()
    date: str | None = None
    metadata_json: str = "{}"
    overlap: int = 0  # leading characters of ``text`` repeated from the previous chunk


@dataclass(frozen=True)
class DocumentRecord:
    """The index's memory of one source file: what was indexed, when, and how it went."""

    root: str
    path: str
    sha256: str
    size: int
    mtime_ns: int
    status: Literal["indexed", "failed"]
    collection: str
    doc_type: str
    title: str = ""
    error: str = ""
    chunk_count: int = 0
    indexed_at: float = 0.0
    format: str = ""
    page_count: int | None = None
    tags: tuple[str, ...] = ()
    date: str | None = None
    aliases: tuple[str, ...] = ()
    links: tuple[str, ...] = ()  # outgoing [[wikilinks]] as written; resolved by ``notes.NoteIndex``
    # Root-relative paths the parse read from other files (snippet includes, nested ones too), and
    # the places an include that was not found was looked for: a change at any of them re-parses
    # this document (``pipeline.dependents``). Records written before these existed read as (); every
    # store fills them from the chunks' metadata (``upgrade_records`` of LanceDB and Qdrant, pg schema 3-4).
    includes: tuple[str, ...] = ()
    include_missing: tuple[str, ...] = ()

    @property
    def doc_id(self) -> str:
        return doc_id(self.root, self.path)


@dataclass(frozen=True)
class Hit:
    """One search result: the chunk, where to cite it, and a score in [0, 1]: an absolute estimate
    that this passage answers the query, comparable across queries and modes (see
    ``search/calibrate.py``); scores never increase down a result list."""

    chunk_id: str
    path: str
    root: str
    title: str
    heading_path: tuple[str, ...]
    collection: str
    doc_type: str
    text: str
    score: float
    mode: SearchMode
    chunk_index: int = 0
    page: int | None = None
    start_line: int | None = None
    end_line: int | None = None
    tags: tuple[str, ...] = ()
    date: str | None = None
    highlights: tuple[tuple[int, int], ...] = ()
    text_truncated: bool = False  # shortened to fit a response budget (SearchRequest.max_chars)
    # Inside one very long line (minified JSON, a one-line text): the first and last character
    # of the passage in start_line (1-based), so the citation finds it; get lines="L:FIRST-LAST".
    start_col: int | None = None
    end_col: int | None = None
    # The label a PDF viewer shows for ``page`` when it is not the page's number ("iv", "A-1").
    page_label: str | None = None
    # Set when the file's latest version failed to index: the passage is from the last version that
    # did (kept so a broken save loses nothing); says when it failed and why (``Docshelf.search``).
    note: str = ""

    @property
    def doc_id(self) -> str:
        return doc_id(self.root, self.path)


@dataclass(frozen=True)
class SearchFilters:
    """Filters every search mode pushes down into the store (never applied after top-k).

    ``doc_types=None`` means "the configured default scope"; dates are inclusive
    ISO dates, and documents without a date never match a date filter.
    """

    collections: tuple[str, ...] = ()
    doc_types: tuple[str, ...] | None = None
    date_from: str | None = None
    date_to: str | None = None
    path_prefix: str | None = None
    path_glob: str | None = None
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    paths: tuple[str, ...] | None = None  # only these documents (None: no restriction), e.g. from linked_to


@dataclass
class IndexReport:
    """What an index run did. ``failed`` maps path → reason; ``skipped`` path → reason.

    After ``Docshelf.index``, ``failed`` lists every file of the indexed roots that is failed
    now (this run's failures and earlier ones whose file did not change), as ``status`` does.
    ``warnings`` are sentences for the user: a known root that vanished, a folder with
    nothing to index, roots re-indexed because the index was rebuilt.
    """

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    skipped_by_root: dict[str, dict[str, str]] = field(default_factory=dict)  # what status keeps
    chunks_embedded: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    warnings: list[str] = field(default_factory=list)
    # Nothing was done because a running server or watch holds the index and already indexes and
    # watches every root asked for: who it is ("docshelf watch (pid 4242)").
    kept_by: str = ""


@dataclass(frozen=True)
class SearchResult:
    """Hits for one query, the mode that ran, a note when the answer is partial, and how sure the
    search is that the documents answer the query at all: ``confidence`` is ``high``,
    ``medium``, ``low`` or ``none`` (nothing relevant found), read from the top hit's score and
    what the search found the documentation lacks (``search/calibrate.confidence``).
    With no hits, ``empty_reason`` says why, so an interface can say what to change: the query
    matched no passage (``no_match``), every hit scored under ``min_score``
    (``below_min_score``), no indexed document is in the filters' scope (``empty_scope``),
    nothing is indexed at all yet (``empty_index``: no query or filter is to blame), or a
    requested collection does not exist (``unknown_collection``, named in ``note``)."""

    query: str
    mode: SearchMode
    hits: tuple[Hit, ...]
    note: str = ""
    took_ms: float = 0.0
    confidence: Literal["high", "medium", "low", "none"] = "none"
    empty_reason: Literal["", "no_match", "below_min_score", "empty_scope", "empty_index", "unknown_collection"] = ""
