"""The embedded default store: LanceDB (vectors, BM25 full-text and filters in one engine).

Layout of an index folder: ``chunks.lance`` and ``documents.lance`` tables plus
``manifest.json`` (the embedder and chunker identity). Replacing a document's chunks is a
single ``merge_insert`` commit, so a crash leaves the old version or the new, never a mix.
The two tables cannot share a commit: the chunks are written first, then the records,
and ``orphan_documents`` finds chunks a crash left without a record (the indexer removes them).
It scans both tables only when they may have changed since a scan found none: every write
that completes (chunks and records both) moves that mark forward, a crash in between does not.

Reads never write: the full-text index is built by the writer (after its first commit
and in ``optimize``); until then a text query scans the rows unindexed. Every error the
engine raises is mapped into docshelf's tree (``StoreError``, ``InvalidQuery``).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import pyarrow as pa

from ..analysis import searchable_text
from ..crashpoints import crash_point
from ..errors import DocshelfError, InvalidQuery, StoreError
from ..models import Chunk, DocumentRecord, SearchFilters
from .filters import quote, to_sql
from .lancedb_import import import_lancedb
from .lance_queries import (
    CHUNK_COLUMNS, HIT_COLUMNS, arrow, chunks_of, cosines, fuzzy_query, lexical_ids, matrix, pool_rounds,
    probe_texts, settled_rows, top_rows, window_limit, with_settings,
)
from .ties import TIE_SLACK, tie_key
from .records import field_tokens, include_lists
from .locks import FileWriterLock
from .vector_index import VectorIndex, index_for, needs_rebuild, query_settings

log = logging.getLogger(__name__)

CHUNKS = "chunks"
DOCUMENTS = "documents"
MANIFEST = "manifest.json"
ORPHAN_FREE = "orphan-free.json"
"""The (chunks, documents) table versions last known to hold no orphan chunks."""
WRITER_LOCK = "writer.lock"
# Filter columns (few values: bitmap; ordered or unique: B-tree), and the id for candidate look-ups.
SCALAR_INDEXES = (("collection", "bitmap"), ("doc_type", "bitmap"), ("date", "btree"), ("id", "btree"))
_CHUNK_COLUMNS = CHUNK_COLUMNS


def _chunk_schema(dim: int) -> pa.Schema:
    return pa.schema([
        ("id", pa.string()), ("root", pa.string()), ("path", pa.string()),
        ("collection", pa.string()), ("doc_type", pa.string()), ("title", pa.string()),
        ("heading_path", pa.list_(pa.string())), ("chunk_index", pa.int32()),
        ("text", pa.string()), ("embed_text", pa.string()), ("search_text", pa.string()),
        ("page", pa.int32()), ("start_line", pa.int32()), ("end_line", pa.int32()),
        ("tags", pa.list_(pa.string())), ("date", pa.string()), ("fields", pa.list_(pa.string())),
        ("metadata_json", pa.string()), ("overlap", pa.int32()), ("vector", pa.list_(pa.float32(), dim)),
    ])


_DOC_SCHEMA = pa.schema([
    ("key", pa.string()), ("root", pa.string()), ("path", pa.string()), ("sha256", pa.string()),
    ("size", pa.int64()), ("mtime_ns", pa.int64()), ("status", pa.string()),
    ("collection", pa.string()), ("doc_type", pa.string()), ("title", pa.string()),
    ("error", pa.string()), ("chunk_count", pa.int32()), ("indexed_at", pa.float64()),
    ("format", pa.string()), ("page_count", pa.int32()), ("tags", pa.list_(pa.string())),
    ("date", pa.string()), ("aliases", pa.list_(pa.string())), ("links", pa.list_(pa.string())),
    ("includes", pa.list_(pa.string())), ("include_missing", pa.list_(pa.string())),
])
_ADDED_DOC_COLUMNS = ("includes", "include_missing")
"""Columns added to the records table after its first release: an older table gets them (empty)
on its first record write, and reads without them as ()."""


def _key(root: str, path: str) -> str:
    return f"{root}\x00{path}"


def _mapped(action: str):
    """Turn whatever the engine raises into a StoreError naming the index and the action."""

    def wrap(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            try:
                return method(self, *args, **kwargs)
            except DocshelfError:
                raise
            except Exception as exc:  # lance raises OSError, RuntimeError, ValueError, pyarrow errors...
                raise StoreError(
                    f"could not {action} the index at {self.dir}: {type(exc).__name__}: {exc}. "
                    "If it persists, `docshelf doctor` checks the index and `docshelf index --force` rebuilds it"
                ) from exc

        return guarded

    return wrap


class LanceStore:
    name = "lancedb"
    #: Below this many chunks an exact vector scan is fast enough (and exact); above it
    #: optimize() builds the vector index ``vector_index.index_for`` picks for the size.
    vector_index_min_rows = 50_000
    #: Below this many chunks a filter scans fast enough; above it optimize() builds SCALAR_INDEXES.
    scalar_index_min_rows = 10_000

    def __init__(self, index_dir: Path, dimensions: int) -> None:
        lancedb = import_lancedb()  # engine warnings off stderr (see quiet_engine_logs)

        self.dir = Path(index_dir)
        self.dimensions = dimensions
        self._connect(lancedb)

    @_mapped("open")
    def _connect(self, lancedb) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        # Check for other processes' commits on every read: readers always see new data.
        self._db = lancedb.connect(str(self.dir), read_consistency_interval=timedelta(0))
        self._pinned = threading.local()
        # ((version, log folder), table at it, when the engine named that version if the log was quiet then)
        self._snapshot_cache: tuple[tuple, Any, float | None] | None = None
        self._index_memo: tuple[Any, VectorIndex | None] | None = None  # (snapshot, its vector index)
        self._chunks = self._open(CHUNKS, _chunk_schema(self.dimensions))
        self._docs = self._open(DOCUMENTS, _DOC_SCHEMA)
        self._failed_memo: tuple[Any, tuple[DocumentRecord, ...]] | None = None  # see failed_records
        self._doc_columns_checked: Any = None  # the records table once it has every column (upgrade_records)
        self._fts_ready = self._has_fts()  # only the writer acts on it (it builds the index)

    def _open(self, name: str, schema: pa.Schema):
        try:
            return self._db.open_table(name)
        except (ValueError, FileNotFoundError):
            try:
                return self._db.create_table(name, schema=schema)
            except (ValueError, OSError):  # created by another process meanwhile
                return self._db.open_table(name)

    # -- manifest ---------------------------------------------------------------------
    @_mapped("read the manifest of")
    def read_manifest(self) -> dict[str, Any] | None:
        path = self.dir / MANIFEST
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text())
        except ValueError as exc:
            raise StoreError(f"{path} is corrupt ({exc}); run `docshelf index --force` to rebuild") from exc

    @_mapped("write the manifest of")
    def write_manifest(self, manifest: dict[str, Any]) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".manifest-")
        with os.fdopen(fd, "w") as f:
            json.dump(manifest, f, indent=2, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.dir / MANIFEST)

    # -- writes -----------------------------------------------------------------------
    def _chunk_rows(self, chunks: Sequence[Chunk], vectors: np.ndarray) -> list[dict[str, Any]]:
        if len(chunks) != len(vectors):
            raise StoreError(f"{len(chunks)} chunks but {len(vectors)} vectors")
        if len(vectors) and vectors.shape[1] != self.dimensions:
            raise StoreError(f"vectors have {vectors.shape[1]} dimensions, the index has {self.dimensions}")
        rows = []
        for c, v in zip(chunks, vectors, strict=True):
            rows.append({
                "id": c.id, "root": c.root, "path": c.path, "collection": c.collection,
                "doc_type": c.doc_type, "title": c.title, "heading_path": list(c.heading_path),
                "chunk_index": c.chunk_index, "text": c.text, "embed_text": c.embed_text,
                "search_text": searchable_text(c.embed_text), "page": c.page,
                "start_line": c.start_line, "end_line": c.end_line,
                "tags": [t.lower() for t in c.tags], "date": c.date, "fields": field_tokens(c.metadata_json),
                "metadata_json": c.metadata_json, "overlap": c.overlap, "vector": v.astype(np.float32).tolist(),
            })
        return rows

    @staticmethod
    def _doc_row(r: DocumentRecord) -> dict[str, Any]:
        return {
            "key": _key(r.root, r.path), "root": r.root, "path": r.path, "sha256": r.sha256,
            "size": r.size, "mtime_ns": r.mtime_ns, "status": r.status, "collection": r.collection,
            "doc_type": r.doc_type, "title": r.title, "error": r.error, "chunk_count": r.chunk_count,
            "indexed_at": r.indexed_at, "format": r.format, "page_count": r.page_count,
            "tags": list(r.tags), "date": r.date, "aliases": list(r.aliases), "links": list(r.links),
            "includes": list(r.includes), "include_missing": list(r.include_missing),
        }

    @staticmethod
    def _docs_predicate(keys: Sequence[tuple[str, str]]) -> str:
        by_root: dict[str, list[str]] = {}
        for root, path in keys:
            by_root.setdefault(root, []).append(path)
        return " OR ".join(
            f"(root = {quote(root)} AND path IN ({', '.join(quote(p) for p in paths)}))"
            for root, paths in by_root.items()
        )

    @_mapped("write chunks to")
    def replace_documents(self, items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]) -> None:
        """One commit for the whole batch: upsert the new chunks by id and delete every other
        chunk of these documents. A crash before it leaves the old versions, after it the new;
        a re-run after a crash between this and the records write is idempotent (same ids)."""
        if not items:
            return
        with self._orphan_free_write():
            self._replace_documents(items)

    def _replace_documents(self, items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]) -> None:
        rows: list[dict[str, Any]] = []
        for _, chunks, vectors in items:
            rows.extend(self._chunk_rows(chunks, vectors))
        predicate = self._docs_predicate([(record.root, record.path) for record, _, _ in items])
        crash_point("chunk_write")
        if rows:
            (
                self._chunks.merge_insert("id")
                .when_matched_update_all()
                .when_not_matched_insert_all()
                .when_not_matched_by_source_delete(predicate)
                .execute(pa.Table.from_pylist(rows, schema=_chunk_schema(self.dimensions)))
            )
        else:
            self._chunks.delete(predicate)
        if not self._fts_ready:  # the writer builds the full-text index; a search never does
            self._ensure_fts()
        crash_point("record_write")
        self.put_records([record for record, _, _ in items])

    @_mapped("write document records to")
    def put_records(self, records: Sequence[DocumentRecord]) -> None:
        if not records:
            return
        table = pa.Table.from_pylist([self._doc_row(r) for r in records], schema=_DOC_SCHEMA)
        self.upgrade_records()
        with self._orphan_free_write():  # a record write never leaves chunks without a record
            self._docs.merge_insert("key").when_matched_update_all().when_not_matched_insert_all().execute(table)

    @_mapped("upgrade the document records of")
    def upgrade_records(self) -> None:
        """Bring a records table made by an older docshelf up to date (the indexer calls this as
        the writer, before it plans a run; every record write checks too): add the columns added
        since, and fill ``includes`` / ``include_missing`` from each page's chunk metadata, where
        its parser has always listed them, so the first run already re-parses the pages whose
        included files changed."""
        if self._doc_columns_checked is self._docs:
            return
        names = set(self._docs.schema.names)
        missing = [_DOC_SCHEMA.field(name) for name in _ADDED_DOC_COLUMNS if name not in names]
        if missing:
            log.info("adding %s to the document records of %s", ", ".join(f.name for f in missing), self.dir)
            with self._orphan_free_write():
                self._docs.add_columns(missing)
                self._fill_includes()
        self._doc_columns_checked = self._docs

    def _fill_includes(self) -> None:
        """Copy each page's included paths from its first chunk's metadata into its record."""
        found = (
            self._chunks.search()
            .where("chunk_index = 0 AND (metadata_json LIKE '%\"includes\"%' OR metadata_json LIKE '%\"include_missing\"%')")
            .select(["root", "path", "metadata_json"]).limit(max(1, self._chunks.count_rows())).to_arrow().to_pylist()
        )
        paths = {}
        for row in found:
            lists = include_lists(row["path"], row["metadata_json"])
            paths[_key(row["root"], row["path"])] = tuple(lists[name] for name in _ADDED_DOC_COLUMNS)
        rows = [r for r in self._docs.to_arrow().to_pylist() if r["key"] in paths]
        for r in rows:
            r["includes"], r["include_missing"] = paths[r["key"]]
        if rows:
            table = pa.Table.from_pylist(rows, schema=_DOC_SCHEMA)
            self._docs.merge_insert("key").when_matched_update_all().execute(table)

    @_mapped("delete documents from")
    def delete_documents(self, keys: Sequence[tuple[str, str]]) -> None:
        """Chunks first, then records: a crash between leaves a record without chunks, which
        the next run prunes (its file is gone) or re-indexes (its file is back)."""
        if not keys:
            return
        predicate = self._docs_predicate(keys)
        with self._orphan_free_write():
            self._chunks.delete(predicate)
            crash_point("prune")
            self._docs.delete(predicate)

    @_mapped("read")
    def orphan_documents(self) -> list[tuple[str, str]]:
        """(root, path) of documents that have chunks but no record (left by a crash).

        Free when nothing was written since a check found none, or when every write since
        completed (``_orphan_free_write``); otherwise both tables' keys are read.
        """
        versions = self._versions()
        if self._orphan_free_versions() == versions:
            return []
        orphans = self._scan_orphans()
        if not orphans:
            self._mark_orphan_free(versions)
        return orphans

    def _scan_orphans(self) -> list[tuple[str, str]]:
        rows = self._chunks.count_rows()
        if not rows:
            return []
        table = self._chunks.search().select(["root", "path"]).limit(rows).to_arrow()
        have = set(zip(table.column("root").to_pylist(), table.column("path").to_pylist(), strict=True))
        docs = self._docs.search().select(["root", "path"]).limit(max(1, self._docs.count_rows())).to_arrow()
        known = set(zip(docs.column("root").to_pylist(), docs.column("path").to_pylist(), strict=True))
        return sorted(have - known)

    def _versions(self) -> list[int]:
        return [self._chunks.version, self._docs.version]

    def _orphan_free_versions(self) -> list[int] | None:
        """Read from disk every time: another process may have written (or reset) since."""
        try:
            return json.loads((self.dir / ORPHAN_FREE).read_text())["versions"]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _mark_orphan_free(self, versions: list[int]) -> None:
        try:  # no fsync: a lost mark costs one scan, never a wrong answer
            (self.dir / ORPHAN_FREE).write_text(json.dumps({"versions": versions}))
        except OSError as exc:
            log.debug("could not write %s: %s", ORPHAN_FREE, exc)

    @contextmanager
    def _orphan_free_write(self) -> Iterator[None]:
        """Around a write that leaves no orphans once it completes: if the tables held none
        before, they hold none after, so the mark moves to the new versions. An exception or a
        crash inside leaves the mark behind, and the next ``orphan_documents`` scans."""
        clean = self._orphan_free_versions() == self._versions()
        yield
        if clean:
            self._mark_orphan_free(self._versions())

    # -- reads ------------------------------------------------------------------------
    @_mapped("read document records from")
    def records(self) -> list[DocumentRecord]:
        """Every record in one read, converted column by column (a re-index reads all of them)."""
        return self._records_of(self._docs.to_arrow().to_pydict())

    @_mapped("read document records from")
    def failed_records(self) -> list[DocumentRecord]:
        """The records of files whose latest version failed to index (a search notes its hits from
        one: their text is the last version that indexed). One filtered scan (about 10 ms for 100,000
        records), remembered until the records table's next commit: a search asks every time."""
        identity = _folder_identity(self.dir / f"{DOCUMENTS}.lance" / "_versions")
        key = (self._docs.version, identity)  # a rebuilt table starts again at version 1
        memo = self._failed_memo
        if identity is not None and memo is not None and memo[0] == key:
            return list(memo[1])
        table = self._docs.search().where("status = 'failed'").limit(None).to_arrow()
        found = self._records_of(table.to_pydict())
        self._failed_memo = (key, tuple(found))
        return found

    @staticmethod
    def _records_of(cols: dict[str, list[Any]]) -> list[DocumentRecord]:
        n = len(cols["key"])
        none = [None] * n
        fields = zip(
            cols["root"], cols["path"], cols["sha256"], cols["size"], cols["mtime_ns"], cols["status"],
            cols["collection"], cols["doc_type"], cols["title"], cols["error"], cols["chunk_count"],
            cols["indexed_at"], cols["format"], cols["page_count"], cols["tags"], cols["date"],
            cols.get("aliases", none), cols.get("links", none), cols.get("includes", none),
            cols.get("include_missing", none), strict=True,
        )
        return [
            DocumentRecord(
                root=root, path=path, sha256=sha256, size=size, mtime_ns=mtime_ns, status=status,
                collection=collection, doc_type=doc_type, title=title or "", error=error or "",
                chunk_count=chunk_count or 0, indexed_at=indexed_at or 0.0, format=fmt or "", page_count=page_count,
                tags=tuple(tags or ()), date=date, aliases=tuple(aliases or ()), links=tuple(links or ()),
                includes=tuple(includes or ()), include_missing=tuple(include_missing or ()),
            )
            for (root, path, sha256, size, mtime_ns, status, collection, doc_type, title, error, chunk_count,
                 indexed_at, fmt, page_count, tags, date, aliases, links, includes, include_missing) in fields
        ]

    # -- reads ------------------------------------------------------------------------
    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Pin the chunks table at its latest commit for this thread's reads until the block ends.

        A search reads several times (BM25, dense, score look-ups); pinned, all of them see
        the same commit, so a writer committing meanwhile never shows one document at two
        versions in one answer. Re-entrant; other threads keep reading the latest commit.
        """
        if getattr(self._pinned, "table", None) is not None:
            yield
            return
        self._pinned.key, table = self._snapshot_table()
        self._pinned.table = table
        try:
            yield
        finally:
            self._pinned.table = self._pinned.key = None

    def _snapshot_table(self) -> tuple[tuple, Any]:
        """(version key, a handle on the chunks table checked out at its latest commit), reused while no commit
        follows (opening a table per search cost several engine round trips). The commit log
        folder's identity is part of the key: a table dropped and rebuilt (``index --force``
        from another process) starts its versions again at 1 and could reach the cached one."""
        log_dir = self.dir / f"{CHUNKS}.lance" / "_versions"
        try:
            now = time.time_ns()
            identity = _folder_identity(log_dir)  # before the version (see _still_latest)
            cached = self._snapshot_cache
            if cached is not None and _still_latest(cached, identity):
                return cached[0], cached[1]
            checked = time.monotonic()
            version = self._chunks.version  # asks the engine for the latest commit
            key = (version, identity)
            if cached is not None and identity is not None and cached[0] == key:
                table = cached[1]
            else:
                table = self._db.open_table(CHUNKS)
                table.checkout(version)
        except Exception as exc:  # noqa: BLE001 - the boundary: lance errors become ours
            raise StoreError(f"could not open the index at {self.dir} for reading: {exc}") from exc
        quiet = identity is not None and now - identity[1] > QUIET_LOG_NS
        self._snapshot_cache = (key, table, checked if quiet else None)
        return key, table

    def content_version(self) -> str | None:
        """Names what the chunks table holds now: its latest commit and its commit log's
        identity (a rebuilt table starts again at version 1). Caches keyed by it
        (``search/calibration_memo.py``, ``typos.ProbeMemo``) stop matching at the next write.
        Inside ``snapshot()``: the pinned commit, what this thread reads (no engine call)."""
        pinned = getattr(self._pinned, "key", None)
        if pinned is not None:
            version, identity = pinned
            return None if identity is None else f"{version}:{identity[0]}:{identity[1]}"
        try:
            version = self._chunks.version
        except Exception:  # noqa: BLE001 - no version, no cache
            return None
        identity = _folder_identity(self.dir / f"{CHUNKS}.lance" / "_versions")
        return None if identity is None else f"{version}:{identity[0]}:{identity[1]}"

    def _reader(self):
        """The table reads go to: this thread's snapshot when one is open, else the live table.
        (Not ``pinned or self._chunks``: a table's truth value is its ``len``, one engine round
        trip counting its rows, which every search paid once per query before.)"""
        pinned = getattr(self._pinned, "table", None)
        return self._chunks if pinned is None else pinned

    @_mapped("search")
    def vector_search(self, vector: np.ndarray, k: int, filters: SearchFilters | None = None) -> list[tuple[Chunk, float]]:
        return self._vector_rows(vector, k, filters, _CHUNK_COLUMNS)

    @_mapped("search")
    def vector_hits(self, vector: np.ndarray, k: int, filters: SearchFilters | None = None) -> list[tuple[Chunk, float]]:
        """``vector_search`` without the columns a hit never shows (``engine.LeanSearch``)."""
        return self._vector_rows(vector, k, filters, HIT_COLUMNS)

    @_mapped("search")
    def vector_window(
        self, vector: np.ndarray, k: int, want: int, filters: SearchFilters | None = None
    ) -> tuple[list[tuple[Chunk, float]], bool]:
        """The first rows (about ``want``) of ``vector_hits(vector, k)``, exactly as it lists
        them, and whether they are all of them (``engine.WindowSearch``)."""
        return self._vector_rows(vector, k, filters, HIT_COLUMNS, want)

    def _vector_rows(self, vector: np.ndarray, k: int, filters: SearchFilters | None, columns: list[str],
                     want: int | None = None):
        reader = self._reader()
        settings = self.vector_query_settings(reader, k)
        limit = k + TIE_SLACK if want is None else window_limit(k, want, "refine_factor" in settings)
        if "refine_factor" in settings:  # re-rank the whole query's candidates (see window_limit)
            settings = settings | {"refine_factor": settings["refine_factor"] * (k + TIE_SLACK) // limit}
        q = with_settings(
            reader._table.query().nearest_to(np.asarray(vector, dtype=np.float32)).column("vector")
            .distance_type("cosine"), settings
        )
        where = to_sql(filters)
        if where:
            q = q.where(where)  # a prefilter: evaluated before top-k
        table = self._fetch(q.select(columns + ["_distance"]).limit(limit))
        found, complete = settled_rows(table, limit, k, "_distance") if want is not None else (
            top_rows(table, k, "_distance"), True)
        rows = list(zip(chunks_of(found), (1.0 - float(d) for d in found.column("_distance").to_pylist()), strict=True))
        return rows if want is None else (rows, complete)

    @_mapped("search")
    def text_search(
        self, query: str, k: int, filters: SearchFilters | None = None, fuzziness: int | None = 0
    ) -> list[tuple[Chunk, float]]:
        """BM25 over ``search_text``; ``fuzziness=None`` matches each term within an edit distance
        that grows with its length (exact matches count double), N applies N to every term."""
        return self._text_rows(query, k, filters, fuzziness, _CHUNK_COLUMNS)

    @_mapped("search")
    def text_hits(self, query: str, k: int, filters: SearchFilters | None = None) -> list[tuple[Chunk, float]]:
        """``text_search`` (exact terms) without the columns a hit never shows (``engine.LeanSearch``)."""
        return self._text_rows(query, k, filters, 0, HIT_COLUMNS)

    @_mapped("search")
    def text_window(
        self, query: str, k: int, want: int, filters: SearchFilters | None = None
    ) -> tuple[list[tuple[Chunk, float]], bool]:
        """The first rows (about ``want``) of ``text_hits(query, k)``, exactly as it lists them,
        and whether they are all of them (``engine.WindowSearch``)."""
        return self._text_rows(query, k, filters, 0, HIT_COLUMNS, want)

    def _text_rows(self, query: str, k: int, filters: SearchFilters | None, fuzziness: int | None, columns: list[str],
                   want: int | None = None):
        from lancedb.query import MatchQuery

        if not query.strip():
            return [] if want is None else ([], True)
        fts = MatchQuery(query, "search_text") if fuzziness == 0 else fuzzy_query(query, fuzziness)
        if fts is None:
            return [] if want is None else ([], True)
        q = self._reader()._table.query().nearest_to_text(fts)
        where = to_sql(filters)
        if where:
            q = q.where(where)  # a prefilter: evaluated before top-k
        limit = k + TIE_SLACK if want is None else window_limit(k, want, refined=False)
        table = self._fetch(q.select(columns + ["_score"]).limit(limit))
        found, complete = settled_rows(table, limit, k, "_score") if want is not None else (top_rows(table, k, "_score"), True)
        rows = list(zip(chunks_of(found), map(float, found.column("_score").to_pylist()), strict=True))
        return rows if want is None else (rows, complete)

    # Scoring known candidates (hybrid search fills in the score the other retriever missed).
    @_mapped("search")
    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        """Cosine similarity of ``vector`` to each of these chunks (exact, whatever the index)."""
        if not ids:
            return {}
        q = (
            self._reader().search(np.asarray(vector, dtype=np.float32), vector_column_name="vector")
            .distance_type("cosine")
            .where(f"id IN ({', '.join(quote(i) for i in ids)})", prefilter=True)
            .bypass_vector_index()
        )
        rows = self._run(q.select(["id", "_distance"]).limit(len(ids)))
        return {r["id"]: 1.0 - float(r["_distance"]) for r in rows}

    @_mapped("search")
    def text_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """BM25 of ``query`` for each of these chunks that holds a query term (others score 0)."""
        return self._text_scores(self._reader(), query, ids)

    def _text_scores(self, table, query: str, ids: Sequence[str]) -> dict[str, float]:
        from lancedb.query import MatchQuery

        if not ids or not query.strip():
            return {}
        q = table.search(MatchQuery(query, "search_text"), query_type="fts").where(
            f"id IN ({', '.join(quote(i) for i in ids)})", prefilter=True
        )
        rows = self._run(q.select(["id", "_score"]).limit(len(ids)))
        return {r["id"]: float(r["_score"]) for r in rows}

    @_mapped("search")
    def candidate_pool(
        self, text: str, vector: Callable[[], np.ndarray], k: int, filters: SearchFilters | None = None
    ) -> tuple[list[tuple[Chunk, float]], list[tuple[Chunk, float]], dict[str, float], dict[str, float]]:
        """Hybrid search's candidates: BM25's top ``k`` (raw BM25), the vector index's top ``k``
        (cosine), and for every candidate of either list its exact cosine and its BM25 (only
        those holding a query term), all from this thread's snapshot.

        ``vector()`` (the query embedding) runs first, then four engine queries in two rounds
        in one hand-over to the engine's event loop (the sync API costs several loop round trips
        per query; each hand-over wakes the loop's thread, and the caller then waits for the GIL:
        ~3-4 ms of wall per hand-over at load 10). Round one, at once: BM25 and the vector query,
        both returning row ids and scores only. Round two, at once: every candidate's columns and
        vector in one ``take`` by row id (made into Chunks column by column; the exact cosines
        come from those vectors), and BM25 of the dense candidates BM25's query did not return,
        restricted to their row ids (``lance_queries.pool_rounds``).
        """
        from lancedb.background_loop import LOOP

        reader = self._reader()
        table = reader._table  # the engine's async handle (lancedb is pinned to 0.40.x)
        settings = self.vector_query_settings(reader, k)
        where = to_sql(filters)
        qv = np.asarray(vector(), dtype=np.float32)
        try:
            lexical, dense, rows, bm25 = LOOP.run(pool_rounds(table, text, qv, k, where, _CHUNK_COLUMNS, settings))
        except DocshelfError:
            raise
        except Exception as exc:  # noqa: BLE001 - mapped like every other query
            _raise_query_error(self.dir, exc)
        if rows is None:
            return [], [], {}, {}
        chunks = dict(zip(rows.column("_rowid").to_pylist(), chunks_of(rows), strict=True))
        at = {r: i for i, r in enumerate(chunks)}
        vectors = matrix(rows.column("vector"), self.dimensions)
        cos: dict[str, float] = {}
        for found in (lexical, dense):  # each list's cosines as one product, in its order (the same floats as before)
            if found:
                sims = cosines(vectors[[at[r] for r, _ in found]], qv)
                cos.update(zip((chunks[r].id for r, _ in found), sims.tolist(), strict=True))
        lexical_hits = [(chunks[r], float(s)) for r, s in lexical]
        dense_hits = [(chunks[r], cos[chunks[r].id]) for r, _ in dense]
        # BM25 of the dense-only candidates that hold a query term, best first (equal scores
        # by ``tie_key``: the engine lists them in no fixed order), then BM25's own top k
        top = {r for r, _ in lexical}
        dense_only = sorted((r for r, _ in dense if r not in top and r in bm25),
                            key=lambda r: (-bm25[r], tie_key(chunks[r].path, chunks[r].chunk_index, chunks[r].id)))
        scores = {chunks[r].id: float(bm25[r]) for r in dense_only}
        scores |= {chunks[r].id: float(s) for r, s in lexical}
        return lexical_hits, dense_hits, cos, scores

    @_mapped("search")
    def probe_texts(self, probes: Sequence[tuple[str, int]], k: int) -> list[list[str]]:
        """Typo probes (``typos.ProbeSearch``): one edit-distance BM25 query per ``(text,
        fuzziness)``, all at once on the engine's loop, each returning its top ``k``'s ``embed_text``."""
        from lancedb.background_loop import LOOP

        if not probes:
            return []
        try:
            return LOOP.run(probe_texts(self._reader()._table, probes, k))
        except Exception as exc:  # noqa: BLE001 - mapped like every other query
            _raise_query_error(self.dir, exc)

    def _fetch(self, query) -> pa.Table:
        """Run an async-API query on the engine's loop: one round trip (the sync API's query
        builder makes several: schema look-ups, then the query)."""
        from lancedb.background_loop import LOOP

        try:
            return LOOP.run(arrow(query))
        except Exception as exc:  # noqa: BLE001 - lance raises plain RuntimeError/ValueError for bad predicates
            _raise_query_error(self.dir, exc)

    def _run(self, query) -> list[dict[str, Any]]:
        try:
            return query.to_list()
        except Exception as exc:  # noqa: BLE001 - lance raises plain RuntimeError/ValueError for bad predicates
            _raise_query_error(self.dir, exc)

    @_mapped("read chunks from")
    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        rows = self._reader().search().where(f"id IN ({', '.join(quote(i) for i in ids)})").select(_CHUNK_COLUMNS)
        found = {c.id: c for c in chunks_of(rows.limit(len(ids)).to_arrow())}
        return [found[i] for i in ids if i in found]

    @_mapped("read chunks from")
    def document_chunks(self, root: str, path: str) -> list[Chunk]:
        q = self._chunks.search().where(f"root = {quote(root)} AND path = {quote(path)}").select(_CHUNK_COLUMNS)
        return sorted(chunks_of(q.limit(1_000_000).to_arrow()), key=lambda c: c.chunk_index)

    @_mapped("read vectors from")
    def document_vectors(self, root: str, path: str) -> dict[str, np.ndarray]:
        q = self._chunks.search().where(f"root = {quote(root)} AND path = {quote(path)}").select(["embed_text", "vector"])
        return {r["embed_text"]: np.asarray(r["vector"], dtype=np.float32) for r in q.limit(1_000_000).to_list()}

    @_mapped("count the chunks of")
    def count_chunks(self) -> int:
        return self._chunks.count_rows()

    # -- maintenance ------------------------------------------------------------------
    def _has_fts(self) -> bool:
        try:
            return any(i.index_type == "FTS" for i in self._chunks.list_indices())
        except Exception:  # noqa: BLE001 - an unreadable index list just means "rebuild"
            return False

    def _ensure_fts(self) -> None:
        """Build the BM25 index once (writer only); later rows are searched unindexed until optimize()."""
        if self._fts_ready or self._has_fts():
            self._fts_ready = True
            return
        from lancedb.index import FTS

        try:
            self._chunks.create_index(
                "search_text",
                config=FTS(with_position=False, stem=True, remove_stop_words=True, ascii_folding=True),
                replace=True,
            )
        except Exception as exc:  # noqa: BLE001
            if not self._has_fts():
                raise StoreError(f"could not build the full-text index: {exc}") from exc
        self._fts_ready = True

    def _vector_indexes(self, table) -> list[str]:
        try:
            return [i.name for i in table.list_indices() if i.columns == ["vector"]]
        except Exception:  # noqa: BLE001 - an unreadable index list reads as none
            return []

    def has_vector_index(self) -> bool:
        return bool(self._vector_indexes(self._chunks))

    def vector_index(self, table=None) -> VectorIndex | None:
        """The vector index of ``table`` (default: the latest commit) as ``vector_index`` names it;
        None when there is none or it predates that naming (an IVF-HNSW-SQ index)."""
        names = self._vector_indexes(self._chunks if table is None else table)
        return VectorIndex.parse(names[0]) if names else None

    def vector_query_settings(self, table, k: int) -> dict[str, int]:
        """The vector query's nprobes/ef/refine for ``table``'s index: read once per pinned
        snapshot (a search's queries share it), per call on the live table."""
        memo = self._index_memo
        if memo is not None and memo[0] is table:
            index = memo[1]
        else:
            index = self.vector_index(table)
            if table is not self._chunks:
                self._index_memo = (table, index)
        return query_settings(index, k)

    def _build_vector_index(self) -> None:
        """(Re)build the vector index ``index_for`` picks for the table's size (the old one is
        dropped first: two vector indexes on one column are not allowed)."""
        rows = self.count_chunks()
        want = index_for(rows)
        log.info("building the vector index over %d chunks (%s)", rows, want.name)
        try:
            for name in self._vector_indexes(self._chunks):
                self._chunks.drop_index(name)
            self._chunks.create_index("vector", config=want.config(), replace=True, name=want.name)
        except Exception as exc:  # noqa: BLE001 - without it, search is exact and slower, not wrong
            log.warning("could not build the vector index (search stays exact): %s", exc)

    def scalar_indexes(self) -> list[str]:
        """Columns of the chunks table that have a scalar (filter) index."""
        try:
            return sorted(i.columns[0] for i in self._chunks.list_indices() if i.index_type in ("BTree", "Bitmap"))
        except Exception:  # noqa: BLE001 - an unreadable index list just means "rebuild"
            return []

    def _ensure_scalar_indexes(self) -> None:
        """Filter columns get scalar indexes, so a filter is an index look-up before top-k, not
        a scan: at 100k chunks a date-filtered hybrid search took 4x the unfiltered one without
        them, 0.9x with them (benchmarks/README.md). ``id`` serves the candidates' look-ups.
        Built once (seconds at 1M); ``optimize`` folds later rows into them."""
        from lancedb.index import Bitmap, BTree

        have = set(self.scalar_indexes())
        for column, config in SCALAR_INDEXES:
            if column in have:
                continue
            try:
                self._chunks.create_index(column, config=Bitmap() if config == "bitmap" else BTree(), replace=True)
            except Exception as exc:  # noqa: BLE001 - without it, filters scan: slower, not wrong
                log.warning("could not build the %s index on %s (filters on it scan): %s", config, column, exc)

    def writer_lock(self) -> FileWriterLock:
        """A lock file beside the tables (the OS frees it when the holder dies)."""
        return FileWriterLock(self.dir / WRITER_LOCK)

    @_mapped("refresh")
    def refresh(self) -> None:
        self._chunks.checkout_latest()
        self._docs.checkout_latest()

    @_mapped("optimize")
    def optimize(self) -> None:
        """Fold small commits together and bring indexes up to date (cheaper opens, faster reads)."""
        with self._orphan_free_write():  # compaction and index builds change no rows
            if self.count_chunks():
                self._ensure_fts()
            crash_point("compaction")
            rows = self.count_chunks()
            if rows >= self.vector_index_min_rows and needs_rebuild(self.vector_index(), rows):
                self._build_vector_index()
            if rows >= self.scalar_index_min_rows:
                self._ensure_scalar_indexes()
            for table in (self._chunks, self._docs):
                try:
                    table.optimize(cleanup_older_than=timedelta(minutes=10))
                except Exception as exc:  # noqa: BLE001 - a failed compaction loses nothing
                    log.warning("optimizing %s failed: %s", table.name, exc)

    @_mapped("reset")
    def reset(self) -> None:
        # Version numbers start again with the new tables: an old mark must not vouch for them.
        (self.dir / ORPHAN_FREE).unlink(missing_ok=True)
        for name in (CHUNKS, DOCUMENTS):
            try:
                self._db.drop_table(name)
            except (ValueError, FileNotFoundError):
                pass
        (self.dir / MANIFEST).unlink(missing_ok=True)
        self._chunks = self._open(CHUNKS, _chunk_schema(self.dimensions))
        self._docs = self._open(DOCUMENTS, _DOC_SCHEMA)
        self._fts_ready = False
        self._snapshot_cache = None


def _raise_query_error(index_dir: Path, exc: Exception) -> NoReturn:
    if isinstance(exc, OSError) or "LanceError(IO)" in str(exc):
        raise StoreError(f"could not search the index at {index_dir}: {exc}") from exc
    raise InvalidQuery(f"the index could not run this query: {exc}") from exc


QUIET_LOG_NS = 2_000_000_000
"""A commit log folder last changed this long before it was read (2 s, far above any file
system's timestamp step) changes its mtime at the next commit, whatever the clock's step."""
RECHECK_SECONDS = 5.0
"""Even so, the engine names the latest commit at least this often (a file system whose
folder times lag, e.g. a network mount, then shows a commit within seconds)."""


def _still_latest(cached: tuple[tuple, Any, float | None], identity: tuple[int, int] | None) -> bool:
    """Whether the cached snapshot is still the latest commit without asking the engine (a
    round trip on its loop per search, ~1-2 ms of a keyword search at 100k chunks): every
    commit adds a file to the commit log folder, so its (inode, mtime) changes, unless the
    commit lands in the same timestamp step as the one before it. So the folder's identity
    vouches for the version only when it was read already quiet (``QUIET_LOG_NS`` old when the
    engine was asked, and read before it): any later commit then moves its mtime."""
    (_, seen), _, checked = cached
    return (identity is not None and seen == identity and checked is not None
            and time.monotonic() - checked < RECHECK_SECONDS)


def _folder_identity(folder: Path) -> tuple[int, int] | None:
    """(inode, mtime) of a folder: changes when a file is added to it, or it is made anew."""
    try:
        st = folder.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns
