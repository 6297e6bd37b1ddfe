"""Run a docs-folder set through docshelf: index the folder (cached), ask every question in
each mode, and score document hits, the top hit's section and the no-answer signal.

Per question kind and overall (answerable questions only, except AUROC):
- hit@1, hit@3, mrr@10 at document level (documents ranked by their best chunk);
- section@1: the top hit is in the gold file and its cited lines overlap the gold section;
  for a PDF question (gold pages), its cited page is one of the gold pages and, when the
  question names a heading and the hit is cited under headings, one of them is that heading
  (``pdf_section_hit``);
- auroc: how well the top hit's score separates answerable questions (of that kind, or all
  of them) from the unanswerable ones (0.5 is chance, 1.0 perfect).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import InvalidQuery
from ..models import SearchMode
from .docset import KINDS, DocSet, Question, docset_cache_key, heading_key
from .metrics import auroc, hit_at_k, lines_overlap, percentile, reciprocal_rank
from .runner import EvalIndex
from .beir import default_cache_dir

DEPTH = 10  # documents ranked per question (mrr@10)
QA_METRICS = ("hit@1", "hit@3", "mrr@10", "section@1", "auroc")


@dataclass(frozen=True)
class Outcome:
    """One question in one mode: what came first, and how it scored."""

    id: str
    kind: str
    query: str
    ranked: tuple[str, ...]
    top_path: str | None
    top_heading: tuple[str, ...]
    top_lines: tuple[int | None, int | None]
    top_score: float
    confidence: str | None
    hit1: float | None
    hit3: float | None
    rr: float | None
    section: float | None
    took_ms: float
    note: str = ""  # the response's note (a corrected typo, a word no indexed document mentions)
    top_page: int | None = None  # a PDF hit's page (1-based)


@dataclass(frozen=True)
class DocsetModeResult:
    mode: str
    overall: dict[str, float | None]
    by_kind: dict[str, dict[str, float | None]]
    counts: dict[str, int]
    latency_p50_ms: float
    latency_p95_ms: float


@dataclass
class DocsetReport:
    dataset: str
    format: str
    questions: int
    documents: int
    chunks: int
    model: str
    index_dir: str
    index_seconds: float
    reused_index: bool
    modes: list[DocsetModeResult] = field(default_factory=list)
    runs: dict[str, list[Outcome]] = field(default_factory=dict, repr=False)


def open_docset_index(
    docset: DocSet,
    *,
    model: str = "all-MiniLM-L6-v2",
    cache_dir: Path | None = None,
    use_cache: bool = True,
    embedder: Any = None,
    progress: Any = None,
) -> EvalIndex:
    """Index ``docs/`` (cached per folder content, model and chunker: the cached index holds a
    copy of the folder, ``cached_docs``; without the cache the folder is indexed in place)."""
    from ..embedders import make_embedder
    from ..service import Docshelf

    base = Settings(index_dir=Path("unused"), model=model)
    embedder = embedder or make_embedder(base.model, batch_size=base.embed_batch_size, threads=base.embed_threads,
                                          query_int8=base.query_int8)
    chunk_tokens = min(base.chunk_tokens or embedder.max_tokens, embedder.max_tokens)
    docs = Path(docset.docs_dir)
    if use_cache:
        entry = (Path(cache_dir) if cache_dir else default_cache_dir()) / docset_cache_key(
            docset, embedder.model_id, chunk_tokens, base.chunk_overlap)
        index_dir = entry / "index"
        docs = cached_docs(docs, entry / "docs")
    else:
        index_dir = Path(tempfile.mkdtemp(prefix="docshelf-eval-")) / "index"
    service = Docshelf(base.model_copy(update={"index_dir": index_dir, "roots": [docs]}), embedder=embedder)
    started = time.monotonic()
    # The index holds one root: an entry made before the copy indexed some checkout's folder
    # in place, and that root goes (a missing root is otherwise kept, by design, and every
    # page would be in the index twice).
    here = str(docs.resolve())
    for info in service.root_infos():
        if info.path != here:
            service.remove_root(info.path, lock_timeout=600)
    report = service.index([docs], progress=progress, lock_timeout=600)
    reused = not (report.added or report.updated or report.removed)
    names = {r.path: r.path for r in service.store.records() if r.status == "indexed"}
    return EvalIndex(service, names, time.monotonic() - started, reused)


def cached_docs(source: Path, copy: Path) -> Path:
    """``copy``, made from ``source`` once (the cache entry is keyed on the folder's content, so
    one copy serves every checkout). Every checkout evaluates the same root, so two runs of
    one set from two worktrees at once share the index instead of each removing the other's
    folder from it mid-run (a run of set F scored hit@1 0.04 that way)."""
    if not copy.is_dir():
        copy.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".docs-", dir=copy.parent))  # renamed into place whole
        try:
            shutil.copytree(source, staging / "docs")
            try:
                (staging / "docs").rename(copy)
            except OSError:
                if not copy.is_dir():
                    raise
                # another run made it first: the same content
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return copy


def ask(service: Any, question: Question, mode: SearchMode) -> Outcome:
    started = time.perf_counter()
    try:
        result = service.search(question.query, k=DEPTH, mode=mode, max_per_doc=1)
        hits = result.hits
    except InvalidQuery:
        result, hits = None, ()
    took = (time.perf_counter() - started) * 1000
    ranked = tuple(dict.fromkeys(h.path for h in hits))
    top = hits[0] if hits else None
    scored: dict[str, float | None] = dict.fromkeys(("hit1", "hit3", "rr", "section"))
    if question.answerable:
        gold = question.path or ""
        scored = {
            "hit1": hit_at_k(ranked, gold, 1), "hit3": hit_at_k(ranked, gold, 3), "rr": reciprocal_rank(ranked, gold),
            "section": float(top is not None and top.path == gold and (
                pdf_section_hit(question, top.page, top.heading_path) if question.by_page
                else lines_overlap((top.start_line, top.end_line), (question.start_line or 0, question.end_line or 0))
            )),
        }
    return Outcome(
        id=question.id, kind=question.kind, query=question.query, ranked=ranked,
        top_path=top.path if top else None, top_heading=top.heading_path if top else (),
        top_lines=(top.start_line, top.end_line) if top else (None, None), top_score=top.score if top else 0.0,
        confidence=getattr(result, "confidence", None), note=getattr(result, "note", ""), took_ms=took,
        top_page=top.page if top else None, **scored,  # type: ignore[arg-type]
    )


def pdf_section_hit(question: Question, page: int | None, heading_path: Sequence[str]) -> bool:
    """Whether a hit cited at ``page`` under ``heading_path`` is a PDF question's gold section.

    The page must be one of the gold pages. A gold heading must also be in the cited heading
    path (the section itself or one it sits in; a title may carry its number, "2.6 Citation
    Aliasing" for "Citation Aliasing", or lose it), so a hit in the section before, on the
    same page, is a miss; a hit cited under no heading at all (a PDF without outline) is
    judged by its page alone: the reader can only go by the page there too."""
    if page is None or not (question.start_page or 0) <= page <= (question.end_page or 0):
        return False
    if question.heading is None or not heading_path:
        return True
    want = _unnumbered(heading_key(question.heading))
    return any(_unnumbered(heading_key(entry)) == want for entry in heading_path)


_NUMBER = re.compile(r"^(?:\d+|[a-z](?=\.\d))(?:\.\d+)*\.?\s+")  # "2.6 ", "a.1 " (appendix), "3. "


def _unnumbered(title: str) -> str:
    return _NUMBER.sub("", title, count=1)


def summarize(outcomes: Sequence[Outcome]) -> tuple[dict[str, float | None], dict[str, dict[str, float | None]]]:
    """Overall and per-kind means; AUROC of each kind's top scores against the unanswerable ones."""
    negatives = [o.top_score for o in outcomes if o.kind == "unanswerable"]

    def block(group: Sequence[Outcome]) -> dict[str, float | None]:
        answerable = [o for o in group if o.kind != "unanswerable"]
        if not answerable:
            return dict.fromkeys(QA_METRICS)
        n = len(answerable)
        mean = {m: round(sum(getattr(o, a) for o in answerable) / n, 4)
                for m, a in (("hit@1", "hit1"), ("hit@3", "hit3"), ("mrr@10", "rr"), ("section@1", "section"))}
        area = auroc([o.top_score for o in answerable], negatives)
        return mean | {"auroc": None if area is None else round(area, 4)}

    by_kind = {kind: block([o for o in outcomes if o.kind == kind]) for kind in KINDS if any(o.kind == kind for o in outcomes)}
    return block(outcomes), by_kind


def run_docset(
    docset: DocSet,
    index: EvalIndex,
    modes: Sequence[SearchMode],
    *,
    max_queries: int | None = None,
    on_query: Callable[[str, int, int], None] | None = None,
) -> DocsetReport:
    questions = docset.questions[: max_queries or None]
    service = index.service
    report = DocsetReport(
        dataset=docset.name, format="docs", questions=len(questions), documents=len(index.names),
        chunks=service.store.count_chunks(), model=service.embedder.model_id, index_dir=str(service.index_dir),
        index_seconds=round(index.index_seconds, 2), reused_index=index.reused,
    )
    if any(m in ("semantic", "hybrid") for m in modes) and questions:
        service.embedder.load()  # keep the model's load time out of the first question's latency
        service.search(questions[0].query, k=DEPTH, mode="semantic")
    for mode in modes:
        outcomes: list[Outcome] = []
        for n, q in enumerate(questions, start=1):
            outcomes.append(ask(service, q, mode))
            if on_query:
                on_query(mode, n, len(questions))
        overall, by_kind = summarize(outcomes)
        counts = {kind: sum(o.kind == kind for o in outcomes) for kind in by_kind}
        latencies = [o.took_ms for o in outcomes]
        report.modes.append(DocsetModeResult(
            mode, overall, by_kind, counts, round(percentile(latencies, 50), 2), round(percentile(latencies, 95), 2)
        ))
        report.runs[mode] = outcomes
    return report
