"""Shaping a ranked chunk list into hits: per-document cap, near-duplicates, adjacent merges.

Candidates are taken in score order. A candidate that continues a hit already taken (the
next or previous chunk of the same document, in the same section and on the same page, so
the merged hit's one citation stays true) is merged into that hit when both matched:
it ranks above the next distinct hit and scores at least ``merge_ratio`` (0.8) of the
hit's best chunk (in hybrid or semantic mode every chunk is "a candidate", so rank alone
is not a match). A merged hit spans at most ``max_merge`` chunks. Otherwise it becomes a new hit unless its
document already has ``per_doc`` hits, or its text nearly duplicates a hit's (word-shingle
Jaccard ≥ ``dup_threshold``, 0.9 by default: the same passage copied into two files, a chunk repeated).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..models import Chunk

_WORD = re.compile(r"\w+")


@dataclass
class Group:
    """One future hit: adjacent chunks of one document, scored by its best chunk."""

    best: Chunk
    score: float
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def first(self) -> int:
        return self.chunks[0].chunk_index

    @property
    def last(self) -> int:
        return self.chunks[-1].chunk_index

    def text(self) -> str:
        parts: list[str] = []
        previous: Chunk | None = None
        for c in self.chunks:
            body = c.text
            if previous is not None and c.overlap and c.chunk_index == previous.chunk_index + 1:
                cut = c.overlap  # the chunker recorded how much it repeated
            else:
                cut = overlap(previous.text if previous else "", body)
            parts.append(body[cut:].lstrip() if cut else body)
            previous = c
        return "\n\n".join(p for p in parts if p)


def shingles(text: str, n: int = 3) -> frozenset[tuple[str, ...]]:
    """The text's word ``n``-grams (the whole word list when shorter), as tuples: the same sets
    as joined strings would give (words hold no spaces), built without a join per n-gram."""
    words = _WORD.findall(text.lower())
    if len(words) < n:
        return frozenset([tuple(words)])
    return frozenset(zip(*(words[i:] for i in range(n))))


def jaccard(a: frozenset, b: frozenset) -> float:
    if not a or not b:
        return 0.0
    shared = len(a & b) if len(a) <= len(b) else len(b & a)
    return shared / (len(a) + len(b) - shared)  # |a ∪ b| without building it


def near_duplicate(a: frozenset, b: frozenset, threshold: float) -> bool:
    """``jaccard(a, b) >= threshold``, without the intersection when the sizes alone rule it out
    (the Jaccard index is at most the smaller set's size over the larger's)."""
    small, large = sorted((len(a), len(b)))
    if large and small / large < threshold:
        return False
    return jaccard(a, b) >= threshold


def overlap(previous: str, current: str) -> int:
    """Length of the longest prefix of ``current`` that ends ``previous`` (the chunker's overlap)."""
    probe = current[:24]
    if len(probe) < 24 or not previous:
        return 0
    tail = previous[-4000:]
    start = tail.find(probe)
    while start != -1:
        if current.startswith(tail[start:]):
            return len(tail) - start
        start = tail.find(probe, start + 1)
    return 0


def same_place(a: Chunk, b: Chunk) -> bool:
    """Whether two chunks share one citation: the same section (heading path) and page."""
    return a.heading_path == b.heading_path and a.page == b.page


def diversify(
    scored: Sequence[tuple[Chunk, float]],
    k: int,
    *,
    per_doc: int = 3,
    min_score: float = 0.0,
    max_merge: int = 3,
    dup_threshold: float = 0.9,
    merge_ratio: float = 0.8,
) -> list[Group]:
    return diversify_settled(scored, k, per_doc=per_doc, min_score=min_score, max_merge=max_merge,
                             dup_threshold=dup_threshold, merge_ratio=merge_ratio)[0]


def diversify_settled(
    scored: Sequence[tuple[Chunk, float]],
    k: int,
    *,
    per_doc: int = 3,
    min_score: float = 0.0,
    max_merge: int = 3,
    dup_threshold: float = 0.9,
    merge_ratio: float = 0.8,
) -> tuple[list[Group], bool]:
    """``diversify``'s groups, and whether they are settled: the walk stopped before the end of
    ``scored`` (k hits and a candidate for one more, or a score under ``min_score``), so no
    candidate ranked after all of ``scored`` could change them. A search that read only the
    first candidates (``engine.WindowSearch``) reads the rest when they are not settled."""
    groups: list[Group] = []
    by_doc: dict[tuple[str, str], list[Group]] = {}
    prints: list[frozenset[tuple[str, ...]]] = []
    for chunk, score in sorted(scored, key=lambda cs: -cs[1]):
        if round(score, 6) < min_score:  # hits show scores rounded to 6 places
            return groups, True
        key = (chunk.root, chunk.path)
        mine = by_doc.setdefault(key, [])
        if any(g.first <= chunk.chunk_index <= g.last for g in mine):
            continue  # the same chunk twice (or inside a merged span)
        neighbour = next(
            (
                g for g in mine
                if len(g.chunks) < max_merge and chunk.chunk_index in (g.first - 1, g.last + 1)
                and same_place(chunk, g.best) and score >= merge_ratio * g.score
            ),
            None,
        )
        if neighbour is not None:
            neighbour.chunks.append(chunk)
            neighbour.chunks.sort(key=lambda c: c.chunk_index)
            continue
        if per_doc and len(mine) >= per_doc:
            continue
        fp = shingles(chunk.text)
        if any(near_duplicate(fp, other, dup_threshold) for other in prints):
            continue
        if len(groups) >= k:
            return groups, True
        group = Group(chunk, score, [chunk])
        groups.append(group)
        mine.append(group)
        prints.append(fp)
    return groups, False
