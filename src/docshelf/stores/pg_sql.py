"""SQL fragments of the PostgreSQL store: search filters as one parameterised predicate,
``tsquery`` / ``vector`` literals, and the chunk columns a search reads with their conversion
back to a ``Chunk`` (kept apart so ``postgres_store`` stays about the store)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InvalidQuery
from ..models import Chunk, SearchFilters
from .filters import _FIELD_KEY, field_token, glob_to_regex


COLS = (
    "id, root, path, collection, doc_type, title, heading_path, chunk_index, text, embed_text, page, "
    "start_line, end_line, tags, date, metadata, overlap"
)
"""The chunk columns a search returns, in ``to_chunk``'s order (a score may follow them)."""
QUALIFIED_COLS = ", ".join(f"c.{name.strip()}" for name in COLS.split(","))


def to_chunk(r: Sequence[Any]) -> Chunk:
    """A row starting with ``COLS`` as a Chunk."""
    (cid, root, path, collection, doc_type, title, heading_path, chunk_index, text, embed_text, page,
     start_line, end_line, tags, date, metadata, overlap) = r[:17]
    return Chunk(
        id=cid, root=root, path=path, collection=collection, doc_type=doc_type, title=title,
        heading_path=tuple(heading_path or ()), chunk_index=chunk_index, text=text, embed_text=embed_text,
        page=page, start_line=start_line, end_line=end_line, tags=tuple(tags or ()), date=date,
        metadata_json=json.dumps(metadata) if not isinstance(metadata, str) else metadata, overlap=overlap,
    )


_SETTING = re.compile(r"^[a-z_]+(\.[a-z_]+)?$")
_SETTING_VALUE = re.compile(r"^[A-Za-z0-9_.]+$")


def set_local(cur, settings: dict[str, str]) -> None:
    """``SET LOCAL`` each setting for the rest of this transaction, in one round trip. Not
    ``set_config()``: Citus passes ``SET LOCAL`` on to the workers that run the query (when
    ``citus.propagate_set_commands`` is ``local``, set here first; on PostgreSQL without Citus
    that name is an inert placeholder), while a ``set_config()`` would change the coordinator only."""
    statements = ["SET LOCAL citus.propagate_set_commands = 'local'"]
    for name, value in settings.items():
        if not (_SETTING.match(name) and _SETTING_VALUE.match(str(value))):
            raise ValueError(f"not a setting docshelf sets: {name} = {value!r}")
        statements.append(f"SET LOCAL {name} = '{value}'")
    cur.execute("; ".join(statements))


def vector_literal(v: np.ndarray) -> str:
    return "[" + ",".join(map(repr, np.asarray(v, dtype=np.float32).tolist())) + "]"


def _lexeme(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def tsquery(terms: Sequence[str]) -> str:
    """Rows holding any of ``terms``."""
    return " | ".join(map(_lexeme, terms))


MAX_LEXEMES = 60  # the most term occurrences one threshold query may hold (GIN evaluates it per candidate)


def tsquery_above(terms: Sequence[str], weights: Sequence[float], theta: float) -> str | None:
    """A tsquery matched by every row whose query terms' ``weights`` sum to more than ``theta``
    (and by few others); ``None`` when no row can. Why: a BM25 term adds less than its weight,
    so a row below that sum cannot beat a score of ``theta``, and the GIN index, which knows
    which rows hold which terms but not their frequencies, can then skip it unread.

    The rows are split by the first (heaviest) query term they hold: those whose first term is
    ``t`` pass only with more than ``theta − w(t)`` from the lighter terms, recursively, as
    ``t & (…)``. Past ``depth`` levels a part is widened to MaxScore's condition (the row holds
    one of the terms the lightest ones cannot stand in for), so the query stays small; every
    step keeps all rows that can pass, so results are exact."""
    items = sorted(zip(terms, weights, strict=True), key=lambda tw: (-tw[1], tw[0]))
    tails = [0.0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        tails[i] = tails[i + 1] + items[i][1]

    def above(start: int, tau: float, depth: int, size: list[int]) -> str | bool:
        if tau < 0:
            return True
        if tails[start] <= tau:
            return False
        if depth == 0:  # the shortest run of heaviest terms whose remainder cannot pass alone
            end = start + 1
            while tails[end] > tau:
                end += 1
            size[0] += end - start
            return " | ".join(_lexeme(t) for t, _ in items[start:end])
        clauses = []
        for i in range(start, len(items)):
            term, w = items[i]
            if w + tails[i + 1] <= tau:
                break  # this term and every lighter one together cannot pass
            size[0] += 1
            rest = above(i + 1, tau - w, depth - 1, size)
            clauses.append(_lexeme(term) if rest is True else f"{_lexeme(term)} & ( {rest} )")
        return " | ".join(clauses)

    for depth in (3, 2, 1, 0):
        size = [0]
        found = above(0, theta, depth, size)
        if size[0] <= MAX_LEXEMES or depth == 0:
            break
    if found is False:
        return None
    return tsquery(terms) if found is True else found


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


__all__ = ["COLS", "QUALIFIED_COLS", "filter_sql", "to_chunk", "tsquery", "tsquery_above", "vector_literal"]
