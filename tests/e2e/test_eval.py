"""``docshelf eval`` end to end on a small SciFact sample, with the real packaged model.

The sample (every corpus document judged for the first 12 test queries, plus 40 others)
is cut from ../shared/eval/scifact by the test, so CI runs the real command in seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docshelf.interfaces.cli import app

pytestmark = pytest.mark.e2e
SCIFACT = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "scifact"


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    if not SCIFACT.is_dir():
        pytest.fail(f"{SCIFACT} is missing: the evaluation data ships in ../shared/eval")
    root = tmp_path_factory.mktemp("scifact-sample")
    rows = [line.rstrip("\n").split("\t") for line in (SCIFACT / "qrels" / "test.tsv").open()][1:]
    queries = list(dict.fromkeys(r[0] for r in rows))[:12]
    rows = [r for r in rows if r[0] in queries]
    judged = {r[1] for r in rows}
    corpus = [json.loads(line) for line in (SCIFACT / "corpus.jsonl").open()]
    keep = [d for d in corpus if d["_id"] in judged] + [d for d in corpus[:60] if d["_id"] not in judged][:40]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in keep))
    (root / "queries.jsonl").write_text(
        "".join(line for line in (SCIFACT / "queries.jsonl").open() if json.loads(line)["_id"] in queries)
    )
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join("\t".join(r) + "\n" for r in rows))
    return root, len(keep), len(queries)


def test_eval_reports_every_mode_side_by_side_and_reuses_the_cached_index(sample, tmp_path):
    root, documents, queries = sample
    runner = CliRunner()
    args = ["eval", str(root), "--modes", "keyword,semantic,hybrid,fuzzy", "--cache-dir", str(tmp_path), "--json"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert (report["dataset"], report["queries"], report["documents"]) == (root.name, queries, documents)
    assert [m["mode"] for m in report["modes"]] == ["keyword", "semantic", "hybrid", "fuzzy"]
    assert report["reused_index"] is False
    by_mode = {m["mode"]: m for m in report["modes"]}
    for m in report["modes"]:
        assert set(m["metrics"]) == {"ndcg@10", "recall@10", "recall@100", "mrr@10"}
        assert all(0.0 <= v <= 1.0 for v in m["metrics"].values())
        assert 0 < m["latency_p50_ms"] <= m["latency_p95_ms"]
    # On a small, easy corpus every real mode finds most relevant abstracts.
    for mode in ("keyword", "semantic", "hybrid"):
        assert by_mode[mode]["metrics"]["ndcg@10"] > 0.6, by_mode[mode]
    # Twelve queries are too few for the "never below the better single mode" target (one
    # query moves nDCG by 0.08; that target is measured on the full sets, benchmarks/README.md).
    assert by_mode["hybrid"]["metrics"]["ndcg@10"] >= by_mode["keyword"]["metrics"]["ndcg@10"]

    again = runner.invoke(app, args[:2] + ["--modes", "keyword", "--cache-dir", str(tmp_path), "--json"])
    assert again.exit_code == 0, again.output
    second = json.loads(again.stdout)
    assert second["reused_index"] is True
    assert second["modes"][0]["metrics"] == by_mode["keyword"]["metrics"]


def test_eval_rejects_an_unknown_mode_and_a_folder_that_is_not_beir(sample, tmp_path):
    root, _, _ = sample
    runner = CliRunner()
    bad_mode = runner.invoke(app, ["eval", str(root), "--modes", "keyword,bogus"])
    assert bad_mode.exit_code == 2
    assert "unknown mode(s) bogus" in bad_mode.output
    missing = runner.invoke(app, ["eval", str(tmp_path), "--cache-dir", str(tmp_path)])
    assert missing.exit_code == 1
    assert "corpus.jsonl not found" in str(missing.exception)
