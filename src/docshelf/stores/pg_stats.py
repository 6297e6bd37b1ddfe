"""The keyword statistics of the PostgreSQL store, kept by its writer (no triggers).

``postings`` (one row a term and chunk), ``terms`` (document frequency a term) and ``stats``
(chunk count and total length) change with every chunk written or deleted. The writer changes
them itself, with plain statements in the transaction that replaces the chunks, so a reader
sees the chunks and their statistics change together (PostgreSQL) and the same code runs on
Citus, which runs no triggers on a distributed table's shards: every statement below touches
one table, and each has a form Citus distributes (a ``DELETE … RETURNING`` on the chunks, an
``INSERT … SELECT`` from them into the postings, a join with a materialised CTE, upserts of
arrays into reference tables).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass
class Change:
    """What a write does to the statistics: chunks and terms (length) added (negative: removed),
    and each term's document frequency change."""

    chunks: int = 0
    length: int = 0
    df: Counter = field(default_factory=Counter)

    def count(self, tf: dict[str, int], length: int, sign: int = 1) -> None:
        self.chunks += sign
        self.length += sign * length
        for term in tf:
            self.df[term] += sign


def delete_chunks(cur, t: Callable[[str], str], keys: Sequence[str]) -> Change:
    """Delete the chunks of the documents ``keys`` and their postings; what they counted."""
    change = Change()
    cur.execute(f"DELETE FROM {t('chunks')} WHERE doc_key = ANY(%s) RETURNING n, tlen, tf", (list(keys),))
    terms: list[str] = []
    ns: list[int] = []
    for n, length, tf in cur.fetchall():
        change.count(tf, length, -1)
        terms += tf
        ns += [n] * len(tf)
    if terms:
        cur.execute(
            f"WITH gone AS MATERIALIZED (SELECT * FROM unnest(%s::text[], %s::bigint[]) g(term, n)) "
            f"DELETE FROM {t('postings')} p USING gone WHERE p.term = gone.term AND p.n = gone.n",
            (terms, ns),
        )
    return change


def add_postings(cur, t: Callable[[str], str], keys: Sequence[str]) -> None:
    """The postings of the chunks just written for the documents ``keys`` (their term frequencies
    and lengths are in the rows; the chunk numbers ``n`` were given by the server)."""
    cur.execute(
        f"INSERT INTO {t('postings')} (term, n, tf, tlen) SELECT e.key, c.n, e.value::int, c.tlen "
        f"FROM {t('chunks')} c, jsonb_each(c.tf) e WHERE c.doc_key = ANY(%s)",
        (list(keys),),
    )


def apply(cur, t: Callable[[str], str], change: Change) -> None:
    """Add ``change`` to ``terms`` and ``stats`` (terms no chunk holds any more are removed)."""
    moved = {term: d for term, d in change.df.items() if d}
    if moved:
        terms = sorted(moved)  # one order for every writer: row locks taken in the same order
        cur.execute(
            f"INSERT INTO {t('terms')} AS old (term, df) SELECT * FROM unnest(%s::text[], %s::int[]) "
            "ON CONFLICT (term) DO UPDATE SET df = old.df + EXCLUDED.df",
            (terms, [moved[x] for x in terms]),
        )
        fewer = [x for x in terms if moved[x] < 0]
        if fewer:
            cur.execute(f"DELETE FROM {t('terms')} WHERE term = ANY(%s) AND df <= 0", (fewer,))
    if change.chunks or change.length:
        cur.execute(f"UPDATE {t('stats')} SET chunks = chunks + %s, terms = terms + %s", (change.chunks, change.length))


__all__ = ["Change", "add_postings", "apply", "delete_chunks"]
