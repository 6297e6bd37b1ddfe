"""PostgreSQL + pgvector store (``store = "postgresql://…"``; extra ``docshelf[postgres]``).

Tables (prefix ``docshelf_`` by default, ``?prefix=name_`` in the URL for several indexes in
one database): ``chunks`` (one row a chunk: the filter fields in their own indexed columns,
an HNSW index on the vector, a ``tsvector`` with a GIN index for keyword matching, term
frequencies for BM25), ``postings`` (one index entry a term and chunk: term frequency and
chunk length), ``documents`` (records as JSONB), ``terms`` (document frequency of every index
term, trigram-indexed for fuzzy mode), ``stats`` (chunk and term totals) and ``meta`` (the
manifest and the store schema version). ``postings``, ``terms`` and ``stats`` are kept by the
writer, in the transaction that writes the chunks (``pg_stats``; no triggers, so it runs on Citus).

Keyword search (BM25 in SQL, pruned over the postings) is ``pg_keyword.py``.
Every filter is a parameterised predicate in the same query as the ranking (before top-k);
filtered vector queries use ``hnsw.iterative_scan`` and fall back to an exact scan when the
index still returns fewer than k rows. A document's replacement is one transaction; a read is
one ``REPEATABLE READ`` transaction, so a search sees its statistics and chunks of one moment.
Per-query settings are ``SET LOCAL`` (``pg_sql.set_local``), which Citus passes to its workers.
Reads may go to a replica (``store_read_url``); one writer per index is a session advisory
lock, released by the server when the writer's connection ends.
"""

from __future__ import annotations

import json
import logging
import re
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import numpy as np

from ..analysis import searchable_text
from ..errors import ConfigError, IndexLocked, InvalidQuery, StoreError
from ..models import Chunk, DocumentRecord, SearchFilters
from . import lexical, pg_copy, pg_index, pg_stats
from .pg_keyword import KeywordSearch
from .pg_schema import TRIGGER_FUNCTIONS
from .pg_schema import migrations as _migrations
from .pg_sql import COLS as _COLS
from .pg_sql import filter_sql, set_local, to_chunk
from .pg_sql import vector_literal as _vector_text
from .locks import CountingLock
from .records import doc_key, field_tokens, from_dict, to_dict
from .ties import TIE_SLACK

log = logging.getLogger(__name__)

STORE_SCHEMA = 5  # bump with a new step in pg_schema.migrations
INDEX_TTL_S = 30.0  # how long a reader trusts its view of the vector index (kind, lists) and the row count
_PREFIX = re.compile(r"^[a-z_][a-z0-9_]{0,30}$")
_CHUNK_COLUMNS = (
    "id, doc_key, root, path, collection, doc_type, title, heading_path, chunk_index, text, embed_text, "
    "page, start_line, end_line, tags, date, fields, metadata, overlap, tsv, tf, tlen, embedding"
)


_OWN_PARAMS = ("prefix", "vector_index")  # docshelf's own URL parameters; the rest are libpq's


