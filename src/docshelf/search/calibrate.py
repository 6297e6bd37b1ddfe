"""Scores with a meaning: an absolute relevance estimate in [0, 1] for every hit, and a confidence.

Ranking and scoring are separate. Each mode ranks as before (fusion for hybrid); the score a
hit shows is an estimate of "this passage answers the query", comparable across queries:

- **With the embedding** (semantic, hybrid): from the hit's cosine, measured against the
  corpus's own background: the median best cosine of a fixed set of off-topic *null
  queries* (``NULL_QUERIES``) on this index. Cosines are rescaled to the room above that
  background, ``x = (cos − bg) / (1 − bg)``, so the estimate adapts to the model and the
  corpus (a model whose cosines sit high, or a corpus where everything looks alike, raises
  ``bg``). Semantic mode: ``score = sigmoid(slope · (x − pivot) + coverage_weight · (coverage − 0.5))``.
- **Hybrid** adds what the whole search saw (``QueryEvidence``, the same for every hit): the
  best cosine of the pool (``x_best``, the dense side's answer wherever fusion ranked it), the
  share of the query's terms found in the top ``pool_depth`` candidates, and whether the two
  retrievers agree (the share of the dense top-3 pages that are also BM25's top-3 pages); and
  the hit's own BM25. ``score = sigmoid(slope · ((1 − best_share) · x + best_share · x_best −
  fused_pivot) + coverage_weight · (coverage − 0.5) + bm25_weight · bm25unit + pool_weight ·
  pool coverage + agreement_weight · agreement − absent_weight · [a query word is absent])``.
  The three before the last only *add*: a paraphrase that shares no word with the
  documentation keeps its dense estimate (the pivot sits higher so an off-topic query ends
  where it did), while "in the docs" gains from every independent sign of it. The last one
  takes away: a question holding a name or term that no indexed chunk holds and no indexed
  word is near (``gettext`` on a CLI library's site, ``mongodb`` on an ORM's; found by the
  typo probes, ``typos.WordCheck``) asks about something the documentation never names.
- **Without it** (keyword, fuzzy: no query embedding, so no added latency):
  ``score = sigmoid(6 · (coverage − 0.5) + 2 · (bm25unit − 0.5))``.

``coverage`` is the share of the query's content words (stop words dropped, identifiers split)
found in the passage, so an exact identifier match lifts the estimate. A passage that reads as
a list of short unrelated items (``items.py``: a plugin list, a changelog) is credited only
with the words one run of its items holds together, and its BM25 in the same proportion
(``item_coverage``): words scattered over items about other things answer nothing. Scores never increase
down the list: a hit's score is its own estimate capped by the hit above it. Parameters were
chosen on sets A and C (benchmarks/README.md).

``confidence`` is what an agent acts on: ``high`` (answer from the hits), ``medium`` (related
passages; answer only what they say), ``low`` / ``none`` (say the documentation does not seem to
cover it). It reads the top hit's score, ``high`` ≥ 0.85, ``medium`` ≥ 0.5, ``low`` ≥ 0.3,
else ``none`` (also when nothing was found), and what the search found the documentation lacks
(``typos.WordCheck.absent``, hybrid): a query naming a term no indexed document mentions is at
most ``medium``, one naming an identifier none holds (``deleted_at``) at most ``low``. A score
weighs the evidence for one passage; the label also says whether the question asks about
something the documentation never names, which the neighbouring topic's passage cannot answer.
Floors and caps chosen on the training sets A, C, D, E, F (benchmarks/README.md, "Confidence
labels an agent can act on"): the 0.7 floor let unanswerable questions on the library's own
subject through as ``high`` (SQLModel: 8 of 10).
"""

from __future__ import annotations

import math
import re
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from .highlight import FIND_LIMIT, after_no, query_stems
from .items import ListParams, list_windows

if TYPE_CHECKING:
    from .calibration_memo import CalibrationMemo

Confidence = Literal["high", "medium", "low", "none"]
# Floors chosen on the training sets (benchmarks/README.md, "Confidence labels an agent can act on")
CONFIDENCE_LEVELS: tuple[tuple[float, Confidence], ...] = ((0.85, "high"), (0.5, "medium"), (0.3, "low"))

