"""The three seams of docshelf: Parser, Embedder (with its Tokenizer) and Store.

Small on purpose: a Postgres or Qdrant store, or another model, fits behind them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .models import Chunk, DocumentRecord, ParseContext, ParsedDocument, SearchFilters


@runtime_checkable
class Parser(Protocol):
    """Turns the bytes of one file into a ParsedDocument, or raises ParseError.

    ``context`` (optional) names the indexed root, for formats that include other files
    (snippets, ``literalinclude``): only files inside that root are ever read. The registry
    passes it when it has one; a parser must work without it.
    """

    name: str
    suffixes: tuple[str, ...]

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument: ...


class Tokenizer(Protocol):
    """The embedder's own tokenizer, so chunk sizes are exact in the model's tokens."""

    def count(self, text: str) -> int:
        """Tokens ``text`` costs the model, special tokens included."""

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of each token (specials excluded), for cutting at token boundaries."""


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors. ``model_id`` and ``dimensions`` are its identity."""

    model_id: str
    dimensions: int
    max_tokens: int
    normalized: bool

    @property
    def tokenizer(self) -> Tokenizer: ...

    @property
    def loaded(self) -> bool: ...

    def load(self) -> None:
        """Load weights now (otherwise the first embed call does it)."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


class WriterLock(Protocol):
    """One writing process per index, across processes and servers (see ``stores/locks.py``).

    Re-entrant; freed when the holder releases it or stops (process exit, lost connection)."""

    def acquire(self, timeout: float = 0) -> bool:
        """Take the lock, waiting up to ``timeout`` seconds; False when another process holds it."""

    def release(self, force: bool = False) -> None:
        """Undo one ``acquire`` (``force``: all of them)."""

    @property
    def held(self) -> bool: ...


class Store(Protocol):
    """Chunks with vectors, document records and the index manifest, in one place.

    The store never embeds and never parses; ranking fusion lives in ``search/``.
    Scores it returns: vector search → cosine similarity, text search → raw BM25.
    """

    def read_manifest(self) -> dict[str, Any] | None: ...

    def write_manifest(self, manifest: dict[str, Any]) -> None: ...

    def replace_documents(
        self, items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]
    ) -> None:
        """Replace each document's chunks with the given ones in one commit, then its record."""

    def put_records(self, records: Sequence[DocumentRecord]) -> None:
        """Upsert document records without touching chunks (failures, mtime refresh)."""

    def delete_documents(self, keys: Sequence[tuple[str, str]]) -> None:
        """Delete chunks and records of the (root, path) documents."""

    def orphan_documents(self) -> list[tuple[str, str]]:
        """(root, path) of documents that have chunks but no record, sorted.

        A backend that cannot write a document's chunks and its record in one transaction
        writes the chunks first; a crash between the two leaves such orphans, and every
        full index run deletes them (``delete_documents``), so a deleted file's text never
        stays searchable. A transactional backend may simply return ``[]``.
        """

    def records(self) -> list[DocumentRecord]: ...

    def failed_records(self) -> list[DocumentRecord]:
        """Records of files whose latest version failed to index (a search asks on every call,
        so a backend remembers the answer until its records change)."""

    def vector_search(
        self, vector: np.ndarray, k: int, filters: SearchFilters | None = None
    ) -> list[tuple[Chunk, float]]: ...

    def text_search(
        self, query: str, k: int, filters: SearchFilters | None = None, fuzziness: int | None = 0
    ) -> list[tuple[Chunk, float]]: ...

    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]: ...

    def document_chunks(self, root: str, path: str) -> list[Chunk]:
        """All chunks of one document in order."""

    def document_vectors(self, root: str, path: str) -> dict[str, np.ndarray]:
        """Stored vectors of one document's chunks, keyed by embedded text (to skip re-embedding)."""

    def count_chunks(self) -> int: ...

    def writer_lock(self) -> WriterLock:
        """This index's writer lock (a lock file, a Postgres advisory lock, a Qdrant lease)."""

    def refresh(self) -> None:
        """See writes made by other processes since this store was opened."""

    def optimize(self) -> None: ...

    def reset(self) -> None: ...
