"""Typo correction for the default (hybrid) mode: which query words are misspellings, and of what.

A query word counts as a typo only when it is both

- **unknown**: it occurs nowhere in the index (not among the keyword candidates, and an
  edit-distance search through the full-text index finds no chunk holding it), and
- **typed as a word, not as a name**: a word with a capital letter after its first
  (``PDPN``, ``ComYMV``, ``cRCT``, ``TatAd``) is an acronym, a gene or an identifier the
  reader typed on purpose; correcting it to the nearest indexed word (``PDPN`` → ``ptpn``)
  would search for something else, and
- **not an ordinary English word**: a whole word of the shipped MiniLM WordPiece vocabulary
  (about 20k English words) is the reader's own word (``went``, ``helm``, ``bread``), not a
  slip, however close it is to an indexed one, and
- **close to a known word**: a word of the index one edit away (a letter missing, added,
  changed, or two swapped; two edits from ``long_word`` letters on; 3 letters or fewer are
  never corrected), starting with the same letter (typists rarely miss the first one),
  found in at least ``min_chunks`` of the chunks that search returns; a changed letter must be
  a neighbouring key or a vowel for a vowel (``plausible_substitution``: ``musl`` is no slip for
  ``must``).

An unknown word that is near no indexed word is not a typo: it is a paraphrase (the reader's
word, not the documentation's), and the dense side is left to find the page, with the fusion's
dense share rule unchanged. Both checks
use one store query per unknown word (``Store.text_search`` with ``fuzziness`` 1, or 2 from six
letters on, see ``probe_text``; a second at one edit for a long word's short stem,
``short_stem``), and only words absent from the keyword candidates are checked, so an
ordinary query costs nothing extra. A store with the ``ProbeSearch`` ability runs a query's
probes at once and returns only the text they read; a ``ProbeMemo`` remembers each probed
word's answer until the index changes.

The same probes tell which words the index lacks altogether (``WordCheck.absent``): an
unknown word, or a name, that no chunk holds and no indexed word is near. Names are probed
for this (never corrected); ordinary English words are not (a paraphrase's own words).
So are snake_case identifiers (``deleted_at``, ``response_model``), which the full-text index
splits into their parts: one is absent when no chunk holds it whole and none holds an
identifier one or two edits from it (a typo of a real name is not absent, and never corrected). So are names of three or more
hyphenated words (``hyphenated_names``: ``externally-managed-environment``), even in a message.
Not in a pasted message or line of code (``in_message``), where they may be the reader's own.
So are versioned names (``versioned_names``: ``zzedit3``, ``e501``), which the index also splits
into letters and number: one is absent when no chunk holds it, whole or written apart
(``Python 3``), and none holds a name a letter from it with the same numbers; never corrected.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, runtime_checkable

from ..analysis import searchable_text
from ..models import Chunk
from ..protocols import Store
from ..stores.lexical import MAX_TOKEN_CHARS, STOP_WORDS, stem, words
from .phrase import looks_pasted


@dataclass(frozen=True)
class TypoParams:
    """Chosen on docs set A (benchmarks/README.md)."""

    enabled: bool = True
    max_checks: int = 3  # unknown-looking words checked per query (one store query each)
    probe: int = 20  # chunks the edit-distance search returns per checked word
    min_chunks: int = 1  # ...of which at least this many must hold the correction
    long_word: int = 10  # from this many letters on, two edits are allowed
    # a corrected term's BM25 counts this much of an exact term's; 1: the corrected query ranks as
    # typed right, with no second BM25 look-up (0.8 and 1.0 rank every training set's questions
    # alike: benchmarks/README.md, "Typos, seventh pass")
    weight: float = 1.0
    # chunks an identifier's probe reads: its parts are common words (``create``, ``all``), so the
    # chunks holding it rank anywhere among theirs (a top 20 on the parts alone called 34 of 496
    # one-letter typos of the training sets' identifiers absent, this with the joined form 3:
    # benchmarks/identifier_absence.py)
    identifier_probe: int = 100


@dataclass(frozen=True)
class WordCheck:
    """What the probes said of a query's unknown-looking words.

    ``fixes``: misspelt word → the indexed word meant (names never). ``absent``: words no
    indexed chunk holds and no indexed word is near: a name or term the documentation never
    uses (``mongodb`` on an ORM's site, ``gettext`` on a CLI library's), a sign that it does
    not cover the question (``calibrate.QueryEvidence.absent``)."""

    fixes: dict[str, str]
    absent: tuple[str, ...] = ()


def correct(
    query: str, store: Store, candidates: Sequence[Chunk], params: TypoParams,
    lowered: Callable[[], Sequence[str]] | None = None, memo: ProbeMemo | None = None,
) -> dict[str, str]:
    """Misspelt query words (folded, as the index reads them) → the indexed word meant."""
    return check_words(query, store, candidates, params, lowered, memo).fixes


def check_words(
    query: str, store: Store, candidates: Sequence[Chunk], params: TypoParams,
    lowered: Callable[[], Sequence[str]] | None = None, memo: ProbeMemo | None = None,
) -> WordCheck:
    """Probe the query's unknown-looking words: typos (not names) and words the index lacks.
    ``lowered()``: the candidates' ``embed_text`` lower-cased, when the caller has them;
    ``memo``: answers of earlier probes on this index version."""
    if not params.enabled:
        return WordCheck({})
    texts: str | None = None  # the candidates' lowered embed_text, NUL-separated (no word holds a NUL)
    checks: list[str] = []
    names = typed_names(query)
    pasted = in_message(query)
    # a hyphenated name cannot be a Python name the reader made up: probed in a message too
    idents = (identifiers(query) if not pasted else []) + hyphenated_names(query)
    coded = set(versioned_names(query)) if not pasted else set()
    # words first, identifiers with the checks left: a query's typo corrections (and so its
    # ranking) are what they were before identifiers were probed
    for word in dict.fromkeys(words(query) + idents):
        if len(checks) >= params.max_checks:
            break
        ident = word in idents
        if not ident and word not in coded and (
                len(word) < 4 or not word.isalpha() or (word not in names and is_english(word))):
            continue  # short, a number, or the reader's own (English) word: neither a slip nor a name
        if texts is None:  # only once a word needs the check; one string, searched per word (holds_word)
            texts = "\x00".join(lowered() if lowered is not None else [c.embed_text.lower() for c in candidates])
        if holds_identifier(texts, word) if ident else holds_word(texts, word) or (
                word in coded and holds_spaced(texts, word)):
            continue  # known: a keyword candidate holds it
        checks.append(word)
    if not checks:
        return WordCheck({})
    answers = memo.answers(store) if memo is not None else {}
    todo = [w for w in checks if w not in answers]
    named = [w for w in todo if w not in idents]
    for word, probed in zip(named, probe_all(store, named, params), strict=True):
        answers[word] = _nearest(word, probed, params)
    code = [w for w in todo if w in idents]  # their parts are common words: a deeper probe
    for word, probed in zip(code, probe_all(store, code, params, params.identifier_probe), strict=True):
        answers[word] = _nearest(word, probed, params)
    # identifiers and names are never corrected; INDEXED is empty
    fixes = {w: fix for w in checks if (fix := answers[w]) and w not in names and w not in idents and w not in coded}
    # absent: no indexed word near it; a name, typed on purpose, unless the index holds it as typed
    absent = tuple(w for w in checks if answers[w] is None or (w in names and answers[w] != INDEXED))
    return WordCheck(fixes, absent)


def absent_versioned(
    query: str, store: Store, candidates: Sequence[Chunk], params: TypoParams, memo: ProbeMemo | None = None,
) -> tuple[str, ...]:
    """The query's versioned names (``zzedit3``) that no indexed chunk holds, whole or written
    apart, and none holds a name a letter from (with the same numbers): keyword mode's part of
    ``check_words``, the same probe and rule, for its confidence. BM25 finds ``zzedit5``'s page
    for ``zzedit3`` (the index splits letters from digits) and would call it a sure answer."""
    coded = versioned_names(query) if params.enabled and not in_message(query) else []
    if not coded:
        return ()
    # a lean keyword hit carries no embed_text: its title, headings and text say as much
    texts = "\x00".join(" ".join((c.title, *c.heading_path, c.text)).lower() for c in candidates)
    checks = [w for w in dict.fromkeys(coded) if not (holds_word(texts, w) or holds_spaced(texts, w))]
    checks = checks[: params.max_checks]
    if not checks:
        return ()
    answers = memo.answers(store) if memo is not None else {}
    todo = [w for w in checks if w not in answers]
    for word, probed in zip(todo, probe_all(store, todo, params), strict=True):
        answers[word] = _nearest(word, probed, params)
    names = typed_names(query)
    return tuple(w for w in checks if answers[w] is None or (w in names and answers[w] != INDEXED))


@runtime_checkable
class ProbeSearch(Protocol):
    """Optional store ability: several edit-distance searches at once (each ``(text, fuzziness)``
    as ``Store.text_search`` reads them, no filters), returning only each top-``k``'s
    ``embed_text`` in rank order: all a typo probe reads (the embedded store runs them
    concurrently and fetches one column instead of whole chunks)."""

    def probe_texts(self, probes: Sequence[tuple[str, int]], k: int) -> list[list[str]]: ...


def probe_fuzziness(word: str) -> int:
    return 1 if len(word.replace("_", "")) <= 5 else 2


def probe_all(store: Store, todo: Sequence[str], params: TypoParams, k: int | None = None) -> list[list[str]]:
    """The ``embed_text`` of each word's top ``k`` (``params.probe``) chunks by edit-distance BM25."""
    k = k or params.probe
    if not todo:
        return []
    probes = [(probe_text(w), probe_fuzziness(w)) for w in todo]
    extra = [(i, (root, 1)) for i, w in enumerate(todo) if (root := short_stem(w))]
    extra += [(i, (swapped, 0)) for i, w in enumerate(todo) if (swapped := swapped_stems(w))]
    asked = probes + [probe for _, probe in extra]
    if isinstance(store, ProbeSearch):
        found = store.probe_texts(asked, k)
    else:
        found = [[c.embed_text for c, _ in store.text_search(text, k, None, fuzziness=f)] for text, f in asked]
    for n, (i, _) in enumerate(extra, start=len(probes)):  # each extra probe's chunks after its word's, once
        found[i] = list(dict.fromkeys(found[i] + found[n]))
    return found[: len(probes)]