# Questions no technical documentation answers; their best cosines are the corpus's noise floor.
NULL_QUERIES = (
    "chocolate cake baking temperature",
    "qwzx vlorp frandish",
    "what is the tallest mountain in Africa",
    "knitting pattern for a wool scarf",
    "who won the football world cup final",
    "how to train a puppy to sit",
    "medieval castle architecture in france",
    "best time of year to plant tulips",
)


@dataclass(frozen=True)
class CalibrationParams:
    slope: float = 9.0
    pivot: float = 0.15  # share of the room above the background where the estimate is 0.5
    coverage_weight: float = 1.0
    # Hybrid only (QueryEvidence; chosen on sets A + C, benchmarks/README.md): boosts, not penalties,
    # so that an answered paraphrase (no shared word, retrievers disagreeing) keeps its dense estimate.
    fused_pivot: float = 0.2
    best_share: float = 0.5  # weight of the pool's best cosine beside the hit's own
    bm25_weight: float = 1.0  # the hit's BM25 (unit scale)
    pool_weight: float = 1.0  # share of the query's terms in the top ``pool_depth`` candidates
    agreement_weight: float = 1.0  # share of the dense top-3 pages among BM25's top-3
    # The one penalty: a query holding a word that no indexed chunk holds and no indexed word is
    # near (``QueryEvidence.absent``: ``mongodb`` on an ORM's site) asks about something the
    # documentation never names; the dense side still finds the neighbouring topic.
    absent_weight: float = 1.5
    pool_depth: int = 10
    # A query that reads as code (a pasted error or output line, an identifier: ``phrase.reads_as_code``)
    # is answered by a passage holding its words, whatever their meaning to the model: in hybrid its
    # estimate is at least the keyword estimate (``lexical``) of the same hit when this is on.
    code_lexical: bool = True
    default_background: float = 0.22  # until the null queries have run (e.g. model still loading)
    lists: ListParams = ListParams()  # list-like passages: coverage item by item (``item_coverage``)
    refresh_seconds: float = 600.0


@dataclass(frozen=True)
class QueryEvidence:
    """What a hybrid search saw as a whole, the same for each of its hits."""

    best_cosine: float  # the best cosine among the candidates
    pool_coverage: float  # share of the query's terms found in the top candidates
    agreement: float  # share of the dense top-3 pages that are also BM25's top-3 pages
    absent: int = 0  # query words no indexed chunk holds, nor a word near them (``typos.WordCheck``)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -60 else 0.0


def coverage(query: str, text: str) -> float:
    """Share of the query's content terms that occur in ``text`` (a 4+ letter stem prefix counts)."""
    stems = query_stems(query)
    if not stems:
        return 0.0
    low = text.lower()
    return sum(1 for stem in stems if free_start(low, stem)) / len(stems)


def held_terms(query: str, text: str) -> frozenset[int]:
    """Which of the query's content terms (their positions in ``query_stems``) occur in ``text``."""
    low = text.lower()
    return frozenset(i for i, stem in enumerate(query_stems(query)) if free_start(low, stem))


def credited_terms(query: str, head: str, text: str, params: ListParams) -> tuple[frozenset[int], frozenset[int] | None]:
    """``(held, credited)`` query terms of a passage (``head``: its title and headings, which count
    for every item): ``credited`` is None for prose and code (read whole); for a list
    (``items.list_windows``), the most terms that one run of consecutive items holds together."""
    whole = held_terms(query, f"{head} {text}")
    windows = list_windows(text, params) if whole else None
    if not windows:
        return whole, None
    return whole, max((held_terms(query, f"{head} {w}") for w in windows), key=len)


def item_coverage(query: str, head: str, text: str, params: ListParams) -> tuple[float, float]:
    """``(coverage, credited share)`` of a passage (see ``credited_terms``)."""
    n = len(query_stems(query))
    if not n:
        return 0.0, 0.0
    whole, credited = credited_terms(query, head, text, params)
    return len(whole) / n, len(whole if credited is None else credited) / n


