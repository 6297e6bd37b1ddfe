"""A passage read as a list of separate one-line items: where its words are evidence only item by item.

A long list page (pytest's plugin list: a name, a release line and one line of description,
hundreds of times; a changelog; an index of API names) holds every common word of a topic
somewhere, each in an item about something else. A question that shares three words with
three different items of one chunk is not answered by it, yet the whole chunk "covers" the
question and its BM25 adds up the three. So a chunk that reads as a list (``list_windows``: a
table, or many short items and no code; a short bullet list inside prose is no list) is credited only with the query terms that one run of
consecutive items (``window_words`` words at most, at least one item: about one entry of a list) holds together:
``calibrate.item_coverage``. Prose and code are read whole, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A line that starts an item: a bullet, a numbered line, or a table row (Markdown, or a plain-text
# table such as reST's simple tables: columns apart by three spaces or more).
_ROW = re.compile(r"^\s*\||\S {3,}\S")
_BULLET = re.compile(r"^\s*(?:[-*+•]\s|\d+[.)]\s)|" + _ROW.pattern)


@dataclass(frozen=True)
class ListParams:
    """Chosen on the training doc sets A, C, D, E, F and pytest's plugin list (benchmarks/README.md)."""

    enabled: bool = True
    min_items: int = 8  # fewer items: a short list inside prose, read whole
    short_share: float = 0.9  # ...and this share of its words in items of at most ``item_words`` words
    item_words: int = 20
    min_rows: int = 3  # a table: this many rows or more (rows are entries whatever their length)
    window_words: int = 20  # consecutive items read together (one item at least)
    pool_share: float = 0.5  # a query term held only by list items counts this much in pool coverage


def items(text: str) -> list[str]:
    """The text's items: its paragraphs, with each bullet or table row of a paragraph on its own
    (when two lines of it or more are such)."""
    out: list[str] = []
    for paragraph in text.split("\n\n"):
        lines = [line for line in paragraph.split("\n") if line.strip()]
        if not lines:
            continue
        if sum(1 for line in lines if _BULLET.search(line)) < 2:
            out.append("\n".join(lines))
            continue
        current: list[str] = []
        for line in lines:
            if _BULLET.search(line) and current:
                out.append("\n".join(current))
                current = []
            current.append(line)
        out.append("\n".join(current))
    return out


def _indented_share(text: str) -> float:
    lines = [line for line in text.split("\n") if line.strip()]
    return sum(1 for line in lines if line.startswith(("  ", "\t"))) / len(lines) if lines else 0.0


def list_windows(text: str, params: ListParams) -> list[str] | None:
    """Runs of consecutive items of at most ``window_words`` words when ``text`` reads as a list
    of short items (no code fence); None for prose and code, which are read whole."""
    if not params.enabled or "```" in text or _indented_share(text) > 0.3:
        return None  # code (fenced, or a source file's indented lines) reads as a whole
    parts = items(text)
    lengths = [len(p.split()) for p in parts]
    rows = sum(1 for p in parts if _ROW.search(p))
    table = rows >= params.min_rows and rows >= 0.8 * len(parts)
    short = sum(n for n in lengths if n <= params.item_words)
    if not table and (len(parts) < params.min_items or short < params.short_share * sum(lengths)):
        return None
    windows: list[str] = []
    for start in range(len(parts)):
        end, words = start + 1, lengths[start]
        while end < len(parts) and words + lengths[end] <= params.window_words:
            words += lengths[end]
            end += 1
        windows.append("\n\n".join(parts[start:end]))
    return windows


__all__ = ["ListParams", "items", "list_windows"]