def swaps(word: str) -> list[str]:
    """``word`` with two adjacent letters swapped, at every place but the first letter
    (``_nearest`` keeps the first letter)."""
    return [word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(1, len(word) - 1)]


def swapped_stems(word: str) -> str | None:
    """The stems of a long word's swapped forms, probed apart as exact terms. A swap is one edit
    to ``edits`` but two to the engine, and the index holds stems: ``valdiator`` is four edits from
    ``valid`` (``validator``'s stem), beyond the two a long word's probe allows, so the commonest
    typo of all was called absent. Exact terms cost the engine no expansion. None for an
    identifier (snake_case or hyphenated: ``_nearest_identifier`` judges those) or a short word
    (its own probe holds its swapped forms, ``probe_text``)."""
    if "_" in word or "-" in word or probe_fuzziness(word) == 1:
        return None
    own = stem(word)
    stems = [root for root in dict.fromkeys(stem(s) for s in swaps(word)) if root != own]
    return " ".join(stems) or None


def short_stem(word: str) -> str | None:
    """A long word's stem that is short (``namming`` → ``nam``), probed apart at one edit: in the
    word's own probe it gets the word's two, and two edits from three letters reach so many
    terms that the engine's expansion cap (20) is spent before ``name``, so ``namming`` was called
    absent (set J, t04). None for an identifier, a short word or a long stem (probed as they were)."""
    if "_" in word or "-" in word or probe_fuzziness(word) == 1:
        return None
    root = stem(word)
    return root if 3 <= len(root) and probe_fuzziness(root) == 1 else None


