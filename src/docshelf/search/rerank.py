"""Optional cross-encoder reranking of the top candidates, within a time budget.

Nothing is reranked by default: no cross-encoder ships in an offline package. A user who
installs the sentence-transformers extra and names a model gets the top ``top_n`` fused
candidates rescored by it. If the model cannot load, or a call takes longer than the
budget, the reranker logs one warning and turns itself off; search goes on without it.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence

from ..models import Chunk

log = logging.getLogger(__name__)

ScoreFn = Callable[[str, Sequence[str]], Sequence[float]]


class Reranker:
    def __init__(self, model: str | None = None, *, budget_ms: float = 400.0, top_n: int = 20,
                 score_fn: ScoreFn | None = None) -> None:
        self.model = model
        self.budget_ms = budget_ms
        self.top_n = top_n
        self._score_fn = score_fn
        self.enabled = bool(model or score_fn)
        self.disabled_reason = ""

    def _load(self) -> ScoreFn:
        if self._score_fn is None:
            from sentence_transformers import CrossEncoder  # optional extra

            encoder = CrossEncoder(self.model)
            self._score_fn = lambda q, texts: encoder.predict([(q, t) for t in texts])
        return self._score_fn

    def _turn_off(self, why: str) -> None:
        self.enabled = False
        self.disabled_reason = why
        log.warning("reranker %s turned off: %s", self.model or "(custom)", why)

    def rerank(self, query: str, scored: list[tuple[Chunk, float]]) -> list[tuple[Chunk, float]]:
        """Rescore the top ``top_n`` (scores in [0, 1] via a logistic); the rest keep their order below."""
        if not self.enabled or not scored:
            return scored
        try:
            score = self._load()
        except Exception as exc:  # noqa: BLE001 - a missing extra or model must not break search
            self._turn_off(f"could not load it ({type(exc).__name__}: {exc})")
            return scored
        ranked = sorted(scored, key=lambda cs: -cs[1])
        head, tail = ranked[: self.top_n], ranked[self.top_n :]
        started = time.perf_counter()
        try:
            logits = list(score(query, [c.embed_text for c, _ in head]))
        except Exception as exc:  # noqa: BLE001
            self._turn_off(f"scoring failed ({type(exc).__name__}: {exc})")
            return scored
        took = (time.perf_counter() - started) * 1000
        if took > self.budget_ms:
            self._turn_off(f"reranking {len(head)} candidates took {took:.0f} ms, over the {self.budget_ms:.0f} ms budget")
            return scored  # this query's answer keeps the fused order too: the budget is a promise
        rescored = sorted(
            ((c, 1.0 / (1.0 + math.exp(-float(x)))) for (c, _), x in zip(head, logits, strict=True)),
            key=lambda cs: -cs[1],
        )
        floor = min((s for _, s in rescored), default=0.0)
        # Keep the tail below every reranked hit, in its fused order.
        tail_scaled = [(c, min(s, floor) * 0.999) for c, s in tail]
        return rescored + tail_scaled
