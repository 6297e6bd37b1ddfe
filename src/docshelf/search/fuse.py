"""Fusion of ranked lists: pure functions, no I/O.

``rrf`` is reciprocal-rank fusion. ``convex`` combines scores normalised per list.
``zconf`` is the default hybrid fusion (see its docstring and benchmarks/README.md).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from ..analysis import identifier_parts
from ..models import listed_paths
from .highlight import STOPWORDS


@dataclass(frozen=True)
class FusionParams:
    """Hybrid fusion settings; the defaults are the ones measured in benchmarks/README.md.

    ``method``: ``"zconf"`` (default: z-scores over the shared candidate pool, dense weight
    from the model's confidence), ``"convex"`` (min-max, fixed weights) or ``"rrf"``.
    """

    method: str = "zconf"
    keyword_weight: float = 0.5
    semantic_weight: float = 0.5
    rrf_k: float = 60.0
    # zconf: dense weight = sigmoid(slope * max(0, top cosine - pivot) + ...): 0.5 at most pivots.
    confidence_pivot: float = 0.55
    confidence_slope: float = 4.0
    # ...and more when BM25's best match is weak: + bm25_slope * max(0, bm25_pivot - unit BM25 top).
    bm25_pivot: float = 0.5
    bm25_slope: float = 8.0
    # ...and more when the best BM25 match holds few of the query's terms (its coverage below
    # coverage_pivot) and scores modestly (unit BM25 below coverage_gate, raw 12.2): + coverage_slope
    # * (coverage_pivot - coverage), at most max_dense_weight. BM25 then ranks on incidental words
    # ("accept", "begins") while the page that answers a paraphrase shares none of its words.
    # The gate keeps long queries whose best match holds many terms (SciFact claims) as they were.
    coverage_pivot: float = 0.7
    coverage_slope: float = 2.0
    coverage_gate: float = 0.55
    max_dense_weight: float = 0.95
    # A weak keyword match stands out only by its z-score: over a pool where most candidates
    # hold no query term, a chunk matching one common word gets a BM25 z of 4-5 and outranks
    # the page the dense side found, even at dense share 0.95. A positive BM25 z counts
    # min(1, raw BM25 / lexical_floor) of itself (0: off).
    lexical_floor: float = 5.0
    # zconf: the displayed score is sigmoid(fused z - offset).
    score_offset: float = 2.0
    min_pool: int = 3
    # Short-passage prior: a chunk that is a whole short section (fewer than short_words body
    # words: a one-line section, a bullet of release notes; not the tail of a long section)
    # ranks as if scored (1 - short_penalty * missing share): its breadcrumb and a few words
    # match too easily, and it rarely holds the answer itself.
    short_words: int = 40
    short_penalty: float = 0.4
    # The prior follows the keyword side's share: short_penalty × 2·(1 − dense share), at most
    # short_penalty (equal shares) and at least short_min_scale of it. A short passage matches too
    # easily mostly on BM25's side (length normalisation, its breadcrumb's words); when BM25's
    # evidence is weak and the dense share is 0.95, a paraphrase's answer that is a short FAQ entry
    # ("Yes, please see Daemonizing") is not pushed under longer, wrong ones. Not below half: the
    # dense side also likes a short chunk that is mostly its heading (benchmarks/README.md).
    short_min_scale: float = 0.5
    # Exact code-like tokens (``analysis.code_tokens``): a chunk holding the share s of them
    # gains exact_weight * s of the distance to 1 (an identifier the reader pasted is strong evidence).
    exact_weight: float = 0.3
    # Near ties within a page: a page's chunks scored within section_band (relative) of its best
    # are ordered by BM25, so the cited section is the one holding most of the query's words
    # (a parent's 3-line child or a sibling that differs by one letter no longer wins a coin
    # flip). The page's best score is unchanged, so pages rank exactly as before.
    section_band: float = 0.02
    # Named sections first: a page's chunks scored within heading_band (relative) of its best rank,
    # among themselves, as if scored (1 + heading_weight * s), where s is the share of the words
    # their own heading adds to the page title and parent headings that the query uses ("Enabling
    # the Debugger" under "Debugging Applications" for "how do I enable the interactive debugger").
    # They trade scores, so every page keeps its best score and its place: only the cited section
    # changes (sets A, C, D, E: benchmarks/README.md).
    heading_band: float = 0.2
    heading_weight: float = 0.3
    # Summary sections ("Recap", "Summary", "Review All the Code", a man page's "SYNOPSIS":
    # ``is_summary_heading``) repeat the page's key words and code in a line or a whole program
    # (a synopsis lists every option), and took the citation from the section that explains
    # (sets F and L, benchmarks/README.md). Among a page's chunks within
    # heading_band of its best they rank as if scored (1 - summary_penalty); the page keeps its
    # best score and its place, as above.
    summary_penalty: float = 0.3
    # A section's lead-in (a page's introduction, or a section's own text just before its first
    # subsection) introduces what the subsections explain. When it is its page's best chunk and
    # the chunk that follows it in the document, opening a subsection, scores within
    # subsection_band (relative) of it, the two trade scores: the subsection is cited (the more
    # specific section that answers); the page keeps its best score and its place (0: off).
    subsection_band: float = 0.2
    # ... unless the lead-in's own heading is a name the query holds and the subsection's is not
    # (the reader asked for that section by name; benchmarks/README.md "Section choice, fourth pass").
    named_lead_in: bool = True
    # What the query's own wording names (``citing.py``): a pasted message's verbatim run, a
    # name lookup's mention in prose, each within cite_band of the page's best chunk; a query
    # that names its page's title, the page's introduction within intro_band. Trades scores,
    # so pages keep their places (0: off).
    cite_band: float = 0.2
    intro_band: float = 0.3
    # Change logs (``changes``, ``changelog``, ``history``, ``release-notes``, ``upgrading``,
    # ``migrating``, ``whatsnew``…, by file name) rank as if scored (1 - changelog_penalty):
    # they name every identifier and feature again, in a line about what changed, and took the
    # top spot from the page that explains it (sets A and E, benchmarks/README.md). A change log
    # that matches much better than any other page still wins.
    changelog_penalty: float = 0.3
    # Phrase evidence (``phrase.py``), for a query that looks pasted (``phrase.looks_pasted``: an
    # error message, a line of program output): each of the phrase_candidates best candidates holding
    # a run of at least phrase_min_run of the query's content words verbatim, in order, gains
    # phrase_weight * s of the distance to 1, s the run's share of the query's content words (the
    # page that prints the message, not the one explaining the topic: set F, benchmarks/README.md).
    phrase_weight: float = 0.5
    phrase_min_run: int = 2
    phrase_candidates: int = 40
    # A file another candidate page includes (``docs_src/tutorial001.py`` shown by a tutorial
    # through ``{* … *}`` or ``--8<--``) ranks as if scored (1 - included_penalty): the page
    # shows the same code with the prose that explains it, and the reader is sent there. Only
    # when the including page is in the same pool (``included_paths``); hybrid only.
    included_penalty: float = 0.3


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


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -60 else 0.0


def _z(values: Sequence[float]) -> list[float]:
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return [0.0] * n if sd < 1e-9 else [(v - mean) / sd for v in values]


def dense_weight(
    top_cosine: float, top_bm25: float, params: FusionParams, lexical_coverage: float | None = None
) -> float:
    """The dense list's share: 0.5 unless there is evidence for more. It grows when the model
    is sure (top cosine above the pivot), when BM25's best match is weak (few, common
    terms), or when BM25's best match holds few of the query's terms and scores modestly
    (``lexical_coverage``: the share of the query's content terms in the BM25 top chunk, when
    the caller knows it).
    It never drops below 0.5: a low cosine is weak evidence against the model (a
    paraphrase can be right at cosine 0.3), and a strong BM25 match already stands out
    in its z-scores."""
    weight = _sigmoid(
        params.confidence_slope * max(0.0, top_cosine - params.confidence_pivot)
        + params.bm25_slope * max(0.0, params.bm25_pivot - bm25_to_unit(top_bm25))
    )
    if (lexical_coverage is not None and lexical_coverage < params.coverage_pivot
            and bm25_to_unit(top_bm25) < params.coverage_gate):
        weight = min(max(weight, params.max_dense_weight),
                     weight + params.coverage_slope * (params.coverage_pivot - lexical_coverage))
    return weight


def zconf(
    lexical: Mapping[Hashable, float], dense: Mapping[Hashable, float], params: FusionParams = FusionParams(),
    lexical_coverage: float | None = None,
) -> dict[Hashable, float]:
    """Confidence-weighted z-score fusion over a shared candidate pool.

    ``lexical`` (raw BM25) and ``dense`` (cosine) must score the *same* ids: every candidate
    found by either retriever, scored by both (BM25 0 when no query term occurs). Each
    retriever's scores are standardised over that pool (its own mean and spread), so a
    candidate counts by how far it stands out in each list, not by raw scales; the dense
    share (``dense_weight``) grows from 0.5 with evidence that the dense list is the surer
    one. Scores are squashed to [0, 1] with a logistic of the fused z. Pools smaller than ``min_pool`` are
    too small for a spread: they fall back to a fixed mix of the absolute unit scores.
    """
    keys = list(dict.fromkeys([*dense, *lexical]))
    if not keys:
        return {}
    floor = min(dense.values(), default=0.0)  # only for stores that cannot fill the pool
    lex = [lexical.get(k, 0.0) for k in keys]
    den = [dense.get(k, floor) for k in keys]
    wd = dense_weight(max(den), max(lex), params, lexical_coverage)
    if len(keys) < params.min_pool:
        return {k: (1 - wd) * bm25_to_unit(l) + wd * cosine_to_unit(c) for k, l, c in zip(keys, lex, den, strict=True)}
    zl, zd = _z(lex), _z(den)
    if params.lexical_floor > 0:
        zl = [z * min(1.0, raw / params.lexical_floor) if z > 0 else z for z, raw in zip(zl, lex, strict=True)]
    return {
        k: _sigmoid((1 - wd) * a + wd * b - params.score_offset) for k, a, b in zip(keys, zl, zd, strict=True)
    }


def fuse_hybrid(
    lexical: Mapping[Hashable, float], dense: Mapping[Hashable, float], params: FusionParams = FusionParams(),
    lexical_coverage: float | None = None,
) -> dict[Hashable, float]:
    """Fused scores in [0, 1] from raw BM25 and cosine scores keyed by chunk id
    (``lexical_coverage``: see ``dense_weight``; zconf only)."""
    if params.method == "zconf":
        return zconf(lexical, dense, params, lexical_coverage)
    total = params.keyword_weight + params.semantic_weight
    if params.method == "rrf":
        fused = rrf([sorted(lexical, key=lambda x: -lexical[x]), sorted(dense, key=lambda x: -dense[x])],
                    params.rrf_k, [params.keyword_weight, params.semantic_weight])
        top = total / (params.rrf_k + 1)
        return {key: s / top for key, s in fused.items()}
    fused = convex([lexical, dense], [params.keyword_weight, params.semantic_weight])
    return {key: s / total for key, s in fused.items()}


def short_prior(words: int, params: FusionParams, dense_share: float = 0.5) -> float:
    """Rank multiplier in (0, 1] for a passage of ``words`` body words (1 at ``short_words`` or more),
    weaker as the keyword side's share (1 - ``dense_share``, zconf) falls (see ``short_min_scale``)."""
    if params.short_penalty <= 0 or words >= params.short_words:
        return 1.0
    scale = max(params.short_min_scale, min(1.0, 2.0 * (1.0 - dense_share)))
    return 1.0 - params.short_penalty * scale * (1.0 - words / params.short_words)