class ProbeMemo:
    """Each probed word's answer (its correction, or None) for one version of the index.

    A probe is an edit-distance search through the whole full-text index (10–20 ms of engine
    work at 100k chunks) whose answer depends only on the word and the index's content, and
    agents repeat words across searches. A store that cannot name its version
    (``content_version`` absent or None) is never memoised; any write starts afresh."""

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self._version: str | None = None
        self._answers: OrderedDict[str, str | None] = OrderedDict()
        self._lock = threading.Lock()

    def answers(self, store: Store) -> _Answers | dict[str, str | None]:
        version = getattr(store, "content_version", None)
        current = version() if callable(version) else None
        if current is None:
            return {}
        with self._lock:
            if current != self._version:
                self._version, self._answers = current, OrderedDict()
            return _Answers(self, self._answers)


class _Answers:
    """The memo's answers for one version, safe to share between threads (LRU on write)."""

    def __init__(self, memo: ProbeMemo, answers: OrderedDict[str, str | None]) -> None:
        self._memo, self._answers = memo, answers

    def __contains__(self, word: object) -> bool:
        with self._memo._lock:
            return word in self._answers

    def __getitem__(self, word: str) -> str | None:
        with self._memo._lock:
            return self._answers[word]

    def __setitem__(self, word: str, fix: str | None) -> None:
        with self._memo._lock:
            self._answers[word] = fix
            while len(self._answers) > self._memo.size:
                self._answers.popitem(last=False)


