"""discover → parse → chunk → embed → store, incrementally.

Unchanged files are recognised by mtime + size, then by SHA-256 of the content; only
changed files are parsed and embedded. Each batch of documents is committed in one store
write, so an interrupted run leaves every document at its old or its new version. Files
that vanished (deleted, renamed, newly ignored) are pruned. A file that fails to parse is
recorded as failed with its reason, and the run goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ..config import Settings
from ..dates import iso_day_or_none
from ..errors import ParseError, SourceError
from ..models import Chunk, DocumentRecord, IndexReport, ParseContext, ParsedDocument, SourceFile
from ..protocols import Embedder, Store
from .chunk import Chunker, chunk_id
from .discover import discover
from .obsidian import para_folder
from .parsers import ParserRegistry

log = logging.getLogger(__name__)

COMMIT_CHUNKS = 256  # chunks per store commit: few versions, bounded memory
EMBED_BATCH = 32  # texts per embedder call, so progress moves steadily


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


def _json_default(value: Any) -> str:
    if isinstance(value, date | datetime):
        return value.isoformat()
    return str(value)


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Indexer:
    def __init__(
        self, settings: Settings, store: Store, embedder: Embedder, registry: ParserRegistry, chunker: Chunker
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.registry = registry
        self.chunker = chunker

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
            roots, registry=self.registry, max_bytes=self.settings.max_file_bytes, exclude=self.settings.exclude
        )
        report.skipped.update(found.skipped)
        report.skipped_by_root = found.skipped_by_root
        records = {(r.root, r.path): r for r in self.store.records()}
        # Only a folder root owns what vanished beneath it; a single-file root prunes nothing else.
        root_names = {str(Path(r).expanduser().resolve()) for r in roots if Path(r).expanduser().is_dir()}

        seen = {(str(src.root), src.rel_path) for src in found.files}
        todo, touched = self._plan(found.files, records, report, force=force)
        gone = [key for key in records if key[0] in root_names and key not in seen] if prune else []
        report.removed = [path for _, path in gone]
        progress.planned(len(found.files), len(todo))
        if dry_run:
            for src, _, _, old in todo:
                (report.updated if old else report.added).append(src.rel_path)
            report.seconds = time.monotonic() - started
            return report

        self.store.delete_documents(gone)
        self.store.put_records(touched)
        self._index_files(todo, report, progress)
        report.seconds = time.monotonic() - started
        return report

    def run_paths(self, root: Path, rel_paths: Sequence[str]) -> IndexReport:
        """Bring a few paths of one folder root up to date (the file watcher's entry point).

        Each path may name a file or a folder, existing or gone. The discovery rules
        apply exactly as in a full run: an ignored, oversized or unsupported file is not
        indexed, and if it was indexed before it is removed. Anything indexed at or
        under a path that no longer yields a file (deleted, moved away) is removed.
        """
        from .discover import Discovery, IgnoreRules, _Walker

        started = time.monotonic()
        report = IndexReport()
        root = Path(root).expanduser().resolve()
        root_s = str(root)
        rules = IgnoreRules(root, exclude=self.settings.exclude)
        found = Discovery()
        walker = _Walker(self.registry, self.settings.max_file_bytes, found)
        scopes = sorted({p.strip("/") for p in rel_paths if p.strip("/") not in ("", ".")})
        walked_root = False
        for rel in scopes:
            path = root / rel
            if path.is_dir() and not path.is_symlink():
                if not walked_root and not rules.is_ignored(rel, is_dir=True):
                    whole = discover([root], registry=self.registry, max_bytes=self.settings.max_file_bytes,
                                     exclude=self.settings.exclude)
                    found.files.extend(whole.files)
                    walked_root = True
            elif path.is_file() and not rules.is_ignored(rel):
                if path.is_symlink() and not path.resolve().is_relative_to(root):
                    found.skip(root, rel, "symlink outside the root")
                else:
                    walker.consider(root, rel)

        def in_scope(rel: str) -> bool:
            return any(rel == s or rel.startswith(s + "/") for s in scopes)

        files = {f.rel_path: f for f in found.files if in_scope(f.rel_path)}
        report.skipped.update({p: why for p, why in found.skipped.items() if in_scope(p)})
        records = {
            (r.root, r.path): r for r in self.store.records() if r.root == root_s and in_scope(r.path)
        }
        gone = sorted(key for key in records if key[1] not in files)
        report.removed = [p for _, p in gone]
        # A file event on a failed document is a reason to try it again.
        todo, touched = self._plan([files[rel] for rel in sorted(files)], records, report, retry_failed=True)
        self.store.delete_documents(gone)
        self.store.put_records(touched)
        self._index_files(todo, report, _NoProgress())
        report.seconds = time.monotonic() - started
        return report

    def _plan(
        self,
        files: Sequence[SourceFile],
        records: dict[tuple[str, str], DocumentRecord],
        report: IndexReport,
        *,
        force: bool = False,
        retry_failed: bool = False,
    ) -> tuple[list[tuple[SourceFile, bytes, str, DocumentRecord | None]], list[DocumentRecord]]:
        """Which files need indexing: mtime + size first, then SHA-256 of the content.

        Returns the files to index (with their bytes and digest) and the records of files
        that were touched but are unchanged (their new mtime is recorded, nothing re-embedded).
        """
        todo: list[tuple[SourceFile, bytes, str, DocumentRecord | None]] = []
        touched: list[DocumentRecord] = []
        for src in files:
            old = records.get((str(src.root), src.rel_path))
            same_as_old = old is not None and not force and (old.status == "indexed" or not retry_failed)
            if same_as_old and old.size == src.size and old.mtime_ns == src.mtime_ns:
                report.unchanged += 1
                continue
            try:
                data = src.path.read_bytes()
            except OSError as exc:  # unreadable, or vanished since discovery (then the next run prunes it)
                reason = f"could not read: {exc.strerror or exc}"
                report.failed[src.rel_path] = reason
                # Recorded (status shows it) with no mtime, so that every run tries it again.
                touched.append(replace(self._failed_record(src, "", reason, old), mtime_ns=0))
                continue
            digest = sha256_bytes(data)
            if same_as_old and old.sha256 == digest:
                report.unchanged += 1
                touched.append(replace(old, size=src.size, mtime_ns=src.mtime_ns))
                continue
            todo.append((src, data, digest, old))
        return todo, touched

    # -- work ---------------------------------------------------------------------------
    def _index_files(self, todo, report: IndexReport, progress: IndexProgress) -> None:
        pending: list[_Pending] = []
        pending_chunks = 0
        failed_records: list[DocumentRecord] = []
        for src, data, digest, old in todo:
            try:
                item = self._prepare(src, data, digest)
            except SourceError as exc:
                reason = exc.reason
                report.failed[src.rel_path] = reason
                # INFO, not WARNING: the report and `status` carry it, so a terminal shows it once.
                log.info("failed to index %s: %s", src.rel_path, reason)
                failed_records.append(self._failed_record(src, digest, reason, old))
                progress.file_done(src.rel_path)
                continue
            (report.updated if old else report.added).append(src.rel_path)
            if old is not None and old.status == "indexed":
                # An edit usually leaves most chunks as they were: reuse their vectors.
                item.known = self.store.document_vectors(old.root, old.path)
            pending.append(item)
            pending_chunks += len(item.chunks)
            if pending_chunks >= COMMIT_CHUNKS:
                report.chunks_embedded += self._commit(pending, progress)
                pending, pending_chunks = [], 0
        if pending:
            report.chunks_embedded += self._commit(pending, progress)
        self.store.put_records(failed_records)

    def _prepare(self, src: SourceFile, data: bytes, digest: str) -> _Pending:
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
        record = DocumentRecord(
            root=str(src.root), path=src.rel_path, sha256=digest, size=src.size, mtime_ns=src.mtime_ns,
            status="indexed", collection=collection, doc_type=doc_type, title=doc.title, format=doc.format,
            page_count=doc.page_count, tags=tags, date=doc_date, indexed_at=time.time(),
            aliases=_aliases(doc.metadata.get("aliases")), links=tuple(doc.metadata.get("links") or ()),
        )
        chunks = self.make_chunks(doc, record)
        return _Pending(replace(record, chunk_count=len(chunks)), chunks)

    def make_chunks(self, doc: ParsedDocument, record: DocumentRecord) -> list[Chunk]:
        metadata_json = json.dumps(doc.metadata, default=_json_default, sort_keys=True)
        return [
            Chunk(
                id=chunk_id(record.root, record.path, d.chunk_index, d.embed_text), root=record.root,
                path=record.path, collection=record.collection, doc_type=record.doc_type, title=doc.title,
                heading_path=d.heading_path, chunk_index=d.chunk_index, text=d.text, embed_text=d.embed_text,
                page=d.page, start_line=d.start_line, end_line=d.end_line, tags=record.tags, date=record.date,
                metadata_json=metadata_json, overlap=d.overlap,
            )
            for d in self.chunker.chunk(doc)
        ]

    def _commit(self, pending: list[_Pending], progress: IndexProgress) -> int:
        """Embed what is new (reusing stored vectors of unchanged chunks) and write one batch.

        Progress moves per file: a file counts as done once its last new chunk is embedded.
        """
        todo = [(i, c.embed_text) for i, p in enumerate(pending) for c in p.chunks if c.embed_text not in p.known]
        last = {i: pos for pos, (i, _) in enumerate(todo)}  # each file's last text to embed
        fresh: dict[str, np.ndarray] = {}
        reported = 0
        for start in range(0, len(todo), EMBED_BATCH):
            batch = [text for _, text in todo[start : start + EMBED_BATCH]]
            fresh.update(zip(batch, self.embedder.embed_documents(batch), strict=True))
            progress.chunks_embedded(len(batch))
            while reported < len(pending) and last.get(reported, -1) < start + len(batch):
                progress.file_done(pending[reported].record.path)
                reported += 1
        items = []
        for p in pending:
            vectors = [p.known.get(c.embed_text, fresh.get(c.embed_text)) for c in p.chunks]
            matrix = np.stack(vectors) if vectors else np.zeros((0, self.embedder.dimensions), np.float32)
            items.append((p.record, p.chunks, matrix))
        self.store.replace_documents(items)
        for p in pending[reported:]:
            progress.file_done(p.record.path)
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
