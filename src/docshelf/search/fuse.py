"""Fusion of ranked lists: pure functions, no I/O.

``rrf`` is reciprocal-rank fusion. ``convex`` combines scores normalised per list.
``fuse_hybrid`` is the default hybrid fusion (see its docstring and benchmarks/README.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FusionParams:
    method: str = "convex"
    keyword_weight: float = 0.5
    semantic_weight: float = 0.5
    rrf_k: float = 60.0
    bm25_half: float = 10.0


def bm25_to_unit(score: float, half: float = 10.0) -> float:
    """A raw BM25 score mapped to [0, 1): ``half`` maps to 0.5."""
    return score / (score + half) if score > 0 else 0.0


def cosine_to_unit(score: float) -> float:
    return max(0.0, min(1.0, float(score)))


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


def fuse_hybrid(
    lexical: Mapping[Hashable, float], dense: Mapping[Hashable, float], params: FusionParams = FusionParams()
) -> dict[Hashable, float]:
    """Fused scores in [0, 1] from raw BM25 and cosine scores keyed by chunk id."""
    total = params.keyword_weight + params.semantic_weight
    if params.method == "rrf":
        fused = rrf([sorted(lexical, key=lambda x: -lexical[x]), sorted(dense, key=lambda x: -dense[x])],
                    params.rrf_k, [params.keyword_weight, params.semantic_weight])
        top = total / (params.rrf_k + 1)
        return {key: s / top for key, s in fused.items()}
    fused = convex([lexical, dense], [params.keyword_weight, params.semantic_weight])
    return {key: s / total for key, s in fused.items()}
