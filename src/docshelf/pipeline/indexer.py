"""discover → parse → chunk → embed → store, incrementally.

Unchanged files are recognised by mtime + size (one stat each, against the records read
in one query), then by SHA-256 of the content; only changed files are parsed and embedded.
A file whose mtime lies within ``RACY_NS`` of the moment it was read is hashed again on the
next run even when its stat is the same (git's "racy clean" rule): a coarse filesystem
clock can give an edit made just after the read the very mtime that was recorded. Files are streamed: read, hashed, parsed and
chunked one at a time, embedded and committed in bounded batches, so memory does not
grow with the number or total size of the files; one thread parses the next batch while
another embeds and commits the current one, in order. Each batch's chunks are one store
commit, so an interrupted run leaves every document at its old or its new version; its
records follow in a second commit, and every full run removes chunks left without a
record. Files that vanished (deleted, renamed, newly ignored) are pruned; a file whose
exact content is already indexed (moved, renamed) reuses the stored vectors. A file
that fails to parse is recorded as failed with its reason, and the run goes on. A page whose
included files changed (``dependents``) is parsed again although its own bytes did not change.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..config import Settings
from ..crashpoints import crash_point
from ..dates import UNREAD_DATE_FIELD, iso_day_or_none, unread_reason
from ..errors import ParseError, SourceError
from ..models import Chunk, DocumentRecord, IndexReport, ParseContext, ParsedDocument, SourceFile, listed_paths
from ..protocols import Embedder, Store
from .chunk import ChunkDraft, Chunker, chunk_id
from .dependents import includers_of, stale_includers
from .discover import discover
from .obsidian import para_folder
from .overlap import SerialWriter
from .overlap import ahead as _ahead
from .parsers import ParserRegistry

log = logging.getLogger(__name__)

COMMIT_CHUNKS = 256  # chunks per store commit: few versions, bounded memory
COMMIT_CHARS = 4_000_000  # ...or this much chunk text, whichever comes first
COMMIT_RECORDS = 2_000  # ...or this many record-only updates (touched or failed files)
EMBED_BATCH = 32  # texts per embedder call, so progress moves steadily
RACY_NS = 3_000_000_000
"""An mtime this close to the read (or later) cannot vouch for the content: FAT keeps 2 s steps,
other filesystems a clock tick, and an edit within that step after the read keeps the mtime."""


class IndexProgress(Protocol):
    """Receives progress events; the CLI draws a bar from them."""

    def planned(self, files: int, to_index: int) -> None: ...

    def file_done(self, path: str) -> None: ...

    def chunks_embedded(self, n: int) -> None: ...


class _NoProgress:
    def planned(self, files: int, to_index: int) -> None:
        pass

    def file_done(self, path: str) -> None:
        pass

    def chunks_embedded(self, n: int) -> None:
        pass


@dataclass
class _Pending:
    record: DocumentRecord
    chunks: list[Chunk] = field(default_factory=list)
    known: dict[str, np.ndarray] = field(default_factory=dict)  # embed_text → vector already stored
    donor: tuple[str, str] | None = None  # (root, path) whose stored vectors ``known`` is read from
    tokens: dict[str, int] = field(default_factory=dict)  # embed_text → its token count, when the chunker knew it
    warning: str = ""  # indexed, but something the user wrote was not read (broken frontmatter)


def _json_default(value: Any) -> str:
    if isinstance(value, date | datetime):
        return value.isoformat()
    return str(value)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def stat_vouches(record: DocumentRecord) -> bool:
    """Whether the same size and mtime mean the same content: the file's mtime was older than
    the read that produced ``record`` by more than the filesystem's timestamp step."""
    return record.mtime_ns < record.indexed_at * 1e9 - RACY_NS


@dataclass
class _Candidate:
    """A file whose size or mtime differs from its record (or that has none): read it to know."""

    src: SourceFile
    old: DocumentRecord | None
    maybe_unchanged: bool  # same content as ``old`` would mean: nothing to do but record the mtime


