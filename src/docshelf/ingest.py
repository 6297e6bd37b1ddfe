"""Push ingest: records built elsewhere (chunked, maybe embedded) stored beside indexed files.

A builder outside docshelf sends records ``{id, content, embedding?, model?, metadata}``.
Each record becomes one chunk; records sharing a ``source`` (a path or a URL) form one
document under the pseudo-root ``push:``, so search, ``get_document``, ``list_documents``
and collections treat them like files, and a folder re-index (which prunes only beneath
its own roots) never removes them.

Rules, checked here once for every interface:

- An embedding must name the model it came from (per record or per batch), and model and
  dimension must match the index's; otherwise the batch is refused, naming the index's model.
- Without an embedding, docshelf embeds ``title + headings + content`` as it does for files.
- Metadata uses the fields of indexed files (``source``/``path``, ``title``, ``heading_path``,
  ``collection``, ``doc_type``, ``date``, ``tags``, ``url``) plus any other scalar field;
  lists are allowed only for ``tags`` and ``heading_path``; anything else is refused.
- Re-upserting an id replaces it; every source a batch touches is rewritten in one store
  commit, so a reader sees the old records or the new, never a mix.
- A record's hash is ``sha256(content)`` (UTF-8, hex), so a builder can recompute it and
  push only what changed.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .errors import EmbedderMismatch, InvalidQuery, InvalidRequest
from .models import Chunk, DocumentRecord

PUSH_ROOT = "push:"
CHUNK_PREFIX = "push:"
MAX_RECORDS = 1000
MAX_CONTENT_CHARS = 200_000
_LIST_FIELDS = ("tags", "heading_path")
Scalar = str | int | float | bool | None

__all__ = [
    "PUSH_ROOT", "IngestRecord", "UpsertRequest", "SelectRequest", "ResetRequest", "UpsertResult",
    "LookupResult", "DeleteResult", "content_hash", "model_matches",
]


def content_hash(content: str) -> str:
    """The hash lookup reports: ``sha256`` of the UTF-8 content, hex."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def model_matches(given: str, index_model: str) -> bool:
    """Same model, however it is spelled: ``all-MiniLM-L6-v2`` matches
    ``sentence-transformers/all-MiniLM-L6-v2@onnx-int8`` (organisation and variant dropped)."""

    def base(name: str) -> str:
        name = name.strip().lower().split("@", 1)[0]
        for sep in ("/", ":"):
            name = name.rsplit(sep, 1)[-1]
        return name

    return base(given) == base(index_model)


def _iso_day(value: Any) -> str:
    """An ISO 8601 date or datetime, as ``YYYY-MM-DD``; anything else is refused."""
    if isinstance(value, bool) or not isinstance(value, str | date):
        raise ValueError(f"must be an ISO 8601 date such as 2024-05-31, got {value!r}")
    if isinstance(value, date):
        return value.isoformat()[:10]
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00")) if len(text) > 10 else date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"must be an ISO 8601 date such as 2024-05-31, got {value!r}") from None
    return parsed.isoformat()[:10]


