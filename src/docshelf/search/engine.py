"""The search modes over a Store and an Embedder, with filters, diversity and citations.

- keyword: BM25 from the store's full-text index (identifier-aware, see ``analysis``).
- semantic: dense vectors (cosine).
- fuzzy: the same full-text index queried term by term with edit-distance matching, plus
  joined forms of adjacent words (``pic sure`` → ``picsure``), for names and typos.
- hybrid (default): both lists fused with confidence-aware score fusion (``fuse.py``).
  Misspelt words (unknown to the index but close to an indexed word, ``typos.py``) are
  corrected: the corrected query is pooled, embedded and ranked as if typed right (a
  corrected term counts as much as a typed one, ``TypoParams.weight``).

Every filter is pushed into the store's query (evaluated before top-k). Each mode ranks
by its own scores; the score a hit shows is an absolute relevance estimate in [0, 1],
comparable across queries and modes, and the result carries a confidence (``calibrate.py``).
Each hit carries the mode that produced it.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, runtime_checkable

import numpy as np

from ..analysis import code_tokens, query_text
from ..errors import InvalidQuery
from ..models import Chunk, Hit, SearchFilters, SearchMode, SearchResult
from ..protocols import Embedder, Store
from ..requests import MAX_K, MODES
from .calibrate import (
    CalibrationParams, Calibrator, QueryEvidence, capped, confidence, coverage, credited_terms, item_coverage,
)
from .calibration_memo import CalibrationMemo
from .citing import cite_what_the_query_names
from .diversity import Group, diversify, diversify_settled
from .fuse import (FusionParams, bm25_to_unit, cosine_to_unit, dense_weight, exact_bonus, fuse_hybrid, heading_is_named,
                   heading_share, included_paths, is_changelog, is_summary_heading, named_sections_first,
                   opens_subsection, short_prior, subsection_after_lead_in, within_page_ties, word_root)
from .highlight import after_no, highlight_spans, query_terms, term_stems
from .phrase import content_count, looks_pasted, phrase_share, query_words, reads_as_code
from .rerank import Reranker
from .typos import ProbeMemo, TypoParams, absent_versioned, check_words, corrected_query

_WORD = re.compile(r"[A-Za-z0-9]+")
QUERY_CACHE_SIZE = 256  # query embeddings kept (384 floats each: ~0.4 MB in all)
WINDOW_PER_HIT = 2
"""Keyword and semantic search read the first ``2 k`` candidates' columns first (``WindowSearch``):
k = 10 hits took 12 candidates (median, 24 at most) of the 100 on the 100k-chunk benchmark index."""


@dataclass(frozen=True)
class SearchOptions:
    """Tunable defaults (the ones measured in benchmarks/README.md)."""

    candidates: int = 100  # per retriever; hybrid fuses the union
    max_per_doc: int = 3
    max_merge: int = 3
    dup_threshold: float = 0.9
    fusion: FusionParams = FusionParams()
    calibration: CalibrationParams = CalibrationParams()
    typos: TypoParams = TypoParams()


class Searcher:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        options: SearchOptions | None = None,
        semantic_ready: Callable[[], bool] | None = None,
        reranker: Reranker | None = None,
        calibration_memo: CalibrationMemo | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.options = options or SearchOptions()
        # When the embedder is still loading (a server warming up), semantic work is skipped.
        self.semantic_ready = semantic_ready or (lambda: True)
        self.reranker = reranker
        self.calibrator = Calibrator(self._top_cosine, self.options.calibration, calibration_memo)
        # Per thread (servers search from worker threads): chunk id -> (cosine, raw BM25) of the last mode run.
        self._local = threading.local()
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()  # query -> embedding (LRU)
        self._cache_lock = threading.Lock()
        self._probes = ProbeMemo()  # typo probes' answers for the index's current version

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: SearchMode = "hybrid",
        filters: SearchFilters | None = None,
        min_score: float = 0.0,
        max_per_doc: int | None = None,
    ) -> SearchResult:
        started = time.perf_counter()
        query = query.strip()
        if not query:
            raise InvalidQuery("the query is empty; pass some words to search for")
        if mode not in MODES:
            raise InvalidQuery(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
        if not 1 <= k <= MAX_K:
            raise InvalidQuery(f"k must be between 1 and {MAX_K}, got {k}")
        if not 0.0 <= min_score <= 1.0:
            raise InvalidQuery(f"min_score must be between 0 and 1, got {min_score}")
        per_doc = self.options.max_per_doc if max_per_doc is None else max_per_doc
        if per_doc < 0:
            raise InvalidQuery("max_per_doc must be 0 (no limit) or more")
        # Enough candidates that the per-document cap and merges still leave k hits.
        n = max(self.options.candidates, k * max(per_doc, 1) * 3)
        note = ""
        ran: SearchMode = mode
        if mode in ("semantic", "hybrid") and not self.semantic_ready():
            note = "the embedding model is still loading: these are keyword results; semantic ranking follows shortly"
            ran = "keyword"
        self._local.fixes, self._local.absent = {}, ()
        diversity = {"per_doc": per_doc, "max_merge": self.options.max_merge, "dup_threshold": self.options.dup_threshold}
        groups: list[Group] | None = None
        with _snapshot(self.store):  # every read of this search sees one commit of the index
            if ran in ("keyword", "semantic") and self._windowed():
                scored, groups = self.windowed(ran, query, n, k, filters, diversity)
            elif ran == "keyword":
                scored = self.keyword(query, n, filters)
            elif ran == "fuzzy":
                scored = self.fuzzy(query, n, filters)
            elif ran == "semantic":
                scored = self.semantic(query, n, filters)
            else:
                scored = self.hybrid(query, n, filters)
            if ran == "keyword":  # a versioned name no document holds is no sure answer (hybrid's check_words says so too)
                self._local.absent = absent_versioned(query, self.store, [c for c, _ in scored], self.options.typos,
                                                      self._probes)
        evidence, self._local.evidence = getattr(self._local, "evidence", {}), {}
        fixes, meant = self._local.fixes, query  # meant: the query with its typos corrected
        if fixes:
            meant = corrected_query(query, fixes)
            note = "; ".join(n for n in (note, "corrected " + ", ".join(f"{a} → {b}" for a, b in fixes.items())) if n)
        absent = self._local.absent
        if absent:  # the reader's own term, which the documentation never uses: say so
            note = "; ".join(n for n in (note, "no indexed document mentions " + ", ".join(absent)) if n)
        reranked = self.reranker is not None and self.reranker.enabled and ran != "fuzzy"
        if reranked:
            scored = self.reranker.rerank(meant, scored)  # type: ignore[union-attr]
        if groups is None or reranked:
            groups = diversify(scored, k, **diversity)
        hits = [group_to_hit(g, ran, meant) for g in groups]
        if not reranked:  # a cross-encoder's probabilities are already absolute
            seen = self.query_evidence(meant, scored, evidence) if ran == "hybrid" and groups else None
            estimates = capped([self.estimate(meant, g, evidence.get(g.best.id, (None, None)), seen) for g in groups])
            hits = [replace(h, score=round(s, 6)) for h, s in zip(hits, estimates, strict=True)]
        kept = [h for h in hits if h.score >= min_score]
        return SearchResult(
            query, ran, tuple(kept), note, (time.perf_counter() - started) * 1000,
            confidence=confidence(kept[0].score if kept else None, absent),
            empty_reason="" if kept else "below_min_score" if hits else "no_match",
        )

    # -- scores -------------------------------------------------------------------------
    def estimate(
        self, query: str, group: Group, evidence: tuple[float | None, float | None], seen: QueryEvidence | None = None
    ) -> float:
        """The hit's absolute relevance estimate (see ``calibrate``)."""
        cosine, bm25 = evidence
        best = group.best
        whole, cover = item_coverage(query, " ".join((best.title, *best.heading_path)), group.text(),
                                     self.options.calibration.lists)
        # A list's BM25 sums words of unrelated items: count the share one run of items holds.
        unit = None if bm25 is None else bm25_to_unit(bm25) * (cover / whole if whole else 1.0)
        if cosine is None:
            return self.calibrator.lexical(unit or 0.0, cover)
        estimate = self.calibrator.dense(cosine, cover, unit, seen)
        if seen is not None and self.options.calibration.code_lexical and reads_as_code(query):
            # identifiers and pasted messages: the words themselves are the evidence (keyword's estimate)
            estimate = max(estimate, self.calibrator.lexical(unit or 0.0, cover))
        return estimate

    def pool_coverage(self, query: str, scored: Sequence[tuple[Chunk, float]]) -> float:
        """Share of the query's terms found anywhere in the top candidates (ranked chunks, so
        it does not depend on ``k`` or the per-document cap); a term that only lists hold (one
        item each, ``items.py``) counts ``pool_share`` of one."""
        top = scored[: self.options.calibration.pool_depth]
        n = len(term_stems(query))
        if not n:
            return 0.0
        lists = self.options.calibration.lists
        prose: set[int] = set()  # terms held by a passage read whole (prose, code)
        listed: set[int] = set()  # terms only one item of a list holds, with the words of that run of items
        for c, _ in top:
            whole, credited = credited_terms(query, " ".join((c.title, *c.heading_path)), c.text, lists)
            prose.update(whole) if credited is None else listed.update(credited)
        return (len(prose) + lists.pool_share * len(listed - prose)) / n

    def query_evidence(
        self, query: str, scored: Sequence[tuple[Chunk, float]], evidence: dict[str, tuple[float | None, float | None]]
    ) -> QueryEvidence | None:
        """A hybrid search's evidence as a whole (``calibrate.QueryEvidence``), from its
        candidates' cosines and BM25 scores; None when they carry no cosine."""
        chunks = {c.id: c for c, _ in scored}
        dense = {i: e[0] for i, e in evidence.items() if e[0] is not None and i in chunks}
        if not dense:
            return None
        lexical = {i: e[1] for i, e in evidence.items() if e[1] and i in chunks}
        return QueryEvidence(
            best_cosine=max(dense.values()),
            pool_coverage=self.pool_coverage(query, scored),
            agreement=agreement(top_pages(dense, chunks), top_pages(lexical, chunks)),
            absent=len(getattr(self._local, "absent", ())),
        )

    def _top_cosine(self, query: str) -> float | None:
        """Best cosine of ``query`` on the whole index (calibration's null queries)."""
        if not self.semantic_ready():
            return None
        rows = self.store.vector_search(self.embed_query(query), 1, None)
        return float(rows[0][1]) if rows else None

    def embed_query(self, query: str) -> np.ndarray:
        """The query's embedding, from a small LRU cache (agents repeat and retry queries;
        calibration re-embeds its null queries): a hit skips the model (~10 ms on 2 cores)."""
        with self._cache_lock:
            vector = self._vectors.get(query)
            if vector is not None:
                self._vectors.move_to_end(query)
                return vector
        vector = np.asarray(self.embedder.embed_query(query), dtype=np.float32)
        vector.setflags(write=False)  # shared between searches
        with self._cache_lock:
            self._vectors[query] = vector
            while len(self._vectors) > QUERY_CACHE_SIZE:
                self._vectors.popitem(last=False)
        return vector

    def forget_query_embeddings(self) -> None:
        """Empty the query-embedding cache (benchmarks time the model on every query with it)."""
        with self._cache_lock:
            self._vectors.clear()

    # -- modes --------------------------------------------------------------------------
    def _lean(self) -> bool:
        """Whether keyword and semantic may read hits without ``embed_text``/``metadata_json``
        (``LeanSearch``): nothing after them reads those two unless a reranker is on."""
        return isinstance(self.store, LeanSearch) and not (self.reranker is not None and self.reranker.enabled)

    def _windowed(self) -> bool:
        """Whether keyword and semantic may read their first candidates first (``WindowSearch``)."""
        return isinstance(self.store, WindowSearch) and self._lean()

    def windowed(
        self, mode: SearchMode, query: str, n: int, k: int, filters: SearchFilters | None, diversity: dict
    ) -> tuple[list[tuple[Chunk, float]], list[Group]]:
        """Keyword or semantic search reading the columns of the first ``WINDOW_PER_HIT × k``
        candidates, not all ``n``: the hits are made of the first dozen or so (reading a row's
        columns is most of an engine query's cost at 100k chunks). When those do not settle the
        ``k`` hits (``diversify_settled``), the whole top ``n`` is read, as without a window; the
        window's candidates are the top ``n``'s first ones, so either way the hits are the same."""
        want = WINDOW_PER_HIT * k
        if mode == "keyword":
            text = query_text(query)
            rows, complete = self.store.text_window(text, n, want, filters)  # type: ignore[attr-defined]
        else:
            vector = self.embed_query(query)
            rows, complete = self.store.vector_window(vector, n, want, filters)  # type: ignore[attr-defined]
        scored = self._scored(mode, rows)
        groups, settled = diversify_settled(scored, k, **diversity)
        if not (complete or settled):
            rows = (self.store.text_hits(text, n, filters) if mode == "keyword"  # type: ignore[attr-defined]
                    else self.store.vector_hits(vector, n, filters))  # type: ignore[attr-defined]
            scored = self._scored(mode, rows)
            groups = diversify(scored, k, **diversity)
        return scored, groups

    def _scored(self, mode: SearchMode, rows: list[tuple[Chunk, float]]) -> list[tuple[Chunk, float]]:
        """Keyword (raw BM25) or semantic (cosine) rows on the unit scale; their evidence kept for the estimates."""
        if mode == "keyword":
            self._local.evidence = {c.id: (None, s) for c, s in rows}
            return [(c, bm25_to_unit(s)) for c, s in rows]
        self._local.evidence = {c.id: (s, None) for c, s in rows}
        return [(c, cosine_to_unit(s)) for c, s in rows]

    def keyword(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        text = query_text(query)
        rows = self.store.text_hits(text, n, filters) if self._lean() else self.store.text_search(text, n, filters)
        return self._scored("keyword", rows)

    def fuzzy(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        rows = self.store.text_search(fuzzy_text(query), n, filters, fuzziness=None)
        # The index holds stems, so a slip in a word whose stem is short (``validtor``: ``valid``)
        # is more edits from every indexed term than the engine allows, and found nothing. Hybrid's
        # typo check names the word meant; it probes only words the hits do not hold.
        fixes = check_words(query, self.store, [c for c, _ in rows], self.options.typos, memo=self._probes).fixes
        if fixes:
            self._local.fixes = fixes
            rows = self.store.text_search(fuzzy_text(query, tuple(fixes.values())), n, filters, fuzziness=None)
        self._local.evidence = {c.id: (None, s) for c, s in rows}
        return [(c, bm25_to_unit(s)) for c, s in rows]

    def semantic(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        vector = self.embed_query(query)
        rows = self.store.vector_hits(vector, n, filters) if self._lean() else self.store.vector_search(vector, n, filters)
        return self._scored("semantic", rows)

    def _pool(
        self, text: str, query: str, n: int, filters: SearchFilters | None
    ) -> tuple[dict[str, Chunk], dict[str, float], dict[str, float]]:
        """Hybrid's candidates (BM25 and dense top-n) with their raw BM25 and cosine scores."""
        pooled = self.options.fusion.method == "zconf"
        if pooled and isinstance(self.store, PoolSearch):
            # One store call: both lists, every candidate scored by both retrievers.
            lexical, dense, den, lex = self.store.candidate_pool(text, lambda: self.embed_query(query), n, filters)
            chunks = {c.id: c for c, _ in lexical} | {c.id: c for c, _ in dense}
            return chunks, lex, {i: den.get(i, 0.0) for i in chunks}
        vector = self.embed_query(query)
        lexical = self.store.text_search(text, n, filters)
        dense = self.store.vector_search(vector, n, filters)
        chunks = {c.id: c for c, _ in lexical} | {c.id: c for c, _ in dense}
        lex = {c.id: s for c, s in lexical}
        den = {c.id: s for c, s in dense}
        if pooled and isinstance(self.store, ScoreLookup):
            # One shared pool: score every candidate with both retrievers.
            den |= self.store.vector_scores(vector, [i for i in chunks if i not in den])
            lex |= self.store.text_scores(text, [i for i in chunks if i not in lex])
            den = {i: den.get(i, 0.0) for i in chunks}
        return chunks, lex, den

    def hybrid(self, query: str, n: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]:
        text = query_text(query)
        chunks, lex, den = self._pool(text, query, n, filters)
        lowered = _Lowered(chunks)  # each candidate's embed_text lowered once, shared by typos and the bonus
        checked = check_words(query, self.store, list(chunks.values()), self.options.typos, lowered=lowered.texts,
                              memo=self._probes)
        fixes = checked.fixes
        self._local.fixes, self._local.absent = fixes, checked.absent
        if fixes:
            # The corrected query's pool (its BM25 holds every exact term too, and the dense
            # side embeds what was meant): it ranks as the query typed right would.
            fixed = corrected_query(query, fixes)
            chunks, corrected, den = self._pool(query_text(fixed), fixed, n, filters)
            lowered = _Lowered(chunks)
            w = self.options.typos.weight
            if w >= 1.0:
                lex = {i: corrected.get(i, 0.0) for i in chunks}
            else:  # a corrected term counts ``weight`` of an exact one (BM25 is a sum over terms)
                exact = (self.store.text_scores(text, list(chunks)) if isinstance(self.store, ScoreLookup)
                         else {i: s for i, s in lex.items() if i in chunks})
                lex = {i: exact.get(i, 0.0) + w * max(0.0, corrected.get(i, 0.0) - exact.get(i, 0.0)) for i in chunks}
        # How much of the question the best keyword match holds (weak: trust the dense side more).
        best_lexical = max(lex, key=lex.__getitem__, default=None)
        held = None
        if best_lexical is not None and lex[best_lexical] > 0 and best_lexical in chunks:
            top = chunks[best_lexical]
            held = coverage(corrected_query(query, fixes) if fixes else query, " ".join((top.title, *top.heading_path, top.text)))
        fused = fuse_hybrid(lex, den, self.options.fusion, held)
        params = self.options.fusion
        if params.short_penalty > 0:
            # Short *whole* sections only (no overlap: not the tail of a long section, e.g. an abstract's last chunk).
            cap = params.short_words  # the prior is 1 from there on: counting stops at the cap
            # zconf's dense share for this query: the prior weakens with the keyword side's share
            share = (dense_weight(max(den.values(), default=0.0), max(lex.values(), default=0.0), params, held)
                     if params.method == "zconf" else 0.5)
            fused = {
                i: f * short_prior(words_up_to(chunks[i].text, cap), params, share) if not chunks[i].overlap else f
                for i, f in fused.items()
            }
        tokens = code_tokens(query)
        if tokens:  # identifiers and error codes: an exact occurrence weighs more
            # contains_token's test, with each pattern compiled and each text lowered once; the
            # plain substring test first (most candidates hold none of the tokens)
            patterns = [(t, token_pattern(t)) for t in tokens]

            def share(low: str) -> float:
                return sum(1 for t, p in patterns if t in low and p.search(low)) / len(patterns)

            fused = {i: exact_bonus(f, share(lowered[i]), params) for i, f in fused.items()}
        if params.phrase_weight > 0:
            fused = phrase_bonus(query, fused, lex, lowered, params)
        if params.changelog_penalty > 0:  # the page that explains a feature before the line saying it changed
            keep = 1.0 - params.changelog_penalty
            fused = {i: f * keep if is_changelog(chunks[i].path) else f for i, f in fused.items()}
        if params.included_penalty > 0:  # the page that shows an example before the example's own file
            shown = {(c.root, p) for c in chunks.values() for p in included_paths(c.metadata_json) if p != c.path}
            if shown:
                keep = 1.0 - params.included_penalty
                fused = {i: f * keep if (chunks[i].root, chunks[i].path) in shown else f for i, f in fused.items()}
        self._local.evidence = {i: (den.get(i), lex.get(i, 0.0)) for i in chunks}
        ranked = sorted(fused.items(), key=lambda kv: -kv[1])
        pages = {i: (chunks[i].root, chunks[i].path) for i in fused}
        if params.section_band > 0:  # near ties within a page: the section holding most query words first
            ranked = within_page_ties(ranked, pages, lex, params.section_band)
        meant = corrected_query(query, fixes) if fixes else query
        stems = term_stems(meant)
        if params.heading_band > 0 and (params.heading_weight > 0 or params.summary_penalty > 0):
            roots = frozenset(word_root(t) for t in query_terms(meant))
            # then the section whose own heading the query names, and a page's recap after what it sums up
            ranked = named_sections_first(
                ranked, pages, lambda i: heading_share(stems, chunks[i].title, chunks[i].heading_path, roots),
                params.heading_band, params.heading_weight,
                lambda i: is_summary_heading(chunks[i].heading_path), params.summary_penalty,
            )
        if params.subsection_band > 0:  # a lead-in's first subsection, when it answers nearly as well
            # ... unless the query names the lead-in itself (a class's section before its first subsection)
            def named(i: str) -> bool:
                return heading_is_named(tokens, chunks[i].heading_path)
            ranked = subsection_after_lead_in(ranked, pages, _follower(chunks), params.subsection_band,
                                              named if params.named_lead_in and tokens else None)
        ranked = cite_what_the_query_names(query, stems, ranked, chunks, lowered.phrase, params)
        return [(chunks[cid], score) for cid, score in ranked]


def phrase_bonus(
    query: str, fused: dict[str, float], lex: dict[str, float], lowered: _Lowered, params: FusionParams
) -> dict[str, float]:
    """``fused`` with each of the ``phrase_candidates`` best candidates that hold a long verbatim
    run of a pasted query moved toward 1 (``phrase.py``); other queries are left as they are."""
    words = query_words(query)
    if not looks_pasted(query) or content_count(words) < params.phrase_min_run:
        return fused
    out = dict(fused)
    best = sorted((i for i in fused if lex.get(i, 0.0) > 0), key=lambda i: -lex[i])[: params.phrase_candidates]
    for i in best:
        share = lowered.phrase(words, params.phrase_min_run, i)
        if share > 0:
            out[i] = fused[i] + params.phrase_weight * share * (1.0 - fused[i])
    return out


def _follower(chunks: dict[str, Chunk]) -> Callable[[str], str | None]:
    """For ``fuse.subsection_after_lead_in``: the candidate that follows a chunk in its document
    when it opens a subsection of that chunk's section (None otherwise)."""
    at = {(c.root, c.path, c.chunk_index): i for i, c in chunks.items()}

    def follower(cid: str) -> str | None:
        c = chunks[cid]
        nxt = at.get((c.root, c.path, c.chunk_index + 1))
        if nxt is None or not opens_subsection(c.title, c.heading_path, chunks[nxt].heading_path):
            return None
        return nxt

    return follower


class _Lowered:
    """Lower-cased ``embed_text`` of a pool's candidates, each computed at most once."""

    def __init__(self, chunks: dict[str, Chunk]) -> None:
        self.chunks = chunks
        self.cache: dict[str, str] = {}
        self.shares: dict[str, float] = {}

    def __getitem__(self, cid: str) -> str:
        low = self.cache.get(cid)
        if low is None:
            low = self.cache[cid] = self.chunks[cid].embed_text.lower()
        return low

    def texts(self) -> list[str]:
        """Every candidate's, in pool order."""
        return [self[cid] for cid in self.chunks]

    def phrase(self, words: tuple[str, ...], min_run: int, cid: str) -> float:
        """``phrase.phrase_share`` of a candidate (one query per pool: kept per candidate)."""
        share = self.shares.get(cid)
        if share is None:
            share = self.shares[cid] = phrase_share(words, self[cid], min_run)
        return share


def top_pages(scores: dict[str, float], chunks: dict[str, Chunk], n: int = 3) -> list[tuple[str, str]]:
    """The first ``n`` distinct pages (root, path) of the chunks, best score first."""
    pages: dict[tuple[str, str], None] = {}
    for cid in sorted(scores, key=lambda i: -scores[i]):
        pages.setdefault((chunks[cid].root, chunks[cid].path))
        if len(pages) == n:
            break
    return list(pages)


def agreement(dense_pages: Sequence[Hashable], lexical_pages: Sequence[Hashable], n: int = 3) -> float:
    """Share of the dense top-``n`` pages that BM25's top-``n`` holds too (0 when BM25 found nothing)."""
    return len(set(dense_pages[:n]) & set(lexical_pages[:n])) / n


@lru_cache(maxsize=512)
def token_pattern(token: str) -> re.Pattern[str]:
    """``analysis.contains_token``'s test for a lowered text, literal first (see ``after_no``)."""
    return re.compile(after_no(r"[\w]", token) + r"(?![\w])")


@lru_cache(maxsize=8)
def _at_least(n: int) -> re.Pattern[str]:
    # possessive: a word is never split to reach n, and a miss never backtracks
    return re.compile(r"(?:[^A-Za-z0-9]*+[A-Za-z0-9]++){%d}" % n)


def words_up_to(text: str, cap: int) -> int:
    """``min(len(_WORD.findall(text)), cap)``, reading only the first ``cap`` words of a long text."""
    if cap <= 0:
        return 0
    return cap if _at_least(cap).match(text) else min(len(_WORD.findall(text)), cap)


def _snapshot(store: Store) -> AbstractContextManager[None]:
    """The store's read snapshot when it offers one (optional ability): a search makes several
    reads (BM25, dense, score look-ups), and a commit between them could show one document at
    two versions in one answer (seen in benchmarks/concurrency.py before this)."""
    snapshot = getattr(store, "snapshot", None)
    return snapshot() if callable(snapshot) else nullcontext()


@runtime_checkable
class PoolSearch(Protocol):
    """Optional store ability: hybrid's whole candidate pool in one call, the fastest way the
    store can (the embedded store overlaps BM25 with the query embedding and computes the
    cosines from vectors it fetched with the candidates). ``vector()`` computes the query
    embedding; returns (BM25 top-k with raw BM25, dense top-k with cosine, cosine of every
    candidate, BM25 of every candidate that holds a query term)."""

    def candidate_pool(
        self, text: str, vector: Callable[[], np.ndarray], k: int, filters: SearchFilters | None
    ) -> tuple[list[tuple[Chunk, float]], list[tuple[Chunk, float]], dict[str, float], dict[str, float]]: ...


@runtime_checkable
class LeanSearch(Protocol):
    """Optional store ability: ``text_search`` (exact terms) and ``vector_search`` returning
    chunks without ``embed_text`` (empty) and ``metadata_json`` (``{}``), the two columns no hit
    shows; keyword and semantic search use them when no reranker reads ``embed_text``."""

    def text_hits(self, query: str, k: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]: ...

    def vector_hits(self, vector: np.ndarray, k: int, filters: SearchFilters | None) -> list[tuple[Chunk, float]]: ...


@runtime_checkable
class WindowSearch(Protocol):
    """Optional store ability, beside ``LeanSearch``: the first rows (about ``want``) of
    ``text_hits(query, k)`` / ``vector_hits(vector, k)``, exactly as those would list them
    first, and whether they are all of their rows; what the engine must read is the window's
    rows, not ``k``'s (the embedded store: ``lance_queries.settled_rows``)."""

    def text_window(
        self, query: str, k: int, want: int, filters: SearchFilters | None
    ) -> tuple[list[tuple[Chunk, float]], bool]: ...

    def vector_window(
        self, vector: np.ndarray, k: int, want: int, filters: SearchFilters | None
    ) -> tuple[list[tuple[Chunk, float]], bool]: ...


@runtime_checkable
class ScoreLookup(Protocol):
    """Optional store ability: score given chunks for a query (fills the hybrid pool)."""

    def vector_scores(self, vector: np.ndarray, ids: Sequence[str]) -> dict[str, float]: ...

    def text_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]: ...


MAX_FUZZY_TERMS = 32
"""Each fuzzy term expands to up to 20 indexed terms per variant; past this many, the first win."""


def fuzzy_text(query: str, meant: Sequence[str] = ()) -> str:
    """The query's words, their identifier parts, the words ``meant`` by its typos, and adjacent
    pairs joined (``pic sure`` → ``picsure``), at most ``MAX_FUZZY_TERMS`` of them (the query's own
    words first)."""
    words = [w.lower() for w in _WORD.findall(query)]
    joined = [a + b for a, b in zip(words, words[1:], strict=False)]
    terms = list(dict.fromkeys(query_text(query).lower().split() + [w.lower() for w in meant] + joined))
    return " ".join(terms[:MAX_FUZZY_TERMS])


def group_to_hit(group: Group, mode: SearchMode, query: str = "") -> Hit:
    """One hit per group: the best chunk's id, index and headings; text and lines span the group."""
    if len(group.chunks) == 1:
        return to_hit(group.best, group.score, mode, query)
    first, last = group.chunks[0], group.chunks[-1]
    text = group.text()
    starts = [c.start_line for c in group.chunks if c.start_line is not None]
    ends = [c.end_line for c in group.chunks if c.end_line is not None]
    best = group.best
    return Hit(
        chunk_id=best.id, path=best.path, root=best.root, title=best.title, heading_path=best.heading_path,
        collection=best.collection, doc_type=best.doc_type, text=text, score=round(float(group.score), 6),
        mode=mode, chunk_index=best.chunk_index, page=first.page if first.page is not None else last.page,
        start_line=min(starts) if starts else None, end_line=max(ends) if ends else None, tags=best.tags,
        date=best.date, highlights=highlight_spans(text, query) if query else (),
    )


def to_hit(chunk: Chunk, score: float, mode: SearchMode, query: str = "") -> Hit:
    return Hit(
        chunk_id=chunk.id, path=chunk.path, root=chunk.root, title=chunk.title, heading_path=chunk.heading_path,
        collection=chunk.collection, doc_type=chunk.doc_type, text=chunk.text, score=round(float(score), 6),
        mode=mode, chunk_index=chunk.chunk_index, page=chunk.page, start_line=chunk.start_line,
        end_line=chunk.end_line, tags=chunk.tags, date=chunk.date,
        highlights=highlight_spans(chunk.text, query) if query else (),
    )


__all__ = ["MAX_FUZZY_TERMS", "MODES", "SearchOptions", "Searcher", "fuzzy_text", "group_to_hit", "to_hit"]
