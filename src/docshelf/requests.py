"""What a caller may ask the service, validated once, here, for every interface.

``SearchRequest``, ``DocumentRequest`` and ``DocumentListRequest`` hold the rules (a
query's length, the ``k`` cap, the date format, the line-range syntax, the page size,
what a cursor is). The CLI builds them from flags, the MCP tools from their arguments
(whose descriptions and bounds come from these fields) and the HTTP API takes them as
bodies, so every interface accepts and rejects the same input with the same message.

Constructing a request with a bad field raises ``InvalidRequest`` naming the field
(``date_from: expected an ISO 8601 date …``); ``model_validate`` (FastAPI) raises
pydantic's ``ValidationError`` with the same text.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .dates import iso_day
from .errors import InvalidRequest
from .models import SearchFilters, SearchMode

MAX_QUERY_CHARS = 2_000
MAX_K = 100
MAX_LIST_LIMIT = 500
MAX_TEXT_CHARS = 500_000
DOC_URI_PREFIX = "docshelf://doc/"
"""A document's URI (MCP resources, hits' ``uri``): this prefix and its URL-quoted path."""
MIN_TEXT_CHARS = 100
MODES: tuple[SearchMode, ...] = ("hybrid", "semantic", "keyword", "fuzzy")
_FIELD_KEY = re.compile(r"^[A-Za-z0-9_.-]+$")
_LINES = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")
_COLUMNS = re.compile(r"^\s*(\d+)\s*:\s*(\d+)\s*-\s*(\d+)\s*$")  # LINE:FIRST-LAST characters of one line


class _Request(BaseModel):
    """Frozen, no unknown fields; construction errors become ``InvalidRequest``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise invalid_request(exc, type(self)) from None

    @classmethod
    def describe(cls, name: str) -> str:
        """The description of field ``name`` (MCP tool arguments and CLI help reuse it)."""
        return cls.model_fields[name].description or ""


SHOWN_CHARS = 60


def shown(value: Any) -> str:
    """A refused value as an error message quotes it: in full when short, else its start and its
    length (a 40 MB record's content was echoed whole in the error, and a 2,000-word query too)."""
    if isinstance(value, str) and len(value) > SHOWN_CHARS:
        return f"{value[:SHOWN_CHARS]!r}… ({len(value):,} characters)"
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS + 20 else f"{text[:SHOWN_CHARS]}… ({len(text):,} characters)"


def invalid_request(exc: ValidationError, model: type[BaseModel] | None = None) -> InvalidRequest:
    """The first problem of a ValidationError as ``InvalidRequest(field, message)``."""
    error = exc.errors()[0]
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, InvalidRequestValue):
        return InvalidRequest(cause.field, cause.message)
    field = ".".join(str(p) for p in error.get("loc", ()) if not isinstance(p, int))
    kind = error.get("type", "")
    message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if kind == "extra_forbidden":
        message = "is not a known field"
    elif kind == "missing":
        message = "is required"
    elif kind in _BOUNDS and model is not None and field in model.model_fields:
        lo, hi = _bounds(model.model_fields[field])
        message = (f"must be between {lo} and {hi}" if lo is not None and hi is not None
                   else f"must be at least {lo}" if lo is not None else f"must be at most {hi}")
        message += f", got {shown(error.get('input'))}"
    elif kind != "value_error" and "input" in error:
        message = f"{message[:1].lower()}{message[1:]}, got {shown(error['input'])}"
    return InvalidRequest(field, message)


_BOUNDS = ("greater_than_equal", "less_than_equal", "greater_than", "less_than")


def _bounds(info: Any) -> tuple[Any, Any]:
    lo = hi = None
    for m in info.metadata:
        lo = getattr(m, "ge", lo)
        hi = getattr(m, "le", hi)
    return lo, hi


