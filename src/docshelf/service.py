"""``Docshelf``: the one object the CLI, the MCP server and the HTTP API all talk to.

It owns the wiring (settings → store, embedder, parsers, chunker, searcher), guards the
index's identity (the manifest) and makes sure only one process writes at a time.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from . import allocator
from .config import Settings
from .documents import (
    cut_columns, cut_lines, failed_file_note, heading_only, page_for_label, reassemble, resolve_note, section_depth,
    select, select_lines, select_section, source_lines,
)
from .errors import ConfigError, EmbedderMismatch, IndexLocked, IndexNotFound, InvalidRequest, NotFound, StoreError
from .models import Chunk, DocumentRecord, IndexReport, SearchResult, doc_id
from .protocols import Embedder, Store
from .requests import DocumentListRequest, DocumentRequest, SearchRequest, encode_cursor

log = logging.getLogger(__name__)

OPTIMIZE_SHARE = 0.05
"""An ``index`` run that changed at least this share of the documents compacts the store after
it; smaller runs leave that to the ``OPTIMIZE_EVERY_RUNS``-th (one edited file in 10k need not
pay a compaction of everything: its few rows are searched unindexed until then)."""
OPTIMIZE_EVERY_RUNS = 10
SCHEMA_VERSION = 3  # 2: document records carry frontmatter aliases; 3: and their outgoing wikilinks

UNREAD_DATES_SCAN = 200  # chunks a date-filtered search reads to count the documents it left out


@dataclass(frozen=True)
class CollectionInfo:
    name: str
    documents: int
    chunks: int
    doc_types: tuple[str, ...]


@dataclass(frozen=True)
class IndexStatus:
    index_dir: str
    model: str
    dimensions: int
    model_loaded: bool
    store: str
    roots: tuple[str, ...]
    documents: int
    chunks: int
    failed: dict[str, str]
    collections: tuple[CollectionInfo, ...]
    last_indexed_at: float | None
    extra: dict[str, Any] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)  # files not indexed on purpose → why


@dataclass(frozen=True)
class RootInfo:
    """A known root: ``configured`` ones come from the config file and are removed there."""

    path: str
    exists: bool
    documents: int
    failed: int
    configured: bool


@dataclass(frozen=True)
class DocumentText:
    """A document's text reassembled from its chunks, in order (optionally one range; a line
    range is the file's own lines, exactly, while the file is the indexed version)."""

    path: str
    root: str
    title: str
    collection: str
    doc_type: str
    text: str
    chunk_ids: tuple[str, ...]
    start_line: int | None
    end_line: int | None
    pages: tuple[int, ...]
    truncated: bool
    total_chunks: int
    # Set when a line range could not be served exactly (the file changed since indexing, or is
    # gone): what the text is instead. Empty when ``text`` is exactly what was asked for.
    note: str = ""

    @property
    def doc_id(self) -> str:
        return doc_id(self.root, self.path)


@dataclass(frozen=True)
class NoteText:
    """A note found by name (``Docshelf.get_note``): its record, text and frontmatter."""

    record: DocumentRecord
    text: str
    truncated: bool
    metadata: dict[str, Any]
    aliases: tuple[str, ...]
    links: tuple[Any, ...] = ()  # notes.ResolvedLink: each outgoing link and the note it resolves to
    backlinks: tuple[str, ...] = ()  # paths of the notes linking here


@dataclass(frozen=True)
class DocumentPage:
    """One page of ``list_documents``: the documents, how many match in all, and the next cursor."""

    documents: tuple[DocumentRecord, ...]
    total: int
    next_cursor: str | None


