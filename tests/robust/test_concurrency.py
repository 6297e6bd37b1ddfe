"""A few seconds of continuous indexing (another process) under 8 searching clients.

The 60-second soak is ``benchmarks/concurrency.py`` (results in ``benchmarks/README.md``);
this runs the same check briefly: zero failed queries, no response that shows a document
at two versions, and the deleted document never found once its delete committed.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from concurrency import run  # noqa: E402


def test_searches_during_continuous_indexing_are_consistent(tmp_path):
    summary = run(seconds=6, readers=8, workdir=tmp_path)
    assert summary["writer_exit"] == 0, summary["writer_stderr"]
    assert summary["writer_commits"] >= 2 and summary["delete_committed"], summary
    assert summary["queries"] >= 16, summary
    assert summary["failed"] == [] and summary["mixed"] == [], summary
    assert summary["deleted_seen_after_commit"] == 0, summary
    assert summary["empty_responses"] == 0, summary


def test_the_version_check_catches_a_mixed_response():
    from types import SimpleNamespace as Hit

    from concurrency import check_response, document

    old, new = document(1, 3), document(1, 4)
    assert check_response([Hit(path="doc1.md", text=old), Hit(path="doc2.md", text=document(2, 4))]) == []
    assert check_response([Hit(path="doc1.md", text=old), Hit(path="doc1.md", text=new)]) == [
        "doc1.md: versions 3 and 4 in one response"
    ]
    assert check_response([Hit(path="doc1.md", text=old[:200] + new[200:])]) == [
        "doc1.md: one hit mixes versions ['3', '4']", "doc1.md: versions 3 and 4 in one response"
    ]
