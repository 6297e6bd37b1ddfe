"""Where the query's terms occur in a hit's text, as character offsets (for JSON and Rich)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..analysis import identifier_parts

_WORD_START = re.compile(r"\w")
STOPWORDS = frozenset(
    "a an and are as at be by can do does for from how i in is it of on or that the this to was what when where which "
    "who why will with you your my we our".split()
)


def query_terms(query: str) -> list[str]:
    terms: list[str] = []
    for word in re.findall(r"[\w\-.]+", query.lower()):
        word = word.strip(".-")
        if len(word) < 2 or word in STOPWORDS:
            continue
        for t in {word, *identifier_parts(word)}:
            if len(t) >= 2 and t not in STOPWORDS and t not in terms:
                terms.append(t)
    return terms


def term_stems(query: str) -> list[str]:
    """The query terms as matched in texts: a term's prefix of at least 4 letters (``rotate`` → ``rota``)."""
    return [t if len(t) <= 4 else t[: max(4, len(t) - 2)] for t in query_terms(query)]


@lru_cache(maxsize=256)
def query_stems(query: str) -> tuple[str, ...]:
    """``term_stems``, worked out once per query (not once per hit)."""
    return tuple(term_stems(query))


FIND_LIMIT = 16
"""A stem found more often than this in one text is matched by its compiled pattern (C speed)
instead of ``str.find`` steps in Python (``word_spans``, ``calibrate.free_start``)."""


@lru_cache(maxsize=4096)
def _stem_pattern(stem: str) -> re.Pattern[str]:
    """Compiled once per term, not per query: queries share terms, and compiling these look-behind
    patterns was ~4% of a hybrid search at 100k chunks (``re``'s own cache holds 512 and cycles)."""
    return re.compile((after_no(r"\w", stem) if _WORD_START.match(stem) else r"\b" + re.escape(stem)) + r"[\w]*")


def after_no(before: str, literal: str) -> str:
    """A pattern for ``literal`` not preceded by a ``before`` character: ``(?<!before)literal``
    with the literal first, so the regex engine scans for it quickly instead of trying the
    look-behind at every position (5–20× faster on a hit's text). Also ``\b`` + ``literal``
    when ``literal`` starts with a word character, as every query term does."""
    escaped = re.escape(literal)
    return escaped + "(?<!" + before + escaped + ")"


def is_word(ch: str) -> bool:
    r"""``re``'s ``\w`` for one character of a str (its test is the same: alphanumeric or ``_``)."""
    return ch.isalnum() or ch == "_"


def word_spans(lowered: str, stem: str) -> list[tuple[int, int]]:
    """The spans ``_stem_pattern(stem).finditer(lowered)`` gives, for a stem that starts with a
    word character and occurs at most ``FIND_LIMIT`` times: each occurrence not preceded by a word
    character, through the end of its word. Without compiling the pattern: a new query term's
    look-behind pattern took ~0.1 ms to compile (``re``'s parser is Python), a dozen per new
    query across highlights and coverage, more than matching them."""
    spans: list[tuple[int, int]] = []
    n, size = len(lowered), len(stem)
    i = lowered.find(stem)
    while i != -1:
        if i and is_word(lowered[i - 1]):
            i = lowered.find(stem, i + 1)
            continue
        j = i + size
        while j < n and is_word(lowered[j]):
            j += 1
        spans.append((i, j))
        i = lowered.find(stem, j)
    return spans


def highlight_spans(text: str, query: str) -> tuple[tuple[int, int], ...]:
    """Non-overlapping spans of words that start with a query term (so 'rotate' marks 'rotating'? no:
    a term's stem prefix of at least 4 letters marks inflections such as rotate → rotated)."""
    spans: list[tuple[int, int]] = []
    lowered = text.lower()
    for stem in query_stems(query):
        if stem not in lowered:
            continue
        if is_word(stem[0]) and lowered.count(stem) <= FIND_LIMIT:
            spans.extend(word_spans(lowered, stem))
            continue
        for m in _stem_pattern(stem).finditer(lowered):
            spans.append((m.start(), m.end()))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return tuple(merged)