class Docshelf:
    def __init__(
        self,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        store: Store | None = None,
        rebuild: bool = False,
        create: bool = True,
    ) -> None:
        """``rebuild=True`` skips the manifest check: for ``index(force=True)``, which starts over.

        ``create=False`` is for readers (search, get, status…): they never create an index,
        and raise ``IndexNotFound`` saying how to make one when there is none yet.
        """
        from .embedders import embedder_from_settings
        from .search.calibration_memo import CalibrationMemo
        from .search.engine import SearchOptions, Searcher
        from .stores import index_exists, open_store

        self.settings = settings
        self.index_dir = Path(settings.index_dir).expanduser()
        if not create and store is None and not index_exists(self.index_dir, settings.store):
            raise IndexNotFound(
                f"no index at {self.index_dir} yet: run `docshelf index PATH` to make one "
                "(or point --index-dir at an existing index)"
            )
        self.embedder = embedder or embedder_from_settings(settings)
        self._unread_memo: dict[tuple[Any, str], str] = {}  # see _unread_dates_note
        self.store = store or open_store(
            self.index_dir, self.embedder.dimensions, settings.store,
            read_url=settings.store_read_url, api_key=settings.store_api_key,
        )
        if not rebuild:
            self._check_manifest()
        self.searcher = Searcher(
            self.store,
            self.embedder,
            SearchOptions(max_per_doc=settings.max_chunks_per_doc),
            semantic_ready=lambda: self.semantic_ready,
            reranker=_reranker(settings),
            calibration_memo=CalibrationMemo(self.index_dir, self.store, self.embedder.model_id, settings.query_prefix),
        )
        self.wait_for_model = True  # servers set False so a search never blocks on a model load
        self._lock = self.store.writer_lock()

    @functools.cached_property
    def chunker(self) -> Any:
        """Built on first use: a search never chunks, and the tokenizer it needs is then loaded
        by the model's thread of a cold ``docshelf search`` instead of its main thread."""
        from .pipeline.chunk import Chunker

        return Chunker(self.embedder.tokenizer, self.chunk_tokens, self.settings.chunk_overlap)

    @functools.cached_property
    def registry(self) -> Any:
        """The parsers, imported on first use: a search never needs them (a third of a cold CLI's imports)."""
        from .pipeline.parsers import default_registry

        return default_registry()

    @classmethod
    def from_settings(cls, settings: Settings) -> Docshelf:
        return cls(settings)

    @classmethod
    def plan(cls, settings: Settings, paths: Sequence[Path] | None = None, **options: Any) -> IndexReport:
        """What ``index(paths)`` would do (a dry run), creating nothing, even when there is no index yet."""
        import tempfile

        from .stores import index_exists

        if index_exists(Path(settings.index_dir).expanduser()):
            return cls(settings, create=False).index(paths, dry_run=True, **options)
        with tempfile.TemporaryDirectory(prefix="docshelf-plan-") as scratch:  # an empty index: all is new
            return cls(settings.model_copy(update={"index_dir": Path(scratch)})).index(paths, dry_run=True, **options)

    # -- identity -------------------------------------------------------------------------
    @property
    def chunk_tokens(self) -> int:
        return min(self.settings.chunk_tokens or self.embedder.max_tokens, self.embedder.max_tokens)

    def _identity(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "embedder": {
                "model_id": self.embedder.model_id,
                "dimensions": self.embedder.dimensions,
                "normalized": self.embedder.normalized,
                "max_tokens": self.embedder.max_tokens,
            },
            "chunker": {"max_tokens": self.chunk_tokens, "overlap": self.settings.chunk_overlap},
        }

    def _check_manifest(self) -> None:
        manifest = self.store.read_manifest()
        if manifest is None:
            return
        want = self._identity()
        for part in ("schema_version", "embedder", "chunker"):
            if manifest.get(part) != want[part]:
                raise EmbedderMismatch(self._mismatch_message(part, manifest.get(part), want[part]))

    def _mismatch_message(self, part: str, have: Any, want: Any) -> str:
        if part == "embedder" and isinstance(have, dict):
            what = f"model {have.get('model_id')} ({have.get('dimensions')}-d)"
            now = f"{want['model_id']} ({want['dimensions']}-d)"
        else:
            what, now = f"{part} {have}", f"{want}"
        return (
            f"the index at {self.location} was built with {what}, but this run uses {now}. "
            f"Re-index with `docshelf index --force` to rebuild it for the new settings, "
            f"or point --index-dir elsewhere, or go back to the settings it was built with."
        )

    @property
    def roots(self) -> list[Path]:
        manifest = self.store.read_manifest() or {}
        known = [Path(r) for r in manifest.get("roots", [])]
        for r in self.settings.roots:
            p = Path(r).expanduser().resolve()
            if p not in known:
                known.append(p)
        return known

    def live_roots(self, paths: Sequence[Path] = ()) -> list[Path]:
        """What a server or ``watch`` indexes and watches: the known roots and ``paths``, outermost only.

        A path inside another root's folder is part of that root (watched twice, its files
        would be indexed twice); ``index`` then folds it in, or takes an inner known root over.
        """
        roots = list(self.roots)
        for p in paths:
            resolved = Path(p).expanduser().resolve()
            if resolved not in roots:
                roots.append(resolved)
        return _outermost(roots)

    # -- writing ----------------------------------------------------------------------------
    @contextmanager
    def writer(self, timeout: float = 0) -> Iterator[None]:
        """Hold the index's writer lock (the store's): one writing process at a time, across
        processes and servers."""
        if not self._lock.acquire(timeout=timeout):
            running = self._servers_running()
            if running:  # a watch or a server: it keeps its folders up to date, so say who it is
                raise IndexLocked(
                    f"another docshelf process is writing the index at {self.location}: {running} holds it and "
                    "keeps its folders up to date itself; stop it first to run this command, or give it the folder "
                    "(`docshelf watch PATH`, `docshelf serve PATH`)"
                )
            raise IndexLocked(
                f"another docshelf process is writing the index at {self.location}; "
                "wait for it to finish (a running `docshelf serve` keeps it up to date itself)"
            )
        try:
            yield
        finally:
            self._lock.release()

    def _running_server_holding_lock(self) -> str:
        """The running ``watch`` or server(s) when the writer lock is held and one has announced
        itself ('docshelf watch (pid 4242)'): it indexes and watches the known roots, so a plain
        ``index`` of those has nothing to do, and anything else it refuses at once rather than
        after waiting for a lock a server keeps. '' when the lock is free or no server runs (a
        ``docshelf index`` run elsewhere holds it: the caller waits for it, then says so)."""
        if self._lock.acquire(timeout=0):
            self._lock.release()
            return ""
        return self._servers_running()

    def _servers_running(self) -> str:
        """The servers and watchers running on this index, as their announcements name them
        ('docshelf watch (pid 4242)'); '' when none has announced itself."""
        from .live.query_socket import announcements

        found = [f"docshelf {a.get('kind') or 'serve'} (pid {a['pid']})" for a in announcements(self.index_dir)]
        return ", ".join(found)

    def try_become_writer(self) -> bool:
        return self._lock.acquire(timeout=0)

    def writer_alive(self) -> bool:
        """Whether this process still holds the writer lock it took: a server store's lock (a
        database session, a lease) can end without it noticing, and another server take it."""
        alive = getattr(self._lock, "alive", None)
        return self._lock.held and (alive() if callable(alive) else True)

    def release_writer(self) -> None:
        """Give up the writer lock taken by ``try_become_writer`` (another process may take it)."""
        if self._lock.held:
            self._lock.release(force=True)

    @property
    def location(self) -> str:
        """Where the index lives: the embedded folder, or the server URL without its secrets."""
        from .stores import redact

        if self.settings.store and "://" in self.settings.store:
            return redact(self.settings.store)
        return str(self.index_dir)

    def index(
        self,
        paths: Sequence[Path] | None = None,
        *,
        force: bool = False,
        dry_run: bool = False,
        progress: Any = None,
        lock_timeout: float = 10,
    ) -> IndexReport:
        """Bring the index up to date with ``paths`` (default: every known root).

        A known root that no longer exists is skipped with a warning (``remove_root``
        forgets it); a PATH given here that does not exist is an error. ``force`` re-embeds
        ``paths``; when that means rebuilding the index (no paths, or another model or
        schema), every known root is re-indexed and stays known. A new root with nothing to
        index is not remembered, and a warning says why.
        """
        from .pipeline.indexer import Indexer

        warnings: list[str] = []
        known = self.roots
        requested: list[Path] = []  # what --force re-embeds: a path inside a root is only that path
        if paths:
            roots = requested = [Path(p).expanduser().resolve() for p in paths]
            for root in roots:
                if not root.exists():
                    raise ConfigError(f"{root} does not exist")
            roots = _fold_into_known(roots, known, warnings)
        elif not known:
            raise ConfigError("no folders to index: pass a PATH (`docshelf index ~/docs`) or set `roots` in the config")
        else:
            roots = _existing(known, warnings)
        rebuild = force and not dry_run and (not paths or not self._identity_matches())
        if rebuild and paths:
            others = [r for r in _existing(known, warnings) if r not in roots]
            if others:
                warnings.append(f"the index is rebuilt for {self.embedder.model_id}, so the other known roots are "
                                f"re-indexed too: {', '.join(map(str, others))}")
            roots += others
        roots = _outermost(roots)  # a root inside another one is part of it (see `inner` below)
        indexer = Indexer(self.settings, self.store, self.embedder, self.registry, self.chunker)
        if dry_run or not roots:
            report = indexer.run(roots, force=force, dry_run=True, progress=progress) if roots else IndexReport()
            report.warnings = warnings + report.warnings
            return report
        if holder := self._running_server_holding_lock():
            if not force and all(root in known for root in roots):
                failed = {r.path: r.error for r in self.store.records()
                          if r.status == "failed" and any(_from_root(r, str(root)) for root in roots)}
                return IndexReport(failed=failed, warnings=warnings, kept_by=holder)
            lock_timeout = 0  # a server does not let go in seconds: say so at once, naming it
        with self.writer(timeout=lock_timeout):
            previous = self._manifest_or_none() or {}
            if rebuild:
                self.store.reset()
            elif force:  # re-embed these roots from scratch; the other roots stay as they are
                wanted = requested or roots  # a file root, or a path inside a root: that path only
                self.store.delete_documents(
                    [(r.root, r.path) for r in self.store.records() if any(_under(r, w) for w in wanted)])
            manifest = {**previous, **self._identity(), "roots": list(previous.get("roots", []))}
            manifest.setdefault("created_at", time.time())
            new_keys = []
            for root in roots:
                key = str(root)  # a file stays a file root: its siblings are not indexed
                if key not in manifest["roots"]:
                    manifest["roots"].append(key)
                    new_keys.append(key)
            if manifest != previous:  # a new root is known before its first file is written
                self.store.write_manifest(manifest)
            # A path folded into its root was deleted above: a plain run re-embeds it, not the whole root.
            folded = force and not rebuild and set(requested) != set(roots)
            report = indexer.run(roots, force=force and not folded, progress=progress)
            # A known root inside a new folder root: its files were just indexed again under the
            # new root (reusing their vectors), so the inner root's copies and the root itself go.
            inner = {k: outer for k in manifest["roots"] for outer in roots
                     if Path(k) != outer and outer.is_dir() and Path(k).is_relative_to(outer)}
            if inner:
                # The inner root's own copies only: the outer root's record of a file root's file
                # matches that file root too (``_from_root``), and stays.
                self.store.delete_documents([(r.root, r.path) for r in self.store.records()
                                             if any(_from_root(r, k) and r.root != str(o) for k, o in inner.items())])
                manifest["roots"] = [k for k in manifest["roots"] if k not in inner]
                for k, outer in inner.items():
                    manifest.get("skipped", {}).pop(k, None)
                    warnings.append(f"the known root {k} is inside {outer}: its documents are now indexed as part of "
                                    f"{outer}, and it is no longer a root of its own")
            if report.added or report.updated or report.removed or force:
                runs = int(previous.get("runs_since_optimize", 0)) + 1
                if force or runs >= OPTIMIZE_EVERY_RUNS or _changed_share(report) >= OPTIMIZE_SHARE:
                    self.store.optimize()
                    runs = 0
                manifest["runs_since_optimize"] = runs
            elif _optimize_due(self.store):  # e.g. a vector index a crashed bulk load left unbuilt
                self.store.optimize()
            skipped = manifest.setdefault("skipped", {})
            for root in roots:  # what each root's walk skipped, until its next walk
                key = str(root if root.is_dir() else root.parent)
                if root.is_dir():
                    skipped[key] = report.skipped_by_root.get(key, {})
                else:
                    skipped.setdefault(key, {}).update(report.skipped_by_root.get(key, {}))
            records = indexer.records_after if indexer.records_after is not None else self.store.records()
            for key in new_keys:
                if not any(_from_root(r, key) for r in records):
                    manifest["roots"].remove(key)
                    skipped.pop(key, None)
                    warnings.append(_nothing_indexed(Path(key)))
            manifest["last_indexed_at"] = time.time()
            self.store.write_manifest(manifest)
        keys = [str(r) for r in roots]
        failed_now = {r.path: r.error for r in records if r.status == "failed" and any(_from_root(r, k) for k in keys)}
        report.failed = {**failed_now, **report.failed}
        report.warnings = warnings + report.warnings
        return report

    def _manifest_or_none(self) -> dict[str, Any] | None:
        try:
            return self.store.read_manifest()
        except StoreError:  # corrupt: a rebuild replaces it
            return None

    def _identity_matches(self) -> bool:
        """Whether the index on disk was built with this embedder, chunker and schema."""
        manifest, want = self._manifest_or_none(), self._identity()
        return manifest is not None and all(manifest.get(part) == want[part] for part in want)

    # -- roots ------------------------------------------------------------------------------
    def root_infos(self) -> list[RootInfo]:
        """Every known root: whether it exists, how many documents it holds, where it is set."""
        records = self.store.records()
        configured = {Path(r).expanduser().resolve() for r in self.settings.roots}
        infos = []
        for root in self.roots:
            mine = [r for r in records if _from_root(r, str(root))]
            infos.append(RootInfo(
                path=str(root), exists=root.exists(), documents=sum(r.status == "indexed" for r in mine),
                failed=sum(r.status == "failed" for r in mine), configured=root in configured,
            ))
        return infos

    def remove_root(self, path: str | Path, *, lock_timeout: float = 10) -> RootInfo:
        """Forget a root and delete every document indexed from it; returns what it held."""
        wanted = Path(path).expanduser().resolve()
        infos = self.root_infos()
        info = next((i for i in infos if Path(i.path) == wanted), None)
        if info is None:
            listed = ", ".join(i.path for i in infos) or "none"
            raise NotFound(f"{wanted} is not a known root (known: {listed}); `docshelf roots` lists them")
        if info.configured:
            raise ConfigError(f"{wanted} is set in the config file (`roots`); remove it there")
        with self.writer(timeout=lock_timeout):
            manifest = self.store.read_manifest() or {}
            manifest["roots"] = [r for r in manifest.get("roots", []) if r != info.path]
            manifest.get("skipped", {}).pop(info.path, None)
            gone = [(r.root, r.path) for r in self.store.records() if _from_root(r, info.path)]
            self.store.delete_documents(gone)
            self.store.write_manifest(manifest)
            if gone:
                self.store.optimize()
        return info

    def reindex_paths(self, root: Path, rel_paths: Sequence[str], *, explicit: bool = False) -> IndexReport:
        """Re-index a few paths of one root (the watcher's entry point); call as the writer.

        ``explicit``: the paths are single-file roots (no ignore rules, no folder walk)."""
        from .pipeline.indexer import Indexer

        report = Indexer(self.settings, self.store, self.embedder, self.registry, self.chunker).run_paths(
            root, rel_paths, explicit=explicit
        )
        manifest = self.store.read_manifest() or {**self._identity(), "created_at": time.time(), "roots": []}
        skipped = manifest.setdefault("skipped", {}).setdefault(str(Path(root).expanduser().resolve()), {})
        touched = set(report.added + report.updated + report.removed + list(report.failed))
        stale = [rel for rel in skipped if rel in touched or rel in rel_paths]
        if report.added or report.updated or report.removed or report.failed or report.skipped or stale:
            for rel in stale:
                skipped.pop(rel, None)
            skipped.update(report.skipped)
            manifest["last_indexed_at"] = time.time()
            self.store.write_manifest(manifest)
        return report

    def migrate_to(self, location: str, *, sample: int = 20, progress: Any = None, lock_timeout: float = 10):
        """Copy this index (chunks, vectors, records, manifest) into another store; see ``migrate``."""
        from .migrate import migrate
        from .stores import backend_of, open_store, redact

        if (location or None) == (self.settings.store or None) and backend_of(location) != "lancedb":
            raise ConfigError("the target is the store this index already uses; name another one with --to")
        target = open_store(
            self.index_dir, self.embedder.dimensions, location,
            read_url=None, api_key=self.settings.store_api_key,
        )
        lock = target.writer_lock()
        if not lock.acquire(timeout=lock_timeout):
            raise IndexLocked(f"another docshelf process is writing {redact(location)}; stop it or wait, then migrate again")
        try:
            return migrate(self.store, target, source_name=self.location, target_name=redact(location), sample=sample,
                           progress=progress)
        finally:
            lock.release(force=True)
            close = getattr(target, "close", None)
            if close:
                close()

    # -- push ingest (records built elsewhere; see ingest.py) ---------------------------------
    def _ingestor(self) -> Any:
        from .ingest import Ingestor

        manifest = self.store.read_manifest() or {}
        model = (manifest.get("embedder") or {}).get("model_id") or self.embedder.model_id
        return Ingestor(self.store, self.embedder, self.settings, model)

    def _pushed_write(self, work: Any, lock_timeout: float) -> Any:
        """Run one ingest write as the writer, then record when the index changed."""
        with self.writer(timeout=lock_timeout):
            manifest = self.store.read_manifest() or {**self._identity(), "created_at": time.time(), "roots": []}
            empty = self.store.count_chunks() == 0
            result = work(self._ingestor())
            manifest["last_indexed_at"] = time.time()
            self.store.write_manifest(manifest)
            if empty:
                self.store.optimize()  # a new index gets its full-text index (a server's writer loop
                # optimizes again once pushes pause; see live/writer.py)
        return result

    def ingest_upsert(self, request: Any, *, lock_timeout: float = 10) -> Any:
        """Add or replace pushed records (an ``ingest.UpsertRequest``); each source in one commit."""
        return self._pushed_write(lambda ing: ing.upsert(request), lock_timeout)

    def ingest_lookup(self, request: Any) -> Any:
        """Which pushed ids or sources exist, with their content hashes (all of them when none asked)."""
        return self._ingestor().lookup(request)

    def ingest_delete(self, request: Any, *, lock_timeout: float = 10) -> Any:
        """Delete pushed records by id or by source."""
        return self._pushed_write(lambda ing: ing.delete(request), lock_timeout)

    def ingest_reset(self, include_indexed: bool = False, *, lock_timeout: float = 10) -> Any:
        """Drop every pushed record; with ``include_indexed``, the indexed files and roots too."""
        if not include_indexed:
            return self._pushed_write(lambda ing: ing.reset_pushed(), lock_timeout)
        from .ingest import DeleteResult

        with self.writer(timeout=lock_timeout):
            records = self.store.records()
            self.store.reset()
            self.store.write_manifest({**self._identity(), "created_at": time.time(), "roots": []})
        return DeleteResult(deleted=sum(r.chunk_count for r in records), sources=tuple(sorted(r.path for r in records)))

    def hit_urls(self, hits: Sequence[Any]) -> dict[str, str]:
        """Where a reader can open each hit's source on the web (chunk id → URL): the path when it
        is a URL (pushed records), else a ``url`` field in the document's metadata."""
        meta = {c.id: c.metadata_json for c in self.store.get_chunks([h.chunk_id for h in hits])} if hits else {}
        out: dict[str, str] = {}
        for h in hits:
            url: Any = h.path
            if not url.startswith(("http://", "https://")):
                try:
                    url = json.loads(meta.get(h.chunk_id) or "{}").get("url")
                except ValueError:
                    url = None
            if isinstance(url, str) and url.startswith(("http://", "https://")):
                out[h.chunk_id] = url
        return out

    def document_request(self, ref: str, **options: Any) -> Any:
        """A ``DocumentRequest`` for ``ref``: a document's ``doc_id`` when one has it, else its path."""
        import re

        from .requests import DocumentRequest

        ref = ref.strip()
        if re.fullmatch(r"[0-9a-f]{16}", ref) and any(r.doc_id == ref for r in self.store.records()):
            return DocumentRequest(doc_id=ref, **{k: v for k, v in options.items() if v is not None})
        return DocumentRequest(path=ref, **{k: v for k, v in options.items() if v is not None})

    # -- reading ----------------------------------------------------------------------------
    @property
    def semantic_ready(self) -> bool:
        return self.wait_for_model or self.embedder.loaded

    def search(self, request: SearchRequest | str | None = None, **options: Any) -> SearchResult:
        """Run one search. Pass a ``SearchRequest``, or a query string plus its fields as keywords
        (``filters=SearchFilters(...)`` is accepted too); either way the request rules apply."""
        try:
            return self._search(request, **options)
        finally:
            allocator.trim_when_idle()  # free pages go back to the OS once searches pause

    def _search(self, request: SearchRequest | str | None, **options: Any) -> SearchResult:
        if not isinstance(request, SearchRequest):
            query = request if request is not None else options.pop("query", "")
            request = SearchRequest.build(query, options.pop("filters", None), **options)
        elif options:
            raise TypeError("pass either a SearchRequest or a query with keyword options, not both")
        if request.path_prefix and (local := self.root_relative(request.path_prefix)) != request.path_prefix:
            request = request.model_copy(update={"path_prefix": local or None})
        filters = request.filters(self.settings.search_doc_types)
        if request.linked_to:
            linking = self._linking_to(request.linked_to)
            if filters.paths is not None:
                linking = tuple(p for p in linking if p in set(filters.paths))
            filters = replace(filters, paths=linking)
        result = self.searcher.search(
            request.query, k=request.k, mode=request.mode or self.settings.search_mode,  # type: ignore[arg-type]
            filters=filters, min_score=request.min_score,
            max_per_doc=request.max_per_doc,
        )
        if not result.hits and request.collections and (missing := self._missing_collections_note(request.collections)):
            result = replace(result, note="; ".join(n for n in (result.note, missing) if n), empty_reason="unknown_collection")
        elif not result.hits and result.empty_reason == "no_match" and self.store.count_chunks() == 0:
            # nothing is indexed (yet: a `watch` may be building the first index): neither the query nor
            # the filters are to blame
            result = replace(result, empty_reason="empty_index")
        elif not result.hits and result.empty_reason == "no_match" and (
                filters.paths == () or self.documents_in_scope(request) == 0):
            result = replace(result, empty_reason="empty_scope")  # the filters leave no document, not the query
        elif not result.hits and result.empty_reason == "no_match" and filters.fields and not self._any_chunk(filters):
            # a field no document in scope has (`--field status=drat`): the filter, not the query's words
            shown = ", ".join(f"{key}={value}" for key, value in filters.fields)
            note = f"no indexed document in this scope has {shown} in its frontmatter"
            result = replace(result, empty_reason="empty_scope", note="; ".join(n for n in (result.note, note) if n))
        result = self._cite_columns(result)
        result = self._cite_page_labels(result)
        result = self._note_failed_files(result)
        if filters.date_from or filters.date_to:
            if unread := self._unread_dates_note(filters):
                result = replace(result, note="; ".join(n for n in (result.note, unread) if n))
        if request.max_chars is None:
            return result
        from .search.budget import fit_hits

        hits, cut = fit_hits(result.hits, request.max_chars)
        if not cut:
            return result
        note = (f"hit texts were shortened to keep this response under {request.max_chars} characters; "
                "read_neighbors(chunk_id) or get_document(path) gives the full text")
        return replace(result, hits=tuple(hits), note="; ".join(n for n in (result.note, note) if n))

    @staticmethod
    def _cite_columns(result: SearchResult) -> SearchResult:
        """A hit inside one very long line also cites its characters there (``line_columns``):
        hundreds of chunks of a minified file would otherwise all cite 'lines 1-1'."""
        from .documents import line_columns

        hits = list(result.hits)
        for i, hit in enumerate(hits):
            if hit.start_line is not None and hit.start_line == hit.end_line:
                columns = line_columns(hit.root, hit.path, hit.start_line, hit.text)
                if columns is not None:
                    hits[i] = replace(hit, start_col=columns[0], end_col=columns[1])
        return replace(result, hits=tuple(hits))

    def _any_chunk(self, filters: Any) -> bool:
        """Whether any chunk passes ``filters`` (one store read, no query embedding)."""
        import numpy as np

        return bool(self.store.vector_search(np.full(self.embedder.dimensions, 1.0, dtype=np.float32), 1, filters))

    def _unread_dates_note(self, filters: Any) -> str:
        """How many documents in a date-filtered search's scope have a date their author wrote in
        a form docshelf could not read (``dates.UNREAD_DATE_FIELD``): the filter left them out, and
        the agent should know, not conclude there is nothing. One store query, remembered for
        this version of the index."""
        import numpy as np

        from .dates import UNREAD_DATE_FIELD

        scope = replace(filters, date_from=None, date_to=None, fields=(*filters.fields, (UNREAD_DATE_FIELD, "true")))
        version = getattr(self.store, "content_version", None)
        key = (version() if callable(version) else None, repr(scope))
        memo = self._unread_memo
        if key[0] is not None and key in memo:
            return memo[key]
        any_vector = np.full(self.embedder.dimensions, 1.0, dtype=np.float32)  # every chunk in scope; order unused
        docs: dict[tuple[str, str], str] = {}
        rows = self.store.vector_search(any_vector, UNREAD_DATES_SCAN, scope)
        for chunk, _ in rows:
            try:
                raw = json.loads(chunk.metadata_json or "{}").get("date_raw")
            except ValueError:
                raw = None
            docs.setdefault((chunk.root, chunk.path), str(raw))
        note = ""
        if docs:
            shown = ", ".join(f"{path} ({raw!r})" for (_, path), raw in sorted(docs.items())[:3])
            more = "" if len(docs) <= 3 else f" and {len(docs) - 3} more"
            count = f"{len(docs)}{'+' if len(rows) >= UNREAD_DATES_SCAN else ''}"  # more than it read
            one = len(docs) == 1
            note = (f"the date filter left out {count} document{'' if one else 's'} whose date could not "
                    f"be read: {shown}{more}; write {'its date' if one else 'their dates'} as YYYY-MM-DD")
        if key[0] is not None:
            if len(memo) >= 256:
                memo.clear()
            memo[key] = note
        return note

    def _cite_page_labels(self, result: SearchResult) -> SearchResult:
        """A PDF hit on a labelled page also cites the label a reader sees ("p. iv, PDF page 4"):
        the chunk stores it (``indexer.make_chunks``); a search reads it for PDF hits only."""
        wanted = [h.chunk_id for h in result.hits if h.page is not None and h.path.lower().endswith(".pdf")]
        if not wanted:
            return result
        labels: dict[str, str] = {}
        for chunk in self.store.get_chunks(wanted):
            if '"page_label"' in chunk.metadata_json:
                label = json.loads(chunk.metadata_json).get("page_label")
                if isinstance(label, str) and label:
                    labels[chunk.id] = label
        if not labels:
            return result
        return replace(result, hits=tuple(replace(h, page_label=labels[h.chunk_id]) if h.chunk_id in labels else h
                                          for h in result.hits))

    def _note_failed_files(self, result: SearchResult) -> SearchResult:
        """A hit from a file whose latest version failed to index (a PDF saved half-way, a notebook
        whose JSON broke) is the text of its last good version, kept so nothing is lost; the hit
        says so, with when and why, so nobody takes it for what the file says now."""
        if not result.hits:
            return result
        failed = {(r.root, r.path): r for r in self.store.failed_records() if r.chunk_count}
        if not failed:
            return result
        hits = []
        for hit in result.hits:
            record = failed.get((hit.root, hit.path))
            if record is not None:
                hit = replace(hit, note=failed_file_note(record))
            hits.append(hit)
        return replace(result, hits=tuple(hits))

    def _missing_collections_note(self, wanted: Sequence[str]) -> str:
        """An empty answer in a collection the index does not hold: a misspelt name, not a query
        that matched nothing; name it and the collections there are (only asked when empty)."""
        held = [c.name for c in self.collections()]
        missing = [name for name in wanted if name not in held]
        if not missing:
            return ""
        names = ", ".join(repr(name) for name in missing)
        return f"no collection named {names}; the index holds: {', '.join(held) or 'no documents yet'}"

    def _linking_to(self, names: Sequence[str]) -> tuple[str, ...]:
        """Paths of the notes that link to any note ``names`` means (the ``linked_to`` filter)."""
        from .notes import NoteIndex

        index = NoteIndex(self.store.records())
        for name in names:
            if index.resolve(name) is None:
                raise InvalidRequest("linked_to", f"no note named {name!r}; get_note or list_documents shows the notes")
        return tuple(sorted({r.path for r in index.linking_to(names)}))

    def documents_in_scope(self, request: SearchRequest) -> int:
        """How many indexed documents a search's scope holds (collections, doc types, path prefix
        and glob, tags, dates; not the fields): 0 tells a caller its scope is empty, not its query."""
        import re

        from .globs import to_regex

        f = request.filters(self.settings.search_doc_types)
        prefix = f.path_prefix.lstrip("/") if f.path_prefix else ""
        glob = re.compile(to_regex(f.path_glob)) if f.path_glob else None  # as the stores match it
        tags_any = {t.lower().lstrip("#") for t in f.tags_any}
        tags_all = {t.lower().lstrip("#") for t in f.tags_all}
        return sum(
            1 for r in self.store.records()
            if r.status == "indexed"
            and (not f.collections or r.collection in f.collections)
            and (not f.doc_types or r.doc_type in f.doc_types)
            and r.path.startswith(prefix) and (glob is None or glob.match(r.path))
            and (not tags_any or tags_any & set(r.tags)) and tags_all <= set(r.tags)
            and (not (f.date_from or f.date_to) or (
                r.date is not None and (f.date_from or r.date) <= r.date <= (f.date_to or r.date)))
        )

    def root_relative(self, prefix: str) -> str:
        """A path prefix as the index stores paths: an absolute path inside a root (``docshelf
        search --path docs/`` typed beside ``docs/``, which the CLI sends absolute) becomes the
        part below that root (``guides/``; a folder keeps its trailing ``/``); a relative one,
        ``guides/``, is returned as given. An absolute path outside every root
        (``/guides/``, or ``examples/`` typed in a folder that has an ``examples/`` of its own
        beside the indexed ``docs/``) is read as the longest tail of it that starts an indexed
        path (``examples/``), else returned as given (it matches nothing)."""
        if not prefix.startswith("/"):
            return prefix
        wanted = Path(prefix)
        folder = prefix.endswith("/") or wanted.is_dir()
        for root in self.roots:
            try:
                below = wanted.relative_to(root).as_posix()
            except ValueError:
                continue
            if below == ".":
                return ""
            return below + "/" if folder else below
        paths = [r.path for r in self.store.records()]
        for n in range(1, len(wanted.parts)):
            tail = "/".join(wanted.parts[n:]) + ("/" if folder else "")
            if any(p.startswith(tail) for p in paths):
                return tail
        return prefix

    def find_document(self, path: str, root: str | None = None) -> DocumentRecord:
        """The record for a root-relative path, else for the file the path names on disk (absolute,
        or relative to the current folder: ``docs/api.rst`` run beside ``docs/``)."""
        wanted = path.strip()
        relative = wanted.lstrip("/")
        records = self.store.records()
        for r in records:
            if r.path == relative and (root is None or r.root == root):
                return r
        on_disk = _on_disk(wanted)
        for r in records:
            if (root is None or r.root == root) and Path(r.root, r.path) in on_disk:
                return r
        hint = _nearby_documents(relative, [r.path for r in records if root is None or r.root == root])
        raise NotFound(f"no indexed document at {wanted!r}; "
                       + (hint or "`docshelf status` or list_documents shows what is indexed"))

    def find_document_by_id(self, doc_id: str) -> DocumentRecord:
        """The record whose ``doc_id`` (from a hit or a listing) is ``doc_id``."""
        record = next((r for r in self.store.records() if r.doc_id == doc_id.strip()), None)
        if record is None:
            raise NotFound(f"no document with doc_id {doc_id!r}; doc ids come from search results or list_documents")
        return record

    def get_document(self, request: DocumentRequest | str, **options: Any) -> DocumentText:
        """A document's text (or one range: lines, page, section). Pass a ``DocumentRequest``
        or a path plus its fields as keywords."""
        if isinstance(request, str):
            request = DocumentRequest(path=request, **{k: v for k, v in options.items() if v is not None})
        elif options:
            raise TypeError("pass either a DocumentRequest or a path with keyword options, not both")
        if request.doc_id:
            record = self.find_document_by_id(request.doc_id)
        else:
            record = self.find_document(request.path or "", request.root)
        chunks = self.store.document_chunks(record.root, record.path)
        span = request.line_range
        page = page_for_label(record, chunks, request.page_label) if request.page_label else request.page
        try:
            selected = select(record, chunks, None, page, request.section)
        except NotFound:
            if request.section is None or page is not None:
                raise
            return self._heading_only(record, chunks, request.section)
        note, exact = "", None
        if span is not None:
            # Exactly the asked lines from the file while it is the indexed version; else the
            # chunks holding them, saying why they are more (or other) than was asked.
            numbered = any(c.start_line is not None for c in selected)
            source, why = source_lines(record) if numbered else (None, "")
            if source is not None:
                scoped = page is not None or request.section is not None
                text, first, last, selected = cut_lines(record, selected, span, source, scoped)
                exact = (first, last)
                if request.columns is not None:
                    text = cut_columns(record, text, first, request.columns)
            else:
                selected = select_lines(record, selected, span)
        if exact is None:
            # a whole document starts at its title, a section at its own heading (with no text of
            # their own, neither is any chunk's last heading)
            if request.section is not None and selected:
                depth = section_depth(selected[0].heading_path, request.section)
            else:
                depth = 0 if span is None and page is None else None
            text = reassemble(selected, depth)
        starts = [c.start_line for c in selected if c.start_line is not None]
        ends = [c.end_line for c in selected if c.end_line is not None]
        first, last = exact or (min(starts) if starts else None, max(ends) if ends else None)
        if span is not None and exact is None and why:
            fix = "fix the file" if record.status == "failed" else "re-index it"  # re-indexing a broken file fails again
            note = (f"{why}: this is the indexed text of lines {first}-{last} (the chunks holding lines "
                    f"{span[0]}-{span[1]}), not the file's current lines; {fix} to read exact lines")
        if not chunks:  # an empty text must say why, not look like a blank page
            note = (f"this file failed to index: {record.error}" if record.status == "failed"
                    else "this file holds no text to index (it is empty, or markup only)")
        elif record.status == "failed":  # its last good version is kept: say the file no longer reads so
            kept = failed_file_note(record)
            note = "; ".join(n for n in (kept, note) if n)
        max_chars = request.max_chars
        truncated = bool(max_chars and len(text) > max_chars)
        if truncated:
            text = text[:max_chars]
        return DocumentText(
            path=record.path, root=record.root, title=record.title, collection=record.collection,
            doc_type=record.doc_type, text=text, chunk_ids=tuple(c.id for c in selected),
            start_line=first, end_line=last,
            pages=tuple(sorted({c.page for c in selected if c.page is not None})), truncated=truncated,
            total_chunks=len(chunks), note=note,
        )

    @staticmethod
    def _heading_only(record: DocumentRecord, chunks: list[Chunk], section: str) -> DocumentText:
        """A section that is only its heading (no chunk holds it: nothing to embed) read from the
        file; NotFound, listing the sections, when the file has no such heading either."""
        alone = heading_only(record, section)
        if alone is None:
            select_section(record, chunks, section)  # raises, naming the sections there are
            raise NotFound(f"{record.path} has no section {section!r}")  # pragma: no cover - it raised
        text, first, last = alone
        where = f" (line {first})" if first is not None and first == last else (
            f" (lines {first}-{last})" if first is not None else "")
        return DocumentText(
            path=record.path, root=record.root, title=record.title, collection=record.collection,
            doc_type=record.doc_type, text=text, chunk_ids=(), start_line=first, end_line=last, pages=(),
            truncated=False, total_chunks=len(chunks),
            note=f"section {section!r} is only its heading{where}: it has no text before the next heading",
        )

    def find_note(self, name: str) -> DocumentRecord:
        """The note a path, file name, ``[[wiki link]]``, title or frontmatter alias means."""
        return resolve_note(self.store.records(), name)

    def para_folders(self) -> list[str]:
        """The top-level PARA folders (``1_Projects``, ``3 Resources``…) of the indexed notes, sorted."""
        from .pipeline.obsidian import para_folder

        return sorted({f for r in self.store.records() if r.status == "indexed" and (f := para_folder(r.path))})

    def get_note(self, name: str, *, max_chars: int | None = None) -> NoteText:
        """A note (see ``find_note``) with its text, frontmatter, outgoing links and backlinks."""
        from .notes import NoteIndex

        if not name.strip():  # not "no note named ''": the agent left the argument blank
            raise InvalidRequest("path", "is empty; pass a note's path, file name, wiki link, title or alias")
        records = self.store.records()
        record = resolve_note(records, name)
        index = NoteIndex(records)
        doc = self.get_document(DocumentRequest(path=record.path, root=record.root, max_chars=max_chars))
        chunks = self.store.get_chunks(list(doc.chunk_ids[:1]))
        meta: dict[str, Any] = json.loads(chunks[0].metadata_json or "{}") if chunks else {}
        aliases = meta.get("aliases") or list(record.aliases)
        return NoteText(
            record=record, text=doc.text, truncated=doc.truncated, metadata=meta,
            aliases=tuple(str(a) for a in (aliases if isinstance(aliases, list) else [aliases])),
            links=tuple(index.outgoing(record)), backlinks=tuple(r.path for r in index.backlinks(record)),
        )

    def neighbors(self, chunk_id: str, before: int = 1, after: int = 1, *, max_chars: int | None = None) -> list[Chunk]:
        """A chunk with the ``before``/``after`` chunks around it, in order; texts cut to ``max_chars`` in all."""
        found = self.store.get_chunks([chunk_id])
        if not found:
            raise NotFound(f"no chunk with id {chunk_id!r}; chunk ids come from search results")
        chunk = found[0]
        chunks = self.store.document_chunks(chunk.root, chunk.path)
        lo, hi = chunk.chunk_index - max(0, before), chunk.chunk_index + max(0, after)
        out = [c for c in chunks if lo <= c.chunk_index <= hi]
        if max_chars is None:
            return out
        budget, cut = max_chars, []
        for c in out:
            text = c.text if len(c.text) <= budget else c.text[: max(budget, 0)] + " …"
            budget -= len(text)
            cut.append(c if text == c.text else replace(c, text=text))
        return cut

    def chunk_columns(self, chunks: Sequence[Chunk]) -> dict[str, tuple[int, int]]:
        """Where each of ``chunks`` lies inside one very long line (``documents.line_columns``), by
        chunk id, read from the stored chunks (the texts given may be cut); others are left out."""
        from .documents import line_columns

        single = [c.id for c in chunks if c.start_line is not None and c.start_line == c.end_line]
        out: dict[str, tuple[int, int]] = {}
        for c in self.store.get_chunks(single) if single else []:
            if (columns := line_columns(c.root, c.path, c.start_line, c.text)) is not None:
                out[c.id] = columns
        return out

    def list_documents(self, request: DocumentListRequest | None = None, **options: Any) -> DocumentPage:
        """One page of documents sorted by (path, root); ``next_cursor`` continues after its last one."""
        if request is None:
            request = DocumentListRequest(**{k: v for k, v in options.items() if v is not None})
        elif options:
            raise TypeError("pass either a DocumentListRequest or keyword options, not both")
        prefix = self.root_relative(request.path_prefix).lstrip("/") if request.path_prefix else None
        matching = sorted(
            (r for r in self.store.records()
             if (request.collection is None or r.collection == request.collection)
             and (prefix is None or r.path.startswith(prefix))),
            key=lambda r: (r.path, r.root),
        )
        after = request.after
        rest = [r for r in matching if after is None or (r.path, r.root) > after]
        page = rest[: request.limit]
        more = len(rest) > request.limit
        return DocumentPage(
            documents=tuple(page), total=len(matching),
            next_cursor=encode_cursor(page[-1].root, page[-1].path) if more else None,
        )

    def collections(self) -> list[CollectionInfo]:
        by: dict[str, list[DocumentRecord]] = {}
        for r in self.store.records():
            if r.status == "indexed":
                by.setdefault(r.collection, []).append(r)
        return [
            CollectionInfo(name, len(rs), sum(r.chunk_count for r in rs), tuple(sorted({r.doc_type for r in rs})))
            for name, rs in sorted(by.items())
        ]

    def status(self) -> IndexStatus:
        self.store.refresh()
        records = self.store.records()
        manifest = self.store.read_manifest() or {}
        return IndexStatus(
            index_dir=self.location, model=self.embedder.model_id, dimensions=self.embedder.dimensions,
            model_loaded=self.embedder.loaded, store=getattr(self.store, "name", "lancedb"), roots=tuple(str(r) for r in self.roots),
            documents=sum(1 for r in records if r.status == "indexed"), chunks=self.store.count_chunks(),
            failed={r.path: r.error for r in records if r.status == "failed"}, collections=tuple(self.collections()),
            last_indexed_at=manifest.get("last_indexed_at"),
            skipped={rel: why for by_rel in (manifest.get("skipped") or {}).values() for rel, why in by_rel.items()},
        )


