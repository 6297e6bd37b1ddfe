"""Parsers and the registry, on real files written by the tests."""

from __future__ import annotations

import io
import logging
import threading
from pathlib import Path

import docx
import pytest
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.pdfgen import canvas

from docshelf.errors import ParseError
from docshelf.models import Block, ParsedDocument
from docshelf.pipeline.parsers import ParserRegistry, default_registry
from docshelf.pipeline.parsers.pdf_layout import paragraphs

REGISTRY = default_registry()


def make_pdf(pages: list[list[str]], *, title: str | None = None,
             encrypt: StandardEncryption | None = None) -> bytes:
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf, encrypt=encrypt)
    if title:
        pdf.setTitle(title)
    for lines in pages:
        y = 750
        for line in lines:
            pdf.drawString(72, y, line)
            y -= 16
        pdf.showPage()
    pdf.save()
    return buf.getvalue()


THREE_PAGES = [["Acme Ingest manual.", "", "Tokens expire after 90 days."], [],
               ["Rotate the token before it expires."]]


# --- PDF ---------------------------------------------------------------------------------


def test_pdf_pages_keep_true_numbers_and_empty_page_counts(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "manual.pdf", make_pdf(THREE_PAGES, title="Acme Manual"))
    assert doc.page_count == 3
    assert doc.title == "Acme Manual"
    assert doc.format == "pdf"
    assert [(b.kind, b.page, b.text) for b in doc.blocks] == [
        ("paragraph", 1, "Acme Ingest manual."),
        ("paragraph", 1, "Tokens expire after 90 days."),
        ("paragraph", 3, "Rotate the token before it expires."),
    ]


def make_manual_with_outline() -> bytes:
    """Three pages; the outline names Installation (p. 2) > Wiring (lower on p. 2) and Maintenance (p. 3)."""
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.drawString(72, 750, "Preface and safety notes.")
    pdf.showPage()
    pdf.bookmarkPage("install")
    pdf.addOutlineEntry("Installation", "install", level=0)
    pdf.drawString(72, 750, "Installation")
    pdf.drawString(72, 734, "Bolt the pump to a level concrete plinth.")
    pdf.bookmarkHorizontalAbsolute("wiring", 600)
    pdf.addOutlineEntry("Wiring", "wiring", level=1)
    pdf.drawString(72, 600, "Wiring")
    pdf.drawString(72, 584, "Connect the brown wire to terminal L1.")
    pdf.showPage()
    pdf.bookmarkPage("maint")
    pdf.addOutlineEntry("Maintenance", "maint", level=0)
    pdf.drawString(72, 750, "Replace the impeller seal every 2000 hours.")  # no heading line: page top
    pdf.showPage()
    pdf.save()
    return buf.getvalue()


def test_pdf_outline_gives_sections_to_cite(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "manual.pdf", make_manual_with_outline())
    assert [(b.kind, b.page, b.heading_path, b.text) for b in doc.blocks] == [
        ("paragraph", 1, (), "Preface and safety notes."),
        ("heading", 2, ("Installation",), "Installation"),
        ("paragraph", 2, ("Installation",), "Bolt the pump to a level concrete plinth."),
        ("heading", 2, ("Installation", "Wiring"), "Wiring"),
        ("paragraph", 2, ("Installation", "Wiring"), "Connect the brown wire to terminal L1."),
        ("heading", 3, ("Maintenance",), "Maintenance"),
        ("paragraph", 3, ("Maintenance",), "Replace the impeller seal every 2000 hours."),
    ]


def test_a_scanned_pdf_with_an_outline_still_fails_as_scanned(tmp_path: Path) -> None:
    buf = io.BytesIO()
    pdf = canvas.Canvas(buf)
    pdf.bookmarkPage("scan")
    pdf.addOutlineEntry("Chapter 1", "scan", level=0)
    pdf.rect(50, 50, 400, 600, fill=1)
    pdf.showPage()
    pdf.save()
    with pytest.raises(ParseError, match="no text layer on any of its 1 page"):
        REGISTRY.parse(tmp_path / "scan.pdf", buf.getvalue())


