"""Reading PDF manuals as typeset: running headers and page numbers, outline titles that the
page prints with a section number or over two lines, and typeset ligatures (set M, the LaTeX
and Asymptote manuals, showed each)."""

from __future__ import annotations

import io
import re
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from docshelf.pipeline.parsers.pdf import PdfParser

BODY = [
    "The pump draws water from the sump through the inlet strainer.",
    "Check the strainer weekly and rinse it under running water.",
    "A clogged strainer starves the impeller and the motor overheats.",
]


def _parse(tmp_path: Path, data: bytes):
    return PdfParser().parse(tmp_path / "manual.pdf", data)


def _texts(doc) -> list[str]:
    return [b.text for b in doc.blocks if b.kind == "paragraph"]


def manual_with_running_heads(pages: int = 5) -> bytes:
    """A manual whose pages carry "Chapter 2: Pumps N" at the top (N the page number, as a
    Texinfo manual prints it) and the page number alone at the bottom."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    for n in range(1, pages + 1):
        pdf.drawString(72, 800, f"Chapter 2: Pumps {n}")
        y = 740
        first = "Set the valve to position 3" if n == 3 else f"Section text of page {n}."  # ends with a number, not the page's
        for line in [first, *BODY]:
            pdf.drawString(72, y, line)
            y -= 16
        pdf.drawString(300, 40, str(n))
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


def test_running_headers_and_page_numbers_are_not_part_of_the_text(tmp_path: Path) -> None:
    doc = _parse(tmp_path, manual_with_running_heads())
    texts = _texts(doc)
    assert not any("Chapter 2: Pumps" in t for t in texts), texts[:3]
    assert not any(re.search(r"(^|\s)\d+$", t) for t in texts)  # no page number alone or closing a paragraph
    # every page still opens with its own text, and a first line ending in another number stays
    firsts = {}
    for b in doc.blocks:
        firsts.setdefault(b.page, b.text)
    assert firsts[1].startswith("Section text of page 1.") and firsts[3].startswith("Set the valve to position 3")
    assert sorted(firsts) == [1, 2, 3, 4, 5]


def test_a_header_on_one_page_only_is_kept_as_text(tmp_path: Path) -> None:
    """A line at the top of a single page that ends with that page's number is no running
    header by itself (a chapter whose header shows on one page stays as read)."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.drawString(72, 800, "Tighten bolt 1")
    pdf.drawString(72, 780, BODY[0])
    pdf.showPage()
    pdf.drawString(72, 800, "Loosen bolt 4")
    pdf.drawString(72, 780, BODY[1])
    pdf.showPage()
    pdf.save()
    texts = " ".join(_texts(_parse(tmp_path, buf.getvalue())))
    assert "Tighten bolt 1" in texts and "Loosen bolt 4" in texts


def test_an_outline_title_printed_with_its_number_or_wrapped_starts_its_section_there(tmp_path: Path) -> None:
    """Texinfo's outline says "Search paths" where the page prints "2.5 Search paths"; LaTeX
    wraps and hyphenates a long title over two lines; quotes differ (`x' against ‘x’). Each
    section starts at its printed title, not at the top of the page."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    entries = [("Installation", 0), ("Search paths", 1), ("Expandable floating point calculations", 1),
               ("The `openany' option", 1)]
    for n, (title, level) in enumerate(entries):
        pdf.bookmarkPage(f"b{n}")  # one destination each: reportlab keys an entry by its destination
        pdf.addOutlineEntry(title, f"b{n}", level=level)
    lines = ["2 Installation", "Read this first.", "2.5 Search paths", "asy looks in the current directory.",
             "2.6 Expandable floating point calcula-", "tions", "fpeval computes sin(3.5)/2.",
             "2.7 The \u2018openany\u2019 option", "Chapters start on any page."]
    y = 760
    for line in lines:
        pdf.drawString(72, y, line)
        y -= 16
    pdf.showPage()
    pdf.save()
    doc = _parse(tmp_path, buf.getvalue())
    where = {b.text: b.heading_path[-1] for b in doc.blocks if b.kind == "paragraph"}
    assert where == {
        "Read this first.": "Installation",
        "asy looks in the current directory.": "Search paths",
        "fpeval computes sin(3.5)/2.": "Expandable floating point calculations",
        "Chapters start on any page.": "The `openany' option",
    }
    assert not any("calcula" in t or "2.5" in t for t in where)  # the printed titles are headings, not text


def test_typeset_ligatures_read_as_their_letters(tmp_path: Path) -> None:
    pdfmetrics.registerFont(TTFont("Vera", "Vera.ttf"))  # reportlab's own font, with the ﬁ and ﬂ glyphs
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.setFont("Vera", 10)
    pdf.drawString(72, 760, "Aliases can be de\ufb01ned for the work\ufb02ow \ufb01les.")
    pdf.showPage()
    pdf.save()
    assert _texts(_parse(tmp_path, buf.getvalue())) == ["Aliases can be defined for the workflow files."]


def manual_without_outline(*, outline: bool = False) -> bytes:
    """A two-page manual with no bookmarks: sections in bold 14 pt and 12 pt over a 10 pt body
    (natbib's manual is set so: 14.3 / 12 pt bold over 10.9 pt), a section title wrapped over
    two lines, an 11 pt plain line and a bold lead-in at body size that are no headings."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    body = ("Body text explains the pump in ordinary sentences of ordinary length, set in the "
            "body face at ten points, line after line.")

    def page(lines: list[tuple[str, str, int]]) -> None:
        y = 780
        for text, font, size in lines:
            pdf.setFont(font, size)
            pdf.drawString(60, y, text)
            y -= size + 6
        pdf.showPage()

    if outline:
        pdf.bookmarkPage("only")
        pdf.addOutlineEntry("Everything", "only", level=0)
    filler = [(body[:70], "Helvetica", 10), (body[70:], "Helvetica", 10)] * 3
    page([("2 Using the pump", "Helvetica-Bold", 14), *filler,
          ("2.1 Priming before the first", "Helvetica-Bold", 12), ("start", "Helvetica-Bold", 12), *filler,
          ("Warning: never run it dry.", "Helvetica", 11), *filler])
    page([("Note:", "Helvetica-Bold", 10), *filler, ("2.2 Draining", "Helvetica-Bold", 12), *filler,
          ("3 Maintenance", "Helvetica-Bold", 14), *filler])
    pdf.save()
    return buf.getvalue()