def _optimize_due(store: Any) -> bool:
    """Whether a store asks for ``optimize`` though nothing changed (an optional ability:
    PostgreSQL when its vector index is missing or not the one its size and settings want)."""
    due = getattr(store, "optimize_due", None)
    return bool(callable(due) and due())


def _changed_share(report: IndexReport) -> float:
    """The share of the documents this run added, changed or removed."""
    changed = len(report.added) + len(report.updated) + len(report.removed)
    return changed / max(1, changed + report.unchanged)


def _existing(roots: Sequence[Path], warnings: list[str]) -> list[Path]:
    """The roots that exist; a warning for each one that does not (it is skipped, not forgotten)."""
    for root in roots:
        if not root.exists():
            warnings.append(f"{root} no longer exists; skipped (`docshelf roots remove {root}` forgets it "
                            "and its documents)")
    return [r for r in roots if r.exists()]


def _on_disk(path: str) -> set[Path]:
    """The absolute paths ``path`` may name: as written against the current folder, and with
    links resolved (roots are stored resolved). Empty for a pushed source such as a URL."""
    if not path or "://" in path:
        return set()
    try:
        given = Path(path).expanduser()
        return {Path(os.path.abspath(given)), given.resolve()}
    except (OSError, RuntimeError, ValueError):  # a link loop, a NUL byte: names no indexed file
        return set()


