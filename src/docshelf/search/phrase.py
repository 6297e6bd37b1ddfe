"""Phrase evidence: how much of a pasted query a candidate holds word for word, in order.

BM25 scores each query word on its own. A pasted error message or a line of program output
(``Hero 1: id=None name='Deadpond' age=None``) is printed verbatim by the page that explains
it, while pages on the same topic share its words in another order; the dense side, reading
the words' meaning, pulls towards the page that explains the topic in general. The longest
run of consecutive query words that a candidate holds in the same order tells them apart.
It is used only for queries that look pasted (``looks_pasted``): on questions written in
words it changed nothing on the training sets, and it costs a little time per candidate.
``reads_as_code`` (a pasted query, or a one-word name) is the shape calibration uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..analysis import code_tokens
from .highlight import STOPWORDS

_TOKEN = re.compile(r"[a-z0-9]+")


def query_words(query: str) -> tuple[str, ...]:
    """The query's words, lowered, in order (punctuation dropped: ``id=None`` → ``id``, ``none``)."""
    return tuple(_TOKEN.findall(query.lower()))


_PASTED = re.compile(r"[=:\"(){}\[\]<>]|(?<![A-Za-z])'|'(?![A-Za-z])|(?<![\w.])(?!\d+(?:\.\d+)+\.?(?![\w.]))[\w.]*\w[._]\w")


def looks_pasted(query: str) -> bool:
    """Whether the query carries the punctuation of code or program output (``=``, ``:``,
    quotes, brackets, ``a.b`` / ``a_b`` names) rather than only a sentence's words (an
    apostrophe inside a word, ``doesn't``, is a sentence's, and so is a version number:
    ``Python 3.12``)."""
    return _PASTED.search(query) is not None


def reads_as_code(query: str) -> bool:
    """A pasted message or output line (``looks_pasted``) or a one-word name (``Depends``, ``or_``)."""
    return looks_pasted(query) or (len(query.split()) == 1 and bool(code_tokens(query)))


def content_count(words: Sequence[str]) -> int:
    return sum(1 for w in words if w not in STOPWORDS)


def longest_run(words: Sequence[str], text: str) -> int:
    """Content words in the longest run of consecutive ``words`` found in ``text`` (lowered)
    with the same words in the same order (punctuation and spacing between them ignored)."""
    if len(words) < 2:
        return 0
    tokens = _TOKEN.findall(text)
    pairs = set(zip(tokens, tokens[1:]))
    # Runs of query words whose every adjacent pair occurs in the text: only those can be
    # verbatim runs (most candidates hold few of the query's pairs: this rules them out cheaply).
    chains: list[tuple[int, int]] = []
    start = None
    for i in range(len(words) - 1):
        if (words[i], words[i + 1]) in pairs:
            start = i if start is None else start
        elif start is not None:
            chains.append((start, i + 1))
            start = None
    if start is not None:
        chains.append((start, len(words)))
    if not chains:
        return 0
    joined = " " + " ".join(tokens) + " "
    best = 0
    for lo_end, hi_end in sorted(chains, key=lambda c: -content_count(words[c[0] : c[1]])):
        if content_count(words[lo_end:hi_end]) <= best:
            break
        best = max(best, _longest_within(words[lo_end:hi_end], joined))
    return best


def _longest_within(words: Sequence[str], joined: str) -> int:
    """``longest_run`` of ``words`` (every adjacent pair known present) in ``joined`` (spaced tokens)."""
    best = 0
    n = len(words)
    for i in range(n - 1):
        if content_count(words[i:]) <= best:
            break
        # the longest run starting at i: presence is monotone in its length, so bisect on it
        lo, hi = 2, n - i
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if " " + " ".join(words[i : i + mid]) + " " in joined:
                lo = mid
            else:
                hi = mid - 1
        best = max(best, content_count(words[i : i + lo]))
    return best


def phrase_share(words: Sequence[str], text: str, min_run: int) -> float:
    """Share of the query's content words in its longest verbatim run in ``text``; 0 when that
    run holds fewer than ``min_run`` content words."""
    total = content_count(words)
    if total < min_run:
        return 0.0
    run = longest_run(words, text)
    return run / total if run >= min_run else 0.0
