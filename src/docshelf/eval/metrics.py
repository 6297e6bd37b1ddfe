"""Ranking metrics over graded relevance judgements (qrels), as BEIR/trec_eval define them.

- nDCG@k: DCG = Σ (2^rel − 1) / log2(rank + 1) over the top k, divided by the DCG of the
  ideal ordering of *all* judged documents (so missing relevant documents cost).
- recall@k: relevant documents (rel > 0) found in the top k / all relevant documents.
- MRR@k: 1 / rank of the first relevant document in the top k (0 if none).

A query with no relevant document is skipped by the caller (BEIR evaluates only judged
queries). Pure functions, no I/O besides ``load_qrels``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import ConfigError

Qrels = Mapping[str, Mapping[str, int]]  # query id -> doc id -> graded relevance


def dcg(gains: Sequence[float]) -> float:
    return sum((2.0**g - 1.0) / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    ideal = dcg(sorted((g for g in judged.values() if g > 0), reverse=True)[:k])
    if ideal <= 0:
        return 0.0
    return dcg([judged.get(d, 0) for d in ranked[:k]]) / ideal


def recall_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    relevant = {d for d, g in judged.items() if g > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at_k(ranked: Sequence[str], judged: Mapping[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k], start=1):
        if judged.get(d, 0) > 0:
            return 1.0 / i
    return 0.0


METRICS = {
    "ndcg@10": lambda r, j: ndcg_at_k(r, j, 10),
    "recall@10": lambda r, j: recall_at_k(r, j, 10),
    "recall@100": lambda r, j: recall_at_k(r, j, 100),
    "mrr@10": lambda r, j: mrr_at_k(r, j, 10),
}


def evaluate_run(run: Mapping[str, Sequence[str]], qrels: Qrels) -> dict[str, float]:
    """Mean of each metric over the judged queries (a query missing from ``run`` scores 0)."""
    queries = [q for q, judged in qrels.items() if any(g > 0 for g in judged.values())]
    if not queries:
        return {name: 0.0 for name in METRICS}
    return {
        name: sum(fn(list(run.get(q, ())), qrels[q]) for q in queries) / len(queries) for name, fn in METRICS.items()
    }


def per_query(run: Mapping[str, Sequence[str]], qrels: Qrels, metric: str = "ndcg@10") -> dict[str, float]:
    fn = METRICS[metric]
    return {q: fn(list(run.get(q, ())), j) for q, j in qrels.items() if any(g > 0 for g in j.values())}


def load_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR ``qrels/*.tsv``: ``query-id  corpus-id  score`` with a header line."""
    qrels: dict[str, dict[str, int]] = {}
    with Path(path).open(newline="", encoding="utf-8") as f:
        for number, row in enumerate(csv.reader(f, delimiter="\t"), start=1):
            if len(row) < 3 or row[0] == "query-id":
                continue
            try:
                score = int(float(row[2]))
            except ValueError:
                if number == 1:  # a header with other names
                    continue
                raise ConfigError(f"{Path(path).parent.name}/{Path(path).name} line {number}: the score {row[2]!r} is not a number "
                                  "(rows are query-id, corpus-id, score, separated by tabs)") from None
            qrels.setdefault(row[0], {})[row[1]] = score
    return qrels


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in [0, 100]) of a non-empty sequence."""
    if not values:
        return 0.0
    s = sorted(values)
    pos = (len(s) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


# -- docs-folder sets: document hits, section accuracy, no-answer separation ---------------


def hit_at_k(ranked: Sequence[str], gold: str, k: int) -> float:
    """1 when the gold document is among the first ``k`` ranked documents."""
    return 1.0 if gold in ranked[:k] else 0.0


def reciprocal_rank(ranked: Sequence[str], gold: str, k: int = 10) -> float:
    return mrr_at_k(ranked, {gold: 1}, k)


def lines_overlap(a: tuple[int | None, int | None], b: tuple[int, int]) -> bool:
    """Whether the line range ``a`` (a citation; None when it has no lines) shares a line with ``b``."""
    if a[0] is None or a[1] is None:
        return False
    return a[0] <= b[1] and b[0] <= a[1]


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """Probability that a random positive scores above a random negative (ties count half);
    None when either side is empty. Here: answerable vs unanswerable questions' top scores."""
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))