@dataclass
class _Batch:
    """Documents parsed and chunked but not yet embedded and committed (bounded in size)."""

    items: list[_Pending] = field(default_factory=list)
    chunks: int = 0
    chars: int = 0
    records: list[DocumentRecord] = field(default_factory=list)  # touched or failed: records only
    drop_chunks: list[tuple[str, str]] = field(default_factory=list)  # failed, never indexed: no chunks

    @property
    def full(self) -> bool:
        return self.chunks >= COMMIT_CHUNKS or self.chars >= COMMIT_CHARS or len(self.records) >= COMMIT_RECORDS


class Indexer:
    def __init__(
        self, settings: Settings, store: Store, embedder: Embedder, registry: ParserRegistry, chunker: Chunker
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.registry = registry
        self.chunker = chunker
        self.records_after: list[DocumentRecord] | None = None
        """After ``run``: every record as the run left it (the caller need not read them again)."""

    # -- planning ---------------------------------------------------------------------
    def run(
        self,
        roots: Sequence[Path],
        *,
        force: bool = False,
        dry_run: bool = False,
        progress: IndexProgress | None = None,
        prune: bool = True,
    ) -> IndexReport:
        started = time.monotonic()
        progress = progress or _NoProgress()
        report = IndexReport(dry_run=dry_run)
        found = discover(
            roots, registry=self.registry, max_bytes=self.settings.max_file_bytes, exclude=self.settings.exclude,
            skip=self.settings.own_paths(),
        )
        report.skipped.update(found.skipped)
        report.skipped_by_root = found.skipped_by_root
        self.records_after = None
        if not dry_run:
            self._upgrade_records()
        records = {(r.root, r.path): r for r in self.store.records()}
        # Only a folder root owns what vanished beneath it; a single-file root prunes nothing else.
        root_names = {str(Path(r).expanduser().resolve()) for r in roots if Path(r).expanduser().is_dir()}

        seen = {(str(src.root), src.rel_path) for src in found.files}
        # A page whose included files changed shows other text, though its own bytes are the same.
        stale = set() if force else stale_includers((records[key] for key in seen if key in records), RACY_NS)
        candidates = self._plan(found.files, records, report, force=force, stale=stale)
        gone = [key for key in records if key[0] in root_names and key not in seen] if prune else []
        report.removed = [path for _, path in gone]
        progress.planned(len(found.files), len(candidates))
        self._index_files(candidates, records, report, progress, dry_run=dry_run)
        if not dry_run:
            # Removed last, so a moved file can take its vectors from its old place first.
            self.store.delete_documents(gone)
            # Chunks whose record is missing (a crash between the two commits, then the file
            # went away) would stay searchable forever: remove them.
            orphans = self.store.orphan_documents()
            if orphans:
                log.info("removing the chunks of %d documents that have no record", len(orphans))
                self.store.delete_documents(orphans)
            for key in gone:
                records.pop(key, None)
            self.records_after = list(records.values())  # kept up to date by each commit
        report.seconds = time.monotonic() - started
        return report

    def run_paths(self, root: Path, rel_paths: Sequence[str], *, explicit: bool = False) -> IndexReport:
        """Bring a few paths of one root up to date (the file watcher's entry point).

        Each path may name a file or a folder, existing or gone; a folder is re-walked, and
        only that subtree. The discovery rules apply exactly as in a full run: an ignored,
        oversized or unsupported file is not indexed, and if it was indexed before it is
        removed. Anything indexed at or under a path that no longer yields a file (deleted,
        moved away) is removed. ``explicit``: the paths are single-file roots, named by the
        user, so ignore rules do not apply to them and no folder is walked.
        """
        from .discover import Discovery, IgnoreRules, _Walker

        started = time.monotonic()
        report = IndexReport()
        root = Path(root).expanduser().resolve()
        root_s = str(root)
        rules = IgnoreRules(root, exclude=self.settings.exclude)
        found = Discovery()
        own = self.settings.own_paths()
        walker = _Walker(self.registry, self.settings.max_file_bytes, found, own)
        scopes = sorted({p.strip("/") for p in rel_paths if p.strip("/") not in ("", ".")})

        def consider(rel: str) -> None:
            path = root / rel
            if path.resolve() in walker.skip or any(p in path.resolve().parents for p in walker.skip):
                return
            why = None if explicit else walker.sites.reason(root, rel)
            if why is not None:
                found.skip(root, rel + "/" if path.is_dir() else rel, why)
                return
            if path.is_dir() and not path.is_symlink():
                if not explicit and not rules.is_ignored(rel, is_dir=True):
                    walker.walk(root, rules, start=rel)
            elif path.is_file() and (explicit or not rules.is_ignored(rel)):
                if path.is_symlink() and not path.resolve().is_relative_to(root):
                    found.skip(root, rel, "symlink outside the root")
                else:
                    walker.consider(root, rel)

        # A path under another one in the batch is covered by walking the outer one.
        for rel in [s for s in scopes if not any(s.startswith(o + "/") for o in scopes)]:
            consider(rel)

        def in_scope(rel: str) -> bool:
            return any(rel == s or rel.startswith(s + "/") for s in scopes)

        self._upgrade_records()
        all_records = {(r.root, r.path): r for r in self.store.records()}
        # Pages that include a changed path (or looked for it in vain) are parsed again, wherever they are.
        includers = includers_of(all_records.values(), root_s, scopes)
        for rel in sorted(includers):
            if not in_scope(rel) and (root / rel).is_file():
                consider(rel)
        files = {f.rel_path: f for f in found.files if in_scope(f.rel_path) or f.rel_path in includers}
        report.skipped.update({p: why for p, why in found.skipped.items() if in_scope(p)})
        records = {
            key: r for key, r in all_records.items() if r.root == root_s and (in_scope(r.path) or r.path in includers)
        }
        gone = sorted(key for key in records if key[1] not in files)
        report.removed = [p for _, p in gone]
        # A file event on a failed document is a reason to try it again.
        candidates = self._plan(
            [files[rel] for rel in sorted(files)], records, report, retry_failed=True,
            stale={(root_s, rel) for rel in includers},
        )
        self._index_files(candidates, all_records, report, _NoProgress())
        self.store.delete_documents(gone)
        report.seconds = time.monotonic() - started
        return report

    def _upgrade_records(self) -> None:
        """Let a store bring records written by an older docshelf up to date (an optional ability)."""
        upgrade = getattr(self.store, "upgrade_records", None)
        if callable(upgrade):
            upgrade()

    def _plan(
        self,
        files: Sequence[SourceFile],
        records: dict[tuple[str, str], DocumentRecord],
        report: IndexReport,
        *,
        force: bool = False,
        retry_failed: bool = False,
        stale: Collection[tuple[str, str]] = (),
    ) -> list[_Candidate]:
        """Which files may need indexing: those whose size or mtime differ from their record,
        or whose record was taken too soon after their last change (``stat_vouches``), and the
        ``stale`` ones (an included file changed: parsed again whatever their own content).

        Nothing is read here: the content hash that decides is taken as each file is read
        for indexing, one file at a time, so memory never depends on how many files changed.
        """
        candidates: list[_Candidate] = []
        for src in files:
            key = (str(src.root), src.rel_path)
            old = records.get(key)
            if key in stale:
                candidates.append(_Candidate(src, old, maybe_unchanged=False))
                continue
            same_as_old = old is not None and not force and (old.status == "indexed" or not retry_failed)
            if same_as_old and old.size == src.size and old.mtime_ns == src.mtime_ns and stat_vouches(old):
                report.unchanged += 1
                continue
            candidates.append(_Candidate(src, old, same_as_old))
        return candidates

    # -- work ---------------------------------------------------------------------------
    def _index_files(
        self,
        candidates: Sequence[_Candidate],
        records: dict[tuple[str, str], DocumentRecord],
        report: IndexReport,
        progress: IndexProgress,
        *,
        dry_run: bool = False,
    ) -> None:
        """Read, hash, parse and chunk one file at a time; embed and commit in bounded batches.

        At most one file's bytes are held at once, and at most four batches of chunks
        (``COMMIT_CHUNKS`` chunks or ``COMMIT_CHARS`` characters, or one file's worth, each):
        while this thread embeds one batch, a second thread parses and chunks the next ones
        (``_ahead``) and a third commits the previous one (``SerialWriter``), so the CPU the
        model leaves idle does the parsing and the writing. Only the writer touches the store
        until it is done, and it commits batches in order, as a serial run would.
        """
        if not candidates:
            return
        if dry_run:
            for _ in self._batches(candidates, records, report, progress, dry_run=True):
                pass
            return
        progress = _LockedProgress.wrap(progress)
        with SerialWriter() as writer, closing(_ahead(self._batches(candidates, records, report, progress))) as batches:
            for batch in batches:
                report.chunks_embedded += self._commit(batch, progress, writer, records)

    def _batches(
        self,
        candidates: Sequence[_Candidate],
        records: dict[tuple[str, str], DocumentRecord],
        report: IndexReport,
        progress: IndexProgress,
        *,
        dry_run: bool = False,
    ) -> Iterator[_Batch]:
        """Full batches as the files are read and parsed, then the last (perhaps empty) one."""
        # A file whose exact content is indexed elsewhere (moved, renamed, copied) takes its vectors.
        by_hash = {r.sha256: r for r in records.values() if r.status == "indexed" and r.chunk_count}
        batch = _Batch()
        for cand in candidates:
            src, old = cand.src, cand.old
            read_at = time.time()  # before the read: an edit after it must not hide behind the mtime
            try:
                data: bytes | None = src.path.read_bytes()
            except OSError as exc:  # unreadable, or vanished since discovery (then the next run prunes it)
                reason = f"could not read: {exc.strerror or exc}"
                report.failed[src.rel_path] = reason
                # Recorded (status shows it) with no mtime, so that every run tries it again.
                batch.records.append(replace(self._failed_record(src, "", reason, old), mtime_ns=0))
                progress.file_done(src.rel_path)
                continue
            digest = sha256_bytes(data)
            if cand.maybe_unchanged and old is not None and old.sha256 == digest:
                data = None
                report.unchanged += 1
                batch.records.append(replace(old, size=src.size, mtime_ns=src.mtime_ns, indexed_at=read_at))
                progress.file_done(src.rel_path)
            elif dry_run:
                data = None
                (report.updated if old else report.added).append(src.rel_path)
            else:
                self._add(batch, cand, data, digest, by_hash, report, progress, read_at)
                data = None  # drop this file's bytes before the next one is read
            if batch.full and not dry_run:
                yield batch
                batch = _Batch()
        yield batch

    def _add(
        self, batch: _Batch, cand: _Candidate, data: bytes, digest: str, by_hash, report, progress, read_at: float
    ) -> None:
        src, old = cand.src, cand.old
        crash_point("parse")
        try:
            item = self._prepare(src, data, digest, read_at)
            if item.warning:
                report.warnings.append(item.warning)
        except SourceError as exc:
            reason = exc.reason
            report.failed[src.rel_path] = reason
            # INFO, not WARNING: the report and `status` carry it, so a terminal shows it once.
            log.info("failed to index %s: %s", src.rel_path, reason)
            batch.records.append(replace(self._failed_record(src, digest, reason, old), indexed_at=read_at))
            if old is None or old.status != "indexed":
                batch.drop_chunks.append((str(src.root), src.rel_path))
            progress.file_done(src.rel_path)
            return
        (report.updated if old else report.added).append(src.rel_path)
        donor = by_hash.get(digest)
        if donor is None and old is not None and old.status == "indexed":
            donor = old  # an edit usually leaves most chunks as they were
        if donor is not None:
            item.donor = (donor.root, donor.path)  # its vectors are read by the committing thread
        batch.items.append(item)
        batch.chunks += len(item.chunks)
        batch.chars += sum(len(c.text) + len(c.embed_text) for c in item.chunks)

    def _prepare(self, src: SourceFile, data: bytes, digest: str, read_at: float | None = None) -> _Pending:
        """Parse and chunk one file; ``read_at``: when its bytes were read (the record's ``indexed_at``)."""
        try:
            doc = self.registry.parse(src.path, data, ParseContext(src.root))
        except SourceError:
            raise
        except Exception as exc:  # a parser bug must not stop the run
            raise ParseError(src.rel_path, f"parser crashed: {type(exc).__name__}: {exc}") from exc
        if (para := para_folder(src.rel_path)) and "para_folder" not in doc.metadata:
            doc = replace(doc, metadata={**doc.metadata, "para_folder": para})  # filterable as a field
        collection, collection_type = self.settings.collection_for(src.rel_path)
        doc_type = self.settings.doc_type_for(src.rel_path, doc.metadata.get("type"), collection_type)
        tags = _tags(doc.metadata.get("tags"))
        doc_date = iso_day_or_none(doc.metadata.get("date"))  # the same ISO rule as date filters
        unread = doc_date is None and doc.metadata.get("date_raw") is not None and not doc.metadata.get("frontmatter_error")
        if unread:  # a field, so a date-filtered search can say it left the document out (Docshelf.search)
            doc = replace(doc, metadata={**doc.metadata, UNREAD_DATE_FIELD: True})
        record = DocumentRecord(
            root=str(src.root), path=src.rel_path, sha256=digest, size=src.size, mtime_ns=src.mtime_ns,
            status="indexed", collection=collection, doc_type=doc_type, title=doc.title, format=doc.format,
            page_count=doc.page_count, tags=tags, date=doc_date, indexed_at=read_at or time.time(),
            aliases=_aliases(doc.metadata.get("aliases")), links=tuple(doc.metadata.get("links") or ()),
            includes=tuple(p for p in listed_paths(doc.metadata.get("includes")) if p != src.rel_path),
            include_missing=listed_paths(doc.metadata.get("include_missing")),
        )
        drafts = self.chunker.chunk(doc)
        chunks = self.make_chunks(doc, record, drafts)
        tokens = {d.embed_text: d.tokens for d in drafts if d.tokens is not None}
        warning = ""
        if problem := doc.metadata.get("frontmatter_error"):  # else the note's tags and title vanish unexplained
            warning = f"{src.rel_path}: {problem}; indexed without its frontmatter (title, tags, type, date, aliases)"
        elif unread:  # else dropped by date filters unexplained
            raw = doc.metadata["date_raw"]
            why, fix = unread_reason(raw)
            warning = f"{src.rel_path}: date {str(raw)!r} {why}, so date filters leave this document out; {fix}"
        return _Pending(replace(record, chunk_count=len(chunks)), chunks, tokens=tokens, warning=warning)

    def make_chunks(
        self, doc: ParsedDocument, record: DocumentRecord, drafts: Sequence[ChunkDraft] | None = None
    ) -> list[Chunk]:
        """``doc``'s chunks as stored (``drafts``: the chunker's output for it, when already made)."""
        meta = dict(doc.metadata)
        labels = meta.pop("page_labels", None) or {}  # a PDF's page labels: each chunk stores its page's
        metadata_json = json.dumps(meta, default=_json_default, sort_keys=True)

        def chunk_meta(page: int | None) -> str:
            label = labels.get(page) if page is not None else None
            if label is None:
                return metadata_json
            return json.dumps({**meta, "page_label": label}, default=_json_default, sort_keys=True)

        return [
            Chunk(
                id=chunk_id(record.root, record.path, d.chunk_index, d.embed_text), root=record.root,
                path=record.path, collection=record.collection, doc_type=record.doc_type, title=doc.title,
                heading_path=d.heading_path, chunk_index=d.chunk_index, text=d.text, embed_text=d.embed_text,
                page=d.page, start_line=d.start_line, end_line=d.end_line, tags=record.tags, date=record.date,
                metadata_json=chunk_meta(d.page), overlap=d.overlap,
            )
            for d in (self.chunker.chunk(doc) if drafts is None else drafts)
        ]

    def _commit(
        self, batch: _Batch, progress: IndexProgress, writer: SerialWriter, records: dict[tuple[str, str], DocumentRecord]
    ) -> int:
        """Embed what is new (reusing stored vectors of unchanged chunks) and write one batch.

        The batch's new texts are embedded shortest first, ``EMBED_BATCH`` per call: each call's
        texts are alike in length, so the embedder pads them as little as it would pad the whole
        batch in one call, while progress still moves per call. A text's vector does not depend
        on its neighbours. A file counts as done once its last new text is embedded. The store
        is read and written by ``writer`` only; this returns once the batch is handed to it.
        """
        pending = batch.items
        donors = [p for p in pending if p.donor is not None]
        if donors:  # read after the commits before it
            found = writer.call(lambda: [self.store.document_vectors(*p.donor) for p in donors])  # type: ignore[misc]
            for p, known in zip(donors, found, strict=True):
                p.known = known
        todo = _embed_order(pending)
        left = Counter(i for i, _ in todo)  # texts still to embed, per file
        fresh: dict[str, np.ndarray] = {}
        for start in range(0, len(todo), EMBED_BATCH):
            call = todo[start : start + EMBED_BATCH]
            texts = [text for _, text in call]
            crash_point("embed")
            fresh.update(zip(texts, self.embedder.embed_documents(texts), strict=True))
            progress.chunks_embedded(len(texts))
            left.subtract(i for i, _ in call)
            for i in sorted({i for i, _ in call if not left[i]}):
                progress.file_done(pending[i].record.path)
        items = []
        for p in pending:
            vectors = [p.known.get(c.embed_text, fresh.get(c.embed_text)) for c in p.chunks]
            matrix = np.stack(vectors) if vectors else np.zeros((0, self.embedder.dimensions), np.float32)
            items.append((p.record, p.chunks, matrix))

        def commit() -> None:
            self.store.replace_documents(items)
            self.store.delete_documents(batch.drop_chunks)
            self.store.put_records(batch.records)
            for i, p in enumerate(pending):
                if i not in left:  # nothing new to embed: done with the commit
                    progress.file_done(p.record.path)
            _remember(records, batch)  # by_hash was taken from ``records`` before the first batch

        writer.write(commit)
        return len(todo)

    @staticmethod
    def _failed_record(src: SourceFile, digest: str, reason: str, old: DocumentRecord | None) -> DocumentRecord:
        base = old or DocumentRecord(
            root=str(src.root), path=src.rel_path, sha256="", size=0, mtime_ns=0, status="failed",
            collection="", doc_type="",
        )
        return replace(
            base, sha256=digest, size=src.size, mtime_ns=src.mtime_ns, status="failed", error=reason,
            indexed_at=time.time(),
        )


class _LockedProgress:
    """Progress events from two threads (the parser reports unchanged and failed files), one at a time."""

    def __init__(self, inner: IndexProgress) -> None:
        self._inner = inner
        self._lock = threading.Lock()

    @classmethod
    def wrap(cls, progress: IndexProgress) -> IndexProgress:
        return progress if isinstance(progress, _NoProgress | cls) else cls(progress)

    def planned(self, files: int, to_index: int) -> None:
        with self._lock:
            self._inner.planned(files, to_index)

    def file_done(self, path: str) -> None:
        with self._lock:
            self._inner.file_done(path)

    def chunks_embedded(self, n: int) -> None:
        with self._lock:
            self._inner.chunks_embedded(n)


def _embed_order(pending: Sequence[_Pending]) -> list[tuple[int, str]]:
    """(file, text) for each text to embed, once, sorted by size: tokens when the chunker
    counted every one of them, else characters (ties keep the files' order)."""
    todo: list[tuple[int, str]] = []
    queued: set[str] = set()
    for i, p in enumerate(pending):
        for c in p.chunks:
            if c.embed_text not in p.known and c.embed_text not in queued:
                queued.add(c.embed_text)
                todo.append((i, c.embed_text))
    tokens = {text: n for p in pending for text, n in p.tokens.items()}
    if all(text in tokens for _, text in todo):
        todo.sort(key=lambda item: tokens[item[1]])
    else:
        todo.sort(key=lambda item: len(item[1]))
    return todo


def _remember(records: dict[tuple[str, str], DocumentRecord], batch: _Batch) -> None:
    """Mirror a committed batch in ``records``: what the store now holds, without reading it."""
    for record in [p.record for p in batch.items] + batch.records:
        records[(record.root, record.path)] = record


def _tags(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    items = value if isinstance(value, list | tuple) else str(value).replace(",", " ").split()
    out: list[str] = []
    for t in items:
        t = str(t).strip().lstrip("#").lower()
        if t and t not in out:
            out.append(t)
    return tuple(out)


def _aliases(value: Any) -> tuple[str, ...]:
    """Frontmatter ``aliases`` (a list or one string) as clean strings, for note look-ups."""
    items = value if isinstance(value, list | tuple) else [value] if value else []
    return tuple(str(a).strip() for a in items if str(a).strip())


__all__ = ["Indexer", "IndexProgress"]