def _tuple(value: Any) -> Any:
    """A single string is a one-item list (``tags="ops"``); None is empty."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return value


class SearchRequest(_Request):
    """One search: the query, how many hits, the mode and the filters every mode pushes down."""

    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS,
        description="What to find: a natural-language question or exact terms, names, error codes.",
    )
    k: int = Field(10, ge=1, le=MAX_K, description=f"Number of hits to return (1-{MAX_K}).")
    mode: Optional[SearchMode] = Field(None, description=(
        "hybrid (default: meaning + exact words), semantic (meaning only), keyword (BM25 exact words), "
        "fuzzy (tolerates typos and partial names)."))
    collections: tuple[str, ...] = Field((), description="Only these collections.")
    doc_types: Optional[tuple[str, ...]] = Field(None, description=(
        "Only these document types (default: the configured search scope, else every type)."))
    date_from: Optional[str] = Field(None, description=(
        "Only documents dated on or after this day: YYYY-MM-DD, or an ISO 8601 date-time (its day counts)."))
    date_to: Optional[str] = Field(None, description=(
        "Only documents dated on or before this day: YYYY-MM-DD, or an ISO 8601 date-time (its day counts)."))
    path_prefix: Optional[str] = Field(None, description="Only documents whose path starts with this, e.g. 'guides/'.")
    path_glob: Optional[str] = Field(None, description="Only documents whose path matches this glob, e.g. 'api/**/*.md'.")
    tags_any: tuple[str, ...] = Field((), description="Only documents carrying at least one of these tags.")
    tags_all: tuple[str, ...] = Field((), description="Only documents carrying all of these tags.")
    fields: tuple[tuple[str, str], ...] = Field((), description=(
        "Frontmatter fields that must match exactly (case-insensitive), as KEY=VALUE."))
    paths: Optional[tuple[str, ...]] = Field(None, description="Only these documents (paths relative to their root).")
    linked_to: tuple[str, ...] = Field((), description=(
        "Only notes that link to one of these notes ([[wiki links]]), named by path, file name, title or alias."))
    min_score: float = Field(0.0, ge=0.0, le=1.0, description=(
        "Drop hits scoring below this (0-1). Scores estimate relevance on one scale for every query: "
        "under 0.3 a hit probably does not answer, 0.7 and above it probably does."))
    max_per_doc: Optional[int] = Field(None, ge=0, description="Hits per document at most (0 = no limit).")
    max_chars: Optional[int] = Field(None, ge=MIN_TEXT_CHARS, le=MAX_TEXT_CHARS, description=(
        "Response budget: hit texts are shortened (longest first) so the hits fit in about this many characters."))

    @field_validator("query", mode="before")
    @classmethod
    def _query(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = v.strip()
            if not v:
                raise ValueError("is empty; pass some words to search for")
        return v

    @field_validator("mode", mode="before")
    @classmethod
    def _mode(cls, v: Any) -> Any:
        if v is not None and v not in MODES:
            raise ValueError(f"unknown mode {v!r}; use one of {', '.join(MODES)}")
        return v

    @field_validator("collections", "tags_any", "tags_all", "linked_to", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return _tuple(v)

    @field_validator("doc_types", mode="before")
    @classmethod
    def _doc_types(cls, v: Any) -> Any:
        return tuple(_tuple(v)) or None  # an empty list means "no restriction given"

    @field_validator("date_from", "date_to", mode="before")
    @classmethod
    def _date(cls, v: Any) -> Any:
        return None if v is None or v == "" else iso_day(v)

    @field_validator("path_prefix", "path_glob")
    @classmethod
    def _path(cls, v: Optional[str]) -> Optional[str]:
        return v.strip() or None if v is not None else None

    @field_validator("fields", mode="before")
    @classmethod
    def _fields(cls, v: Any) -> Any:
        if isinstance(v, dict):
            v = list(v.items())
        pairs = []
        for item in _tuple(v):
            if isinstance(item, str):
                key, sep, value = item.partition("=")
                if not sep:
                    raise ValueError(f"use KEY=VALUE, got {item!r}")
                item = (key, value)
            key, value = (str(x).strip() for x in item)
            if not _FIELD_KEY.match(key):
                raise ValueError(f"field name {key!r} may hold only letters, digits, '_', '.' and '-'")
            pairs.append((key, value))
        return tuple(pairs)

    @model_validator(mode="after")
    def _date_order(self) -> SearchRequest:
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise InvalidRequestValue("date_to", f"{self.date_to} is before date_from {self.date_from}")
        return self

    @classmethod
    def build(cls, query: str, filters: SearchFilters | None = None, **options: Any) -> SearchRequest:
        """A request from a query, a ``SearchFilters`` (library callers) and options."""
        f = filters or SearchFilters()
        fields = {
            "collections": f.collections, "doc_types": f.doc_types, "date_from": f.date_from, "date_to": f.date_to,
            "path_prefix": f.path_prefix, "path_glob": f.path_glob, "tags_any": f.tags_any, "tags_all": f.tags_all,
            "fields": f.fields, "paths": f.paths,
        }
        fields.update({k: v for k, v in options.items() if v is not None})
        return cls(query=query, **fields)

    def filters(self, default_doc_types: Optional[list[str]] = None) -> SearchFilters:
        """The store-level filters; ``doc_types`` falls back to the configured default scope."""
        doc_types = self.doc_types if self.doc_types is not None else tuple(default_doc_types or ()) or None
        return SearchFilters(
            collections=self.collections, doc_types=doc_types, date_from=self.date_from, date_to=self.date_to,
            path_prefix=self.path_prefix, path_glob=self.path_glob, tags_any=self.tags_any, tags_all=self.tags_all,
            fields=self.fields, paths=self.paths,
        )


class InvalidRequestValue(ValueError):
    """Raised by a model validator to blame one named field (not the whole request)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def parse_columns(value: Any) -> Optional[tuple[int, int, int]]:
    """``"3:52001-54000"``: line 3, characters 52001 to 54000 (1-based, inclusive), as a hit inside
    a very long line cites it (a minified file's one line holds hundreds of chunks); else None."""
    match = _COLUMNS.match(str(value)) if isinstance(value, str) else None
    if not match:
        return None
    line, first, last = (int(g) for g in match.groups())
    if line < 1 or first < 1 or last < first:
        raise ValueError(f"use LINE:FIRST-LAST with 1-based characters and FIRST <= LAST, got {value!r}")
    return line, first, last


