"""A generated corpus of malformed files beside good ones (built in a temporary folder).

``build(root)`` writes every file and returns what each one must become: ``indexed``
(recoverable: decoded or repaired), ``failed`` or ``skipped`` (with a reason shown by
``docshelf status`` and ``index_status``). Names that are not valid UTF-8 are keyed by
their displayed form (undecodable bytes as ``\\xNN``).
"""

from __future__ import annotations

import io
import os
import random
import zipfile
from dataclasses import dataclass
from pathlib import Path

GOOD_WORDS = ("zanzibarquux", "quetzalcoatlus", "brontoglyph", "marzipanator", "lollapaloozium")


@dataclass(frozen=True)
class Expect:
    outcome: str  # "indexed", "failed" or "skipped"
    reason: str = ""  # a fragment the recorded reason must contain (lower case)


def _pdf(text_pages: list[str], *, encrypt: str | None = None, image_only: bool = False) -> bytes:
    from reportlab.lib.pdfencrypt import StandardEncryption
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    enc = StandardEncryption(encrypt, ownerPassword="owner") if encrypt is not None else None
    c = canvas.Canvas(buf, encrypt=enc)
    for text in text_pages:
        if image_only:
            c.rect(100, 100, 300, 300, fill=1)  # drawn shapes, no text layer
        else:
            c.drawString(72, 720, text)
        c.showPage()
    c.save()
    return buf.getvalue()


def _docx_zip(members: dict[str, bytes], level: int = 1) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=level) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