def test_a_pdf_without_outline_takes_its_sections_from_larger_bold_type(tmp_path: Path) -> None:
    doc = _parse(tmp_path, manual_without_outline())
    assert [(b.page, b.level, b.heading_path) for b in doc.blocks if b.kind == "heading"] == [
        (1, 1, ("2 Using the pump",)),
        (1, 2, ("2 Using the pump", "2.1 Priming before the first start")),
        (2, 2, ("2 Using the pump", "2.2 Draining")),
        (2, 1, ("3 Maintenance",)),
    ]
    paths = [b.heading_path for b in doc.blocks if b.kind == "paragraph" and "Warning: never run it dry." in b.text]
    assert paths == [("2 Using the pump", "2.1 Priming before the first start")]  # 11 pt plain: text
    assert any(b.text.startswith("Note:") for b in doc.blocks if b.kind == "paragraph")  # bold at body size: text


def test_a_pdf_outline_wins_over_its_type(tmp_path: Path) -> None:
    doc = _parse(tmp_path, manual_without_outline(outline=True))
    assert [b.text for b in doc.blocks if b.kind == "heading"] == ["Everything"]


def test_table_of_contents_and_index_entries_are_navigation_not_text(tmp_path: Path) -> None:
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    y = 760
    for line in ["Contents", "2.5 Search paths . . . . . . . . . . . . 6", "xlimits . . . . . . . . . . . 112, 118",
                 "Preface . . . . . . . . . . . . iv", "Values run 1, 2, . . . , n as usual."]:
        pdf.drawString(72, y, line)
        y -= 16
    pdf.showPage()
    pdf.save()
    assert _texts(_parse(tmp_path, buf.getvalue())) == ["Contents Values run 1, 2, . . . , n as usual."]


def manual_with_a_listing() -> bytes:
    """Prose in Helvetica around a listing set in Courier, and a prose line naming one command
    in Courier inside it, as manuals print signatures and examples."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    y = 760
    for font, line in [
        ("Helvetica", "The legend for a picture can be fit to a frame with the routine:"),
        ("Courier", "frame legend(picture pic=currentpicture, int perline=1,"),
        ("Courier", "             real xmargin=legendmargin, pen p=currentpen);"),
        ("Helvetica", "Here perline specifies the number of entries per line. Then call"),
        (None, "add to place it."),
    ]:
        if font is None:  # a prose line with one word in the typewriter face
            text = pdf.beginText(72, y)
            text.setFont("Helvetica", 12)
            text.textOut("Then ")
            text.setFont("Courier", 12)
            text.textOut("add")
            text.setFont("Helvetica", 12)
            text.textOut(" places it on the picture.")
            pdf.drawText(text)
        else:
            pdf.setFont(font, 12)
            pdf.drawString(72, y, line)
        y -= 16
    pdf.showPage()
    pdf.save()
    return buf.getvalue()


def test_a_listing_in_a_typewriter_face_is_a_code_block_line_by_line(tmp_path: Path) -> None:
    """A signature or example set in a fixed-pitch font was joined into the prose around it as
    one run-on paragraph (set M, the Asymptote manual: every routine's signature); its lines and
    their indentation are kept as printed."""
    doc = _parse(tmp_path, manual_with_a_listing())
    kinds = [(b.kind, b.text) for b in doc.blocks]
    code = [text for kind, text in kinds if kind == "code"]
    assert len(code) == 1, kinds
    assert code[0].splitlines()[1:-1] == ["frame legend(picture pic=currentpicture, int perline=1,",
                                          "             real xmargin=legendmargin, pen p=currentpen);"]
    prose = " ".join(text for kind, text in kinds if kind == "paragraph")
    assert "frame legend" not in prose and "Then add places it on the picture." in prose
    assert prose.index("can be fit to a frame") < prose.index("Here perline")