_CHANGELOG = re.compile(
    r"changes?|changelog|history|news|releases?|release[-_ ]?notes?|upgrad(?:e|es|ing)(?:[-_ ]?(?:guides?|notes?|\d[\w.]*))?"
    r"|migrating(?:[-_ ]?\w+)?|migration[-_ ]?(?:guides?|notes?)|whats[-_ ]?new[\w.-]*"
)


@lru_cache(maxsize=8192)  # once per page, not once per candidate chunk of every query
def is_changelog(path: str) -> bool:
    """Whether a page is a change log, release notes or an upgrade guide, by its file name."""
    return _CHANGELOG.fullmatch(PurePosixPath(path.lower()).stem) is not None


@lru_cache(maxsize=8192)  # once per page's metadata, not once per candidate chunk of every query
def included_paths(metadata_json: str) -> tuple[str, ...]:
    """The root-relative paths a chunk's page includes (its parser's ``includes`` metadata)."""
    if '"includes"' not in metadata_json:
        return ()
    try:
        return listed_paths(json.loads(metadata_json).get("includes"))
    except (ValueError, AttributeError):
        return ()


def exact_bonus(score: float, share: float, params: FusionParams) -> float:
    """``score`` moved toward 1 by ``exact_weight`` × the share of the query's code tokens present."""
    return score + params.exact_weight * share * (1.0 - score) if share > 0 else score