def test_pdf_title_falls_back_to_first_line_when_metadata_is_a_placeholder(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "x.pdf", make_pdf(THREE_PAGES))  # reportlab: "untitled"
    assert doc.title == "Acme Ingest manual."


def test_pdf_without_a_text_layer_fails_naming_the_cause(tmp_path: Path) -> None:
    """A scanned or image-only PDF would be an unsearchable, silent document: say why instead."""
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / "blank.pdf", make_pdf([[], []]))
    assert info.value.reason == (
        "no text layer on any of its 2 page(s): a scanned or image-only PDF (docshelf does not run OCR)"
    )


def test_corrupt_pdf_raises_parse_error_with_reason(tmp_path: Path) -> None:
    path = tmp_path / "broken.pdf"
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(path, b"%PDF-1.4\nthis is not really a pdf\n%%EOF\n")
    assert info.value.path == str(path)
    assert info.value.reason.startswith("not a valid PDF (")


def test_truncated_pdf_raises_parse_error_naming_truncation(tmp_path: Path) -> None:
    data = make_pdf(THREE_PAGES)
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / "cut.pdf", data[: len(data) // 2])
    assert info.value.reason.startswith("not a valid PDF (truncated: the end-of-file marker is missing; ")
    assert "%%" not in info.value.reason  # read as a doubled escape by users


def test_non_pdf_bytes_with_pdf_suffix(tmp_path: Path) -> None:
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / "fake.pdf", b"hello, I am text")
    assert info.value.reason.startswith("not a valid PDF (no %PDF- header")


def test_password_protected_pdf_is_reported_as_encrypted(tmp_path: Path) -> None:
    data = make_pdf(THREE_PAGES, encrypt=StandardEncryption("secret", canPrint=0))
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / "locked.pdf", data)
    assert info.value.reason.startswith("encrypted PDF")


def test_pdf_with_only_an_owner_password_opens(tmp_path: Path) -> None:
    data = make_pdf(THREE_PAGES, encrypt=StandardEncryption("", ownerPassword="owner"))
    doc = REGISTRY.parse(tmp_path / "restricted.pdf", data)
    assert [(b.page, b.text) for b in doc.blocks] == [
        (1, "Acme Ingest manual."), (1, "Tokens expire after 90 days."),
        (3, "Rotate the token before it expires.")]


def test_pdf_warnings_go_to_debug_log_not_stderr(tmp_path: Path, capsys, caplog) -> None:
    data = make_pdf(THREE_PAGES)
    with caplog.at_level(logging.DEBUG, logger="docshelf"), pytest.raises(ParseError):
        REGISTRY.parse(tmp_path / "cut.pdf", data[:-200])
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "")
    pypdf_records = [r for r in caplog.records if r.getMessage().startswith("pypdf: ")]
    assert pypdf_records and {r.levelno for r in pypdf_records} == {logging.DEBUG}
    # Only this thread's records: a background thread (the allocator's memory trim) may log meanwhile.
    here = [r for r in caplog.records if r.thread == threading.get_ident()]
    assert {r.name for r in here} == {"docshelf.pipeline.parsers.pdf"}
    assert logging.getLogger("pypdf").propagate is True  # restored afterwards


def test_pdf_paragraph_heuristic_mends_hyphens_and_splits_short_sentence_ends() -> None:
    text = ("This is a long line of text that goes on and on about ingest-\n"
            "ion pipelines and their many configuration options here\n"
            "and ends.\nNext paragraph starts here and is also long enough to count\n"
            "as body text of a typical width for this page of text.\n")
    assert paragraphs(text) == [
        "This is a long line of text that goes on and on about ingestion pipelines and "
        "their many configuration options here and ends.",
        "Next paragraph starts here and is also long enough to count as body text of a "
        "typical width for this page of text.",
    ]


# --- DOCX --------------------------------------------------------------------------------