_RAW_WORD = re.compile(r"[^\W_]+")


def holds_word(texts: str, word: str) -> bool:
    """Whether lowered ``texts`` hold ``word`` as a whole token (or a token with its stem),
    not merely inside a longer one: ``aprox`` is in ``haproxy`` but no word of it. Each
    occurrence of the word or its stem is found by a plain substring search (C speed; most
    texts hold a known word at its first occurrence) and only then read as a token."""
    root = stem(word)
    for needle in dict.fromkeys((word, root)):
        at = texts.find(needle)
        while at != -1:
            if at == 0 or not texts[at - 1].isalnum():  # a token starts here (\w less "_", as _RAW_WORD)
                tail = _RAW_WORD.match(texts, at + len(needle))
                token = needle + tail.group() if tail else needle
                if token == word or stem(token) == root:
                    return True
            at = texts.find(needle, at + 1)
    return False


def typed_names(query: str) -> set[str]:
    """The query's words (folded as ``words`` folds them) typed with a capital after the first
    letter: acronyms and identifiers (``PDPN``, ``ComYMV``, ``cRCT``), never typos."""
    return {w for raw in _RAW_WORD.findall(query) if any(c.isupper() for c in raw[1:]) for w in words(raw)}


def probe_text(word: str) -> str:
    """What the edit-distance search looks for: the index holds stems and measures plain edit
    distance to them, so ``recieve`` is only two edits from ``receiv`` as its own stem
    ``reciev``, and ``exceptoin`` only near ``except`` without its last letters. A swap of two
    letters is one edit here (``edits``) but two to the engine, beyond a short word's one
    (``probe_fuzziness``): a short word's swapped forms are searched too (``xfial``: ``xfail``).
    An identifier is searched as the index holds it (``analysis.extra_terms``): its parts joined,
    a rare term that ranks the chunks holding it first (``deleted_at``: ``deletedat``), and its
    parts, for a name the documentation writes inside a dotted path (``app.teardown_appcontext``)."""
    if "_" in word or "-" in word:
        parts = [part for part in re.split(r"[_-]", word) if part]
        joined = "".join(parts)
        return " ".join(dict.fromkeys([joined, stem(joined), *(p for p in parts if len(p) >= 3 and p not in STOP_WORDS)]))
    variants = [word, stem(word)]
    if len(word) >= 7:
        variants.append(word[:-2])
    if probe_fuzziness(word) == 1:  # long words' swapped forms: ``swapped_stems``
        variants += swaps(word)
    return " ".join(dict.fromkeys(variants))


# ``_nearest``'s answer for a word the index holds (no word is empty)
INDEXED = ""


def _nearest(word: str, texts: Sequence[str], params: TypoParams) -> str | None:
    """The closest indexed word to ``word`` among these chunks' ``embed_text``: ``INDEXED``
    when ``word`` itself is indexed (known), None when no indexed word is close enough."""
    limit = 2 if len(word) >= params.long_word else 1
    if "_" in word or "-" in word:
        return _nearest_identifier(word, texts, limit)
    root = stem(word)
    digits = _DIGITS.findall(word)  # a versioned name's numbers: ``zzedit3`` is not ``zzedit5``
    seen: Counter[str] = Counter()
    distance: dict[str, int] = {}
    for text in texts:
        vocabulary = set(words(searchable_text(text)))
        if word in vocabulary or any(stem(v) == root for v in vocabulary if v[:1] == word[:1]):
            return INDEXED  # the word is indexed after all (only ranked below the candidates)
        if digits and holds_spaced(text.lower(), word):
            return INDEXED  # written apart: ``Python 3``, ``UTF-8``, ``HTTP/2``
        for v in vocabulary:
            if v[:1] != word[:1] or v.isdigit() or _DIGITS.findall(v) != digits:
                continue
            d = distance.get(v)
            if d is None:
                d = distance[v] = edits(word, v, limit)
                if d == 1 and not plausible_substitution(word, v):
                    d = distance[v] = limit + 1
            if d <= limit:
                seen[v] += 1
    close = [v for v, n in seen.items() if n >= params.min_chunks]
    if not close:
        return None
    return min(close, key=lambda v: (distance[v], -seen[v], v))


