"""Fusion of ranked lists: pure functions, no I/O.

``rrf`` is reciprocal-rank fusion. ``convex`` combines scores normalised per list, which
keeps each list's confidence (a list whose top score stands far above the rest counts more).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence


def rrf(lists: Sequence[Sequence[Hashable]], k: float = 60.0, weights: Sequence[float] | None = None) -> dict[Hashable, float]:
    """Σ w / (k + rank) over the lists each id appears in (ranks start at 1)."""
    weights = weights or [1.0] * len(lists)
    scores: dict[Hashable, float] = {}
    for w, ranked in zip(weights, lists, strict=True):
        for rank, key in enumerate(ranked, start=1):
            scores[key] = scores.get(key, 0.0) + w / (k + rank)
    return scores


def min_max(scores: Mapping[Hashable, float]) -> dict[Hashable, float]:
    """Scale to [0, 1]; a list of equal scores maps to 1."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi - lo < 1e-12:
        return {key: 1.0 for key in scores}
    return {key: (s - lo) / (hi - lo) for key, s in scores.items()}


def convex(lists: Sequence[Mapping[Hashable, float]], weights: Sequence[float]) -> dict[Hashable, float]:
    """Σ w · min-max(score); an id missing from a list gets 0 from it."""
    out: dict[Hashable, float] = {}
    for w, scores in zip(weights, lists, strict=True):
        for key, s in min_max(scores).items():
            out[key] = out.get(key, 0.0) + w * s
    return out
