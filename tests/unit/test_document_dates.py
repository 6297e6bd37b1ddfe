"""A document's own date as people write it: read when it has one reading, else kept as written
with a warning at index time (a date filter silently leaving a note out is what users hit)."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn
from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject
from reportlab.pdfgen import canvas

from docshelf.dates import document_day, unread_reason
from docshelf.pipeline.parsers import default_registry


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


# --- a Word or PDF file's own date: its last save (core properties / document info) -------


def _docx(text: str, *, modified: str | None, created: str | None) -> bytes:
    """A DOCX whose core.xml carries these W3CDTF values as written (None: no element)."""
    document = docx.Document()
    document.add_paragraph(text)
    props = document.core_properties._element  # noqa: SLF001 - writing core.xml as Word or a broken tool would
    for name, value in (("modified", modified), ("created", created)):
        element = props.find(qn(f"dcterms:{name}"))
        if value is None:
            props.remove(element)
        else:
            element.text = value
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def _pdf(text: str, info: dict[str, str]) -> bytes:
    """A one-page PDF whose document info has these entries (reportlab's own dates replaced)."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.drawString(72, 750, text)
    pdf.showPage()
    pdf.save()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(buf.getvalue())))
    for key in ("/ModDate", "/CreationDate"):
        del writer._info.get_object()[NameObject(key)]  # noqa: SLF001 - pypdf has no public 'remove'
    writer.add_metadata(info)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_word_or_pdf_file_is_dated_by_its_last_save_and_damaged_dates_fail_nothing(shelf, tmp_path: Path) -> None:
    """'Manuals changed since March' finds a manual saved in March though written in 2023; a file
    with no readable date is indexed and simply outside date filters."""
    docs = tmp_path / "docs"
    docs.mkdir()
    files = {
        "saved.docx": _docx("The turbine manual, saved.", modified="2024-03-05T10:00:00Z",
                            created="2023-01-10T09:00:00Z"),
        "created-only.docx": _docx("The turbine manual, created.", modified=None, created="2024-03-07T08:00:00Z"),
        "damaged.docx": _docx("The turbine manual, damaged.", modified="last Tuesday", created="soon"),
        "saved.pdf": _pdf("The turbine manual, saved PDF.", {"/ModDate": "D:20240305120000+01'00'",
                                                              "/CreationDate": "D:20230110090000Z"}),
        "created-only.pdf": _pdf("The turbine manual, PDF with a bad save date.",
                                 {"/ModDate": "D:2024XXYY", "/CreationDate": "D:20240308"}),
        "damaged.pdf": _pdf("The turbine manual, damaged PDF.", {"/ModDate": "garbage", "/CreationDate": "D:20241345"}),
        "old.pdf": _pdf("The turbine manual, old PDF.", {"/ModDate": "D:20230101000000Z"}),
    }
    for name, data in files.items():
        (docs / name).write_bytes(data)
    report = shelf.index([docs])
    assert (report.failed, report.warnings) == ({}, [])
    hits = shelf.search("turbine manual", mode="keyword", k=20, date_from="2024-03-01", date_to="2024-03-31").hits
    assert {h.path: h.date for h in hits} == {"saved.docx": "2024-03-05", "created-only.docx": "2024-03-07",
                                              "saved.pdf": "2024-03-05", "created-only.pdf": "2024-03-08"}
    undated = shelf.search("turbine manual", mode="keyword", k=20).hits
    assert {h.path: h.date for h in undated if "damaged" in h.path} == {"damaged.docx": None, "damaged.pdf": None}


# --- a note's date from the keys Obsidian and static-site generators write ---------------------


@pytest.mark.parametrize(("frontmatter", "expected"), [
    ("updated: 2024-03-05\ncreated: 2023-01-01", {"date": "2024-03-05"}),
    ("created: 2023-01-01\nmodified: March 5, 2024", {"date": "2024-03-05"}),
    ("last_modified: 2024-03-05T10:00:00Z\ncreated: 2023-01-01", {"date": "2024-03-05"}),
    ("lastmod: 2024-03-05\ncreated: 2023-01-01", {"date": "2024-03-05"}),
    ("created: 2024-03-05 14:22", {"date": "2024-03-05"}),
    ("date: 2024-02-01\nupdated: 2024-03-05", {"date": "2024-02-01"}),  # the date the author stated wins
    ("date:\nupdated: 2024-03-05", {"date": "2024-03-05"}),  # an empty template key is no date
    ("updated: someday\ncreated: 2024-03-05", {"date_raw": "someday"}),  # kept as written, not passed over
    # keys as people write them: capitals, spaces, hyphens, Obsidian templates' "date created"
    ("Created: 2024-03-05", {"date": "2024-03-05"}),
    ("Date: 2024-03-05", {"date": "2024-03-05"}),
    ("Last Modified: 2024-03-05\ncreated: 2023-01-01", {"date": "2024-03-05"}),
    ("last-modified: 2024-03-05", {"date": "2024-03-05"}),
    ("date created: 2023-01-01\ndate modified: 2024-03-05", {"date": "2024-03-05"}),
])
def test_a_note_without_date_is_dated_by_its_last_change_then_its_creation(tmp_path: Path, frontmatter: str,
                                                                           expected: dict[str, str]) -> None:
    meta = default_registry().parse(tmp_path / "n.md", f"---\n{frontmatter}\n---\nBody\n".encode()).metadata
    assert {k: v for k, v in meta.items() if k in ("date", "date_raw")} == expected


def test_an_obsidian_note_with_only_created_and_updated_is_found_by_a_date_filter(shelf, write,
                                                                                  tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    write(notes, "edited.md", "---\ncreated: 2023-06-01\nupdated: 2024-03-05\n---\nThe pottery kiln log.\n")
    write(notes, "new.md", "---\ncreated: 2024-03-09T11:00\n---\nThe pottery kiln plan.\n")
    write(notes, "old.md", "---\ncreated: 2023-06-01\n---\nThe pottery kiln history.\n")
    shelf.index([notes])
    hits = shelf.search("pottery kiln", mode="keyword", k=10, date_from="2024-03-01").hits
    assert {h.path: h.date for h in hits} == {"edited.md": "2024-03-05", "new.md": "2024-03-09"}
