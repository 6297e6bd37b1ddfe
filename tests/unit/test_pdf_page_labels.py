"""A PDF whose printed page numbers are not its page positions (a roman-numbered preface, an
"A-" appendix) cites the page a reader sees, and the position that ``get --page`` takes."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from reportlab.pdfgen import canvas

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
