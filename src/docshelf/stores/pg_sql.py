"""SQL fragments of the PostgreSQL store: search filters as one parameterised predicate, and
``tsquery`` / ``vector`` literals (kept apart so ``postgres_store`` stays about the store)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InvalidQuery
from ..models import SearchFilters
from .filters import _FIELD_KEY, field_token, glob_to_regex


def vector_literal(v: np.ndarray) -> str:
    return "[" + ",".join(map(repr, np.asarray(v, dtype=np.float32).tolist())) + "]"


def tsquery(terms: Sequence[str]) -> str:
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms)


def filter_sql(f: SearchFilters | None, alias: str = "c") -> tuple[str, list[Any]]:
    """SearchFilters → a parameterised predicate over the chunks table (``TRUE`` when none)."""
    if f is None:
        return "TRUE", []
    parts: list[str] = []
    params: list[Any] = []
    a = alias
    if f.collections:
        parts.append(f"{a}.collection = ANY(%s)")
        params.append(list(f.collections))
    if f.doc_types:
        parts.append(f"{a}.doc_type = ANY(%s)")
        params.append(list(f.doc_types))
    if f.date_from or f.date_to:
        parts.append(f"{a}.date IS NOT NULL")
        if f.date_from:
            parts.append(f"{a}.date >= %s")
            params.append(f.date_from)
        if f.date_to:
            parts.append(f"{a}.date <= %s")
            params.append(f.date_to)
    if f.path_prefix:
        parts.append(f"starts_with({a}.path, %s)")
        params.append(f.path_prefix.lstrip("/"))
    if f.path_glob:
        parts.append(f"{a}.path ~ %s")
        params.append(glob_to_regex(f.path_glob))
    if f.tags_any:
        parts.append(f"{a}.tags && %s::text[]")
        params.append([t.lower().lstrip("#") for t in f.tags_any])
    if f.tags_all:
        parts.append(f"{a}.tags @> %s::text[]")
        params.append([t.lower().lstrip("#") for t in f.tags_all])
    if f.paths is not None:
        parts.append(f"{a}.path = ANY(%s)")
        params.append(list(f.paths))
    for key, value in f.fields:
        if not _FIELD_KEY.match(key):
            raise InvalidQuery(f"field name {key!r} may hold only letters, digits, '_', '.' and '-'")
        parts.append(f"{a}.fields @> %s::text[]")
        params.append([field_token(key, value)])
    return (" AND ".join(parts) if parts else "TRUE"), params


__all__ = ["filter_sql", "tsquery", "vector_literal"]
