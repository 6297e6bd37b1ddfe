"""A document's own date as people write it: read when it has one reading, else kept as written
with a warning at index time (a date filter silently leaving a note out is what users hit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docshelf.dates import document_day, unread_reason


@pytest.mark.parametrize(("written", "day"), [
    ("2024-03-03", "2024-03-03"), ("2024-03-03T10:00:00Z", "2024-03-03"), ("2024-03-03 10:00 PST", "2024-03-03"),
    ("2024/03/03", "2024-03-03"), ("2024.3.3", "2024-03-03"), ("2024-3-3", "2024-03-03"), ("03.04.2024", "2024-04-03"),
    ("March 3, 2024", "2024-03-03"), ("Mar 3 2024", "2024-03-03"), ("March 3rd, 2024", "2024-03-03"),
    ("3 March 2024", "2024-03-03"), ("3rd of March 2024", "2024-03-03"), ("Sept. 30, 2024", "2024-09-30"),
    ("Mon, 4 Mar 2024", "2024-03-04"), ("3-Mar-2024", "2024-03-03"),
    ("13/03/2024", "2024-03-13"), ("03/13/2024", "2024-03-13"), ("03/03/2024", "2024-03-03"),
])
def test_a_date_with_one_reading_is_read(written: str, day: str) -> None:
    assert document_day(written) == day


@pytest.mark.parametrize("written", ["03/04/2024", "12/03/2024", "yesterday", "2024-13-45", "March 2024",
                                     "31 February 2024", "3/4/24", "March 3, 2024, 2025"])
def test_a_date_with_no_single_reading_is_not_guessed(written: str) -> None:
    assert document_day(written) is None


def test_the_reason_names_both_readings_of_an_ambiguous_date() -> None:
    assert unread_reason("03/04/2024") == ("is ambiguous (3 April or March 4)", "write 2024-04-03 or 2024-03-04")
    assert unread_reason("someday") == ("is not a date docshelf reads", "write it as YYYY-MM-DD")


def test_index_reads_common_dates_and_warns_once_about_an_ambiguous_one(shelf, write, tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    for name, date in (("a", "12/03/2024"), ("b", "March 3, 2024"), ("c", "3 March 2024"), ("d", "2024/03/03"),
                       ("e", "13/03/2024")):
        write(notes, f"{name}.md", f"---\ndate: {date}\n---\nThe harbour crane log, entry {name}.\n")
    report = shelf.index([notes])
    assert report.warnings == [
        "a.md: date '12/03/2024' is ambiguous (12 March or December 3), so date filters leave this document out; "
        "write 2024-03-12 or 2024-12-03"]
    hits = shelf.search("harbour crane", mode="keyword", k=10, date_from="2024-03-01", date_to="2024-03-31").hits
    assert sorted(h.path for h in hits) == ["b.md", "c.md", "d.md", "e.md"]
    assert {h.path: h.date for h in hits}["e.md"] == "2024-03-13"
    assert shelf.index([notes]).warnings == []  # once: an unchanged note is not read again


def test_a_date_filtered_search_says_how_many_documents_it_left_out_for_an_unread_date(shelf, write,
                                                                                       tmp_path: Path) -> None:
    """An agent filtering by date must not conclude the notes do not exist: the note names them."""
    notes = tmp_path / "notes"
    write(notes, "ops/standup.md", "---\ndate: 03/04/2024\n---\nThe kiln budget was approved.\n")
    write(notes, "ops/retro.md", "---\ndate: someday\n---\nThe kiln budget retro.\n")
    write(notes, "ops/plan.md", "---\ndate: 2024-03-05\n---\nThe kiln budget plan.\n")
    write(notes, "misc/undated.md", "The kiln budget, no date at all.\n")
    write(notes, "misc/other.md", "---\ndate: 04/05/2024\n---\nNothing about it.\n")
    shelf.index([notes])
    result = shelf.search("kiln budget", mode="keyword", date_from="2024-01-01", path_prefix="ops/")
    assert [h.path for h in result.hits] == ["ops/plan.md"]
    assert result.note == ("the date filter left out 2 documents whose date could not be read: "
                           "ops/retro.md ('someday'), ops/standup.md ('03/04/2024'); write their dates as YYYY-MM-DD")
    assert "misc/other.md" in shelf.search("kiln", mode="keyword", date_to="2030-01-01").note  # the whole index
    assert shelf.search("kiln", mode="keyword", date_to="2030-01-01", path_prefix="misc/").note == (
        "the date filter left out 1 document whose date could not be read: misc/other.md ('04/05/2024'); "
        "write its date as YYYY-MM-DD")
    assert shelf.search("kiln budget", mode="keyword").note == ""  # no date filter: nothing left out
    write(notes, "ops/standup.md", "---\ndate: 2024-04-03\n---\nThe kiln budget was approved.\n")
    write(notes, "ops/retro.md", "---\ndate: 2024-04-04\n---\nThe kiln budget retro.\n")
    shelf.index([notes])  # fixed: a new version of the index, a new count
    assert shelf.search("kiln budget", mode="keyword", date_from="2024-01-01", path_prefix="ops/").note == ""
