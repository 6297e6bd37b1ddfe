"""Qdrant store (``store = "qdrant://host:6333"`` or ``"qdrant+https://host"``; extra ``docshelf[qdrant]``).

Collections (``?collection=name`` in the URL, default ``docshelf``): ``name_chunks`` (a dense
cosine vector and a sparse ``bm25`` vector per chunk, payload indexes on every filter field),
``name_documents`` (records) and ``name_meta`` (the manifest and the writer lease).
Point ids are ``uuid5`` of the chunk id (or document key), so a retried upsert overwrites.

Keyword side: docshelf tokenises (``lexical.py``, the same analyser at index and query
time) and stores each chunk's BM25 term-frequency part as a sparse vector (term id = CRC32 of
the term; ``avgdl`` fixed when the index is created, re-fitted by ``optimize``, which knows the
true average from the chunk count and total length that every write keeps in the meta
collection, each chunk's length being in its payload); Qdrant's IDF
modifier multiplies in ``ln(1 + (N − df + 0.5)/(df + 0.5))`` at query time, so a sparse query
weighting each term by its count in the query returns BM25. Fuzzy mode expands query words
against the index's vocabulary (kept in the meta collection) with the same edit-distance rule
as the other stores.

Filters become Qdrant filter conditions inside the query (filterable HNSW, before top-k).
Qdrant has no regular expressions or string prefixes: ``path_glob`` and a ``path_prefix``
that is not a folder are expanded into the matching document paths first.
Replacing a document is upsert-then-delete (no multi-point transactions in Qdrant): a crash
in between leaves the new chunks plus some old ones until the next run re-indexes it (its
record is written last, so that run sees the document as changed).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import re
import threading
import time
import uuid
import warnings
import zlib
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np

from ..analysis import searchable_text
from ..errors import ConfigError, InvalidQuery, StoreError
from ..models import Chunk, DocumentRecord, SearchFilters
from . import lexical
from .filters import _FIELD_KEY, field_token, glob_to_regex
from .locks import CountingLock
from .qdrant_bm25 import BATCH, Bm25Totals
from .records import INCLUDE_FIELDS, doc_key, field_tokens, from_dict, include_lists, to_dict
from .ties import TIE_SLACK, best_k, tie_key

log = logging.getLogger(__name__)

NAMESPACE = uuid.UUID("6f1c1d2e-8a51-4c1e-9c55-2f6f1b7f9d10")
RETRIES = 4
LEASE_SECONDS = 30.0
RECORDS_SCHEMA = 1  # the document records' own version (meta point ``records``); 1: includes listed
_LOCAL: dict[str, Any] = {}  # local-mode clients by path: one per process (it locks its folder)
_LOCAL_GUARDS: dict[str, threading.RLock] = {}  # local mode is not thread-safe: one call at a time
_KEYWORD_FIELDS = ("doc_key", "collection", "doc_type", "path", "path_dirs", "tags", "fields")


def _close_local() -> None:
    """Close local-mode clients before the interpreter tears their modules down."""
    while _LOCAL:
        _, client = _LOCAL.popitem()
        try:
            client.close()
        except Exception:  # noqa: BLE001 - exiting anyway
            pass


def point_id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


def term_id(term: str) -> int:
    return zlib.crc32(term.encode())


def _date_num(date: str | None) -> int | None:
    if date and re.match(r"^\d{4}-\d{2}-\d{2}", date):
        return int(date[:10].replace("-", ""))
    return None


def _dirs(path: str) -> list[str]:
    """``a/b/c.md`` → ``["a/", "a/b/"]`` (folder prefixes, for prefix filters)."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]