def make_docx(title_property: str = "") -> bytes:
    document = docx.Document()
    document.core_properties.title = title_property
    document.core_properties.keywords = "ingest; tokens"
    document.add_paragraph("Acme Ingest Handbook", style="Title")
    document.add_heading("Authentication", level=1)
    document.add_paragraph("Every request carries an ingest token.")
    document.add_heading("Rotation", level=2)
    document.add_paragraph("Create the new token first.", style="List Number")
    document.add_paragraph("Revoke the old token.", style="List Number")
    table = document.add_table(rows=2, cols=2)
    for r, row in enumerate([("Setting", "Default"), ("token_ttl", "90d")]):
        for c, value in enumerate(row):
            table.cell(r, c).text = value
    document.add_heading("Limits", level=1)
    document.add_paragraph("")  # empty paragraphs produce no block
    document.add_paragraph("100 requests per second.")
    buf = io.BytesIO()
    document.save(buf)
    return buf.getvalue()


def test_docx_headings_paragraphs_lists_and_tables_in_order(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "handbook.docx", make_docx())
    title, auth, rot = "Acme Ingest Handbook", "Authentication", "Rotation"
    assert doc.blocks == (
        Block("heading", title, (title,), level=0),
        Block("heading", auth, (title, auth), level=1),
        Block("paragraph", "Every request carries an ingest token.", (title, auth)),
        Block("heading", rot, (title, auth, rot), level=2),
        Block("list", "1. Create the new token first.\n2. Revoke the old token.", (title, auth, rot)),
        Block("table", "Setting | Default\ntoken_ttl | 90d", (title, auth, rot)),
        Block("heading", "Limits", (title, "Limits"), level=1),
        Block("paragraph", "100 requests per second.", (title, "Limits")),
    )
    assert doc.title == title  # no core title: the Title-styled paragraph
    assert (doc.format, doc.metadata["tags"]) == ("docx", ["ingest", "tokens"])


def test_docx_core_property_title_wins(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "h.docx", make_docx("Official Title"))
    assert doc.title == "Official Title"


def test_corrupt_docx_raises_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / "bad.docx", b"PK\x03\x04 not really a zip")
    assert info.value.reason.startswith("not a valid DOCX (")


# --- HTML --------------------------------------------------------------------------------

HTML = """<!DOCTYPE html>
<html lang="en">
<head><title>API Reference | Acme Ingest</title>
<style>.menu { color: red }</style>
<script>window.trackingSecret = "abc";</script></head>
<body>
<header><a href="/">Acme home</a></header>
<nav><ul><li>Getting started</li><li>Blog</li></ul></nav>
<div role="navigation">Breadcrumbs</div>
<main>
<h1>API Reference</h1>
<p>The ingest API accepts
<b>JSON</b> bodies.</p>
<h2>Endpoints</h2>
<ul><li>POST /v1/events</li><li>GET /v1/status</li></ul>
<pre>curl -X POST \\
  https://ingest.acme.test/v1/events</pre>
<table><tr><th>Field</th><th>Type</th></tr><tr><td>token</td><td>string</td></tr></table>
<h2>Errors</h2>
<blockquote>Retry on 429.</blockquote>
</main>
<aside>Related posts</aside>
<footer>Copyright 2024 Acme</footer>
<noscript>Enable JavaScript</noscript>
</body></html>
"""


def test_html_drops_boilerplate_and_keeps_structure(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "api.html", HTML.encode())
    api, ep, err = "API Reference", "Endpoints", "Errors"
    assert doc.title == "API Reference | Acme Ingest"
    assert doc.blocks == (
        Block("heading", api, (api,), None, 11, 11, 1),
        Block("paragraph", "The ingest API accepts JSON bodies.", (api,), None, 12, 13),
        Block("heading", ep, (api, ep), None, 14, 14, 2),
        Block("list", "- POST /v1/events", (api, ep), None, 15, 15),
        Block("list", "- GET /v1/status", (api, ep), None, 15, 15),
        Block("code", "curl -X POST \\\n  https://ingest.acme.test/v1/events", (api, ep), None,
              16, 17),
        Block("table", "Field | Type\ntoken | string", (api, ep), None, 18, 18),
        Block("heading", err, (api, err), None, 19, 19, 2),
        Block("quote", "Retry on 429.", (api, err), None, 20, 20),
    )
    text = "\n".join(b.text for b in doc.blocks)
    for boilerplate in ("trackingSecret", "color: red", "Acme home", "Getting started",
                        "Breadcrumbs", "Related posts", "Copyright", "Enable JavaScript"):
        assert boilerplate not in text
    assert doc.metadata == {"format": "html", "lang": "en"}


