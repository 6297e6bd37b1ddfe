"""The metric code, checked against values computed by hand on a tiny qrels file."""

from __future__ import annotations

import math

import pytest

from docshelf.eval.metrics import evaluate_run, load_qrels, mrr_at_k, ndcg_at_k, per_query, percentile, recall_at_k

QRELS_TSV = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td4\t1\nq3\td9\t0\n"


@pytest.fixture
def qrels(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_text(QRELS_TSV)
    return load_qrels(path)


def test_load_qrels_reads_graded_judgements(qrels):
    assert qrels == {"q1": {"d1": 1, "d2": 2}, "q2": {"d4": 1}, "q3": {"d9": 0}}


def test_ndcg_by_hand(qrels):
    # run q1: d3 (0), d2 (2), d1 (1)
    # DCG  = 0/log2(2) + (2^2-1)/log2(3) + (2^1-1)/log2(4) = 1.8927893 + 0.5      = 2.3927893
    # IDCG = (2^2-1)/log2(2) + (2^1-1)/log2(3)          = 3 + 0.6309298       = 3.6309298
    assert ndcg_at_k(["d3", "d2", "d1"], qrels["q1"], 10) == pytest.approx(2.3927893 / 3.6309298, abs=1e-6)
    assert ndcg_at_k(["d3", "d2", "d1"], qrels["q1"], 10) == pytest.approx(0.6590018, abs=1e-6)
    # Ideal order scores 1; cutting at k=1 keeps only d3 (0).
    assert ndcg_at_k(["d2", "d1"], qrels["q1"], 10) == pytest.approx(1.0)
    assert ndcg_at_k(["d3", "d2", "d1"], qrels["q1"], 1) == 0.0
    # A relevant document that was never retrieved still counts in the ideal DCG.
    assert ndcg_at_k(["d2"], qrels["q1"], 10) == pytest.approx(3 / 3.6309298, abs=1e-6)


def test_recall_and_mrr_by_hand(qrels):
    assert recall_at_k(["d3", "d2", "d7"], qrels["q1"], 10) == 0.5
    assert recall_at_k(["d3", "d2", "d1"], qrels["q1"], 2) == 0.5
    assert recall_at_k(["d3", "d2", "d1"], qrels["q1"], 3) == 1.0
    assert mrr_at_k(["d3", "d2", "d1"], qrels["q1"], 10) == 0.5
    assert mrr_at_k(["d3", "d5", "d4"], qrels["q2"], 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["d3", "d5", "d4"], qrels["q2"], 2) == 0.0


def test_evaluate_run_means_over_judged_queries_only(qrels):
    run = {"q1": ["d3", "d2", "d1"], "q2": ["d4"], "q3": ["d9"]}
    # q3 has no relevant document: BEIR skips it. q2 is perfect.
    result = evaluate_run(run, qrels)
    assert result == pytest.approx(
        {"ndcg@10": (0.6590018 + 1.0) / 2, "recall@10": 1.0, "recall@100": 1.0, "mrr@10": (0.5 + 1.0) / 2}, abs=1e-6
    )
    assert per_query(run, qrels) == pytest.approx({"q1": 0.6590018, "q2": 1.0}, abs=1e-6)


def test_a_query_missing_from_the_run_scores_zero(qrels):
    assert evaluate_run({"q1": ["d2", "d1"]}, qrels)["ndcg@10"] == pytest.approx(0.5)


def test_percentile_interpolates():
    assert percentile([10, 20, 30, 40], 50) == 25
    assert percentile([10, 20, 30, 40], 95) == pytest.approx(38.5)
    assert percentile([5], 95) == 5
    assert math.isclose(percentile(list(range(101)), 95), 95)