def parse_lines(value: Any) -> Optional[tuple[int, int]]:
    """The one line-range syntax: ``"12-40"`` (inclusive) or ``"12"`` (one line), 1-based; or
    ``"3:52001-54000"`` (characters of line 3, see ``parse_columns``), whose line range is 3-3."""
    if value is None or value == "":
        return None
    if (columns := parse_columns(value)) is not None:
        return columns[0], columns[0]
    if isinstance(value, (tuple, list)) and len(value) == 2:
        start, end = (int(x) for x in value)
    else:
        match = _LINES.match(str(value))
        if not match:
            raise ValueError(f"use START-END or one line number, e.g. '10-40' or '12', got {value!r}")
        start, end = int(match.group(1)), int(match.group(2) or match.group(1))
    if start < 1 or end < start:
        raise ValueError(f"use a 1-based range with START <= END, got {value!r}")
    return start, end


# the tail of a citation (interfaces/output.citation): "(lines 12-40)", "(p. iv, PDF page 4, lines 3-9)",
# "(line 3, chars 2001-4000)", "(cell 4)"
_CITED = re.compile(r" \((?P<extra>(?:(?:lines? \d+(?:-\d+)?|chars \d+-\d+|p\. \S+|PDF page \d+|cell \d+)(?:, |(?=\))))+)\)$")