def test_html_without_main_uses_body_and_first_h1_as_title(tmp_path: Path) -> None:
    page = (b"<html><body><nav>Menu</nav><h1>Only Heading</h1>"
            b"<div>Loose <em>te</em>xt, <a href=x>link</a>.</div></body></html>")
    doc = REGISTRY.parse(tmp_path / "p.htm", page)
    assert doc.title == "Only Heading"
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("heading", "Only Heading"), ("paragraph", "Loose text, link.")]


# --- Markdown ----------------------------------------------------------------------------

MARKDOWN = """---
title: Rotating tokens
tags: [security, "#ops"]
type: guide
date: 2024-03-05
aliases: [token rotation]
owner: platform
---
# Ingest tokens

Tokens expire. See #runbook for details, not `#code-tag`.

```bash
# comment inside the fence
acme token rotate #not-a-tag
# another comment
```

## Steps

1. Create a new token
2. Revoke the old one

| Setting | Default |
|---------|---------|
| ttl     | 90d     |

> Never commit tokens.
"""


def test_markdown_frontmatter_blocks_and_file_relative_lines(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "rotate.md", MARKDOWN.encode())
    top, steps = "Ingest tokens", "Steps"
    assert doc.blocks == (
        Block("heading", "# Ingest tokens", (top,), None, 9, 9, 1),
        Block("paragraph", "Tokens expire. See #runbook for details, not `#code-tag`.", (top,),
              None, 11, 11),
        Block("code", "```bash\n# comment inside the fence\nacme token rotate #not-a-tag\n"
              "# another comment\n```", (top,), None, 13, 17),
        Block("heading", "## Steps", (top, steps), None, 19, 19, 2),
        Block("list", "1. Create a new token\n2. Revoke the old one", (top, steps), None, 21, 22),
        Block("table", "| Setting | Default |\n|---------|---------|\n| ttl     | 90d     |",
              (top, steps), None, 24, 26),
        Block("quote", "> Never commit tokens.", (top, steps), None, 28, 28),
    )
    assert doc.title == "Rotating tokens"
    assert doc.metadata == {
        "format": "markdown", "title": "Rotating tokens", "tags": ["security", "ops", "runbook"],
        "type": "guide", "date": "2024-03-05", "aliases": ["token rotation"], "owner": "platform",
    }
    lines = MARKDOWN.split("\n")
    for block in doc.blocks:  # citations by line reproduce the file
        assert "\n".join(lines[block.start_line - 1 : block.end_line]) == block.text


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ("tags: 'a, #b c'\ndate: '2024/01/02'", {"tags": ["a", "b", "c"], "date": "2024-01-02"}),
        ("date: 2024-01-02T10:00:00Z", {"date": "2024-01-02"}),
        ("date: someday\naliases: Solo", {"date_raw": "someday", "aliases": ["Solo"]}),
        ("nested: {a: 1}\ncount: 3", {"count": 3}),
        # an impossible date is kept as written, never the whole note lost (PyYAML raised ValueError)
        ("date: 2024-13-45\ntags: [a]", {"date_raw": "2024-13-45", "tags": ["a"]}),
        ("reviewed: 2024-02-30 10:00:00\ntype: log", {"reviewed": "2024-02-30 10:00:00", "type": "log"}),
    ],
)
def test_markdown_frontmatter_normalisation(tmp_path: Path, frontmatter: str, expected) -> None:
    doc = REGISTRY.parse(tmp_path / "n.md", f"---\n{frontmatter}\n---\nBody\n".encode())
    assert doc.metadata == {"format": "markdown", **expected}
    assert doc.title == "n"


def test_markdown_broken_frontmatter_keeps_the_body(tmp_path: Path) -> None:
    source = "---\ntitle: [unclosed\ntags: a\n---\n# Real Title\n\nBody text.\n"
    doc = REGISTRY.parse(tmp_path / "broken.md", source.encode())
    assert doc.metadata == {
        "format": "markdown",
        "frontmatter_error": "invalid YAML frontmatter at line 3: expected ',' or ']', but got ':'",
    }
    assert doc.title == "Real Title"
    assert doc.blocks == (
        Block("heading", "# Real Title", ("Real Title",), None, 5, 5, 1),
        Block("paragraph", "Body text.", ("Real Title",), None, 7, 7),
    )


