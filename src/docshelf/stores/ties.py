"""Equal scores in one fixed order: every store's top-k breaks ties by (path, chunk index, id).

Engines return rows that score alike in whatever order their scan met them (parallel
segments, graph traversal), so one search on one index could keep a different member of a
tie at its k-th place from run to run. In hybrid search the candidate pool is normalised as
a whole, so one chunk more or less at its edge moved other answers (seen in CI on the
regression snapshot). A store therefore fetches ``k + TIE_SLACK`` rows and keeps the ``k``
best by score, then by ``tie_key``; a tie reaching past the slack is the only case left to chance.
The key is the root-relative path first, not the id alone: an id hashes the root's absolute
path, so id order would differ between two checkouts of the same folder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

TIE_SLACK = 10


def tie_key(path: str, chunk_index: int, chunk_id: str) -> tuple[str, int, str]:
    return (path, chunk_index, chunk_id)


def best_k(scores: Sequence[float], keys: Sequence[Any], k: int, *, higher_first: bool = True) -> list[int]:
    """Positions of the ``k`` best rows, best first, equal scores in ``keys`` order (``tie_key``)."""
    sign = -1.0 if higher_first else 1.0
    return sorted(range(len(keys)), key=lambda i: (sign * scores[i], keys[i]))[:k]


__all__ = ["TIE_SLACK", "best_k", "tie_key"]