_ASCII_WORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def free_start(low: str, stem: str) -> bool:
    """Whether ``_coverage_pattern(stem)`` finds ``stem`` in ``low``: an occurrence not preceded
    by an ASCII letter or digit. Found with ``str.find`` (the plain substring test rules most
    texts out first), without compiling the pattern (see ``highlight.word_spans``), unless the
    stem occurs more than ``FIND_LIMIT`` times."""
    i = low.find(stem)
    tries = 0
    while i != -1:
        if i == 0 or low[i - 1] not in _ASCII_WORD:
            return True
        tries += 1
        if tries >= FIND_LIMIT:
            return _coverage_pattern(stem).search(low) is not None
        i = low.find(stem, i + 1)
    return False


@lru_cache(maxsize=4096)
def _coverage_pattern(stem: str) -> re.Pattern[str]:
    """Compiled once per term (queries share terms; see ``highlight._stem_pattern``)."""
    return re.compile(after_no("[a-z0-9]", stem))


def confidence(score: float | None, absent: Sequence[str] = ()) -> Confidence:
    """The label of a result whose top hit scored ``score``, read with what the search found the
    documentation lacks (``absent``: ``typos.WordCheck.absent``): a query naming a term no indexed
    document mentions (``mongodb`` on an ORM's site) is at most ``medium``, one naming an
    identifier none holds (``deleted_at``) at most ``low``, however near the topic the search found."""
    if score is None:
        return "none"
    cap = "low" if any("_" in w for w in absent) else "medium" if absent else "high"
    for floor, level in CONFIDENCE_LEVELS:
        if score >= floor:
            return max(level, cap, key=_LEVEL_ORDER.index)
    return "none"


_LEVEL_ORDER: tuple[Confidence, ...] = ("high", "medium", "low", "none")


class Calibrator:
    """Turns a hit's evidence (cosine, BM25, term coverage) into the score it shows."""

    def __init__(self, top_cosine: Callable[[str], float | None], params: CalibrationParams | None = None,
                 memo: CalibrationMemo | None = None) -> None:
        # top_cosine(query) -> best cosine of that query on the index (None: cannot tell yet)
        self._top_cosine = top_cosine
        self.params = params or CalibrationParams()
        self.memo = memo  # the background recorded for this index version (calibration_memo.py)
        self._background: float | None = None
        self._measured_at = 0.0
        self._lock = threading.Lock()

    def background(self) -> float:
        """Median best cosine of the null queries on this index (re-measured every few minutes)."""
        now = time.monotonic()
        with self._lock:
            if self._background is None or now - self._measured_at > self.params.refresh_seconds:
                key = self.memo.key() if self.memo is not None else None
                recorded = self.memo.load(key) if self.memo is not None else None
                if recorded is not None:
                    self._background, self._measured_at = recorded, now
                else:
                    tops = [c for c in (self._top_cosine(q) for q in NULL_QUERIES) if c is not None]
                    if tops:
                        self._background, self._measured_at = statistics.median(tops), now
                        if self.memo is not None and len(tops) == len(NULL_QUERIES):
                            self.memo.save(key, self._background)
            return self.params.default_background if self._background is None else self._background

    def invalidate(self) -> None:
        with self._lock:
            self._background = None

    def dense(self, cosine: float, cover: float, bm25_unit: float | None = None,
              query: QueryEvidence | None = None) -> float:
        """From the hit's cosine and term coverage; in hybrid also its BM25 and the search's evidence."""
        bg = min(self.background(), 0.9)
        x = (cosine - bg) / (1.0 - bg)
        p = self.params
        if query is None:
            return _sigmoid(p.slope * (x - p.pivot) + p.coverage_weight * (cover - 0.5))
        best = (max(query.best_cosine, cosine) - bg) / (1.0 - bg)
        z = (p.slope * ((1.0 - p.best_share) * x + p.best_share * best - p.fused_pivot)
             + p.coverage_weight * (cover - 0.5) + p.bm25_weight * (bm25_unit or 0.0)
             + p.pool_weight * query.pool_coverage + p.agreement_weight * query.agreement
             - p.absent_weight * min(query.absent, 1))
        return _sigmoid(z)

    @staticmethod
    def lexical(bm25_unit: float, cover: float) -> float:
        return _sigmoid(6.0 * (cover - 0.5) + 2.0 * (bm25_unit - 0.5))


def capped(scores: Sequence[float]) -> list[float]:
    """Each score capped by the one above it, so scores never increase down the list."""
    out: list[float] = []
    for s in scores:
        out.append(min(s, out[-1]) if out else s)
    return out