_CONTENT_TYPES = (
    b'<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
    b'content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    b'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName='
    b'"/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.'
    b'document.main+xml"/></Types>'
)
_RELS = (
    b'<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/'
    b'package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
    b'officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)


def _docx_bomb(unpacked: int) -> bytes:
    """A valid-looking DOCX whose document.xml inflates to ``unpacked`` bytes of text."""
    head = (b'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/'
            b'wordprocessingml/2006/main"><w:body>')
    tail = b"</w:body></w:document>"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", _CONTENT_TYPES)
        z.writestr("_rels/.rels", _RELS)
        with z.open("word/document.xml", "w", force_zip64=True) as member:
            member.write(head)
            block = b"<w:p><w:r><w:t>" + b"A" * (1 << 20) + b"</w:t></w:r></w:p>"  # XML parsers take each
            for _ in range(unpacked >> 20):
                member.write(block)
            member.write(tail)
    return buf.getvalue()


def _yaml_bomb(key: str, levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    lines.append(f"{key}: *{chr(ord('a') + levels - 1)}")
    return "\n".join(lines)


def build(root: Path, *, big_bytes: int = 200_000_000) -> dict[str, Expect]:
    """Write the corpus under ``root``; return displayed rel path → expected outcome."""
    rng = random.Random(7)
    root.mkdir(parents=True, exist_ok=True)
    expect: dict[str, Expect] = {}

    def put(rel: str, data: bytes | str, outcome: str, reason: str = "") -> Path:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        expect[rel] = Expect(outcome, reason)
        return path

    # -- good files: each carries one unique word the test searches for ------------------
    for i, word in enumerate(GOOD_WORDS):
        put(f"good/note{i}.md", f"# Good note {i}\n\nThis note explains the {word} procedure in detail.\n",
            "indexed")
    put("good/report.pdf", _pdf(["The quarterly gigantopithecus report, page one."]), "indexed")

    # -- PDFs ------------------------------------------------------------------------------
    pdf = _pdf(["First page of a fine document.", "Second page of it."])
    for n, cut in enumerate((0.75, 0.5, 0.2)):
        put(f"pdf/truncated{n}.pdf", pdf[: int(len(pdf) * cut)], "failed", "pdf")
    put("pdf/header_only.pdf", b"%PDF-1.7\n", "failed", "pdf")
    put("pdf/empty.pdf", b"", "failed", "pdf")
    put("pdf/garbage.pdf", bytes(rng.randrange(256) for _ in range(4096)), "failed", "pdf")
    put("pdf/header_then_garbage.pdf", b"%PDF-1.4\n" + bytes(rng.randrange(256) for _ in range(4096)),
        "failed", "pdf")
    put("pdf/encrypted.pdf", _pdf(["secret text"], encrypt="hunter2"), "failed", "encrypted")
    put("pdf/owner_only_encrypted.pdf", _pdf(["readable despite encryption"], encrypt=""), "indexed")
    put("pdf/image_only.pdf", _pdf(["x"], image_only=True), "failed", "no text")
    put("pdf/image_only_3pages.pdf", _pdf(["x", "y", "z"], image_only=True), "failed", "no text")

    # -- DOCX ------------------------------------------------------------------------------
    put("docx/bomb.docx", _docx_bomb(300 << 20), "failed", "unpack")
    put("docx/not_a_zip.docx", "this is plain text pretending to be a Word file\n", "failed", "docx")
    put("docx/empty.docx", b"", "failed", "docx")
    put("docx/zip_without_document.docx", _docx_zip({"hello.txt": b"hi"}), "failed", "docx")
    put("docx/broken_xml.docx", _docx_zip({"[Content_Types].xml": _CONTENT_TYPES, "_rels/.rels": _RELS,
                                           "word/document.xml": b"<w:document><unclosed"}), "failed", "docx")
    put("docx/truncated_zip.docx", _docx_bomb(1 << 20)[:700], "failed", "docx")

    # -- binary and odd encodings -----------------------------------------------------------
    put("bin/random_with_nul.md", bytes(rng.randrange(256) for _ in range(8192)), "failed", "binary")
    put("bin/random_no_nul.md", bytes(rng.randrange(1, 256) for _ in range(8192)), "failed", "binary")
    put("bin/png.md", b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(2048)), "failed", "binary")
    put("bin/elf.txt", b"\x7fELF\x02\x01\x01\x00" + bytes(64) + b"code", "failed", "binary")
    put("bin/utf16_no_bom.md", "# Heading\n\nutf16 text\n".encode("utf-16-le"), "failed", "binary")
    put("enc/latin1.md", "# Café crème\n\nUne note écrite en latin-1 : naïveté.\n".encode("latin-1"),
        "indexed")
    put("enc/latin1.txt", "Müller's Straße über alles\n".encode("latin-1"), "indexed")
    put("enc/invalid_utf8.md", b"# Mostly UTF-8 \xc3\xa9t\xc3\xa9\n\nbroken byte here: \xff\xfe and more\n",
        "indexed")
    put("enc/utf16_bom.md", "# UTF-16 note\n\nwith a byte order mark ✓\n".encode("utf-16"), "indexed")
    put("enc/utf16_be_bom.txt", b"\xfe\xff" + "big endian text\n".encode("utf-16-be"), "indexed")
    put("enc/utf8_bom.md", "\ufeff# BOM note\n\nText.\n".encode(), "indexed")
    put("enc/odd_utf16.md", b"\xff\xfe" + b"a\x00b", "failed", "binary")

    # -- size -----------------------------------------------------------------------------
    for rel, size in (("big/huge.md", big_bytes), ("big/over_cap.txt", 20_000_001)):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            f.truncate(size)  # sparse: no disk space used
        expect[rel] = Expect("skipped", "size cap")
    words = " ".join(rng.choice(("alpha", "beta", "gamma", "delta")) for _ in range(5_000_000 // 6))
    put("big/one_line.md", words[:5_000_000], "indexed")

    # -- HTML --------------------------------------------------------------------------------
    put("html/deep_divs.html", "<html><body>" + "<div>" * 100_000 + "deep" + "</div>" * 100_000 + "</body></html>",
        "failed", "nest")
    put("html/deep_unclosed.html", "<html><body>" + "<b>" * 50_000 + "text", "failed", "nest")
    put("html/deep_lists.html", "<ul><li>" * 20_000 + "item", "failed", "nest")
    put("html/deep_paragraphs.html", "<p>" * 20_000 + "text", "failed", "nest")
    put("md/deep_quotes.md", "> " * 20_000 + "quoted\n", "indexed")
    put("md/deep_lists.md", "".join("  " * i + "- item\n" for i in range(500)), "indexed")
    put("html/binary.html", b"<html>" + bytes(rng.randrange(256) for _ in range(4096)), "indexed")
    put("html/empty.html", "", "indexed")

    # -- YAML frontmatter ---------------------------------------------------------------------
    for key in ("tags", "title", "extra", "aliases"):
        put(f"yaml/bomb_{key}.md", f"---\n{_yaml_bomb(key)}\n---\n# Bomb {key}\n\nBody text.\n", "indexed")
    put("yaml/deep_nesting.md", "---\nx: " + "[" * 5000 + "]" * 5000 + "\n---\n# Deep\n\nBody.\n", "indexed")
    put("yaml/invalid.md", "---\ntitle: [unclosed\ntags: : :\n---\n# Invalid YAML\n\nBody.\n", "indexed")
    put("yaml/not_mapping.md", "---\n- a\n- b\n---\n# List frontmatter\n\nBody.\n", "indexed")
    put("yaml/unclosed.md", "---\ntitle: never closed\n\n# Heading\n\nBody.\n", "indexed")
    put("yaml/python_tag.md", "---\nx: !!python/object/apply:os.system ['touch PWNED']\n---\n# Tag\n\nBody.\n",
        "indexed")
    put("yaml/tabs.md", "---\ntitle:\n\t- tab indented\n---\n# Tabs\n\nBody.\n", "indexed")
    put("yaml/huge_date.md", "---\ndate: 99999-99-99\ntags: 12345\n---\n# Odd values\n\nBody.\n", "indexed")

    # -- links and names ----------------------------------------------------------------------
    links = root / "links"
    links.mkdir()
    os.symlink("loop_b.md", links / "loop_a.md")
    os.symlink("loop_a.md", links / "loop_b.md")
    os.symlink(".", links / "self_dir")
    os.symlink("/etc/passwd", links / "outside.md")
    os.symlink("/etc", links / "outside_dir")
    os.symlink("/dev/zero", links / "zero.md")
    os.symlink("missing.md", links / "dangling.md")
    for name, why in (("loop_a.md", "symbolic link"), ("loop_b.md", "symbolic link"), ("self_dir", "symlink"),
                      ("outside.md", "outside"), ("outside_dir", "outside"), ("zero.md", "outside"),
                      ("dangling.md", "symlink")):
        expect[f"links/{name}"] = Expect("skipped", why)
    os.mkfifo(root / "links" / "pipe.md")
    expect["links/pipe.md"] = Expect("skipped", "not a regular file")
    put("names/new\nline.md", "# Newline in name\n\nBody.\n", "indexed")
    put("names/carriage\rreturn.md", "# CR in name\n\nBody.\n", "indexed")
    put("names/-rf.md", "# Dash name\n\nBody.\n", "indexed")
    bad = os.fsencode(str(root / "names")) + b"/bad\xff\xfename.md"
    with open(bad, "wb") as f:
        f.write(b"# Not UTF-8 name\n\nBody.\n")
    expect["names/bad\\xff\\xfename.md"] = Expect("skipped", "utf-8")

    # -- unreadable (the caller runs the indexer without the right to read these) ------------
    put("perm/secret.md", "# Secret\n\nunreadable\n", "failed", "permission")
    (root / "perm" / "secret.md").chmod(0)
    (root / "perm" / "locked").mkdir()
    put("perm/locked/inside.md", "# Inside\n\nunreadable folder\n", "skipped")
    (root / "perm" / "locked").chmod(0)
    expect.pop("perm/locked/inside.md")
    expect["perm/locked"] = Expect("skipped", "permission")
    return expect