class DocumentRequest(_Request):
    """Read one indexed document, whole or one range of it."""

    path: Optional[str] = Field(None, description="Document path as given in search hits or list_documents.")
    doc_id: Optional[str] = Field(None, description="Alternative to path: the doc_id of a hit or listed document.")
    root: Optional[str] = Field(None, description="The document's root folder, when two roots hold the same path.")
    lines: Optional[str] = Field(None, description=(
        "Only these lines of the file, exactly (text formats): 'START-END', e.g. '10-40', or one line, e.g. '12'; "
        "'LINE:FIRST-LAST' reads characters of one very long line, e.g. '3:2001-4000', as hits inside one cite it."))
    page: Optional[int] = Field(None, ge=1, description=(
        "Only this page (PDF): its 1-based number, e.g. 4, or the label printed on it, e.g. 'iv' or 'A-1' "
        "(a citation 'p. iv, PDF page 4' gives both)."))
    page_label: Optional[str] = Field(None, description=(
        "Only the page printed with this label (PDF), e.g. 'iv'; set from a page that is not a number."))
    section: Optional[str] = Field(None, description=(
        "Only the section under this heading (case, markup such as backticks and numbering are ignored)."))
    max_chars: Optional[int] = Field(None, ge=MIN_TEXT_CHARS, le=MAX_TEXT_CHARS, description=(
        "Cut the text after this many characters."))

    @model_validator(mode="before")
    @classmethod
    def _citation(cls, data: Any) -> Any:
        """A hit's citation pasted as the path (``guide.md › Tokens › Rotating (lines 12-40)``,
        ``manual.pdf › Wiring (p. iv, PDF page 4)``) reads what it cites: the path, then its lines,
        page or (without either) its section. Only when nothing else narrows the request."""
        if not isinstance(data, dict) or any(data.get(k) is not None for k in ("lines", "page", "page_label", "section")):
            return data
        path = data.get("path")
        if not isinstance(path, str) or (" › " not in path and not _CITED.search(path)):
            return data
        where = _CITED.search(path)
        head, extra = (path[: where.start()], where.group("extra")) if where else (path, "")
        parts = [p.strip() for p in head.split(" › ")]
        if not parts[0]:
            return data
        out = {**data, "path": parts[0]}
        for item in (i.strip() for i in extra.split(",") if i.strip()):
            if m := re.fullmatch(r"lines? (\d+)(?:-(\d+))?", item):
                out["lines"] = f"{m.group(1)}-{m.group(2) or m.group(1)}" if "lines" not in out else out["lines"]
            elif m := re.fullmatch(r"chars (\d+)-(\d+)", item):
                line = (out.get("lines") or "").split("-")[0]
                out["lines"] = f"{line}:{m.group(1)}-{m.group(2)}" if line else None
            elif m := re.fullmatch(r"(?:PDF page|cell) (\d+)", item):
                out["page"], out["page_label"] = int(m.group(1)), None
            elif m := re.fullmatch(r"p\. (\S+)", item):  # the printed label; a PDF page number wins
                if out.get("page") is None:
                    number = m.group(1).isdigit()
                    out["page"], out["page_label"] = (int(m.group(1)), None) if number else (None, m.group(1))
        if all(out.get(k) is None for k in ("lines", "page", "page_label")) and len(parts) > 1:
            out["section"] = " > ".join(parts[1:])
        return out

    @model_validator(mode="before")
    @classmethod
    def _page_as_label(cls, data: Any) -> Any:
        """A page that is not a number (``iv``, ``A-1``) is a page label: citations show labels,
        and a reader asks for the page they see. A number is always the PDF page number."""
        page = data.get("page") if isinstance(data, dict) else None
        if isinstance(page, str) and not re.fullmatch(r"\s*[+-]?\d+\s*", page):
            label = page.strip()
            if data.get("page_label") not in (None, label):
                raise InvalidRequestValue("page", f"pass one page label, got {label!r} and {data['page_label']!r}")
            data = {**data, "page": None, "page_label": label or None}
        return data

    @field_validator("lines", mode="before")
    @classmethod
    def _lines(cls, v: Any) -> Any:
        span = parse_lines(v)
        if span is None:
            return None
        columns = parse_columns(v)
        return f"{columns[0]}:{columns[1]}-{columns[2]}" if columns else f"{span[0]}-{span[1]}"

    @field_validator("path", "doc_id", "section", "root", "page_label")
    @classmethod
    def _blank(cls, v: Optional[str]) -> Optional[str]:
        return v if v is None or v.strip() else None

    @field_validator("path")
    @classmethod
    def _uri(cls, v: Optional[str]) -> Optional[str]:
        """A hit's ``uri`` (``docshelf://doc/guides/Setup%20notes.md``) names its path: agents pass
        either, and the URI was refused as 'no indexed document'."""
        from urllib.parse import unquote

        if v is not None and v.strip().startswith(DOC_URI_PREFIX):
            return unquote(v.strip()[len(DOC_URI_PREFIX):]) or None
        return v

    @model_validator(mode="after")
    def _target(self) -> DocumentRequest:
        if not self.path and not self.doc_id:
            raise InvalidRequestValue("path", "pass path or doc_id")
        if self.page is not None and self.page_label is not None:
            raise InvalidRequestValue("page", "pass a page number or a page label, not both")
        return self

    @property
    def line_range(self) -> Optional[tuple[int, int]]:
        return parse_lines(self.lines)

    @property
    def columns(self) -> Optional[tuple[int, int]]:
        """The characters asked of ``line_range``'s one line (``lines="3:2001-4000"``), else None."""
        columns = parse_columns(self.lines)
        return None if columns is None else (columns[1], columns[2])


def encode_cursor(root: str, path: str) -> str:
    """An opaque cursor naming the last document of a page (its root and path)."""
    return base64.urlsafe_b64encode(f"{path}\x00{root}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[str, str]:
    """``(path, root)`` from ``encode_cursor``'s output; ValueError for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        path, sep, root = raw.partition("\x00")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        sep = ""
    if not sep:
        raise ValueError(f"not a cursor returned by list_documents (next_cursor), got {cursor!r}")
    return path, root


class DocumentListRequest(_Request):
    """One page of the indexed documents, sorted by path (then root)."""

    collection: Optional[str] = Field(None, description="Only this collection.")
    path_prefix: Optional[str] = Field(None, description="Only paths starting with this, e.g. 'guides/'.")
    limit: int = Field(100, ge=1, le=MAX_LIST_LIMIT, description=f"Page size (1-{MAX_LIST_LIMIT}).")
    cursor: Optional[str] = Field(None, description="next_cursor from the previous page.")

    @field_validator("cursor")
    @classmethod
    def _cursor(cls, v: Optional[str]) -> Optional[str]:
        if v:
            decode_cursor(v)
        return v or None

    @property
    def after(self) -> Optional[tuple[str, str]]:
        """The ``(path, root)`` the page starts after, or None for the first page."""
        return decode_cursor(self.cursor) if self.cursor else None


__all__ = [
    "MAX_K",
    "MODES",
    "MAX_LIST_LIMIT",
    "MAX_QUERY_CHARS",
    "DocumentListRequest",
    "DocumentRequest",
    "SearchRequest",
    "decode_cursor",
    "encode_cursor",
    "invalid_request",
    "parse_columns",
    "shown",
    "parse_lines",
]