def parse_url(url: str, api_key: str | None) -> tuple[dict[str, Any], str, dict[str, int]]:
    """Client arguments, collection name and cluster settings from a ``qdrant…://`` URL."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    name = query.pop("collection", "docshelf")
    if not re.match(r"^[A-Za-z0-9_-]{1,60}$", name):
        raise ConfigError(f"Qdrant collection name {name!r} may hold only letters, digits, '_' and '-'")
    cluster = {k: int(query.pop(k)) for k in ("shards", "replicas", "write_consistency") if k in query}
    scheme = parts.scheme.lower()
    if scheme == "qdrant+local":
        return {"path": parts.path}, name, cluster
    if scheme == "qdrant+memory":
        return {"location": ":memory:", "_key": parts.netloc or "default"}, name, cluster
    if scheme not in ("qdrant", "qdrant+http", "qdrant+https"):
        raise ConfigError(f"unknown Qdrant URL scheme {parts.scheme!r}; use qdrant:// or qdrant+https://")
    https = scheme == "qdrant+https"
    port = parts.port or (443 if https and not parts.port else 6333)
    args = {
        "host": parts.hostname, "port": port, "https": https, "timeout": int(query.pop("timeout", 30)),
        # the URL's own key first: `migrate --to` another cluster must not send this one's key
        "api_key": query.pop("api_key", None) or api_key or os.environ.get("QDRANT_API_KEY"),
        "prefer_grpc": query.pop("grpc", "") in ("1", "true"),
    }
    return args, name, cluster


class QdrantStore(Bm25Totals):
    name = "qdrant"

    def __init__(self, url: str, dimensions: int, *, api_key: str | None = None) -> None:
        try:
            from qdrant_client import QdrantClient, models
        except ImportError as exc:
            raise ConfigError("the Qdrant store needs `pip install 'docshelf[qdrant]'`") from exc
        from . import redact

        self.m = models
        self.dimensions = dimensions
        self.where = redact(url)  # errors name the server (without its key)
        args, self.base, self.cluster = parse_url(url, api_key)
        self.local = "path" in args or "_key" in args
        if self.local:
            key = args.pop("_key", None) or args["path"]
            if key not in _LOCAL:
                if not _LOCAL:
                    atexit.register(_close_local)
                _LOCAL[key] = QdrantClient(**args)
                _LOCAL_GUARDS[key] = threading.RLock()
            self.client = _LOCAL[key]
            self._guard: Any = _LOCAL_GUARDS[key]
        else:
            # An unreachable server fails the first call below with its reason; the client's
            # version check (a thread of its own) warned first, two more lines on stderr. A server
            # that answers with an incompatible version is still warned about.
            warnings.filterwarnings("ignore", message="Failed to obtain server version", category=UserWarning)
            self.client = QdrantClient(**args)
            self._guard = contextlib.nullcontext()
        self.chunks, self.docs, self.meta = f"{self.base}_chunks", f"{self.base}_documents", f"{self.base}_meta"
        self._vocab: tuple[float, set[str]] | None = None
        self._paths: tuple[float, list[str]] | None = None
        self._records_checked = False
        self._create()

    def close(self) -> None:
        if not self.local:
            self.client.close()

    # -- calls with retry -------------------------------------------------------------------
    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

        for attempt in range(RETRIES):
            try:
                with self._guard:
                    return fn()
            except UnexpectedResponse as exc:
                transient = exc.status_code in (429, 500, 502, 503, 504)
                if not transient or attempt == RETRIES - 1:
                    raise StoreError(f"Qdrant {what} failed at {self.where}: {exc}") from exc
            except (ResponseHandlingException, ConnectionError, TimeoutError) as exc:
                if attempt == RETRIES - 1:
                    raise StoreError(f"Qdrant {what} failed at {self.where}: {exc}") from exc
            except (ValueError, RuntimeError) as exc:  # local mode raises these
                raise StoreError(f"Qdrant {what} failed at {self.where}: {exc}") from exc
            time.sleep(0.2 * 2**attempt)
        raise AssertionError("unreachable")

    # -- schema -----------------------------------------------------------------------------
    def _create(self) -> None:
        m = self.m
        exists = {c.name for c in self._call("list collections", self.client.get_collections).collections}
        cluster = {
            "shard_number": self.cluster.get("shards"), "replication_factor": self.cluster.get("replicas"),
            "write_consistency_factor": self.cluster.get("write_consistency"),
        }
        if self.chunks not in exists:
            self._call("create collection", lambda: self.client.create_collection(
                self.chunks,
                vectors_config={"dense": m.VectorParams(size=self.dimensions, distance=m.Distance.COSINE)},
                sparse_vectors_config={"bm25": m.SparseVectorParams(modifier=m.Modifier.IDF)},
                **cluster,
            ))
            if not self.local:  # local mode has no payload indexes (it scans)
                for field in _KEYWORD_FIELDS:
                    self.client.create_payload_index(self.chunks, field, m.PayloadSchemaType.KEYWORD)
                self.client.create_payload_index(self.chunks, "date_num", m.PayloadSchemaType.INTEGER)
        for name in (self.docs, self.meta):
            if name not in exists:
                self._call("create collection", lambda n=name: self.client.create_collection(n, vectors_config={}, **cluster))
                if name == self.meta:
                    self._upsert(self.meta, [
                        m.PointStruct(id=point_id("writer"), vector={}, payload={"owner": "", "expires": 0.0}),
                        m.PointStruct(id=point_id("records"), vector={}, payload={"schema": RECORDS_SCHEMA}),
                        m.PointStruct(id=point_id("bm25"), vector={}, payload={"chunks": 0, "length": 0}),
                    ])

    def _upsert(self, collection: str, points: list[Any]) -> None:
        for i in range(0, len(points), BATCH):
            batch = points[i : i + BATCH]
            self._call("upsert", lambda b=batch: self.client.upsert(collection, b, wait=True))

    def _meta_get(self, key: str) -> dict[str, Any] | None:
        found = self._call("read", lambda: self.client.retrieve(self.meta, [point_id(key)], with_payload=True))
        return found[0].payload if found else None

    def _meta_put(self, key: str, payload: dict[str, Any]) -> None:
        self._upsert(self.meta, [self.m.PointStruct(id=point_id(key), vector={}, payload=payload)])

    # -- manifest ---------------------------------------------------------------------------
    def read_manifest(self) -> dict[str, Any] | None:
        found = self._meta_get("manifest")
        if not found:
            return None
        return {**json.loads(found["json"]), "store": {"backend": self.name, "collection": self.base}}

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self._meta_put("manifest", {"json": json.dumps({k: v for k, v in manifest.items() if k != "store"})})

    # -- writes -----------------------------------------------------------------------------
    def replace_documents(self, items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]) -> None:
        if not items:
            return
        m = self.m
        counted = []
        for _, chunks, vectors in items:
            if len(chunks) != len(vectors):
                raise StoreError(f"{len(chunks)} chunks but {len(vectors)} vectors")
            if len(vectors) and np.asarray(vectors).shape[1] != self.dimensions:
                raise StoreError(f"vectors have {np.asarray(vectors).shape[1]} dimensions, the index has {self.dimensions}")
            counted.extend((c, v, *lexical.term_counts(searchable_text(c.embed_text))) for c, v in zip(chunks, vectors, strict=True))
        lengths = [n for *_, n in counted]
        state = self._begin_counted_write()
        first = max(1.0, sum(lengths) / len(lengths)) if lengths and "avgdl" not in state else None
        avgdl = float(state.get("avgdl") or first or 1.0)
        keys = [doc_key(r.root, r.path) for r, _, _ in items]
        key_filter = m.Filter(must=[m.FieldCondition(key="doc_key", match=m.MatchAny(any=keys))])
        counting = "chunks" in state and not state.get("pending")
        gone = self._lengths_of(key_filter, [point_id(c.id) for c, *_ in counted]) if counting else {}
        points, vocab = [], set()
        for c, v, tf, length in counted:
            vocab.update(tf)
            payload = to_dict(c) | {
                "doc_key": doc_key(c.root, c.path), "tags": [t.lower() for t in c.tags], "tlen": length,
                "fields": field_tokens(c.metadata_json), "date_num": _date_num(c.date), "path_dirs": _dirs(c.path),
            }
            points.append(m.PointStruct(id=point_id(c.id), payload=payload, vector={
                "dense": np.asarray(v, dtype=np.float32).tolist(),
                "bm25": self._doc_sparse(tf, length, avgdl),
            }))
        self._upsert(self.chunks, points)
        stale = m.Filter(
            must=[m.FieldCondition(key="doc_key", match=m.MatchAny(any=keys))],
            must_not=[m.HasIdCondition(has_id=[p.id for p in points])] if points else [],
        )
        self._call("delete", lambda: self.client.delete(self.chunks, m.FilterSelector(filter=stale), wait=True))
        self._end_counted_write(state, gone, lengths, first)
        self._add_vocabulary(vocab)
        self.put_records([r for r, _, _ in items])

    def _doc_sparse(self, tf: dict[str, int], length: int, avgdl: float) -> Any:
        """A chunk's sparse vector: BM25's term-frequency part per term id."""
        ids = {term_id(t): lexical.tf_weight(n, length, avgdl) for t, n in tf.items()}
        return self.m.SparseVector(indices=list(ids), values=list(ids.values()))

    def _add_vocabulary(self, terms: set[str]) -> None:
        """Remember new index terms (for fuzzy expansion); a term is never removed, it just stops matching."""
        known = self._vocabulary()
        new = sorted(terms - known)
        if new:
            self._upsert(self.meta, [self.m.PointStruct(id=point_id("term:" + t), vector={}, payload={"term": t}) for t in new])
            known.update(new)

    def put_records(self, records: Sequence[DocumentRecord]) -> None:
        if not records:
            return
        self._upsert(self.docs, [
            self.m.PointStruct(id=point_id(doc_key(r.root, r.path)), vector={}, payload=to_dict(r)) for r in records
        ])
        self._paths = None

    def upgrade_records(self) -> None:
        """Bring records written by an older docshelf up to date (the indexer calls this as the
        writer, before it plans a run): fill ``includes`` / ``include_missing`` from each page's
        first chunk's metadata, where its parser has always listed them, so the first run already
        re-parses the pages whose included files changed (as LanceDB and PostgreSQL do)."""
        if self._records_checked:
            return
        if (self._meta_get("records") or {}).get("schema", 0) < RECORDS_SCHEMA:
            self._fill_includes()
            self._meta_put("records", {"schema": RECORDS_SCHEMA})
        self._records_checked = True

    def _fill_includes(self) -> None:
        m = self.m
        lacking = {p.id for p in self._scroll(self.docs) if not all(f in p.payload for f in INCLUDE_FIELDS)}
        if not lacking:
            return
        first = m.Filter(must=[m.FieldCondition(key="chunk_index", match=m.MatchValue(value=0))])
        filled = 0
        for chunk in self._scroll(self.chunks, first):
            pid = point_id(doc_key(chunk.payload["root"], chunk.payload["path"]))
            if pid in lacking:
                lists = include_lists(chunk.payload["path"], chunk.payload.get("metadata_json"))
                self._call("upgrade records", lambda p=pid, v=lists: self.client.set_payload(
                    self.docs, payload=v, points=[p], wait=True))
                filled += 1
        log.info("filled includes / include_missing of %d document records in %s", filled, self.docs)

    def delete_documents(self, keys: Sequence[tuple[str, str]]) -> None:
        if not keys:
            return
        m = self.m
        wanted = [doc_key(root, path) for root, path in keys]
        chunk_filter = m.Filter(must=[m.FieldCondition(key="doc_key", match=m.MatchAny(any=wanted))])
        state = self._begin_counted_write()
        gone = self._lengths_of(chunk_filter) if "chunks" in state and not state.get("pending") else {}
        self._call("delete", lambda: self.client.delete(self.chunks, m.FilterSelector(filter=chunk_filter), wait=True))
        self._end_counted_write(state, gone, [], None)
        ids = [point_id(k) for k in wanted]
        self._call("delete", lambda: self.client.delete(self.docs, m.PointIdsList(points=ids), wait=True))
        self._paths = None

    def orphan_documents(self) -> list[tuple[str, str]]:
        """Chunks without a record (chunks and records are two writes here: a crash between
        them leaves such chunks, and the indexer deletes them)."""
        have = {(p.payload["root"], p.payload["path"]) for p in self._scroll(self.chunks)}
        known = {(r.root, r.path) for r in self.records()}
        return sorted(have - known)

    # -- reads ------------------------------------------------------------------------------
    def _scroll(self, collection: str, flt: Any = None, vectors: Any = False, payload: Any = True) -> list[Any]:
        out, offset = [], None
        while True:
            page, offset = self._call("scroll", lambda o=offset: self.client.scroll(
                collection, scroll_filter=flt, limit=1024, offset=o, with_payload=payload, with_vectors=vectors,
            ))
            out.extend(page)
            if offset is None:
                return out

    def records(self) -> list[DocumentRecord]:
        return sorted((from_dict(DocumentRecord, p.payload) for p in self._scroll(self.docs)), key=lambda r: (r.root, r.path))

    def failed_records(self) -> list[DocumentRecord]:
        """Records of files whose latest version failed to index (see ``LanceDBStore.failed_records``)."""
        m = self.m
        failed = m.Filter(must=[m.FieldCondition(key="status", match=m.MatchValue(value="failed"))])
        return [from_dict(DocumentRecord, p.payload) for p in self._scroll(self.docs, failed)]

    def _all_paths(self) -> list[str]:
        if self._paths is None or time.monotonic() - self._paths[0] > 2.0:
            self._paths = (time.monotonic(), sorted({r.path for r in self.records()}))
        return self._paths[1]

    def _filter(self, f: SearchFilters | None, ids: Sequence[str] | None = None) -> Any:
        m = self.m
        must: list[Any] = []
        if ids is not None:
            must.append(m.HasIdCondition(has_id=[point_id(i) for i in ids]))
        if f is not None:
            def any_of(key: str, values: Sequence[str]) -> Any:
                return m.FieldCondition(key=key, match=m.MatchAny(any=list(values)))

            if f.collections:
                must.append(any_of("collection", f.collections))
            if f.doc_types:
                must.append(any_of("doc_type", f.doc_types))
            if f.date_from or f.date_to:
                lo, hi = _date_num(f.date_from), _date_num(f.date_to)
                if (f.date_from and lo is None) or (f.date_to and hi is None):
                    raise InvalidQuery("dates must be ISO dates (YYYY-MM-DD)")
                must.append(m.FieldCondition(key="date_num", range=m.Range(gte=lo, lte=hi)))
            if f.path_prefix:
                prefix = f.path_prefix.lstrip("/")
                if prefix.endswith("/"):
                    must.append(any_of("path_dirs", [prefix]))
                else:
                    must.append(any_of("path", [p for p in self._all_paths() if p.startswith(prefix)] or [""]))
            if f.path_glob:
                pattern = re.compile(glob_to_regex(f.path_glob))
                must.append(any_of("path", [p for p in self._all_paths() if pattern.match(p)] or [""]))
            if f.paths is not None:
                must.append(any_of("path", list(f.paths) or [""]))
            if f.tags_any:
                must.append(any_of("tags", [t.lower().lstrip("#") for t in f.tags_any]))
            for tag in f.tags_all:
                must.append(any_of("tags", [tag.lower().lstrip("#")]))
            for key, value in f.fields:
                if not _FIELD_KEY.match(key):
                    raise InvalidQuery(f"field name {key!r} may hold only letters, digits, '_', '.' and '-'")
                must.append(any_of("fields", [field_token(key, value)]))
        return m.Filter(must=must) if must else None

    def _query(self, query: Any, using: str, k: int, flt: Any, exact: bool = False) -> list[Any]:
        params = self.m.SearchParams(exact=True) if exact else None
        points = self._call("search", lambda: self.client.query_points(
            self.chunks, query=query, using=using, query_filter=flt, limit=k + TIE_SLACK, with_payload=True,
            search_params=params,
        ).points)
        return [points[i] for i in best_k([p.score for p in points], [
            tie_key(p.payload["path"], p.payload["chunk_index"], p.payload["id"]) for p in points], k)]

    def vector_search(self, vector: np.ndarray, k: int, filters: SearchFilters | None = None) -> list[tuple[Chunk, float]]:
        rows = self._query(np.asarray(vector, dtype=np.float32).tolist(), "dense", k, self._filter(filters))
        return [(from_dict(Chunk, p.payload), float(p.score)) for p in rows]

    def _sparse(self, weighted: dict[str, float]) -> Any:
        ids: dict[int, float] = {}
        for t, w in weighted.items():
            ids[term_id(t)] = max(ids.get(term_id(t), 0.0), w)
        return self.m.SparseVector(indices=list(ids), values=list(ids.values()))

    def text_search(
        self, query: str, k: int, filters: SearchFilters | None = None, fuzziness: int | None = 0
    ) -> list[tuple[Chunk, float]]:
        weighted = lexical.query_terms(query) if fuzziness == 0 else self._fuzzy_terms(query, fuzziness)
        if not weighted:
            return []
        rows = self._query(self._sparse(weighted), "bm25", k, self._filter(filters))
        return [(from_dict(Chunk, p.payload), float(p.score)) for p in rows if p.score > 0]

    def _vocabulary(self) -> set[str]:
        if self._vocab is None or time.monotonic() - self._vocab[0] > 30.0:
            terms = {p.payload["term"] for p in self._scroll(self.meta) if "term" in p.payload}
            self._vocab = (time.monotonic(), terms)
        return self._vocab[1]

    def _fuzzy_terms(self, query: str, fuzziness: int | None) -> dict[str, float]:
        vocab = self._vocabulary()

        def similar(word: str) -> list[str]:
            grams = lexical.trigrams(word)
            scored = [(len(grams & lexical.trigrams(t)) / len(grams | lexical.trigrams(t)), t)
                      for t in vocab if abs(len(t) - len(word)) <= 3]
            return [t for s, t in sorted(scored, key=lambda x: (-x[0], x[1]))[:60] if s >= 0.2]

        return lexical.fuzzy_terms(query, fuzziness, similar)

    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]:
        if not ids:
            return {}
        rows = self._query(np.asarray(vector, dtype=np.float32).tolist(), "dense", len(ids), self._filter(None, ids), exact=True)
        return {p.payload["id"]: float(p.score) for p in rows}

    def text_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        weighted = lexical.query_terms(query)
        if not ids or not weighted:
            return {}
        rows = self._query(self._sparse(weighted), "bm25", len(ids), self._filter(None, ids))
        return {p.payload["id"]: float(p.score) for p in rows if p.score > 0}

    def get_chunks(self, ids: Sequence[str]) -> list[Chunk]:
        if not ids:
            return []
        found = self._call("read", lambda: self.client.retrieve(self.chunks, [point_id(i) for i in ids], with_payload=True))
        by_id = {p.payload["id"]: from_dict(Chunk, p.payload) for p in found}
        return [by_id[i] for i in ids if i in by_id]

    def _document_points(self, root: str, path: str, vectors: Any = False) -> list[Any]:
        m = self.m
        flt = m.Filter(must=[m.FieldCondition(key="doc_key", match=m.MatchValue(value=doc_key(root, path)))])
        return self._scroll(self.chunks, flt, vectors)

    def document_chunks(self, root: str, path: str) -> list[Chunk]:
        return sorted((from_dict(Chunk, p.payload) for p in self._document_points(root, path)), key=lambda c: c.chunk_index)

    def document_vectors(self, root: str, path: str) -> dict[str, np.ndarray]:
        points = self._document_points(root, path, ["dense"])
        return {p.payload["embed_text"]: np.asarray(p.vector["dense"], dtype=np.float32) for p in points}

    def count_chunks(self) -> int:
        return int(self._call("count", lambda: self.client.count(self.chunks, exact=True).count))

    # -- maintenance ------------------------------------------------------------------------
    def writer_lock(self) -> CountingLock:
        """A lease on the ``writer`` point of the meta collection.

        Taking it is a conditional payload update (owner empty, expired, or us) followed by a
        read-back; Qdrant applies updates to a point one at a time, so one taker wins. The
        holder renews it every ``LEASE_SECONDS / 3`` from a thread; if the holder dies, the
        lease expires after ``LEASE_SECONDS`` and another server takes over. A holder stalled
        longer than that (no renewals) can lose the lease without noticing: Qdrant offers no
        fencing, so keep clocks in sync and the lease well above any pause."""
        m = self.m
        me = f"{os.uname().nodename}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        lock_id = point_id("writer")
        stop = threading.Event()

        def update(payload: dict[str, Any], *conditions: Any) -> None:
            flt = m.Filter(must=[m.HasIdCondition(has_id=[lock_id])], should=list(conditions))
            self._call("lock", lambda: self.client.set_payload(self.meta, payload=payload, points=flt, wait=True))

        def mine() -> Any:
            return m.FieldCondition(key="owner", match=m.MatchValue(value=me))

        def take() -> bool:
            update(
                {"owner": me, "expires": time.time() + LEASE_SECONDS},
                m.FieldCondition(key="owner", match=m.MatchValue(value="")),
                m.FieldCondition(key="expires", range=m.Range(lt=time.time())), mine(),
            )
            if (self._meta_get("writer") or {}).get("owner") != me:
                return False
            stop.clear()
            threading.Thread(target=renew, name="docshelf-qdrant-lease", daemon=True).start()
            return True

        def renew() -> None:
            while not stop.wait(LEASE_SECONDS / 3):
                try:
                    update({"expires": time.time() + LEASE_SECONDS}, mine())
                except StoreError as exc:
                    log.warning("renewing the writer lease failed: %s", exc)

        def give_back() -> None:
            stop.set()
            update({"owner": "", "expires": 0.0}, mine())

        def still_held() -> bool:  # a lease that ran out (renewals failed) may have a new owner
            try:
                return (self._meta_get("writer") or {}).get("owner") == me
            except StoreError:
                return False

        return CountingLock(take, give_back, still_held)

    def refresh(self) -> None:
        """Reads always see acknowledged writes; drop the caches of paths and vocabulary."""
        self._paths = None
        self._vocab = None

    def reset(self) -> None:
        for name in (self.chunks, self.docs, self.meta):
            self._call("delete collection", lambda n=name: self.client.delete_collection(n))
        self._vocab = self._paths = None
        self._create()


__all__ = ["QdrantStore", "parse_url", "point_id", "term_id"]
