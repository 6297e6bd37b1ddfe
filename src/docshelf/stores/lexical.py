"""Keyword scoring for the server backends (PostgreSQL, Qdrant): one tokenizer, one BM25.

The embedded store gets BM25 from LanceDB's full-text index. The server backends have no
BM25 of their own (``ts_rank_cd`` is not BM25; Qdrant only multiplies sparse vectors), so
docshelf tokenises here, identically at index and query time, and the backends score

    BM25(q, d) = Σ_t∈q  boost_t · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
    idf(t)     = ln(1 + (N − df + 0.5) / (df + 0.5))

with LanceDB's analyser, step for step and in its order (``terms``): split on non-alphanumerics,
drop tokens of 40 or more UTF-8 bytes, lower-case, Snowball English stemmer, drop the stems that
are English stop words, then ASCII-fold what is left; k1 = 1.2, b = 0.75, |d| = the document's
terms after all of that. As in LanceDB, a term the query repeats counts as often as it occurs
(``query_terms``). Measured against LanceDB's own scores on SciFact: the same top 10 in the same
order for 1,108 of 1,109 queries (the other differs by a tie at rank 10), scores within 0.6 %
(``tests/backends/test_keyword_parity.py``). The scores therefore land on the scale
``search/fuse.py`` expects from ``text_search`` (raw BM25, ``bm25_to_unit``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from functools import lru_cache

K1 = 1.2
B = 0.75
MAX_TOKEN_CHARS = 40
MAX_TOKEN_BYTES = 40  # LanceDB (tantivy's RemoveLongFilter) keeps a token only below 40 UTF-8 bytes
EXACT_BOOST = 2.0  # fuzzy mode: an exact term counts double (as in the embedded store)
MAX_EXPANSIONS = 20

_WORD = re.compile(r"[^\W_]+")
# The English stop words of LanceDB's analyser (NLTK's list; LanceDB applies it to the stems,
# so "does" → "doe" is kept and "doing" → "do" is dropped: we do the same).
STOP_WORDS = frozenset(
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers "
    "herself it its itself they them their theirs themselves what which who whom this that these those am is are "
    "was were be been being have has had having do does did doing a an the and but if or because as until while "
    "of at by for with about against between into through during before after above below to from up down in out "
    "on off over under again further then once here there when where why how all any both each few more most "
    "other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y "
    "ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn".split()
)


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    return _stemmer().stemWord(word)  # PyStemmer (C) when installed, else pure Python: same output


def _fold(text: str) -> str:
    """Lower-case and strip accents (``Café`` → ``cafe``)."""
    if text.isascii():  # nothing to decompose (the common case, and 3× faster)
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def words(text: str) -> list[str]:
    """Folded words whose stems are not stop words, over-long tokens dropped (not stemmed)."""
    return [w for w in _WORD.findall(_fold(text)) if len(w) <= MAX_TOKEN_CHARS and stem(w) not in STOP_WORDS]


# Letters without an NFKD decomposition to ASCII that tantivy's ASCII folding still maps.
_FOLD_EXTRA = str.maketrans({
    "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i", "ŧ": "t",
    "ħ": "h", "ŋ": "n", "ĸ": "q", "ſ": "s",
})


def _ascii_fold(term: str) -> str:
    """Tantivy's ASCII folding, closely: a character becomes its accent-free ASCII form when it
    has one (``é`` → ``e``, ``²`` → ``2``, ``ß`` → ``ss``); others (Greek, CJK) stay as they are."""
    out = []
    for ch in term.translate(_FOLD_EXTRA):
        if ch.isascii():
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        out.append(base if base and base.isascii() else ch)
    return "".join(out)


@lru_cache(maxsize=200_000)
def _term(token: str) -> str | None:
    """One token through LanceDB's filters after the split (``None``: dropped)."""
    if len(token) >= MAX_TOKEN_BYTES or (not token.isascii() and len(token.encode()) >= MAX_TOKEN_BYTES):
        return None
    root = stem(token.lower())
    if root in STOP_WORDS:  # on the stem, before folding: "å" is no stop word, its folded "a" is
        return None
    return root if root.isascii() else _ascii_fold(root)


def terms(text: str) -> list[str]:
    """The index terms of ``text`` in order (a term repeats as often as it occurs), made as
    LanceDB makes them (see the module docstring)."""
    return [t for t in map(_term, _WORD.findall(text)) if t is not None]


def term_counts(text: str) -> tuple[dict[str, int], int]:
    """Term frequencies and the document length in terms."""
    found = terms(text)
    return dict(Counter(found)), len(found)


def query_terms(query: str) -> dict[str, float]:
    """The query's terms, each weighted by how often the query holds it (as LanceDB scores a
    query that repeats a word: its BM25 contribution counts once per occurrence)."""
    return {t: float(n) for t, n in Counter(terms(query)).items()}


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def tf_weight(tf: float, length: float, avgdl: float) -> float:
    """The BM25 term-frequency part (what a document contributes for one term)."""
    if tf <= 0:
        return 0.0
    norm = 1.0 - B + B * (length / avgdl if avgdl > 0 else 1.0)
    return tf * (K1 + 1.0) / (tf + K1 * norm)


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance, stopping early once it exceeds ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def allowed_distance(word: str, fuzziness: int | None) -> int:
    """``None``: grows with the word's length (0 up to 3 letters, 1 up to 6, else 2)."""
    if fuzziness is not None:
        return fuzziness
    return 0 if len(word) <= 3 else 1 if len(word) <= 6 else 2


def fuzzy_terms(
    query: str, fuzziness: int | None, similar: Callable[[str], Iterable[str]]
) -> dict[str, float]:
    """Query terms for fuzzy mode: each word's stem (boost 2) plus index terms within its edit
    distance. ``similar(word)`` proposes index terms (a trigram lookup); the distance is
    checked here against the word and its stem, so every backend expands the same way."""
    out: dict[str, float] = {}
    for word in dict.fromkeys(words(query)):
        exact = stem(word)
        out[exact] = max(out.get(exact, 0.0), EXACT_BOOST)
        limit = allowed_distance(word, fuzziness)
        if not limit:
            continue
        found = 0
        for candidate in similar(word):
            if candidate in out or found >= MAX_EXPANSIONS:
                continue
            if min(edit_distance(word, candidate, limit), edit_distance(exact, candidate, limit)) <= limit:
                out[candidate] = 1.0
                found += 1
    return out


def trigrams(word: str) -> set[str]:
    """pg_trgm-style trigrams of one word (padded with two spaces before, one after)."""
    padded = f"  {word} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


__all__ = [
    "B", "K1", "STOP_WORDS", "allowed_distance", "edit_distance", "fuzzy_terms", "idf", "query_terms", "stem",
    "term_counts", "terms", "tf_weight", "trigrams", "words",
]