def _nearby_documents(wanted: str, paths: Sequence[str]) -> str:
    """What a path that names no document probably meant: a folder's documents (``docs/guides``),
    the file by its name alone (``install.md``), or without its suffix, as a site's URL shows it
    (``docs/guides/install``); '' when nothing fits."""
    wanted = wanted.strip().rstrip("/")
    if not wanted:
        return ""
    low = wanted.lower()
    inside = sorted(p for p in paths if p.startswith(wanted + "/"))
    if inside:
        shown = ", ".join(inside[:3]) + (", …" if len(inside) > 3 else "")
        return (f"{wanted}/ is a folder holding {len(inside)} indexed document{'s' if len(inside) != 1 else ''} "
                f"({shown}); `docshelf documents --path {wanted}/` or list_documents(path_prefix) lists them")
    close = sorted({p for p in paths if p.lower().endswith("/" + low) or p.lower() == low
                    or p.lower().rsplit(".", 1)[0] in (low, low.rsplit(".", 1)[0])
                    or p.lower().rsplit(".", 1)[0].endswith("/" + low)})
    if close:
        return "did you mean " + " or ".join(repr(p) for p in close[:3]) + ("…" if len(close) > 3 else "") + "?"
    return ""


def _from_root(record: DocumentRecord, root: str) -> bool:
    """Whether a document was indexed from ``root`` (a folder, or a single file)."""
    return record.root == root or str(Path(record.root) / record.path) == root