def within_page_ties(
    ranked: Sequence[tuple[Hashable, float]], page: Mapping[Hashable, Hashable], lexical: Mapping[Hashable, float],
    band: float,
) -> list[tuple[Hashable, float]]:
    """``ranked`` (best first) with each page's near ties (scores within ``band`` of the page's
    best, relative) reordered by ``lexical`` score; they trade scores among themselves, so
    every page keeps its best score and its place."""
    if band <= 0:
        return list(ranked)
    return reorder_near_page_best(ranked, page, band, lambda key, score: (-lexical.get(key, 0.0), -score))


def reorder_near_page_best(
    ranked: Sequence[tuple[Hashable, float]], page: Mapping[Hashable, Hashable], band: float,
    order: Callable[[Hashable, float], object],
) -> list[tuple[Hashable, float]]:
    """``ranked`` (best first) with each page's chunks scored within ``band`` (relative) of the
    page's best sorted by ``order(key, score)`` (ascending), trading scores among themselves:
    every page keeps its best score and its place, only which of its chunks comes first changes."""
    best: dict[Hashable, float] = {}
    for key, score in ranked:
        best.setdefault(page[key], score)
    near: dict[Hashable, list[tuple[Hashable, float]]] = {}
    for key, score in ranked:
        if score >= (1.0 - band) * best[page[key]]:
            near.setdefault(page[key], []).append((key, score))
    out = dict(ranked)
    for members in near.values():
        if len(members) > 1:
            reordered = sorted(members, key=lambda m: order(*m))
            out.update((key, score) for (key, _), (_, score) in zip(reordered, members, strict=True))
    return sorted(out.items(), key=lambda kv: -kv[1])