class IngestRecord(BaseModel):
    """One pushed record: a chunk of text, optionally with its vector, and its citation metadata."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=512, description="The builder's stable id for this record.")
    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS, description="The text that is searched and shown.")
    embedding: list[float] | None = Field(
        None, description="The content's vector; needs `model` (here or on the batch) and the index's dimension."
    )
    model: str | None = Field(None, max_length=200, description="The model the embedding came from.")
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description=(
            "source (or path): a path or URL, records sharing it form one document; title; heading_path "
            "(list or 'A > B'); collection; doc_type; date (ISO 8601); tags (list or 'a, b'); url; "
            "chunk_index (order within the source); page; start_line; end_line; any other scalar field."
        ),
    )

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if v != v.strip() or any(ord(c) < 32 for c in v):
            raise ValueError("must not have surrounding spaces or control characters")
        return v

    @field_validator("embedding")
    @classmethod
    def _embedding(cls, v: list[float] | None) -> list[float] | None:
        if v is None:
            return v
        if not v:
            raise ValueError("must not be empty (leave it out and docshelf embeds the content)")
        if not all(math.isfinite(x) for x in v):
            raise ValueError("must hold finite numbers only")
        if not any(v):
            raise ValueError("must not be all zeros")
        return v

    @field_validator("metadata")
    @classmethod
    def _metadata(cls, meta: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in meta.items():
            if not key or len(key) > 100 or not all(c.isalnum() or c in "_.-" for c in key):
                raise ValueError(f"field name {key!r} may hold only letters, digits, '_', '.' and '-'")
            if key in _LIST_FIELDS and isinstance(value, list):
                if not all(isinstance(x, str) for x in value):
                    raise ValueError(f"{key} must be a list of strings")
            elif isinstance(value, dict | list | tuple):
                kind = "an object" if isinstance(value, dict) else "a list"
                raise ValueError(
                    f"{key}: only scalar values (string, number, boolean, null) are allowed, got {kind}"
                    + ("; only tags and heading_path may be lists" if kind == "a list" else "")
                )
            elif isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{key} must be a finite number")
            if key == "date" and value is not None:
                try:
                    value = _iso_day(value)
                except ValueError as exc:  # the message names the key, as the other fields' do
                    raise ValueError(f"date {exc}") from None
            if key in ("chunk_index", "page", "start_line", "end_line") and value is not None:
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError(f"{key} must be a whole number >= 0")
            if isinstance(value, str) and len(value) > 10_000:
                raise ValueError(f"{key} is longer than 10000 characters")
            out[key] = value
        return out

    @property
    def source(self) -> str:
        for key in ("source", "path", "url"):
            value = self.metadata.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return self.id


class UpsertRequest(BaseModel):
    """A batch of records to add or replace."""

    model_config = ConfigDict(extra="forbid")

    records: list[IngestRecord] = Field(min_length=1, max_length=MAX_RECORDS)
    model: str | None = Field(None, max_length=200, description="Default `model` for records with an embedding.")

    @model_validator(mode="after")
    def _unique(self) -> UpsertRequest:
        seen: set[str] = set()
        for i, r in enumerate(self.records):
            if r.id in seen:
                from .requests import InvalidRequestValue

                raise InvalidRequestValue(f"records[{i}].id", f"{r.id!r} appears twice in this batch")
            seen.add(r.id)
        return self


class SelectRequest(BaseModel):
    """Which pushed records to look up or delete: by id, by source, or (lookup only) all."""

    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(default_factory=list, max_length=10_000)
    sources: list[str] = Field(default_factory=list, max_length=10_000)


class ResetRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # strict: a destructive switch takes true or false only ("yes", "1" or 1 are refused, not read as true)
    include_indexed: bool = Field(
        False, strict=True,
        description="Also drop every indexed file and forget the roots (default: pushed records only).",
    )


@dataclass(frozen=True)
class UpsertResult:
    upserted: int
    embedded: int
    sources: tuple[str, ...]
    # ids of records docshelf embedded whose text is longer than the model reads (it embeds the first
    # max_tokens tokens; the rest is found by keyword only): a builder should split them
    cut: tuple[str, ...] = ()


@dataclass(frozen=True)
class LookupEntry:
    id: str
    source: str
    sha256: str


@dataclass(frozen=True)
class LookupResult:
    records: tuple[LookupEntry, ...]
    missing: tuple[str, ...]  # asked-for ids or sources that are not stored


@dataclass(frozen=True)
class DeleteResult:
    deleted: int
    sources: tuple[str, ...]


# -- building chunks ------------------------------------------------------------------
def chunk_id_of(record_id: str) -> str:
    return CHUNK_PREFIX + record_id


def record_id_of(chunk: Chunk) -> str:
    return chunk.id[len(CHUNK_PREFIX):]


def _heading_path(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(h.strip() for h in value if h.strip())
    if isinstance(value, str):
        return tuple(h.strip() for h in value.split(">") if h.strip())
    return ()


def _tags(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list) else str(value or "").replace(",", " ").split()
    return tuple(dict.fromkeys(t for t in (str(x).strip().lstrip("#").lower() for x in items) if t))


def build_chunk(record: IngestRecord, settings: Any) -> Chunk:
    """The chunk a record becomes (its ``chunk_index`` is set when its document is assembled)."""
    from .pipeline.chunk import embed_prefix

    meta = record.metadata
    source = record.source
    title = str(meta.get("title") or "").strip() or source
    heading_path = _heading_path(meta.get("heading_path"))
    rule_collection, rule_type = settings.collection_for(source)
    collection = str(meta.get("collection") or "").strip() or rule_collection
    doc_type = settings.doc_type_for(source, meta.get("doc_type") or meta.get("type"), rule_type)
    return Chunk(
        id=chunk_id_of(record.id), root=PUSH_ROOT, path=source, collection=collection, doc_type=doc_type,
        title=title, heading_path=heading_path, chunk_index=0, text=record.content,
        embed_text=embed_prefix(title, heading_path) + record.content, page=meta.get("page"),
        start_line=meta.get("start_line"), end_line=meta.get("end_line"), tags=_tags(meta.get("tags")),
        date=meta.get("date"), metadata_json=json.dumps(meta, sort_keys=True),
    )


def check_embeddings(request: UpsertRequest, index_model: str, dimensions: int) -> None:
    """Refuse vectors from another model or of another size, naming the index's model."""
    for i, r in enumerate(request.records):
        if r.embedding is None:
            continue
        model = r.model or request.model
        if not model:
            raise InvalidRequest(
                f"records[{i}].model", f"record {r.id!r} has an embedding but names no model; set `model` on the "
                f"record or the batch (this index holds {index_model} vectors), or leave the embedding out"
            )
        if not model_matches(model, index_model):
            raise _mismatch(
                f"records[{i}].model", f"record {r.id!r} was embedded with {model}, but this index holds "
                f"{index_model} ({dimensions}-d) vectors; embed with {index_model}, or send the content without "
                "an embedding and docshelf embeds it"
            )
        if len(r.embedding) != dimensions:
            raise _mismatch(
                f"records[{i}].embedding", f"has {len(r.embedding)} dimensions, but this index's model "
                f"{index_model} has {dimensions}"
            )


