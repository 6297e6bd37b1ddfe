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
