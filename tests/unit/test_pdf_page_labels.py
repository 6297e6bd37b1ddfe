"""A PDF whose printed page numbers are not its page positions (a roman-numbered preface, an
"A-" appendix) cites the page a reader sees, and the position that ``get --page`` takes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfReader, PdfWriter
from reportlab.pdfgen import canvas

from docshelf.errors import InvalidRequest, NotFound
from docshelf.interfaces.output import citation
from docshelf.pipeline.parsers import default_registry
from docshelf.requests import DocumentRequest

LINES = ["Preface: who this guide is for.", "Conventions used in the margins.",
         "Chapter one: unpacking the kiln.", "Chapter two: the first firing.",
         "Appendix: glaze recipes with cobalt oxide."]


def labelled_pdf() -> bytes:
    """Five pages labelled i, ii, 1, 2, A-1 (as a book's front matter, body and appendix)."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    for line in LINES:
        pdf.drawString(72, 750, line)
        pdf.showPage()
    pdf.save()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(buf.getvalue())))
    writer.set_page_label(0, 1, style="/r")
    writer.set_page_label(2, 3, style="/D")
    writer.set_page_label(4, 4, style="/D", prefix="A-")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_the_fixture_has_the_labels_a_viewer_shows() -> None:
    assert PdfReader(io.BytesIO(labelled_pdf())).page_labels == ["i", "ii", "1", "2", "A-1"]


def test_a_hit_on_a_labelled_page_cites_the_label_and_the_pdf_page(shelf, tmp_path: Path) -> None:
    docs = tmp_path / "books"
    docs.mkdir()
    (docs / "kiln.pdf").write_bytes(labelled_pdf())
    assert shelf.index([docs]).failed == {}
    cited = {}
    for word, page in (("margins", 2), ("firing", 4), ("cobalt", 5)):
        hit = shelf.search(word, mode="keyword").hits[0]
        assert hit.page == page, word
        cited[word] = (hit.page_label, citation(hit))
    assert cited == {
        "margins": ("ii", "kiln.pdf (p. ii, PDF page 2)"),
        "firing": ("2", "kiln.pdf (p. 2, PDF page 4)"),
        "cobalt": ("A-1", "kiln.pdf (p. A-1, PDF page 5)"),
    }
    from docshelf.interfaces.http_api import hit_out  # the HTTP API's hit carries it too

    assert hit_out(1, shelf.search("cobalt", mode="keyword").hits[0], {}).page_label == "A-1"
    assert "first firing" in shelf.get_document(DocumentRequest(path="kiln.pdf", page=4)).text  # the position


def test_a_pdf_without_labels_cites_its_page_number_as_before(shelf, tmp_path: Path) -> None:
    from tests.unit.test_parsers import make_manual_with_outline

    docs = tmp_path / "office"
    docs.mkdir()
    (docs / "manual.pdf").write_bytes(make_manual_with_outline())
    shelf.index([docs])
    hit = shelf.search("impeller seal", mode="keyword").hits[0]
    assert (hit.page_label, citation(hit)) == (None, "manual.pdf › Maintenance (p. 3)")
    assert "page_labels" not in default_registry().parse(docs / "manual.pdf", make_manual_with_outline()).metadata


def test_get_takes_the_label_a_citation_shows_as_well_as_the_pdf_page(shelf, tmp_path: Path) -> None:
    """A reader told 'p. A-1, PDF page 5' may ask for either; a number is always the PDF page."""
    docs = tmp_path / "books"
    docs.mkdir()
    (docs / "kiln.pdf").write_bytes(labelled_pdf())
    shelf.index([docs])
    appendix, margins = "Appendix: glaze recipes with cobalt oxide.", "Conventions used in the margins."
    for page, text, number in (("ii", margins, 2), ("A-1", appendix, 5), ("a-1", appendix, 5), ("2", margins, 2)):
        doc = shelf.get_document(DocumentRequest(path="kiln.pdf", page=page))
        assert (doc.text.strip(), doc.pages) == (text, (number,)), page
    with pytest.raises(NotFound, match=r"kiln.pdf has no page labelled 'iv' with indexed text; its labels: "
                                       r"i \(PDF page 1\), ii \(PDF page 2\), 1 \(PDF page 3\), 2 \(PDF page 4\), "
                                       r"A-1 \(PDF page 5\); or pass the page number"):
        shelf.get_document(DocumentRequest(path="kiln.pdf", page="iv"))


def test_a_page_label_in_a_pdf_without_labels_says_to_pass_the_number(shelf, tmp_path: Path) -> None:
    from tests.unit.test_parsers import make_manual_with_outline

    docs = tmp_path / "office"
    docs.mkdir()
    (docs / "manual.pdf").write_bytes(make_manual_with_outline())
    shelf.index([docs])
    with pytest.raises(NotFound, match="manual.pdf has no page labels .*; pass the page number"):
        shelf.get_document(DocumentRequest(path="manual.pdf", page="iv"))


@pytest.mark.parametrize(("page", "expected"), [("iv", (None, "iv")), (" A-1 ", (None, "A-1")), ("4", (4, None)),
                                                (4, (4, None)), ("", (None, None))])
def test_the_request_reads_a_page_that_is_not_a_number_as_its_label(page, expected) -> None:
    request = DocumentRequest(path="kiln.pdf", page=page)
    assert (request.page, request.page_label) == expected


def test_a_page_number_below_one_is_still_refused() -> None:
    with pytest.raises(InvalidRequest, match="page"):
        DocumentRequest(path="kiln.pdf", page="0")
