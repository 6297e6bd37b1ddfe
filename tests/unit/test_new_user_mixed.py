"""A new user's folder of mixed documents (fourth pass): what a project names without a suffix
is documentation too."""

from __future__ import annotations

from pathlib import Path


def test_a_readme_or_changelog_without_a_suffix_is_indexed_as_text(shelf, write, tmp_path: Path) -> None:
    docs = tmp_path / "project"
    write(docs, "README", "Widgetizer\n\nRun widgetize --all to rebuild every widget.\n")
    write(docs, "CHANGELOG", "2.0\n\nThe --all flag now rebuilds widgets in parallel.\n")
    write(docs, "Makefile", "all:\n\twidgetize --all\n")  # not a document name: still skipped
    (docs / "NOTES").write_bytes(b"\x00\x01binary")  # a document name, binary content: not text
    report = shelf.index([docs])
    assert sorted(report.added) == ["CHANGELOG", "README"]
    assert set(report.skipped) == {"Makefile"} and set(report.failed) == {"NOTES"}
    hit = shelf.search("rebuild every widget", mode="keyword").hits[0]
    assert (hit.path, hit.start_line, hit.end_line) == ("README", 1, 3)
