"""Hybrid's pool reads columns only for the rows that can be in a list's top k
(``lance_queries.contenders``), then settles ties as ``top_rows`` does (``best_of``): the same
rows in the same order as ``top_rows`` over the whole ``k + TIE_SLACK`` rows, ties at the k-th
place included."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from docshelf.stores.lance_queries import best_of, contenders, top_rows
from docshelf.stores.ties import tie_key


def _rows(scores, score):
    n = len(scores)
    return pa.table({
        "_rowid": list(range(100, 100 + n)), "id": [f"c{i:03d}" for i in range(n)],
        "path": [f"p{(i * 7) % 5}.md" for i in range(n)], "chunk_index": [(i * 3) % 4 for i in range(n)],
        score: pa.array(scores, pa.float32()),
    })


@pytest.mark.parametrize("score", ["_score", "_distance"])
@pytest.mark.parametrize("seed", range(40))
def test_contenders_then_best_of_equal_top_rows(score, seed):
    rng = random.Random(seed)
    n, k = rng.randint(0, 14), rng.randint(1, 10)
    scores = [rng.choice([0.1, 0.2, 0.3, 0.5]) for _ in range(n)]  # many ties, at the k-th place too
    table = _rows(scores, score)
    rows, kept = contenders(table, k, score)
    keys = {r: tie_key(p, c, i) for r, p, c, i in zip(table.column("_rowid").to_pylist(), table.column("path").to_pylist(),
                                                       table.column("chunk_index").to_pylist(), table.column("id").to_pylist())}
    expected = top_rows(table, k, score)
    assert [r for r, _ in best_of(rows, kept, keys, k, score)] == expected.column("_rowid").to_pylist()


def test_only_rows_that_can_be_in_the_top_k_are_read():
    table = _rows([0.9, 0.8, 0.7, 0.7, 0.7, 0.1, 0.05], "_score")
    assert contenders(table, 3, "_score")[0] == [100, 101, 102, 103, 104]  # every row tied with the 3rd, no worse one
    assert contenders(table, 0, "_score")[0] == []
    assert contenders(_rows([0.1, 0.3, 0.2], "_distance"), 2, "_distance")[0] == [100, 102]