_HEADING_WORD = re.compile(r"[A-Za-z0-9]+")


def _stem(word: str) -> str:
    """A word's matching prefix, as ``highlight.term_stems`` cuts query terms (``enabling`` → ``enabli``)."""
    return word if len(word) <= 4 else word[: max(4, len(word) - 2)]


def _heading_words(heading: str) -> list[str]:
    """A heading's content words, lowered; ``BackgroundTasks`` → ``background``, ``tasks`` (an
    identifier is split only into parts of 3+ letters: ``PyPI`` stays one word)."""
    words: list[str] = []
    for token in _HEADING_WORD.findall(heading):
        parts = identifier_parts(token) if any(ch.isupper() for ch in token[1:]) else [token]
        for part in parts if all(len(p) >= 3 for p in parts) else [token]:
            part = part.lower()
            if len(part) >= 2 and part not in STOPWORDS:
                words.append(part)
    return words


@lru_cache(maxsize=8192)  # once per section, not once per candidate chunk of every query
def own_heading_words(title: str, heading_path: tuple[str, ...]) -> tuple[str, ...]:
    """The words a section's own heading adds to the page title and its parent headings (none
    for a page's introduction): what tells this section apart from its neighbours."""
    if not heading_path or heading_path == (title,):
        return ()
    parents = {_stem(w) for h in (title, *heading_path[:-1]) for w in _heading_words(h)}
    return tuple(
        w for w in _heading_words(heading_path[-1])
        if not any(_stem(w).startswith(p) or p.startswith(_stem(w)) for p in parents)
    )


def names_word(word: str, stem: str) -> bool:
    """Whether a query term's matching prefix (``stem``: ``highlight.term_stems``) names a heading
    ``word``: one starts the other, but two short words (4 letters or fewer, which the prefix
    never cuts) only when equal or one is the other's plural: ``pip`` is not ``pipx``, nor
    ``pipe`` (a tool's name, one letter apart, is another tool), while ``app`` is ``apps`` and
    ``env`` is still named by ``environment``."""
    if len(word) <= 4 and len(stem) <= 4 and word != stem:
        return word + "s" == stem or stem + "s" == word
    return word.startswith(stem) or stem.startswith(_stem(word))


@lru_cache(maxsize=8192)  # once per heading word
def word_root(word: str) -> str:
    """A word's root as the keyword index reads it (the Snowball stemmer: ``compatable`` and
    ``compatible`` → ``compat``, ``naming`` and ``name`` → ``name``)."""
    from ..stores.lexical import stem

    return stem(word)


def heading_share(
    stems: Sequence[str], title: str, heading_path: tuple[str, ...], roots: frozenset[str] = frozenset()
) -> float:
    """Share of a section's own heading words (``own_heading_words``) that a query term names
    (``stems``: ``highlight.term_stems`` of the query, matched by ``names_word``; ``roots``: the
    query terms' ``word_root``, when given, also name a word of the same root: the keyword side
    matched them, a misspelt ``compatable`` included)."""
    words = own_heading_words(title, heading_path)
    if not words or not stems:
        return 0.0
    return sum(1 for w in words
               if any(names_word(w, s) for s in stems) or (roots and word_root(w) in roots)) / len(words)


