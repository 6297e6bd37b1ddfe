"""Run a BEIR dataset through docshelf: build (or reuse) the cached index, search every judged
query in each mode, rank documents by their best chunk, and score the rankings."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import InvalidQuery
from ..models import SearchMode
from .beir import BeirDataset, cache_key, check_judged, corpus_hash, default_cache_dir, materialize
from .metrics import evaluate_run, percentile

log = logging.getLogger(__name__)

RANK_DEPTH = 100  # documents ranked per query (recall@100 needs 100)


@dataclass(frozen=True)
class ModeResult:
    mode: str
    metrics: dict[str, float]
    latency_p50_ms: float
    latency_p95_ms: float


@dataclass
class EvalReport:
    dataset: str
    split: str
    queries: int
    documents: int
    chunks: int
    model: str
    index_dir: str
    index_seconds: float
    reused_index: bool
    modes: list[ModeResult] = field(default_factory=list)
    runs: dict[str, dict[str, list[str]]] = field(default_factory=dict, repr=False)


@dataclass
class EvalIndex:
    """A docshelf service over a dataset's corpus plus the file-name → corpus-id map."""

    service: Any
    names: dict[str, str]
    index_seconds: float
    reused: bool


def open_eval_index(
    dataset: BeirDataset,
    *,
    model: str = "all-MiniLM-L6-v2",
    cache_dir: Path | None = None,
    use_cache: bool = True,
    embedder: Any = None,
    progress: Any = None,
    settings: dict[str, Any] | None = None,
) -> EvalIndex:
    """Index the corpus (or reuse the cached index for this corpus, model and chunker)."""
    from ..embedders import embedder_from_settings
    from ..service import Docshelf

    base = Settings(index_dir=Path("unused"), model=model, **(settings or {}))
    embedder = embedder or embedder_from_settings(base)
    chunk_tokens = min(base.chunk_tokens or embedder.max_tokens, embedder.max_tokens)
    if use_cache:
        root = Path(cache_dir) if cache_dir else default_cache_dir()
        docs_dir = root / f"{dataset.name}-{corpus_hash(dataset.corpus_path)}" / "docs"
        index_dir = root / cache_key(dataset, embedder.model_id, chunk_tokens, base.chunk_overlap) / "index"
    else:
        tmp = Path(tempfile.mkdtemp(prefix="docshelf-eval-"))
        docs_dir, index_dir = tmp / "docs", tmp / "index"
    names = materialize(dataset, docs_dir)
    check_judged(dataset, set(names.values()))
    service = Docshelf(base.model_copy(update={"index_dir": index_dir, "roots": [docs_dir]}), embedder=embedder)
    started = time.monotonic()
    report = service.index([docs_dir], progress=progress, lock_timeout=600)
    reused = not (report.added or report.updated or report.removed)
    if report.failed:
        log.warning("%d corpus documents failed to index: %s", len(report.failed), list(report.failed)[:5])
    return EvalIndex(service, names, time.monotonic() - started, reused)


def rank_documents(index: EvalIndex, query: str, mode: SearchMode, depth: int = RANK_DEPTH) -> tuple[list[str], float]:
    """Corpus ids ranked by their best chunk, and the query's latency in ms."""
    started = time.perf_counter()
    try:
        result = index.service.search(query, k=depth, mode=mode, max_per_doc=1)
    except InvalidQuery:
        return [], (time.perf_counter() - started) * 1000
    took = (time.perf_counter() - started) * 1000
    ranked: list[str] = []
    for hit in result.hits:
        doc_id = index.names.get(Path(hit.path).name)
        if doc_id is not None and doc_id not in ranked:
            ranked.append(doc_id)
    return ranked, took


def run_eval(
    dataset: BeirDataset,
    index: EvalIndex,
    modes: Sequence[SearchMode],
    *,
    max_queries: int | None = None,
    on_query: Callable[[str, int, int], None] | None = None,
) -> EvalReport:
    queries = dataset.judged_queries[: max_queries or None]
    qrels = {q: dataset.qrels[q] for q, _ in queries}
    service = index.service
    status = service.store
    report = EvalReport(
        dataset=dataset.name, split=dataset.split, queries=len(queries), documents=len(index.names),
        chunks=status.count_chunks(), model=service.embedder.model_id, index_dir=str(service.index_dir),
        index_seconds=round(index.index_seconds, 2), reused_index=index.reused,
    )
    if any(m in ("semantic", "hybrid") for m in modes) and queries:
        service.embedder.load()  # keep the model's load time out of the first query's latency
        rank_documents(index, queries[0][1], "hybrid" if "hybrid" in modes else "semantic")
    for mode in modes:
        run: dict[str, list[str]] = {}
        latencies: list[float] = []
        for n, (qid, text) in enumerate(queries, start=1):
            run[qid], took = rank_documents(index, text, mode)
            latencies.append(took)
            if on_query:
                on_query(mode, n, len(queries))
        metrics = {k: round(v, 4) for k, v in evaluate_run(run, qrels).items()}
        report.modes.append(
            ModeResult(mode, metrics, round(percentile(latencies, 50), 2), round(percentile(latencies, 95), 2))
        )
        report.runs[mode] = run
    return report
