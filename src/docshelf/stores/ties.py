"""Equal scores in one fixed order: every store's top-k breaks ties by chunk id.

Engines return rows that score alike in whatever order their scan met them (parallel
segments, graph traversal), so one search on one index could keep a different member of a
tie at its k-th place from run to run. In hybrid search the candidate pool is normalised as
a whole, so one chunk more or less at its edge moved other answers (seen in CI on the
regression snapshot). A store therefore fetches ``k + TIE_SLACK`` rows and keeps the ``k``
best by (score, id); a tie reaching past the slack is the only case left to chance.
"""

from __future__ import annotations

from collections.abc import Sequence

TIE_SLACK = 10


def best_k(scores: Sequence[float], ids: Sequence[str], k: int, *, higher_first: bool = True) -> list[int]:
    """Positions of the ``k`` best rows, best first, equal scores by id."""
    sign = -1.0 if higher_first else 1.0
    return sorted(range(len(ids)), key=lambda i: (sign * scores[i], ids[i]))[:k]


__all__ = ["TIE_SLACK", "best_k"]