def _under(record: DocumentRecord, path: Path) -> bool:
    """Whether a document is ``path`` or lies under it (``path`` a root, a file or a folder in a root)."""
    return _from_root(record, str(path)) or Path(record.root, record.path).is_relative_to(path)


def _outermost(roots: Sequence[Path]) -> list[Path]:
    """``roots`` without those that lie inside another one's folder."""
    return [r for r in roots if not any(o != r and o.is_dir() and r.is_relative_to(o) for o in roots)]


def _fold_into_known(paths: list[Path], known: Sequence[Path], warnings: list[str]) -> list[Path]:
    """``paths`` with each one that lies inside a known folder root replaced by that root.

    Indexing ``docs/ref/cli.md`` when ``docs`` is known re-indexes it as ``docs``'s
    ``ref/cli.md`` (an unchanged tree costs a walk); as a root of its own the file would be
    indexed twice, under two paths.
    """
    folded = []
    for path in paths:
        outer = [k for k in known if k != path and path.is_relative_to(k) and k.is_dir()]
        if outer:
            root = min(outer, key=lambda k: len(k.parts))
            warnings.append(f"{path} is inside the known root {root}: indexed as part of it, not as a root of its own")
            path = root
        if path not in folded:
            folded.append(path)
    return folded


def _nothing_indexed(root: Path) -> str:
    """Why a new root gave nothing to index (it is then not remembered)."""
    if root.is_dir() and not any(root.iterdir()):
        why = "it is empty"
    else:
        why = "no file in it is in a supported format or passes the ignore rules (`--dry-run` lists why each was skipped)"
    return f"nothing to index in {root}: {why}; it was not added to the known roots"


def _reranker(settings: Settings):
    """The optional cross-encoder reranker, when the user configured one."""
    if not settings.reranker:
        return None
    from .search.rerank import Reranker

    return Reranker(settings.reranker, budget_ms=settings.rerank_budget_ms, top_n=settings.rerank_top)