def _mismatch(field: str, message: str) -> EmbedderMismatch:
    """An EmbedderMismatch (409) that names the record's field as a refused request field does."""
    error = EmbedderMismatch(f"{field}: {message}")
    error.field = field  # type: ignore[attr-defined]
    return error


def _order_key(chunk: Chunk, position: int) -> tuple[float, int]:
    explicit = json.loads(chunk.metadata_json).get("chunk_index")
    return (explicit if isinstance(explicit, int) else math.inf, position)


def assemble(source: str, chunks: Sequence[Chunk]) -> tuple[DocumentRecord, list[Chunk]]:
    """A source's document record and its chunks in order (explicit ``chunk_index`` first)."""
    ordered = [c for _, c in sorted(((_order_key(c, i), c) for i, c in enumerate(chunks)), key=lambda t: t[0])]
    ordered = [replace(c, chunk_index=i) for i, c in enumerate(ordered)]
    first = ordered[0]
    digest = hashlib.sha256("".join(sorted(content_hash(c.text) + c.id for c in ordered)).encode()).hexdigest()
    record = DocumentRecord(
        root=PUSH_ROOT, path=source, sha256=digest, size=sum(len(c.text.encode()) for c in ordered), mtime_ns=0,
        status="indexed", collection=first.collection, doc_type=first.doc_type, title=first.title,
        chunk_count=len(ordered), indexed_at=time.time(), format="push", tags=first.tags, date=first.date,
    )
    return record, ordered


def vectors_for(chunks: Sequence[Chunk], known: dict[str, np.ndarray], dimensions: int) -> np.ndarray:
    """The stacked vectors of ``chunks`` from ``known`` (chunk id → vector)."""
    if not chunks:
        return np.zeros((0, dimensions), np.float32)
    return np.stack([np.asarray(known[c.id], dtype=np.float32) for c in chunks])


