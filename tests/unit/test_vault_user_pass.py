"""A note-taker's vault as a new user writes it (third new-user pass): slips in frontmatter and
links must not lose a note or hide it from get_note."""

from __future__ import annotations

from pathlib import Path


def test_a_note_with_an_impossible_frontmatter_date_is_indexed_not_failed(shelf, write, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "2_Areas/Running.md", "---\ndate: 2024-13-45\ntags: [health]\n---\nRan along the riverbank.\n")
    report = shelf.index([vault])
    assert report.failed == {} and report.added == ["2_Areas/Running.md"]
    hits = shelf.search("riverbank", mode="keyword").hits
    assert [h.path for h in hits] == ["2_Areas/Running.md"] and hits[0].tags == ("health",)