def test_markdown_without_frontmatter_or_h1_titles_from_stem(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "notes.markdown", b"\xef\xbb\xbf## Sub\r\n\r\ntext\r\n")
    assert doc.title == "notes"
    assert doc.blocks == (Block("heading", "## Sub", ("Sub",), None, 1, 1, 2),
                          Block("paragraph", "text", ("Sub",), None, 3, 3))


def test_empty_markdown_is_an_empty_document(tmp_path: Path) -> None:
    assert REGISTRY.parse(tmp_path / "e.md", b"") == ParsedDocument(
        "e", (), "markdown", {"format": "markdown"})


# --- Text and code -----------------------------------------------------------------------


def test_text_paragraphs_with_line_ranges(tmp_path: Path) -> None:
    source = "Release notes\n\nFirst paragraph\nstill first.\n\n\nSecond paragraph.\n"
    doc = REGISTRY.parse(tmp_path / "notes.txt", source.encode())
    assert doc == ParsedDocument("Release notes", (
        Block("paragraph", "Release notes", (), None, 1, 1),
        Block("paragraph", "First paragraph\nstill first.", (), None, 3, 4),
        Block("paragraph", "Second paragraph.", (), None, 7, 7),
    ), "text", {"format": "text"})


def test_underlined_headings_build_heading_paths(tmp_path: Path) -> None:
    source = "Guide\n=====\n\nIntro.\n\nInstall\n-------\nRun it.\n"
    doc = REGISTRY.parse(tmp_path / "guide.txt", source.encode())
    assert doc.title == "Guide"
    assert doc.blocks == (
        Block("heading", "Guide\n=====", ("Guide",), None, 1, 2, 1),
        Block("paragraph", "Intro.", ("Guide",), None, 4, 4),
        Block("heading", "Install\n-------", ("Guide", "Install"), None, 6, 7, 2),
        Block("paragraph", "Run it.", ("Guide", "Install"), None, 8, 8),
    )


def test_code_blocks_split_at_blank_lines_with_language(tmp_path: Path) -> None:
    source = "import os\n\n\ndef main():\n    return os.getcwd()\n"
    doc = REGISTRY.parse(tmp_path / "tool.py", source.encode())
    assert doc == ParsedDocument("tool.py", (
        Block("code", "import os", (), None, 1, 1),
        Block("code", "def main():\n    return os.getcwd()", (), None, 4, 5),
    ), "code", {"format": "code", "language": "python"})


def test_latin1_text_is_decoded(tmp_path: Path) -> None:
    doc = REGISTRY.parse(tmp_path / "old.txt", "café au lait".encode("latin-1"))
    assert doc.blocks[0].text == "café au lait"


@pytest.mark.parametrize("name", ["blob.txt", "blob.py", "blob.md"])
def test_binary_file_raises_parse_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / name, b"\x7fELF\x02\x01\x01\x00\x00\x00binary")
    assert info.value.reason == "binary file"


# --- Registry ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["scan", "scan.bin", "SCAN.DAT"])
def test_registry_sniffs_pdf_without_a_known_suffix(tmp_path: Path, name: str) -> None:
    data = make_pdf(THREE_PAGES)
    path = tmp_path / name
    path.write_bytes(data)
    assert REGISTRY.for_file(path, data[:512]).name == "pdf"
    assert REGISTRY.parse(path, data).page_count == 3


def test_registry_sniffs_docx_and_html(tmp_path: Path) -> None:
    data = make_docx()
    path = tmp_path / "report.bin"
    path.write_bytes(data)
    assert REGISTRY.for_file(path, data[:512]).name == "docx"
    assert REGISTRY.for_file(tmp_path / "page", b"  <!DOCTYPE html><html>").name == "html"
    assert REGISTRY.for_file(tmp_path / "page", b"<!-- c --><HTML lang=en>").name == "html"


