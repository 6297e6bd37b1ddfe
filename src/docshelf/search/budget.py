"""The response budget: shorten hit texts so a whole answer fits in a given number of characters.

Agents pay for every character they read, so a search answer has a size budget
(``SearchRequest.max_chars``). Texts are cut longest first, evenly ("water-filling"):
short hits stay whole, long ones share what is left, and each cut hit says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..models import Hit

FIELD_OVERHEAD = 420  # the JSON keys and small values of one serialized hit (measured on MCP output)
MIN_TEXT = 200  # never cut a hit's text below this


def hit_overhead(hit: Hit) -> int:
    """Characters one hit costs besides its text: the path is repeated in its citation and URI."""
    headings = sum(len(h) + 4 for h in hit.heading_path)
    return FIELD_OVERHEAD + 3 * len(hit.path) + len(hit.title) + 2 * headings + len(hit.collection) + len(
        hit.doc_type) + sum(len(t) + 3 for t in hit.tags) + len(hit.note)


def fit_hits(hits: Sequence[Hit], budget: int) -> tuple[list[Hit], bool]:
    """``hits`` with texts shortened so the serialized answer fits in about ``budget`` chars; True when cut."""
    hits = list(hits)
    room = max(budget - sum(hit_overhead(h) for h in hits) - 200, MIN_TEXT * len(hits))
    lengths = [len(h.text) for h in hits]
    if sum(lengths) <= room:
        return hits, False
    # Water-filling: find the cap c such that sum(min(len, c)) == room.
    cap, remaining, left = 0, room, len(lengths)
    for n in sorted(lengths):
        share = remaining // left
        if n <= share:
            remaining -= n
            left -= 1
        else:
            cap = share
            break
    out = []
    for h in hits:
        if len(h.text) > cap:
            text = h.text[: max(cap - 2, 0)].rstrip() + " …"
            spans = tuple((a, b) for a, b in h.highlights if b <= len(text))
            out.append(replace(h, text=text, text_truncated=True, highlights=spans))
        else:
            out.append(h)
    return out, True


__all__ = ["fit_hits", "hit_overhead"]