_SUMMARY = re.compile(
    r"(?:(?:a |in |quick )?(?:recap|summary|conclusions?|wrap(?:ping)?[- ]up|tl;?dr|synopsis)"
    r"|review (?:all )?(?:of )?the (?:full |whole |complete )?code)[\s.!:]*"
)


@lru_cache(maxsize=8192)  # once per section
def is_summary_heading(heading_path: tuple[str, ...]) -> bool:
    """Whether a section is a page's recap (its own heading ``Recap``, ``Summary``, ``Review All
    the Code``…) or a man page's ``SYNOPSIS``: it repeats, or lists, what other sections explain."""
    return bool(heading_path) and _SUMMARY.fullmatch(heading_path[-1].strip().lower()) is not None


def named_sections_first(
    ranked: Sequence[tuple[Hashable, float]], page: Mapping[Hashable, Hashable], share: Callable[[Hashable], float],
    band: float, weight: float, summary: Callable[[Hashable], bool] | None = None, summary_penalty: float = 0.0,
) -> list[tuple[Hashable, float]]:
    """``ranked`` (best first) with each page's chunks scored within ``band`` of the page's best
    (relative) reordered by score × (1 + ``weight`` × ``share``), × (1 - ``summary_penalty``)
    for a ``summary`` section; they trade scores among themselves, so every page keeps its best
    score and its place."""
    keep = 1.0 - summary_penalty if summary is not None and summary_penalty > 0 else 1.0
    if band <= 0 or (weight <= 0 and keep >= 1.0):
        return list(ranked)
    return reorder_near_page_best(
        ranked, page, band,
        lambda key, score: -score * (1.0 + weight * share(key)) * (keep if keep < 1.0 and summary(key) else 1.0),
    )


def heading_is_named(tokens: Sequence[str], heading_path: tuple[str, ...]) -> bool:
    """Whether a section's own heading is a name among the query's ``tokens`` (``analysis.code_tokens``,
    lowered): ``AcceptHeaderVersioning``, ``get_queryset(self)`` for ``GenericAPIView.get_queryset``."""
    if not heading_path or not tokens:
        return False
    name = heading_path[-1].strip().split("(", 1)[0].strip().strip(".").lower()
    if not name or any(ch.isspace() for ch in name):
        return False
    return any(t == name or t.endswith("." + name) for t in tokens)


def opens_subsection(title: str, lead: tuple[str, ...], follower: tuple[str, ...]) -> bool:
    """Whether a section at heading path ``follower`` lies under the section at ``lead`` (a page's
    introduction, no heading or the title alone, leads into every section of its page)."""
    if not lead or lead == (title,):
        return bool(follower) and follower != lead
    return len(follower) > len(lead) and follower[: len(lead)] == lead


def subsection_after_lead_in(
    ranked: Sequence[tuple[Hashable, float]], page: Mapping[Hashable, Hashable],
    follower: Callable[[Hashable], Hashable | None], band: float,
    named: Callable[[Hashable], bool] | None = None,
) -> list[tuple[Hashable, float]]:
    """``ranked`` (best first) where each page's best chunk trades scores with ``follower(best)``
    (the next chunk of the document when it opens a subsection of the best chunk's section, else
    None) if that one scores within ``band`` (relative) of it: every page keeps its best score and
    its place, only which of its chunks comes first changes. A lead-in whose own heading is a name
    the query holds (``named``: ``heading_is_named``) keeps the citation when the subsection's is
    not: the reader asked for that section by name (``AcceptHeaderVersioning`` is answered by its
    class's section, not by the subsection on vendor media types that follows its first paragraph)."""
    if band <= 0:
        return list(ranked)
    scores = dict(ranked)
    seen: set[Hashable] = set()
    for key, score in ranked:
        if page[key] in seen:
            continue
        seen.add(page[key])
        nxt = follower(key)
        if nxt is None or nxt not in scores or page[nxt] != page[key] or scores[nxt] < (1.0 - band) * score:
            continue
        if named is not None and named(key) and not named(nxt):
            continue
        scores[key], scores[nxt] = scores[nxt], score
    return sorted(scores.items(), key=lambda kv: -kv[1])