def test_registry_suffix_wins_and_unknown_returns_none(tmp_path: Path) -> None:
    assert REGISTRY.for_file(tmp_path / "A.MD", b"%PDF-1.7").name == "markdown"
    assert REGISTRY.for_file(tmp_path / "data.xyz", b"just some bytes") is None
    assert REGISTRY.for_file(tmp_path / "archive.zip", b"PK\x03\x04junk") is None
    with pytest.raises(ParseError) as info:
        REGISTRY.parse(tmp_path / "data.xyz", b"just some bytes")
    assert info.value.reason == (
        "unsupported format .xyz (no parser for the suffix, and the content is not PDF, DOCX "
        "or HTML)"
    )


def test_registry_wraps_third_party_errors(tmp_path: Path) -> None:
    class Exploding:
        name = "boom"
        suffixes = (".boom",)

        def parse(self, path: Path, data: bytes) -> ParsedDocument:
            raise KeyError("missing part")

    registry = ParserRegistry([Exploding()])
    with pytest.raises(ParseError) as info:
        registry.parse(tmp_path / "x.boom", b"")
    assert info.value.reason == "boom parser failed (KeyError: 'missing part')"
    assert isinstance(info.value.__cause__, KeyError)
    assert registry.suffixes == (".boom",)


def test_default_registry_covers_every_format() -> None:
    names = {REGISTRY.for_file(Path(f"x{s}")).name for s in REGISTRY.suffixes}
    assert names == {"markdown", "html", "pdf", "docx", "text", "code", "canvas", "rst", "asciidoc", "notebook"}
    assert REGISTRY.for_file(Path("x.rst")).name == "rst"
    assert {".md", ".mdx", ".html", ".pdf", ".docx", ".txt", ".rst", ".ipynb", ".py", ".hs"} <= set(
        REGISTRY.suffixes)


def test_deferred_parsers_declare_the_names_and_suffixes_of_the_classes_they_stand_for() -> None:
    import importlib

    from docshelf.pipeline import parsers

    for class_name, (module, name, suffixes) in parsers._DEFERRED.items():
        cls = getattr(importlib.import_module(module, parsers.__name__), class_name)
        assert (cls.name, tuple(cls.suffixes)) == (name, suffixes), class_name
        assert getattr(parsers, class_name) is cls


def test_discovery_imports_no_parser_library_and_the_first_file_of_a_format_does(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "a.md").write_text("# A\n\nsome text")
    (tmp_path / "b.html").write_text("<html><body><h1>B</h1><p>more</p></body></html>")
    script = (
        "import sys; from pathlib import Path\n"
        "from docshelf.pipeline.discover import discover\n"
        "from docshelf.pipeline.parsers import default_registry\n"
        "heavy = ('bs4', 'pypdf', 'docx', 'markdown_it', 'yaml')\n"
        "registry = default_registry()\n"
        "found = discover([Path(sys.argv[1])], registry=registry)\n"
        "print(sorted(f.rel_path for f in found.files), [m for m in heavy if m in sys.modules])\n"
        "doc = registry.parse(found.files[1].path, found.files[1].path.read_bytes())\n"
        "print(doc.title, [m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["['a.md', 'b.html'] []", "B ['bs4']"]


def _multilevel_list(document) -> str:
    """Add Word's usual outline numbering (1. / a. / i.) to ``document``; returns its numId."""
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    levels = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="%{i + 1}."/></w:lvl>'
        for i, fmt in enumerate(("decimal", "lowerLetter", "lowerRoman")))
    numbering = document.part.numbering_part.element
    numbering.insert(0, parse_xml(f'<w:abstractNum {w} w:abstractNumId="90">{levels}</w:abstractNum>'))
    numbering.append(parse_xml(f'<w:num {w} w:numId="90"><w:abstractNumId w:val="90"/></w:num>'))
    return "90"