# QWERTY rows, each key's column (a row's offset of half a key on from the one above)
_KEYS = {c: (row, col + 0.5 * row) for row, keys in enumerate(("qwertyuiop", "asdfghjkl", "zxcvbnm"))
         for col, c in enumerate(keys)}
_VOWELS = frozenset("aeiouy")


def plausible_substitution(word: str, known: str) -> bool:
    """Whether ``known`` is a typist's slip away from ``word`` when the two differ by one changed
    letter: a neighbouring key (``minimun``: ``minimum``, ``decorater``) or a vowel for a vowel,
    a misspelling by sound (``custum``, ``primery``, ``operater``). Another letter is another
    word: ``musl`` (the C library) is no slip for ``must`` (l and t lie apart). True for any other
    pair (a letter missing, added or swapped, or a different length): this rule is silent on them."""
    if len(word) != len(known):
        return True
    changed = [(a, b) for a, b in zip(word, known) if a != b]
    if len(changed) != 1:
        return True
    a, b = changed[0]
    if a in _VOWELS and b in _VOWELS:
        return True
    if a not in _KEYS or b not in _KEYS:
        return True  # not a letter of the keyboard (a digit, a folded accent): no judgement
    (row_a, col_a), (row_b, col_b) = _KEYS[a], _KEYS[b]
    return abs(row_a - row_b) <= 1 and abs(col_a - col_b) <= 1


_DIGITS = re.compile(r"\d+")
_RUNS = re.compile(r"\d+|[^\W\d_]+")


def versioned_names(query: str) -> list[str]:
    """The query's words of four characters or more that mix letters and digits (``zzedit3``,
    ``oauth2``, ``python3``, ``e501``), folded: names of a version, a code or an option, typed on
    purpose. Never corrected (``e501`` is not ``e502``), and absent unless a chunk holds the
    same name (whole or written apart, ``holds_spaced``) or one a letter from it with the same
    numbers (``pyhton3``: a slip for a real name)."""
    return [w for w in words(query) if len(w) >= 4 and not w.isalpha() and not w.isdigit()
            and any(c.isalpha() for c in w)]


def holds_spaced(texts: str, word: str) -> bool:
    """Whether lowered ``texts`` hold a versioned name with its letter and number runs written
    apart by a space, ``-``, ``.``, ``/`` or ``_`` (``python 3``, ``utf-8``, ``http/2``)."""
    runs = _RUNS.findall(word)
    if len(runs) < 2:
        return False
    pattern = r"(?<![^\W_])" + r"[ \-./_]?".join(re.escape(r) for r in runs) + r"(?![^\W_])"
    return re.search(pattern, texts) is not None


def identifiers(query: str) -> list[str]:
    """The query's snake_case identifiers (lowered, leading and trailing ``_`` dropped): names the
    reader copied from code, which the documentation holds whole if it documents them. A dotted
    path's snake_case parts count (``app.teardown_appcontext``); its other parts are words."""
    found = (part.strip("_") for part in re.findall(r"\w+", _fold_ascii(query)))
    return list(dict.fromkeys(
        p for p in found if "_" in p and p[0].isalpha() and len(p) <= MAX_TOKEN_CHARS
    ))


_HYPHENATED = re.compile(r"[a-z]+(?:-[a-z]+){2,}")


def hyphenated_names(query: str) -> list[str]:
    """The query's names of three or more words joined by hyphens (``externally-managed-environment``,
    ``access-control-allow-origin``, an option's ``--no-build-isolation`` without its dashes),
    lowered: a tool's own term (an error code, a header, an option), which the documentation holds
    as such, joined or written apart if it documents it. Two words are an English compound
    (``well-written``, ``byte-identical``: a paraphrase's own words, not a name), a dotted or
    numbered token a file or a version (``demo-1rc0-py3-none-any.whl``)."""
    found = (raw.strip("-").removesuffix(".") for raw in re.findall(r"[\w.\-/]+", _fold_ascii(query)))
    return list(dict.fromkeys(t for t in found if _HYPHENATED.fullmatch(t) and len(t) <= MAX_TOKEN_CHARS))


