"""Chunks and document records as plain JSON-able dicts, for stores that keep them as
payloads (Qdrant) or JSONB (PostgreSQL). Unknown keys are ignored on the way back, so an
index written by a newer docshelf still reads; tuple fields come back as tuples."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, TypeVar

from ..models import Chunk, DocumentRecord, listed_paths
from .filters import field_token

T = TypeVar("T", Chunk, DocumentRecord)


def to_dict(obj: Chunk | DocumentRecord) -> dict[str, Any]:
    return {f.name: list(v) if isinstance(v := getattr(obj, f.name), tuple) else v for f in dataclasses.fields(obj)}


def from_dict(cls: type[T], data: dict[str, Any]) -> T:
    known = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for name, value in data.items():
        if name not in known:
            continue
        if isinstance(value, list):
            value = tuple(value)
        values[name] = value
    return cls(**values)


def doc_key(root: str, path: str) -> str:
    """One string per document (also the Citus distribution key)."""
    return f"{root}\n{path}"


INCLUDE_FIELDS = ("includes", "include_missing")


def include_lists(path: str, metadata_json: str | None) -> dict[str, list[str]]:
    """A page's ``includes`` / ``include_missing`` record fields, read back from its first
    chunk's metadata where its parser listed them (for records written before the fields
    existed): lists of paths only (a frontmatter field of the same name lists none), never the
    page itself."""
    try:
        meta = json.loads(metadata_json or "{}")
    except ValueError:
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    return {name: [p for p in listed_paths(meta.get(name)) if p != path] for name in INCLUDE_FIELDS}


def field_tokens(metadata_json: str) -> list[str]:
    """Frontmatter scalars (and list items) as ``key=value`` tokens for exact filtering."""
    try:
        meta = json.loads(metadata_json or "{}")
    except ValueError:
        return []
    if not isinstance(meta, dict):
        return []
    out = []
    for key, value in meta.items():
        values = value if isinstance(value, list) else [value]
        out.extend(field_token(key, v) for v in values if isinstance(v, str | int | float | bool))
    return out


__all__ = ["INCLUDE_FIELDS", "doc_key", "field_tokens", "from_dict", "include_lists", "to_dict"]