def _numbered(document, text: str, num_id: str, level: int) -> None:
    from docx.oxml import parse_xml

    paragraph = document.add_paragraph(text)
    paragraph._p.get_or_add_pPr().append(parse_xml(
        '<w:numPr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        f'<w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'))


def test_docx_numbered_lists_keep_their_numbers_as_word_shows_them(tmp_path: Path) -> None:
    """A step list cites as steps: "1." and "2." from the List Number style, "a." where the
    numbering definition's second level is letters, bullets stay "-"."""
    document = docx.Document()
    document.add_heading("Replacing the filter", level=1)
    document.add_paragraph("Switch the pump off.", style="List Number")
    document.add_paragraph("Open the housing.", style="List Number")
    document.add_paragraph("Spare filters", style="List Bullet")
    num = _multilevel_list(document)
    _numbered(document, "Drain the tank.", num, 0)
    _numbered(document, "Close the inlet valve.", num, 1)
    _numbered(document, "Open the drain cock.", num, 1)
    _numbered(document, "Wait for the hiss to stop.", num, 2)
    _numbered(document, "Refill.", num, 0)
    _numbered(document, "Check for leaks.", num, 1)
    buf = io.BytesIO()
    document.save(buf)
    doc = REGISTRY.parse(tmp_path / "pump.docx", buf.getvalue())
    assert [b.text for b in doc.blocks if b.kind == "list"] == [
        "1. Switch the pump off.\n2. Open the housing.\n- Spare filters\n"
        "1. Drain the tank.\n  a. Close the inlet valve.\n  b. Open the drain cock.\n    i. Wait for the hiss to stop.\n"
        "2. Refill.\n  a. Check for leaks."]


def test_html_ordered_lists_number_as_the_browser_shows_them(tmp_path: Path) -> None:
    """A step list cites as steps: ``start``, ``type``, ``reversed`` and ``value`` give the numbers, and
    a nested list's items keep their own markers (they read as bare lines under the parent item)."""
    html = (b"<html><body><h1>Filter</h1><ol start='3'><li>Switch off.</li><li>Open the housing."
            b"<ol type='a'><li>Undo the screws.</li><li>Lift the lid.<ul><li>mind the gasket</li></ul></li></ol></li>"
            b"</ol><ol reversed><li>three</li><li>two</li><li value='9'>nine</li></ol>"
            b"<ol type='I'><li>One</li><li>Two</li></ol></body></html>")
    doc = REGISTRY.parse(tmp_path / "filter.html", html)
    assert [b.text for b in doc.blocks if b.kind == "list"] == [
        "3. Switch off.", "4. Open the housing.\n  a. Undo the screws.\n  b. Lift the lid.\n    - mind the gasket",
        "3. three", "2. two", "9. nine", "I. One", "II. Two"]


def test_html_a_definition_holding_a_list_keeps_its_items(tmp_path: Path) -> None:
    """Sphinx writes a function's "Parameters" as a ``dd`` holding a list (Debian's -doc packages,
    blinker's ``Signal.connect``): joined into one line, the parameters ran together."""
    html = (b"<html><body><h1>API</h1><dl class='field-list simple'><dt>Parameters</dt><dd><ul class='simple'>"
            b"<li><p><strong>receiver</strong> - A callable.</p></li><li><p><strong>sender</strong> - Any object.</p></li>"
            b"</ul></dd><dt>Returns</dt><dd><p>The receiver.</p></dd></dl></body></html>")
    doc = REGISTRY.parse(tmp_path / "signal.html", html)
    assert [(b.kind, b.text) for b in doc.blocks[1:]] == [
        ("paragraph", "Parameters"), ("list", "- receiver - A callable."), ("list", "- sender - Any object."),
        ("paragraph", "Returns"), ("paragraph", "The receiver.")]


def test_html_an_indented_block_keeps_its_list_markers_and_code_lines(tmp_path: Path) -> None:
    """Sphinx renders an indented list or code example as a ``blockquote`` (blinker's feature list):
    read as one quote, the list lost its markers and the code its line breaks."""
    html = (b"<html><body><h1>T</h1><blockquote><div><ul class='simple'><li><p>a global registry</p></li>"
            b"<li><p>anonymous signals</p></li></ul></div></blockquote><blockquote><div><div class='highlight'>"
            b"<pre>x = 1\ny = 2</pre></div></div></blockquote><blockquote>Retry on 429.</blockquote></body></html>")
    doc = REGISTRY.parse(tmp_path / "index.html", html)
    assert [(b.kind, b.text) for b in doc.blocks[1:]] == [
        ("list", "- a global registry"), ("list", "- anonymous signals"), ("code", "x = 1\ny = 2"),
        ("quote", "Retry on 429.")]