_NAMED = re.compile(r"[\w.]*_[\w.]*")


def in_message(query: str) -> bool:
    """Whether the query is a pasted message or line of code (``looks_pasted`` once its
    identifiers are left out: ``=``, ``:``, quotes, brackets), whose identifiers may be the
    reader's own (``ValidationError: ship_date must be greater than order_date``): a name no
    page holds is then no sign the page that explains the message is missing. Measured on the
    training sets' pasted messages with their names changed to a reader's (benchmarks/README.md,
    "Confidence labels an agent can act on")."""
    return looks_pasted(_NAMED.sub(" ", query))


def _fold_ascii(text: str) -> str:
    return text.lower() if text.isascii() else text.lower().encode("ascii", "ignore").decode()


def holds_identifier(texts: str, ident: str) -> bool:
    """Whether lowered ``texts`` hold the identifier whole (not inside a longer one), also as the
    documentation may spell the same name: its parts joined (``maxage``, ``maxAge`` lowered) or
    hyphenated (``max-age``); a hyphenated name also snake_case or written apart as words."""
    parts = re.split(r"[_-]", ident)
    spelt = (ident, "".join(parts), "-".join(parts)) + (("_".join(parts), " ".join(parts)) if "-" in ident else ())
    for needle in dict.fromkeys(spelt):
        at = texts.find(needle)
        while at != -1:
            end = at + len(needle)
            if (at == 0 or not _is_ident_char(texts[at - 1])) and (end == len(texts) or not _is_ident_char(texts[end])):
                return True
            at = texts.find(needle, at + 1)
    return False


def _is_ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"


_TEXT_IDENTIFIER = re.compile(r"[^\W\d_]\w*_\w*")
_TEXT_HYPHENATED = re.compile(r"[^\W\d_]\w*(?:-\w+)+")


def _nearest_identifier(ident: str, texts: Sequence[str], limit: int) -> str | None:
    """``INDEXED`` when a chunk holds ``ident`` whole; else the closest identifier the chunks hold
    within ``limit`` edits (a typo of a real name: not absent), or None."""
    best: tuple[int, str] | None = None
    for text in texts:
        low = _fold_ascii(text)
        if holds_identifier(low, ident):
            return INDEXED
        for token in set((_TEXT_HYPHENATED if "-" in ident else _TEXT_IDENTIFIER).findall(low)):
            token = token.strip("_")
            if abs(len(token) - len(ident)) <= limit and (d := edits(ident, token, limit)) <= limit:
                if best is None or (d, token) < best:
                    best = (d, token)
    return None if best is None else best[1]


def edits(a: str, b: str, limit: int) -> int:
    """Edit distance with adjacent swaps counted as one edit (optimal string alignment),
    ``limit + 1`` as soon as it must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole alphabetic words of the MiniLM WordPiece vocabulary that ships with docshelf."""
    from ..embedders.onnx_minilm import DATA_DIR

    vocab = json.loads((DATA_DIR / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha() and w.isascii())


def is_english(word: str) -> bool:
    """A whole word of the shipped vocabulary, or its plural or ``-ed`` / ``-ing`` form
    (``passwords``, ``injecting``): the WordPiece vocabulary lists few inflected forms."""
    vocab = english_words()
    if word in vocab:
        return True
    for suffix, bases in (("ies", ("y",)), ("es", ("", "e")), ("s", ("",)), ("ed", ("", "e")), ("ing", ("", "e"))):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            root = word[: -len(suffix)]
            if any(root + b in vocab for b in bases):
                return True
    return False


def corrected_query(query: str, fixes: dict[str, str]) -> str:
    """``query`` with each misspelt word replaced by its correction (case-insensitive, whole words)."""
    for wrong, right in fixes.items():
        query = re.sub(r"(?<![^\W_])" + re.escape(wrong) + r"(?![^\W_])", right, query, flags=re.IGNORECASE)
    return query


__all__ = [
    "ProbeMemo", "ProbeSearch", "TypoParams", "WordCheck", "absent_versioned", "check_words", "correct", "corrected_query", "edits",
    "english_words", "holds_identifier", "holds_spaced", "holds_word", "hyphenated_names", "identifiers", "in_message", "is_english",
    "plausible_substitution", "short_stem", "typed_names", "versioned_names",
]
