"""SearchFilters → a SQL predicate the store evaluates before top-k (never after)."""

from __future__ import annotations

import re

from ..models import SearchFilters

_FIELD_KEY = re.compile(r"^[A-Za-z0-9_.-]+$")


def quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _list(values) -> str:
    return "[" + ", ".join(quote(v) for v in values) + "]"


def glob_to_regex(glob: str) -> str:
    """A gitignore-style glob (the one dialect, ``docshelf.globs``) as an anchored regex."""
    from ..globs import to_regex

    return to_regex(glob)


def field_token(key: str, value: object) -> str:
    """How a frontmatter field is stored for exact-match filtering: ``key=value``, lower-cased."""
    return f"{key.lower()}={str(value).strip().lower()}"


def to_sql(f: SearchFilters | None) -> str | None:
    if f is None:
        return None
    parts: list[str] = []
    if f.collections:
        parts.append(f"collection IN ({', '.join(quote(c) for c in f.collections)})")
    if f.doc_types:
        parts.append(f"doc_type IN ({', '.join(quote(t) for t in f.doc_types)})")
    if f.date_from or f.date_to:
        parts.append("date IS NOT NULL")
        if f.date_from:
            parts.append(f"date >= {quote(f.date_from)}")
        if f.date_to:
            parts.append(f"date <= {quote(f.date_to)}")
    if f.path_prefix:
        parts.append(f"starts_with(path, {quote(f.path_prefix.lstrip('/'))})")
    if f.path_glob:
        parts.append(f"regexp_like(path, {quote(glob_to_regex(f.path_glob))})")
    if f.tags_any:
        parts.append(f"array_has_any(tags, {_list(t.lower().lstrip('#') for t in f.tags_any)})")
    if f.tags_all:
        parts.append(f"array_has_all(tags, {_list(t.lower().lstrip('#') for t in f.tags_all)})")
    if f.paths is not None:
        parts.append(f"path IN ({', '.join(quote(p) for p in f.paths)})" if f.paths else "false")
    for key, value in f.fields:
        if not _FIELD_KEY.match(key):
            from ..errors import InvalidQuery

            raise InvalidQuery(f"field name {key!r} may hold only letters, digits, '_', '.' and '-'")
        parts.append(f"array_has(fields, {quote(field_token(key, value))})")
    return " AND ".join(parts) if parts else None
