"""Lexical normalisation shared by indexing and querying, so both sides meet.

Identifiers are split so ``parseHTTPHeader``, ``parse_http_header`` and ``parse http header``
share terms, and hyphenated/dotted names also get a joined form (``PIC-SURE`` → ``picsure``)
so a query that drops the punctuation still matches.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[._\-/:][A-Za-z0-9]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SEP = re.compile(r"[._\-/:]+")


def identifier_parts(token: str) -> list[str]:
    """``parseHTTPHeader`` → ``[parse, http, header]``; ``snake_case`` → ``[snake, case]``."""
    parts: list[str] = []
    for piece in _SEP.split(token):
        parts.extend(m.group(0).lower() for m in _CAMEL.finditer(piece))
    return [p for p in parts if p]


def extra_terms(text: str) -> list[str]:
    """Terms a plain word tokenizer would miss: identifier parts and joined compound names."""
    extra: list[str] = []
    seen: set[str] = set()
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if token.isalpha() and (token.islower() or token.isupper() or token[1:].islower()):
            continue  # a plain word is its own only part (the fast path for long texts)
        parts = identifier_parts(token)
        candidates: list[str] = []
        if len(parts) > 1:
            candidates.extend(parts)
            candidates.append("".join(parts))
        for c in candidates:
            if c not in seen and c != token.lower():
                seen.add(c)
                extra.append(c)
    return extra


def searchable_text(text: str) -> str:
    """The text the full-text index sees: the original plus its identifier expansions."""
    extra = extra_terms(text)
    return text + ("\n" + " ".join(extra) if extra else "")


def query_text(query: str) -> str:
    """The same expansion for a query, so both sides hold the same terms."""
    return searchable_text(query)


_CODE_CANDIDATE = re.compile(r"`([^`]+)`|([A-Za-z0-9_][\w.:/-]*\w(?:\(\))?)")
_CAMEL_INSIDE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]")


def code_tokens(query: str) -> list[str]:
    """Code-like tokens of a query, lowercased: names with ``_``, ``.`` or ``::`` inside
    (``response_model_exclude_unset``, ``app.teardown_appcontext``), camel case
    (``CommaSeparatedStrings``, ``HTTPException``), letters mixed with digits (``p53``),
    numbers of three or more digits (``413``), anything in backticks, and a one-word query.
    Other plain words, capitalised or not, are not code."""
    found: list[str] = []
    single = len(query.split()) == 1  # a one-word query is a name lookup (``Depends``)
    for m in _CODE_CANDIDATE.finditer(query):
        token = (m.group(1) or m.group(2) or "").strip().removesuffix("()").strip(".:/-")
        if not token:
            continue
        code = single or bool(m.group(1)) or any(c in token for c in "_.") or "::" in token or bool(_CAMEL_INSIDE.search(token))
        code = code or (any(c.isdigit() for c in token) and (any(c.isalpha() for c in token) or len(token) >= 3))
        if code and token.lower() not in found:
            found.append(token.lower())
    return found


def contains_token(text: str, token: str) -> bool:
    """Whether ``token`` (lowercased) occurs in ``text`` as a whole token, case-insensitively."""
    return re.search(r"(?<![\w])" + re.escape(token) + r"(?![\w])", text.lower()) is not None