# -- the operations (the service calls these holding the writer lock) ----------------------
class Ingestor:
    """Upsert, look up, delete and reset pushed records in a store."""

    def __init__(self, store: Any, embedder: Any, settings: Any, index_model: str) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.index_model = index_model

    def _pushed(self) -> dict[str, DocumentRecord]:
        return {r.path: r for r in self.store.records() if r.root == PUSH_ROOT}

    def _load(self, sources: Sequence[str]) -> tuple[dict[str, list[Chunk]], dict[str, np.ndarray]]:
        """Stored chunks of these sources, and their vectors by chunk id."""
        chunks: dict[str, list[Chunk]] = {}
        vectors: dict[str, np.ndarray] = {}
        for source in sources:
            stored = self.store.document_chunks(PUSH_ROOT, source)
            by_text = self.store.document_vectors(PUSH_ROOT, source) if stored else {}
            chunks[source] = stored
            vectors.update({c.id: by_text[c.embed_text] for c in stored if c.embed_text in by_text})
        return chunks, vectors

    def _write(self, docs: dict[str, list[Chunk]], vectors: dict[str, np.ndarray]) -> None:
        """Rewrite every source in ``docs`` in one commit; a source left empty is removed."""
        items, emptied = [], []
        for source, chunks in sorted(docs.items()):
            if not chunks:
                emptied.append((PUSH_ROOT, source))
                continue
            record, ordered = assemble(source, chunks)
            items.append((record, ordered, vectors_for(ordered, vectors, self.embedder.dimensions)))
        self.store.replace_documents(items)
        self.store.delete_documents(emptied)

    def upsert(self, request: UpsertRequest) -> UpsertResult:
        check_embeddings(request, self.index_model, self.embedder.dimensions)
        new = [build_chunk(r, self.settings) for r in request.records]
        ids = {c.id for c in new}
        moved_from = {c.path for c in self.store.get_chunks(sorted(ids))}
        docs, vectors = self._load(sorted(moved_from | {c.path for c in new}))
        old_text = {c.id: c.embed_text for cs in docs.values() for c in cs}
        by_id = {c.id: c for c in new}
        placed: set[str] = set()
        for source, stored in docs.items():  # a replaced record keeps its place; a moved one leaves
            kept = []
            for c in stored:
                fresh = by_id.get(c.id)
                if fresh is None:
                    kept.append(c)
                elif fresh.path == source:
                    kept.append(fresh)
                    placed.add(c.id)
            docs[source] = kept
        todo: list[Chunk] = []
        for record, chunk in zip(request.records, new, strict=True):
            if record.embedding is not None:
                vectors[chunk.id] = np.asarray(record.embedding, dtype=np.float32)
            elif old_text.get(chunk.id) != chunk.embed_text or chunk.id not in vectors:
                todo.append(chunk)  # unchanged text keeps the vector it has
            if chunk.id not in placed:
                docs[chunk.path].append(chunk)
        for start in range(0, len(todo), 32):
            batch = todo[start : start + 32]
            embedded = self.embedder.embed_documents([c.embed_text for c in batch])
            vectors.update({c.id: v for c, v in zip(batch, embedded, strict=True)})
        self._write(docs, vectors)
        return UpsertResult(upserted=len(new), embedded=len(todo), sources=tuple(sorted({c.path for c in new})),
                            cut=self._cut(todo))

    def _cut(self, embedded: Sequence[Chunk]) -> tuple[str, ...]:
        """Ids of the records just embedded whose text runs past the model's token limit."""
        limit = getattr(self.embedder, "max_tokens", 0)
        if not limit or not embedded:
            return ()
        try:
            count = self.embedder.tokenizer.count
        except Exception:  # noqa: BLE001 - a hosted model without a local tokenizer: nothing to say
            return ()
        return tuple(sorted(record_id_of(c) for c in embedded if len(c.embed_text) > limit and count(c.embed_text) > limit))

    def lookup(self, request: SelectRequest) -> LookupResult:
        pushed = self._pushed()
        chunks: list[Chunk] = []
        missing: list[str] = []
        if not request.ids and not request.sources:
            for source in sorted(pushed):
                chunks.extend(self.store.document_chunks(PUSH_ROOT, source))
        for source in request.sources:
            found = self.store.document_chunks(PUSH_ROOT, source) if source in pushed else []
            chunks.extend(found)
            if not found:
                missing.append(source)
        if request.ids:
            found_ids = {c.id: c for c in self.store.get_chunks([chunk_id_of(i) for i in request.ids])}
            for i in request.ids:
                c = found_ids.get(chunk_id_of(i))
                if c is None or c.root != PUSH_ROOT:
                    missing.append(i)
                else:
                    chunks.append(c)
        entries = {record_id_of(c): LookupEntry(record_id_of(c), c.path, content_hash(c.text)) for c in chunks}
        return LookupResult(records=tuple(entries[k] for k in sorted(entries)), missing=tuple(missing))

    def delete(self, request: SelectRequest) -> DeleteResult:
        if not request.ids and not request.sources:
            raise InvalidQuery("ids or sources: name the records to delete (POST /ingest/reset drops them all)")
        pushed = self._pushed()
        ids = {chunk_id_of(i) for i in request.ids}
        by_id = [c for c in self.store.get_chunks(sorted(ids)) if c.root == PUSH_ROOT]
        whole = [s for s in dict.fromkeys(request.sources) if s in pushed]
        partial = sorted({c.path for c in by_id} - set(whole))
        docs, vectors = self._load(partial)
        deleted = sum(pushed[s].chunk_count for s in whole)
        for source in partial:
            keep = [c for c in docs[source] if c.id not in ids]
            deleted += len(docs[source]) - len(keep)
            docs[source] = keep
        docs.update({s: [] for s in whole})
        self._write(docs, vectors)
        return DeleteResult(deleted=deleted, sources=tuple(sorted(docs)))

    def reset_pushed(self) -> DeleteResult:
        pushed = self._pushed()
        self.store.delete_documents([(PUSH_ROOT, s) for s in pushed])
        return DeleteResult(deleted=sum(r.chunk_count for r in pushed.values()), sources=tuple(sorted(pushed)))
