"""The query path's shortcuts give exactly what the plain computations give.

Each shortcut (capped word counts, substring tests before regexes, tuple shingles) is checked
against the straightforward version it replaced, on generated texts built to hit the edges:
punctuation runs, identifiers, hyphens and dots inside words, non-ASCII letters, empty texts.
"""

from __future__ import annotations

import random
import re

import pytest

from docshelf.search import calibrate, highlight
from docshelf.search.diversity import jaccard, near_duplicate, shingles
from docshelf.analysis import contains_token
from docshelf.search.engine import _WORD, token_pattern, words_up_to
from docshelf.search.highlight import query_terms

PIECES = ["cache", "Caching", "cached", "parse_http", "HTTPHeader", "p53", "a", "x-y", "rot.ate", "rotated",
          "café", "naïve", "---", "...", "  ", "\n", "413", "foo.bar()", "Über", "__init__", "e.g.", "ΣΑΣ"]


def texts(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    out = ["", " ", "...", "one"]
    for _ in range(n):
        size = rng.choice([1, 5, 30, 39, 40, 41, 80, 400])
        out.append(rng.choice(["", " ", "-"]).join(rng.choice(PIECES) + rng.choice([" ", "", ",", "-"]) for _ in range(size)))
    return out


@pytest.mark.parametrize("cap", [0, 1, 3, 40])
def test_words_up_to_is_the_capped_regex_count(cap):
    for text in texts(400):
        assert words_up_to(text, cap) == min(len(_WORD.findall(text)), cap), text


def test_shingle_sets_compare_as_joined_strings_do():
    def joined(text, n=3):
        words = re.findall(r"\w+", text.lower())
        if len(words) < n:
            return frozenset([" ".join(words)])
        return frozenset(" ".join(words[i:i + n]) for i in range(len(words) - n + 1))

    sample = texts(60)
    sample += [t + " tail words here" for t in sample[:20]]  # near-duplicates
    for a in sample:
        assert len(shingles(a)) == len(joined(a))
        for b in sample[:30]:
            assert jaccard(shingles(a), shingles(b)) == jaccard(joined(a), joined(b))


QUERIES = ["how to cache parse_http headers", "HTTPHeader 413", "rot.ate the café", "x-y naïve über",
           "foo.bar() e.g. __init__", "p53 rotated caching", "the a of", "ΣΑΣ σας"]


def test_highlights_and_coverage_equal_the_regex_only_versions():
    def spans(text, query):
        stems = (t if len(t) <= 4 else t[: max(4, len(t) - 2)] for t in query_terms(query))
        found = sorted((m.start(), m.end()) for s in stems for m in re.finditer(r"\b" + re.escape(s) + r"[\w]*", text.lower()))
        merged: list[tuple[int, int]] = []
        for s, e in found:
            if merged and s <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
            else:
                merged.append((s, e))
        return tuple(merged)

    def cover(query, text):
        stems = [t if len(t) <= 4 else t[: max(4, len(t) - 2)] for t in query_terms(query)]
        hits = sum(1 for s in stems if re.search(r"(?<![a-z0-9])" + re.escape(s), text.lower()))
        return hits / len(stems) if stems else 0.0

    repeats = ["cache " * 40, "xcache " * 40 + "cache", "_cache" * 30, "ééparse " * 20, "p53p53p53 p53", "aaaa aaaa"]
    for query in QUERIES + ["aaaa", "p53 cache"]:
        for text in texts(80) + repeats:  # repeats: past FIND_LIMIT, found by the compiled patterns
            assert highlight.highlight_spans(text, query) == spans(text, query)
            assert calibrate.coverage(query, text) == cover(query, text)


def test_find_steps_are_the_compiled_patterns():
    """``highlight.word_spans`` and ``calibrate.free_start`` against the patterns they stand for,
    stem by stem, with word characters (letters, digits, ``_``, non-ASCII letters) around them."""
    rng = random.Random(7)
    stems = ["cach", "p53", "aa", "pars", "café", "über", "x-y", "__in", "413", "rota", "σας"]
    around = ["", " ", "a", "_", "é", "9", "-", ".", "Σ", "ab"]
    for stem in stems:
        for _ in range(300):
            text = "".join(rng.choice(around) + (stem if rng.random() < 0.5 else "") for _ in range(rng.randint(0, 12)))
            low = text.lower()
            pattern = highlight._stem_pattern(stem)
            if highlight.is_word(stem[0]):
                assert highlight.word_spans(low, stem) == [(m.start(), m.end()) for m in pattern.finditer(low)], (stem, low)
            assert calibrate.free_start(low, stem) == (calibrate._coverage_pattern(stem).search(low) is not None), (stem, low)


def test_near_duplicate_is_the_jaccard_threshold_test():
    rng = random.Random(5)
    sets = [frozenset(rng.sample(range(60), rng.randint(0, 50))) for _ in range(60)]
    sets += [s | {100} for s in sets[:10]] + [frozenset(range(40)), frozenset(range(36)), frozenset(range(37))]
    for a in sets:
        for b in sets:
            plain = len(a & b) / len(a | b) if a and b else 0.0
            assert jaccard(a, b) == plain
            for t in (0.0, 0.5, 0.9, 0.925, 1.0):
                assert near_duplicate(a, b, t) == (plain >= t)


def test_token_pattern_is_contains_token():
    tokens = ["p53", "parse_http", "foo.bar", "httpheader", "413", "@decorator", "e.g", "x-y", "café"]
    for token in tokens:
        pattern = token_pattern(token)
        for text in texts(80) + [f"{token}", f"a{token}", f"{token}b", f"({token})", f"_{token}_", f"-{token}."]:
            assert (pattern.search(text.lower()) is not None) == contains_token(text, token), (token, text)
