"""``docshelf eval`` on a docs-folder set (docs/ + questions.jsonl), with the real packaged model."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from docshelf.interfaces.cli import app

pytestmark = pytest.mark.e2e

PAGES = {
    "cookies.md": "# Cookies\n\nCookies live on the response.\n\n## Set a cookie\n\nCall `response.set_cookie(key, value)`"
    " with an optional `max_age` in seconds.\n\n## Delete a cookie\n\nCall `response.delete_cookie(key)` to expire it.\n",
    "threads.md": "# Thread pool\n\nSync endpoints run in a worker thread.\n\n## Limits\n\nOnly 40 threads run at once; "
    "raise `total_tokens` on the default limiter to allow more.\n",
}
QUESTIONS = [
    {"query": "set_cookie max_age", "kind": "identifier", "path": "cookies.md", "heading": "Set a cookie",
     "start_line": 5, "end_line": 8},
    {"query": "how do I remove a cookie from the browser", "kind": "howto", "path": "cookies.md",
     "heading": "Delete a cookie", "start_line": 9, "end_line": 11},
    {"query": "allow more than forty concurrent worker threads", "kind": "paraphrase", "path": "threads.md",
     "heading": "Limits", "start_line": 5, "end_line": 7},
    {"query": "recipe for banana bread", "kind": "unanswerable"},
]


def test_eval_detects_a_docs_folder_set_and_reports_every_kind(tmp_path):
    root = tmp_path / "tiny"
    (root / "docs").mkdir(parents=True)
    for name, text in PAGES.items():
        (root / "docs" / name).write_text(text)
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    runs = tmp_path / "runs.json"
    result = CliRunner().invoke(app, ["eval", str(root), "--modes", "keyword,semantic", "--cache-dir",
                                      str(tmp_path / "cache"), "--run-file", str(runs), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["format"], report["questions"], report["documents"]) == ("docs", 4, 2)
    assert [m["mode"] for m in report["modes"]] == ["keyword", "semantic"]
    for m in report["modes"]:
        assert list(m["by_kind"]) == ["howto", "paraphrase", "identifier", "unanswerable"]
        assert m["counts"] == {"howto": 1, "paraphrase": 1, "identifier": 1, "unanswerable": 1}
        assert m["by_kind"]["identifier"]["section@1"] == 1.0, m  # the exact name is in one section only
        assert m["overall"]["hit@3"] == 1.0  # two documents: the gold one is always in the top 3
    semantic = next(m for m in report["modes"] if m["mode"] == "semantic")
    assert semantic["overall"]["section@1"] == 1.0, semantic
    outcomes = json.loads(runs.read_text())["semantic"]
    assert [o["id"] for o in outcomes] == ["1", "2", "3", "4"]
    assert outcomes[2]["top_path"] == "threads.md" and outcomes[2]["top_heading"] == ["Thread pool", "Limits"]
