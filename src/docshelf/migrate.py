"""``docshelf migrate --to URL``: copy an index between any two stores, vectors included.

Nothing is re-embedded: each document's chunks and stored vectors are read from the source
and written to the target with ``replace_documents`` (one document at a time is all-or-nothing
where the target allows it), then its record. The run is resumable: a document whose record
on the target already matches the source's (same hash, chunk count and status) is
skipped, and the target's manifest says ``migration.complete = false`` until the end.
At the end the counts are compared and a sample of searches is run on both stores.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import EmbedderMismatch, IndexNotFound, StoreError
from .models import Chunk, DocumentRecord
from .protocols import Store

log = logging.getLogger(__name__)

IDENTITY = ("schema_version", "embedder", "chunker")
BATCH_CHUNKS = 512
SELF_SLACK = 1e-4
"""A sampled chunk counts as found by its own vector when the target's first hit is that chunk or
scores this close to it: another chunk with the same vector ties with it (texts the model reads
alike, such as two long chunks that agree up to its token limit), and ties are settled by path."""


@dataclass
class MigrationReport:
    documents: int = 0
    copied: int = 0
    skipped: int = 0
    removed: int = 0
    chunks: int = 0
    source_chunks: int = 0
    target_chunks: int = 0
    source_documents: int = 0
    target_documents: int = 0
    searches: int = 0
    vector_self_found: int = 0
    keyword_self_found: int = 0
    vector_overlap: float = 0.0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def _same(a: DocumentRecord, b: DocumentRecord) -> bool:
    """Same chunks (same content, model and chunker): ``indexed_at`` may differ, since a re-index
    re-checks a recently changed file and records when it read it again."""
    return (a.sha256, a.chunk_count, a.status) == (b.sha256, b.chunk_count, b.status)


def check_target(source_manifest: dict[str, Any], target_manifest: dict[str, Any] | None, where: str) -> None:
    """A target that already holds an index of another model, chunker or schema is refused."""
    if target_manifest is None:
        return
    for part in IDENTITY:
        if target_manifest.get(part) != source_manifest.get(part):
            raise EmbedderMismatch(
                f"{where} already holds an index with another {part} ({target_manifest.get(part)}); "
                "migrate into an empty store, or clear it first with `docshelf index --force` there"
            )


def migrate(
    source: Store,
    target: Store,
    *,
    source_name: str = "",
    target_name: str = "target",
    sample: int = 20,
    progress: Callable[[int, int], None] | None = None,
) -> MigrationReport:
    """Copy everything from ``source`` to ``target`` (the caller holds the target's writer lock)."""
    started = time.monotonic()
    manifest = source.read_manifest()
    if manifest is None:
        raise IndexNotFound("the source holds no index; run `docshelf index PATH` first")
    manifest = {k: v for k, v in manifest.items() if k != "store"}
    check_target(manifest, target.read_manifest(), target_name)
    target.write_manifest({**manifest, "migration": {"from": source_name, "complete": False}})

    report = MigrationReport()
    records = sorted(source.records(), key=lambda r: (r.root, r.path))
    on_target = {(r.root, r.path): r for r in target.records()}
    report.documents = len(records)
    batch: list[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]] = []
    pending = 0
    for i, record in enumerate(records, start=1):
        have = on_target.pop((record.root, record.path), None)
        if have is not None and _same(have, record):
            if have != record:  # only the record changed (e.g. when it was last read): no chunks to copy
                target.put_records([record])
            report.skipped += 1
        elif record.status != "indexed" and not record.chunk_count:
            target.put_records([record])
            report.copied += 1
        else:  # indexed, or failed at its last read and still holding the chunks of the version before
            chunks = source.document_chunks(record.root, record.path)
            vectors = source.document_vectors(record.root, record.path)
            missing = [c.id for c in chunks if c.embed_text not in vectors]
            if missing:
                raise StoreError(f"{record.path}: the source has no stored vector for chunks {missing[:3]}")
            matrix = np.stack([vectors[c.embed_text] for c in chunks]) if chunks else np.zeros((0, 1), np.float32)
            batch.append((record, chunks, matrix))
            pending += len(chunks)
            report.copied += 1
            report.chunks += len(chunks)
            if pending >= BATCH_CHUNKS:
                target.replace_documents(batch)
                batch, pending = [], 0
        if progress:
            progress(i, len(records))
    if batch:
        target.replace_documents(batch)
    if on_target:  # documents the source no longer has
        target.delete_documents(list(on_target))
        report.removed = len(on_target)
    target.optimize()
    target.refresh()
    verify(source, target, report, sample)
    if report.ok:
        target.write_manifest({**manifest, "migration": {"from": source_name, "complete": True, "at": time.time()}})
    report.seconds = time.monotonic() - started
    return report


def _self_score(vector: np.ndarray) -> float:
    """The cosine of a vector with itself (1 unless it is zero): what its own chunk scores."""
    norm = float(np.linalg.norm(vector))
    return 1.0 if norm else 0.0


def verify(source: Store, target: Store, report: MigrationReport, sample: int) -> None:
    """Counts must match; a sample of chunks must be found by their own vector and words on the target."""
    report.source_chunks, report.target_chunks = source.count_chunks(), target.count_chunks()
    report.source_documents, report.target_documents = len(source.records()), len(target.records())
    if report.source_chunks != report.target_chunks:
        report.problems.append(f"chunk counts differ: source {report.source_chunks}, target {report.target_chunks}")
    if report.source_documents != report.target_documents:
        report.problems.append(
            f"document counts differ: source {report.source_documents}, target {report.target_documents}"
        )
    indexed = [r for r in source.records() if r.status == "indexed" and r.chunk_count]
    if not indexed or sample <= 0:
        return
    step = max(1, len(indexed) // sample)
    overlaps = []
    for record in indexed[::step][:sample]:
        chunks = source.document_chunks(record.root, record.path)
        vectors = source.document_vectors(record.root, record.path)
        if not chunks:
            continue
        chunk = chunks[len(chunks) // 2]
        vector = vectors[chunk.embed_text]
        report.searches += 1
        src = [c.id for c, _ in source.vector_search(vector, 10)]
        dst = target.vector_search(vector, 10)
        if any(c.embed_text == chunk.embed_text or s >= _self_score(vector) - SELF_SLACK for c, s in dst[:1]):
            report.vector_self_found += 1  # itself first, or a chunk with the very same vector (a tie)
        overlaps.append(len(set(src) & {c.id for c, _ in dst}) / max(1, len(src)))
        words = " ".join(chunk.embed_text.split()[:12])
        if any(c.id == chunk.id or c.embed_text == chunk.embed_text for c, _ in target.text_search(words, 10)):
            report.keyword_self_found += 1
    report.vector_overlap = sum(overlaps) / len(overlaps) if overlaps else 1.0
    if report.vector_self_found < report.searches:
        report.problems.append(
            f"vector search found {report.vector_self_found} of {report.searches} sampled chunks by their own vector"
        )
    if report.keyword_self_found < 0.9 * report.searches:
        report.problems.append(
            f"keyword search found {report.keyword_self_found} of {report.searches} sampled chunks by their own words"
        )


__all__ = ["MigrationReport", "check_target", "migrate", "verify"]