def parse_url(url: str) -> tuple[str, str]:
    """The libpq URL without docshelf's own parameters (``prefix``, ``vector_index``), and the prefix."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((v for k, v in query if k == "prefix"), "docshelf_")
    if not _PREFIX.match(prefix):
        raise ConfigError(f"table prefix {prefix!r} must be lower-case letters, digits and '_' (at most 31)")
    rest = urlencode([(k, v) for k, v in query if k not in _OWN_PARAMS])
    libpq = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, parts.fragment))
    try:  # checked here: the pool would retry a malformed URL for its whole timeout
        from psycopg.conninfo import conninfo_to_dict

        conninfo_to_dict(libpq)
    except ImportError:
        pass
    except Exception as exc:  # psycopg.ProgrammingError: an unknown parameter, a bad port…
        raise ConfigError(f"invalid PostgreSQL URL {_redact(libpq)}: {exc}") from exc
    return libpq, prefix


def vector_index_method(url: str) -> str:
    """``vector_index=`` of the store URL (``pg_index.METHODS``; ``auto`` when absent)."""
    method = dict(parse_qsl(urlsplit(url).query)).get("vector_index", "auto")
    if method not in pg_index.METHODS:
        raise ConfigError(f"vector_index must be auto, hnsw or ivfflat (the store URL says {method!r})")
    return method


class PostgresStore(KeywordSearch):
    name = "postgres"

    def __init__(self, url: str, dimensions: int, *, read_url: str | None = None, pool_size: int = 4) -> None:
        try:
            import psycopg  # noqa: F401
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise ConfigError("the PostgreSQL store needs `pip install 'docshelf[postgres]'`") from exc
        self.url, self.prefix = parse_url(url)
        self.vector_index_method = vector_index_method(url)
        self.dimensions = dimensions
        self._pool = self._open_pool(ConnectionPool, self.url, pool_size)
        self._read_pool = self._pool
        if read_url:
            read, _ = parse_url(read_url)
            self._read_pool = self._open_pool(ConnectionPool, read, pool_size)
        self._index_seen: tuple[float, pg_index.PgVectorIndex | None, int] | None = None
        self._writer: CountingLock | None = None
        self._lock_state: dict[str, Any] = {}  # the writer lock's connection ("conn")
        self._migrate()

    @staticmethod
    def _open_pool(cls, conninfo: str, size: int):
        # One plain connection first: a refused or misspelt server fails at once with its reason.
        # The pool alone retried for 30 s, logging each try, and then said only "incomplete after 30 sec".
        import psycopg

        try:
            psycopg.connect(conninfo, connect_timeout=10).close()
        except psycopg.Error as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise StoreError(f"cannot connect to PostgreSQL at {_redact(conninfo)}: {reason}") from None
        pool = cls(conninfo, min_size=1, max_size=size, open=False, timeout=30)
        try:
            pool.open(wait=True, timeout=30)
        except Exception as exc:  # psycopg_pool.PoolTimeout, OperationalError
            pool.close()
            raise StoreError(f"cannot connect to PostgreSQL at {_redact(conninfo)}: {exc}") from exc
        return pool

    def close(self) -> None:
        self._pool.close()
        if self._read_pool is not self._pool:
            self._read_pool.close()

    # -- connections ----------------------------------------------------------------------
    @contextmanager
    def _write(self) -> Iterator[Any]:
        """One transaction on the primary (committed on exit, rolled back on error). While this
        store holds the writer lock, on the lock's own session: the advisory lock ends with that
        session (a restart or failover, an idle connection cut), another server may then take
        it, and this one's writes must fail rather than go on beside the new writer's."""
        import psycopg

        session = self._lock_session()
        try:
            if session is None:
                with self._pool.connection() as conn:
                    conn.isolation_level = None  # the server's default (READ COMMITTED)
                    with conn.transaction(), conn.cursor() as cur:
                        yield cur
            else:
                with session.transaction(), session.cursor() as cur:
                    yield cur
        except psycopg.Error as exc:
            if session is not None and (session.closed or session.broken):
                raise IndexLocked(
                    "this process lost the writer lock (its PostgreSQL session ended); another docshelf server "
                    "may be writing now, so nothing more is written here (this server rejoins as a reader)"
                ) from exc
            raise StoreError(f"PostgreSQL write failed: {exc}") from exc

    def _lock_session(self) -> Any:
        """The writer lock's connection while this store holds the lock (None otherwise)."""
        if self._writer is None or not self._writer.held:
            return None
        return self._lock_state.get("conn")

    @contextmanager
    def _read(self) -> Iterator[Any]:
        """One read transaction: on the replica (``store_read_url``), except while this store
        holds the writer lock: the writer plans each run from what it last wrote, which a
        replica may not have yet. ``REPEATABLE READ``: a keyword search reads the statistics,
        then the postings, then the chunks, and a write committed in between must not give it
        the new chunks with the old statistics (one snapshot for the whole search)."""
        import psycopg

        writing = self._writer is not None and self._writer.held
        pool = self._pool if writing else self._read_pool
        try:
            with pool.connection() as conn:
                conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
                with conn.transaction(), conn.cursor() as cur:
                    yield cur
        except psycopg.errors.InvalidRegularExpression as exc:
            raise InvalidQuery(f"the index could not run this query: {exc}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL read failed: {exc}") from exc

    def _t(self, name: str) -> str:
        return f"{self.prefix}{name}"

    # -- schema ---------------------------------------------------------------------------
    def _schema_version(self) -> int:
        """The store schema the tables are at (0: none yet), read without writing anything."""
        meta = self._t("meta")
        with self._write() as cur:
            cur.execute("SELECT to_regclass(%s) IS NOT NULL", (meta,))
            if not cur.fetchone()[0]:
                return 0
            cur.execute(f"SELECT value FROM {meta} WHERE key = 'store_schema'")
            row = cur.fetchone()
            return int(row[0]) if row else 0

    def _migrate(self) -> None:
        """Create or upgrade the tables, under a transaction-scoped advisory lock (one migrator).
        An index already at this schema is left alone: opening it runs no DDL (readers never write)."""
        if self._schema_version() == STORE_SCHEMA:
            return
        meta = self._t("meta")
        with self._write() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key("schema"),))
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
            cur.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            cur.execute(f"CREATE TABLE IF NOT EXISTS {meta} (key text PRIMARY KEY, value jsonb NOT NULL)")
            cur.execute(f"SELECT value FROM {meta} WHERE key = 'store_schema'")
            row = cur.fetchone()
            have = int(row[0]) if row else 0
            if have > STORE_SCHEMA:
                raise StoreError(
                    f"the PostgreSQL index uses store schema {have}, newer than this docshelf ({STORE_SCHEMA}); upgrade docshelf"
                )
            for step in _migrations(self.prefix, self.dimensions)[have:]:
                cur.execute(step)
            if have < STORE_SCHEMA:
                cur.execute(
                    f"INSERT INTO {meta} VALUES ('store_schema', %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                    (json.dumps(STORE_SCHEMA),),
                )

    def _lock_key(self, what: str) -> int:
        return zlib.crc32(f"docshelf:{self.prefix}:{what}".encode()) - 2**31

    # -- manifest ---------------------------------------------------------------------------
    def read_manifest(self) -> dict[str, Any] | None:
        with self._read() as cur:
            cur.execute(f"SELECT value FROM {self._t('meta')} WHERE key = 'manifest'")
            row = cur.fetchone()
        if row is None:
            return None
        return {**row[0], "store": {"backend": self.name, "schema": STORE_SCHEMA}}

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        value = {k: v for k, v in manifest.items() if k != "store"}
        with self._write() as cur:
            cur.execute(
                f"INSERT INTO {self._t('meta')} VALUES ('manifest', %s::jsonb) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (json.dumps(value),),
            )

    # -- writes ---------------------------------------------------------------------------
    @staticmethod
    def _chunk_row(c: Chunk, v: np.ndarray, tf: dict[str, int], length: int) -> bytes:
        """One row of ``_CHUNK_COLUMNS`` in binary COPY format (see ``pg_copy``)."""
        return pg_copy.row((
            pg_copy.text(c.id), pg_copy.text(doc_key(c.root, c.path)), pg_copy.text(c.root), pg_copy.text(c.path),
            pg_copy.text(c.collection), pg_copy.text(c.doc_type), pg_copy.text(c.title),
            pg_copy.text_array(list(c.heading_path)), pg_copy.int4(c.chunk_index), pg_copy.text(c.text),
            pg_copy.text(c.embed_text), pg_copy.int4(c.page), pg_copy.int4(c.start_line), pg_copy.int4(c.end_line),
            pg_copy.text_array([t.lower() for t in c.tags]), pg_copy.text(c.date),
            pg_copy.text_array(field_tokens(c.metadata_json)), pg_copy.jsonb(c.metadata_json or "{}"),
            pg_copy.int4(c.overlap), pg_copy.tsvector(tf), pg_copy.jsonb(json.dumps(tf)), pg_copy.int4(length),
            pg_copy.vector(v),
        ))

    def replace_documents(self, items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]) -> None:
        """Delete the documents' chunks and insert the new ones, records and keyword statistics
        included: one transaction (binary COPY for the chunks, ``pg_stats`` for the postings,
        terms and totals, one pipelined statement for the records). Into an empty table the
        HNSW index is dropped first and ``optimize`` builds it once over all rows (a bulk build
        is many times faster than inserting row by row; until then vector search scans exactly,
        so results stay right)."""
        if not items:
            return
        rows, added = [], pg_stats.Change()
        for _, chunks, vectors in items:
            if len(chunks) != len(vectors):
                raise StoreError(f"{len(chunks)} chunks but {len(vectors)} vectors")
            if len(vectors) and np.asarray(vectors).shape[1] != self.dimensions:
                raise StoreError(f"vectors have {np.asarray(vectors).shape[1]} dimensions, the index has {self.dimensions}")
            for c, v in zip(chunks, vectors, strict=True):
                tf, length = lexical.term_counts(searchable_text(c.embed_text))
                added.count(tf, length)
                rows.append(self._chunk_row(c, v, tf, length))
        keys = [doc_key(r.root, r.path) for r, _, _ in items]
        chunks_table = self._t("chunks")
        if rows:  # DDL in a transaction of its own: Citus restricts DDL beside multi-shard writes
            with self._write() as cur:
                cur.execute(f"SELECT EXISTS (SELECT 1 FROM {chunks_table})")
                if not cur.fetchone()[0]:
                    cur.execute(f"DROP INDEX IF EXISTS {self._t('chunks_embedding')}")
        with self._write() as cur:
            change = pg_stats.delete_chunks(cur, self._t, keys)
            if rows:
                with cur.copy(f"COPY {chunks_table} ({_CHUNK_COLUMNS}) FROM STDIN (FORMAT binary)") as copy:
                    copy.write(pg_copy.HEADER)
                    for start in range(0, len(rows), 256):
                        copy.write(b"".join(rows[start : start + 256]))
                    copy.write(pg_copy.TRAILER)
                pg_stats.add_postings(cur, self._t, keys)
            change += added
            pg_stats.apply(cur, self._t, change)
            self._put_records(cur, [r for r, _, _ in items])

    def _put_records(self, cur, records: Sequence[DocumentRecord]) -> None:
        cur.executemany(
            f"INSERT INTO {self._t('documents')} VALUES (%s, %s, %s, %s::jsonb) "
            "ON CONFLICT (doc_key) DO UPDATE SET record = EXCLUDED.record",
            [(doc_key(r.root, r.path), r.root, r.path, json.dumps(to_dict(r))) for r in records],
        )

    def put_records(self, records: Sequence[DocumentRecord]) -> None:
        if records:
            with self._write() as cur:
                self._put_records(cur, records)

    def delete_documents(self, keys: Sequence[tuple[str, str]]) -> None:
        if not keys:
            return
        wanted = [doc_key(root, path) for root, path in keys]
        with self._write() as cur:
            pg_stats.apply(cur, self._t, pg_stats.delete_chunks(cur, self._t, wanted))
            cur.execute(f"DELETE FROM {self._t('documents')} WHERE doc_key = ANY(%s)", (wanted,))

    def orphan_documents(self) -> list[tuple[str, str]]:
        """Chunks without a record. Both are written in one transaction, so none is expected;
        the check is one anti-join, kept so every backend honours the same promise."""
        with self._read() as cur:
            cur.execute(
                f"SELECT DISTINCT c.root, c.path FROM {self._t('chunks')} c WHERE NOT EXISTS "
                f"(SELECT 1 FROM {self._t('documents')} d WHERE d.doc_key = c.doc_key) ORDER BY 1, 2"
            )
            return [(row[0], row[1]) for row in cur.fetchall()]

    # -- reads ------------------------------------------------------------------------------
    def records(self) -> list[DocumentRecord]:
        with self._read() as cur:
            cur.execute(f"SELECT record FROM {self._t('documents')} ORDER BY root, path")
            return [from_dict(DocumentRecord, r[0]) for r in cur.fetchall()]

    def failed_records(self) -> list[DocumentRecord]:
        """Records of files whose latest version failed to index (see ``LanceDBStore.failed_records``)."""
        with self._read() as cur:
            cur.execute(f"SELECT record FROM {self._t('documents')} WHERE record->>'status' = 'failed'")
            return [from_dict(DocumentRecord, r[0]) for r in cur.fetchall()]

    def vector_search(self, vector: np.ndarray, k: int, filters: SearchFilters | None = None) -> list[tuple[Chunk, float]]:
        where, params = filter_sql(filters)
        sql = (
            f"WITH hits AS MATERIALIZED (SELECT {_COLS}, embedding <=> %s::vector AS distance "
            f"FROM {self._t('chunks')} c WHERE {where} ORDER BY distance LIMIT %s) "
            "SELECT * FROM hits ORDER BY distance, path, chunk_index, id LIMIT %s"  # equal distances: ties.py
        )
        args = [_vector_text(vector), *params, k + TIE_SLACK, k]
        index, size = self._vector_index()
        settings = pg_index.query_settings(index, size, k + TIE_SLACK)
        with self._read() as cur:
            set_local(cur, settings)
            cur.execute(sql, args)
            rows = cur.fetchall()
            if len(rows) < k and where != "TRUE":
                # A very selective filter can exhaust the iterative scan: scan the matches exactly.
                set_local(cur, {"enable_indexscan": "off"})
                cur.execute(sql, args)
                rows = cur.fetchall()
        return [(to_chunk(r), 1.0 - float(r[17])) for r in rows]

    # Scoring known candidates (hybrid search fills in the score the other retriever missed).
    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        if not ids:
            return {}
        with self._read() as cur:
            cur.execute(
                f"SELECT id, 1 - (embedding <=> %s::vector) FROM {self._t('chunks')} WHERE id = ANY(%s)",
                (_vector_text(vector), list(ids)),
            )
            return {i: float(s) for i, s in cur.fetchall()}

    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        with self._read() as cur:
            cur.execute(f"SELECT {_COLS} FROM {self._t('chunks')} c WHERE id = ANY(%s)", (list(ids),))
            found = {r[0]: to_chunk(r) for r in cur.fetchall()}
        return [found[i] for i in ids if i in found]

    def document_chunks(self, root: str, path: str) -> list[Chunk]:
        with self._read() as cur:
            cur.execute(
                f"SELECT {_COLS} FROM {self._t('chunks')} c WHERE doc_key = %s ORDER BY chunk_index", (doc_key(root, path),)
            )
            return [to_chunk(r) for r in cur.fetchall()]

    def document_vectors(self, root: str, path: str) -> dict[str, np.ndarray]:
        with self._read() as cur:
            cur.execute(
                f"SELECT embed_text, embedding::text FROM {self._t('chunks')} WHERE doc_key = %s", (doc_key(root, path),)
            )
            return {t: np.asarray(json.loads(v), dtype=np.float32) for t, v in cur.fetchall()}

    def count_chunks(self) -> int:
        with self._read() as cur:
            cur.execute(f"SELECT chunks FROM {self._t('stats')}")
            return int(cur.fetchone()[0])

    # -- maintenance ------------------------------------------------------------------------
    def writer_lock(self) -> CountingLock:
        """A session advisory lock on a connection of its own: the server frees it when the
        holder's connection ends (process exit, crash, network loss), so another server takes over.
        The holder writes through that connection (``_write``), so it cannot write past losing it."""
        import psycopg

        if self._writer is not None:  # one lock a store: its session is also the writer's connection
            return self._writer
        state = self._lock_state
        key = self._lock_key("writer")

        def take() -> bool:
            conn = state.get("conn")
            if conn is None or conn.closed:
                conn = state["conn"] = psycopg.connect(self.url, autocommit=True)
            if conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                return True
            conn.close()
            state.pop("conn", None)
            return False

        def give_back() -> None:
            conn = state.pop("conn", None)
            if conn is None or conn.closed:
                return
            try:
                # Released before this returns: a closed session frees its locks only once its
                # server process has exited, and a thread taking over at once found it still held.
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            except psycopg.Error:
                pass  # the session is gone already, and its locks with it
            finally:
                conn.close()

        def still_held() -> bool:  # the lock lives as long as its session does
            conn = state.get("conn")
            if conn is None or conn.closed:
                return False
            try:
                conn.execute("SELECT 1")
                return True
            except psycopg.Error:
                return False

        self._writer = CountingLock(take, give_back, still_held)
        return self._writer

    def refresh(self) -> None:
        """Nothing to do: every read sees the last committed writes."""

    def _vector_index(self, conn=None) -> tuple[pg_index.PgVectorIndex | None, int]:
        """The vector index there is and the table's rows, as read at most ``INDEX_TTL_S`` ago
        (they only change at a bulk load or ``optimize``; stale, a query is still answered);
        read now on ``conn`` when given (the writer's, on the primary: a replica may lag)."""
        now = time.monotonic()
        if conn is not None or self._index_seen is None or now - self._index_seen[0] > INDEX_TTL_S:
            sql, args = pg_index.DESCRIBE.format(stats=self._t("stats")), (self._t("chunks_embedding"),)
            with self._read() if conn is None else conn.cursor() as cur:
                method, options, rows = cur.execute(sql, args).fetchone()
            self._index_seen = (now, pg_index.PgVectorIndex.from_catalog(method, options), int(rows or 0))
        return self._index_seen[1], self._index_seen[2]

    def _ensure_vector_index(self, conn) -> None:
        """Build the index the table's size calls for (``pg_index``; the method ``vector_index=``
        in the URL names, if any) when it has none (a bulk load dropped it) or one for another
        size; searches use the old one until the swap."""
        index, rows = self._vector_index(conn)
        if not pg_index.needs_rebuild(index, rows, self.vector_index_method):
            return
        want = pg_index.index_for(rows, self.vector_index_method)
        pg_index.build(conn, want, self._t("chunks"), self._t("chunks_embedding"),
                       pg_index.build_memory_mb(conn, rows, self.dimensions))
        self._index_seen = None

    def optimize_due(self) -> bool:
        """Whether the vector index is missing or not the one ``optimize`` would build (the
        service then runs ``optimize`` even after a run that changed nothing)."""
        import psycopg

        try:
            with self._pool.connection() as conn:  # read now, on the primary (not the cached view)
                index, rows = self._vector_index(conn)
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL read failed: {exc}") from exc
        return rows > 0 and pg_index.needs_rebuild(index, rows, self.vector_index_method)

    def optimize(self) -> None:
        """Build the vector index for the table's size if a bulk load dropped it or the table
        outgrew it (``pg_index``), and refresh the planner's statistics."""
        import psycopg

        try:
            with self._pool.connection() as conn:
                conn.autocommit = True
                self._ensure_vector_index(conn)
                conn.execute(f"VACUUM (ANALYZE) {self._t('postings')}")  # index-only scans need the visibility map
                for table in ("chunks", "documents", "terms"):
                    conn.execute(f"ANALYZE {self._t(table)}")
                conn.autocommit = False
        except psycopg.Error as exc:
            log.warning("building the vector index or ANALYZE failed: %s", exc)

    def reset(self) -> None:
        """Drop every docshelf table of this prefix and create them again (``index --force``)."""
        with self._write() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key("schema"),))
            for table in ("chunks", "postings", "documents", "terms", "stats", "meta"):
                cur.execute(f"DROP TABLE IF EXISTS {self._t(table)} CASCADE")
            for function in TRIGGER_FUNCTIONS:  # an index from before store schema 5 has them
                cur.execute(f"DROP FUNCTION IF EXISTS {self._t(function)}() CASCADE")
        self._migrate()


def _redact(conninfo: str) -> str:
    from . import redact

    return redact(conninfo)


__all__ = ["PostgresStore", "filter_sql", "parse_url"]
