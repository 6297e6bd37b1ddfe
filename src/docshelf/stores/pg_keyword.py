"""Keyword search of the PostgreSQL store: BM25 in SQL, pruned (a mixin of ``PostgresStore``).

Keyword scores are BM25 computed in SQL from the term statistics the writer keeps (``terms``,
``stats``, ``postings``: ``pg_stats``), with the analyser in ``lexical.py`` (Postgres's ``ts_rank`` is not
BM25): hybrid fusion gets the scale it expects. Unfiltered keyword search reads the postings
index first and only a few hundred chunk rows (``_bm25_postings``); filtered, the GIN index
narrows the rows (``_bm25``). Fuzzy mode finds near terms through the trigram index on
``terms``. Kept apart so ``postgres_store`` stays about the store's tables, writes and lookups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..models import Chunk, SearchFilters
from . import lexical
from .pg_sql import QUALIFIED_COLS as _QUALIFIED_COLS
from .pg_sql import filter_sql, set_local, to_chunk, tsquery_above
from .pg_sql import tsquery as _tsquery

PRUNE_ABOVE_MATCHES = 2000  # keyword search scores every match below this many (term occurrences)
PROBE_MATCHES = 200  # the rarest terms probed first cover at least this many rows (when they can)…
SKIP_SHARE = 0.5  # the commonest terms skipped weigh at most this share of the floor (room left to drop rows)
FLOAT_SLACK = 1e-9  # bounds compared with this relative margin: partial sums add in another order
PROBE_PER_HIT = 5  # …and this many per hit asked for (the k-th best of them sets the floor)
_TF_OF_ROW = "c.tf || '{}'::jsonb"  # decompressed once a row (then one lookup a term), not once a term


class KeywordSearch:
    """``text_search`` and ``text_scores`` for ``PostgresStore`` (which supplies ``_read`` and ``_t``)."""

    prune_above_matches = PRUNE_ABOVE_MATCHES
    probe_matches = PROBE_MATCHES
    skip_share = SKIP_SHARE

    def _weights(self, cur, weighted: dict[str, float]) -> tuple[list[str], list[float], list[int], float, float]:
        """Per-term BM25 weights (boost · idf · (k1 + 1)) and document frequencies of the terms
        the index holds, and the length normalisation ``k1·(1 − b)`` + ``k1·b/avgdl`` · length
        as two constants."""
        cur.execute(f"SELECT chunks, terms FROM {self._t('stats')}")
        n, total = cur.fetchone()
        cur.execute(f"SELECT term, df FROM {self._t('terms')} WHERE term = ANY(%s)", (list(weighted),))
        found = dict(cur.fetchall())
        terms = [t for t in weighted if found.get(t)]
        weights = [weighted[t] * lexical.idf(max(n, 1), found[t]) * (lexical.K1 + 1) for t in terms]
        avgdl = total / n if n else 1.0
        return terms, weights, [found[t] for t in terms], lexical.K1 * (1 - lexical.B), lexical.K1 * lexical.B / max(avgdl, 1e-9)

    def _bm25(self, cur, weighted: dict[str, float], match: str, params: list[Any], k: int, prune: bool = True) -> list[tuple]:
        """The top ``k`` rows matching ``match`` by BM25 (see ``lexical``); unfiltered, through
        ``_bm25_postings``, which reads far fewer rows.

        Scoring every row that holds any query term grows with the corpus (a common word
        matches most chunks, and scoring costs a JSONB lookup per row and term), so this
        prunes, with the same result: the rows holding the rarest terms are scored first; the
        k-th best score ``θ`` among them is a floor for the final top k; a row can only reach it
        if the weights of the query terms it holds sum to more than ``θ`` (a term adds less than
        its weight), and the GIN index finds exactly the rows that may (``tsquery_above``)."""
        terms, weights, dfs, base, per_len = self._weights(cur, weighted)
        if not terms:
            return []
        if not prune or sum(dfs) <= self.prune_above_matches:
            return self._bm25_rows(cur, terms, weights, base, per_len, _tsquery(terms), match, params, k)
        if match == "TRUE":
            return self._bm25_postings(cur, terms, weights, dfs, base, per_len, k)
        rare_first = [terms[i] for i in sorted(range(len(terms)), key=lambda i: (-weights[i], terms[i]))]
        df = dict(zip(terms, dfs, strict=True))
        target = max(self.probe_matches, PROBE_PER_HIT * k)
        while True:
            probe: list[str] = []
            matched = 0
            for term in rare_first:
                if probe and matched >= target:
                    break
                probe.append(term)
                matched += df[term]
            rows = self._bm25_rows(cur, terms, weights, base, per_len, _tsquery(probe), match, params, k)
            if len(probe) == len(terms):
                return rows  # the probe already looked at every matching row
            if len(rows) >= k:
                break
            # A filter passed too few of the probed rows to set a floor: probe wider, as far as
            # its pass rate so far says is needed (at least twice as far each time).
            target = matched * max(2.0, PROBE_PER_HIT * k / max(len(rows), 1))
        required = tsquery_above(terms, weights, float(rows[-1][17]))
        if required is None:
            return rows  # no row outside the probed ones can reach the top k
        return self._bm25_rows(cur, terms, weights, base, per_len, required, match, params, k)

    def _bm25_rows(self, cur, terms, weights, base, per_len, required: str, match, params, k) -> list[tuple]:
        """BM25 over ``terms`` of the rows matching the tsquery ``required`` (found through the
        GIN index: the planner's row estimates for OR-ed terms often pick a scan of the whole
        table; ``None``: the rows ``match`` names, found through its own index). Each row's term frequencies are read with one JSONB lookup a term, and only
        ids and scores are ranked: the k best rows' columns are fetched afterwards (ranking
        whole rows copied every candidate's text into the sort)."""
        lookups = ", ".join(f"coalesce((d.tf -> %s)::float8, 0) AS t{i}" for i in range(len(terms)))
        score = " + ".join(f"%s * x.t{i} / (x.t{i} + %s + %s * c.tlen)" for i in range(len(terms)))
        score_args: list[Any] = []
        for w in weights:
            score_args += [w, base, per_len]
        chunks = self._t("chunks")
        sql = (
            f"WITH top AS MATERIALIZED (SELECT c.id, {score} AS score FROM {chunks} c "
            f"CROSS JOIN LATERAL (SELECT {_TF_OF_ROW} AS tf OFFSET 0) d "
            f"CROSS JOIN LATERAL (SELECT {lookups} OFFSET 0) x WHERE {'TRUE' if required is None else 'c.tsv @@ %s::tsquery'} AND {match} "
            "ORDER BY score DESC, c.path, c.chunk_index, c.id LIMIT %s) "  # equal scores: ties.py
            f"SELECT {_QUALIFIED_COLS}, top.score FROM top JOIN {chunks} c ON c.id = top.id "
            "ORDER BY top.score DESC, c.path, c.chunk_index, c.id"
        )
        # JIT compiling the long scoring expression costs more than it saves at any size here
        # (Memoize would hash every row's decompressed term frequencies, for no hits)
        set_local(cur, {"enable_seqscan": "off", "jit": "off", "enable_memoize": "off"})
        cur.execute(sql, [*score_args, *terms, *([] if required is None else [required]), *params, k])
        return cur.fetchall()

    def _partial_sums(self, terms: Sequence[str], weights: Sequence[float], base: float, per_len: float) -> tuple[str, list]:
        """Per chunk, BM25 summed over some query terms, from the ``postings`` index alone: one
        index-only scan a term (each in chunk order), merged and summed chunk by chunk (no hash
        table); no chunk row is read. The sums are bounds only, so their addition order is free."""
        one = f"SELECT n, %s * tf::float8 / (tf + %s + %s * tlen) AS s FROM {self._t('postings')} WHERE term = %s"
        args: list[Any] = []
        for t, w in zip(terms, weights, strict=True):
            args += [w, base, per_len, t]
        union = " UNION ALL ".join(f"({one} ORDER BY n)" for _ in terms)
        return f"SELECT n, sum(s) AS part FROM ({union}) u GROUP BY n", args

    def _bm25_postings(self, cur, terms, weights, dfs, base, per_len, k: int) -> list[tuple]:
        """Unfiltered top ``k`` by BM25, MaxScore over the ``postings`` index: (1) the rarest
        terms' partial sums give a floor ``θ`` (the k-th best partial sum: every full score is at
        least its partial sum); (2) the commonest terms whose weights add up to at most ``θ``
        cannot lift a row holding none of the others to ``θ`` (a term adds less than its weight),
        so only the other ("essential") terms' postings are summed; (3) a row whose essential
        sum plus those weights stays below the floor is dropped; (4) the few rows left are
        scored exactly by ``_bm25_rows`` (same arithmetic as every other path). Only index
        entries are read until step 4, which reads a few hundred rows instead of thousands."""
        order = sorted(range(len(terms)), key=lambda i: (-weights[i], terms[i]))
        probe, covered = [], 0
        for i in order:
            if probe and covered >= max(self.probe_matches, PROBE_PER_HIT * k):
                break
            probe.append(i)
            covered += dfs[i]
        set_local(cur, {"enable_seqscan": "off", "jit": "off", "max_parallel_workers_per_gather": "0",
                        "enable_hashagg": "off"})
        partial, args = self._partial_sums([terms[i] for i in probe], [weights[i] for i in probe], base, per_len)
        cur.execute(f"SELECT part FROM ({partial}) s ORDER BY part DESC OFFSET %s LIMIT 1", [*args, k - 1])
        row = cur.fetchone()
        theta = float(row[0]) * (1 - FLOAT_SLACK) if row else 0.0
        essential, rest = list(order), 0.0
        while len(essential) > 1 and rest + weights[essential[-1]] <= self.skip_share * theta:
            rest += weights[essential.pop()]
        partial, args = self._partial_sums([terms[i] for i in essential], [weights[i] for i in essential], base, per_len)
        cur.execute(
            f"WITH e AS MATERIALIZED ({partial}), "
            "floor AS (SELECT greatest(%s, coalesce((SELECT part FROM e ORDER BY part DESC OFFSET %s LIMIT 1), 0)"
            " * (1 - %s)) AS theta) "
            "SELECT n FROM e WHERE part + %s >= (SELECT theta FROM floor)",
            [*args, theta, k - 1, FLOAT_SLACK, rest * (1 + FLOAT_SLACK)],
        )
        candidates = [r[0] for r in cur.fetchall()]
        if not candidates:
            return []
        return self._bm25_rows(cur, terms, weights, base, per_len, None, "c.n = ANY(%s)", [candidates], k)

    def text_search(
        self, query: str, k: int, filters: SearchFilters | None = None, fuzziness: int | None = 0
    ) -> list[tuple[Chunk, float]]:
        """BM25 over the chunk's searchable text; ``fuzziness`` as in the embedded store
        (``None``: edit distance by word length; the exact term counts double)."""
        weighted = lexical.query_terms(query) if fuzziness == 0 else self._fuzzy_terms(query, fuzziness)
        if not weighted:
            return []
        where, params = filter_sql(filters)
        with self._read() as cur:
            rows = self._bm25(cur, weighted, where, params, k)
        return [(to_chunk(r), float(r[17])) for r in rows if r[17] > 0]

    def _fuzzy_terms(self, query: str, fuzziness: int | None) -> dict[str, float]:
        """Index terms near each query word, found through the trigram index on ``terms``."""
        words = list(dict.fromkeys(lexical.words(query)))
        if not words:
            return {}
        near: dict[str, list[str]] = {w: [] for w in words}
        with self._read() as cur:
            set_local(cur, {"pg_trgm.similarity_threshold": "0.2"})
            cur.execute(
                f"SELECT w, t.term FROM unnest(%s::text[]) w, LATERAL (SELECT term FROM {self._t('terms')} "
                "WHERE term %% w ORDER BY term <-> w, term LIMIT 60) t",
                (words,),
            )
            for word, term in cur.fetchall():
                near[word].append(term)
        return lexical.fuzzy_terms(query, fuzziness, lambda w: near.get(w, ()))

    # Scoring known candidates (hybrid search fills in the score the retriever missed).
    def text_scores(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        weighted = lexical.query_terms(query)
        if not ids or not weighted:
            return {}
        with self._read() as cur:
            rows = self._bm25(cur, weighted, "c.id = ANY(%s)", [list(ids)], len(ids), prune=False)
        return {r[0]: float(r[17]) for r in rows if r[17] > 0}



__all__ = ["KeywordSearch"]
