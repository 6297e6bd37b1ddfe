"""Which of a page's chunks its hit cites, for three shapes of query whose wording says it.

Each rule trades scores between a page's best chunk and another chunk of the same page scored
within a band of it (``promote_within_page``), as the other within-page rules of ``fuse`` do:
every page keeps its best score and its place, so hit@k, MRR and BEIR cannot move; only the
cited section changes (sets A, C, D, E, F: benchmarks/README.md, "Section choice, third pass").

- A pasted message (``phrase.looks_pasted``): the chunk that prints it word for word, in order
  (the longest verbatim run), before a neighbour that repeats its words more often in another
  order: ``ValidationError: field_a must be greater than field_b`` is answered where the
  example raises exactly that message, not by the next example's ``field_b must be greater
  than field_a``.
- A query that only names a page (every term is a word of the page's title: ``nested
  schemas`` for "Nesting schemas"): the page's introduction, which is about all of it, before
  a subsection whose heading repeats the title's words.
- A lookup of names only (every word a code token: ``SchemaOpts``): the chunk that mentions
  the names in its prose (where a page explains them) before one that only uses them in code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import lru_cache

from ..analysis import code_tokens, contains_token
from ..models import Chunk
from .fuse import FusionParams, _heading_words, _stem
from .phrase import content_count, looks_pasted, query_words

_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n.*?(?:^\1[^\n]*$|\Z)", re.S | re.M)


def promote_within_page(
    ranked: Sequence[tuple[Hashable, float]], page: Mapping[Hashable, Hashable], merit: Callable[[Hashable], float],
    band: float,
) -> list[tuple[Hashable, float]]:
    """``ranked`` (best first) where each page's best chunk trades scores with the chunk of the
    same page, scored within ``band`` (relative) of it, of the highest ``merit`` (the better
    score among equals) when that merit is higher than the best chunk's own."""
    if band <= 0:
        return list(ranked)
    best: dict[Hashable, tuple[Hashable, float]] = {}
    for key, score in ranked:
        best.setdefault(page[key], (key, score))
    chosen: dict[Hashable, tuple[float, Hashable]] = {}  # page -> (merit to beat, its chunk)
    for key, score in ranked:
        top, top_score = best[page[key]]
        if key == top or score < (1.0 - band) * top_score:
            continue
        if page[key] not in chosen:
            chosen[page[key]] = (merit(top), top)
        m = merit(key)
        if m > chosen[page[key]][0]:
            chosen[page[key]] = (m, key)
    scores = dict(ranked)
    moved = False
    for p, (_, key) in chosen.items():
        top, top_score = best[p]
        if key != top:
            scores[top], scores[key], moved = scores[key], top_score, True
    if not moved:
        return list(ranked)
    return sorted(scores.items(), key=lambda kv: -kv[1])


@lru_cache(maxsize=8192)  # once per page title (a hybrid search asks for each of its ~200 candidates)
def _title_words(title: str) -> tuple[tuple[str, str], ...]:
    """The title's words, each with its matching prefix (``fuse._stem``)."""
    return tuple((w, _stem(w)) for w in _heading_words(title))


def names_title(stems: Sequence[str], title: str) -> bool:
    """Whether every query term (``highlight.term_stems``) is a word of the page title (a stem
    and a word match when one starts the other, as in ``fuse.heading_share``)."""
    words = _title_words(title)
    return bool(stems) and bool(words) and all(
        any(w.startswith(s) or s.startswith(root) for w, root in words) for s in stems)


def only_names(query: str) -> bool:
    """Whether every word of the query is a code token (``SchemaOpts``, ``on_disconnect close_code``)."""
    tokens = code_tokens(query)
    return bool(tokens) and len(tokens) >= len(query.split())


def prose(text: str) -> str:
    """``text`` without its fenced code blocks."""
    return _FENCE.sub("", text) if "```" in text or "~~~" in text else text


def cite_what_the_query_names(
    query: str, stems: Sequence[str], ranked: Sequence[tuple[str, float]], chunks: Mapping[str, Chunk],
    phrase: Callable[[tuple[str, ...], int, str], float], params: FusionParams,
) -> list[tuple[str, float]]:
    """The three rules of this module, each within ``params.cite_band`` of a page's best chunk
    (``stems``: the typo-corrected query's; ``phrase(words, min_run, chunk id)``: ``phrase.phrase_share``
    of the chunk's lowered ``embed_text``, as the engine keeps it for ``phrase_bonus``)."""
    band = params.cite_band
    if band <= 0:
        return list(ranked)
    pages = {i: (chunks[i].root, chunks[i].path) for i, _ in ranked}
    out = list(ranked)
    words = query_words(query)
    if looks_pasted(query) and content_count(words) >= params.phrase_min_run:
        out = promote_within_page(out, pages, lambda i: phrase(words, params.phrase_min_run, i), band)
    if stems:
        def intro(i: str) -> float:
            c = chunks[i]
            return float((not c.heading_path or c.heading_path == (c.title,)) and names_title(stems, c.title))
        out = promote_within_page(out, pages, intro, params.intro_band)
    if only_names(query):
        tokens = code_tokens(query)

        def in_prose(i: str) -> float:
            text = prose(chunks[i].text).lower()
            return sum(1 for t in tokens if t in text and contains_token(text, t)) / len(tokens)
        out = promote_within_page(out, pages, in_prose, band)
    return out
