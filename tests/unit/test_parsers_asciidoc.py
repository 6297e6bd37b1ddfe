"""AsciiDoc (Asciidoctor pages, git's manuals) as a reader sees it, with heading paths and line citations."""

from __future__ import annotations

from pathlib import Path

from docshelf.embedders.onnx_minilm import OnnxMiniLM
from docshelf.pipeline.chunk import Chunker
from docshelf.pipeline.parsers.asciidoc import inline_text
from parsing import blocks, parse


def test_an_asciidoctor_page_reads_as_sections_code_and_admonitions(tmp_path: Path) -> None:
    doc = parse(tmp_path / "guide.adoc", (
        "= Deploy Guide\n"                       # 1
        ":product: Acme\n"                       # 2: an attribute entry, not text
        "// a comment\n\n"                       # 3
        "{product} runs anywhere.\n\n"           # 5
        "== Install\n\n"                         # 7
        "[source,python]\n"                      # 9
        ".Start the app\n"                       # 10
        "----\n"                                 # 11
        "import acme\n"                          # 12
        "\n"                                     # 13: a blank line inside the listing
        "acme.run()\n"                           # 14
        "----\n\n"                               # 15
        "NOTE: Needs *Python 3.11* or later.\n\n"  # 17
        "[WARNING]\n====\nBack up the database first.\n====\n\n"  # 19-22
        "=== Options\n\n"                        # 24
        "port::\n  The port to listen on, see <<install,Install>>.\n\n"  # 26-27
        "////\nhidden\n////\n"                   # 29-31
    ))
    g, i, o = "Deploy Guide", "Install", "Options"
    assert doc.title == g
    assert doc.format == "asciidoc"
    assert blocks(doc) == [
        ("heading", g, (g,), 1, 1),
        ("paragraph", "Acme runs anywhere.", (g,), 5, 5),
        ("heading", i, (g, i), 7, 7),
        ("code", "Start the app\n```python\nimport acme\n\nacme.run()\n```", (g, i), 10, 15),
        ("paragraph", "Note: Needs Python 3.11 or later.", (g, i), 17, 17),
        ("paragraph", "Warning: Back up the database first.", (g, i), 21, 21),
        ("heading", o, (g, i, o), 24, 24),
        ("list", "port::\nThe port to listen on, see Install.", (g, i, o), 26, 27),
    ]


def test_a_git_manual_named_txt_is_read_as_asciidoc(tmp_path: Path) -> None:
    """git's manuals: two-line titles, ``term::`` lists whose description follows a blank line,
    ``+`` continuations and ``linkgit:`` references; a listing block is one code block."""
    doc = parse(tmp_path / "git-stash.txt", (
        "git-stash(1)\n============\n\n"                        # 1-2
        "NAME\n----\ngit-stash - Stash the changes away\n\n"     # 4-6
        "OPTIONS\n-------\n"                                     # 8-9
        "-k::\n--keep-index::\n\tKeep the index, see linkgit:git-add[1].\n\n"  # 10-12
        "EXAMPLES\n--------\n\n"                                 # 14-15
        "Pulling into a dirty tree::\n\n"                        # 17
        "When you are in the middle of something,\n"             # 19
        "+\n"                                                    # 20
        "pull first.\n"                                          # 21
        "+\n"                                                    # 22
        "----\n$ git stash\n\n$ git pull\n----\n"                # 23-27
    ))
    s, opts, ex = "git-stash(1)", "OPTIONS", "EXAMPLES"
    assert doc.format == "asciidoc"
    assert blocks(doc) == [
        ("heading", s, (s,), 1, 2),
        ("heading", "NAME", (s, "NAME"), 4, 5),
        ("paragraph", "git-stash - Stash the changes away", (s, "NAME"), 6, 6),
        ("heading", opts, (s, opts), 8, 9),
        ("list", "-k::\n--keep-index::\nKeep the index, see git-add(1).", (s, opts), 10, 12),
        ("heading", ex, (s, ex), 14, 15),
        ("list", "Pulling into a dirty tree::\nWhen you are in the middle of something,\npull first.", (s, ex), 17, 21),
        ("code", "```\n$ git stash\n\n$ git pull\n```", (s, ex), 23, 27),
    ]
    assert doc.blocks[6].line_map == (17, 19, 21)  # each line cites its own source line
    # The listing is never cut at its blank line: one chunk holds it whole.
    chunks = Chunker(OnnxMiniLM().tokenizer, 256).chunk(doc)
    assert any("$ git stash\n\n$ git pull" in c.text for c in chunks)


def test_a_plain_text_file_stays_text(tmp_path: Path) -> None:
    doc = parse(tmp_path / "notes.txt", "Notes\n=====\n\nSee the wiki::\n\n    not a list\n")
    assert doc.format == "text"


def test_tables_and_passthrough(tmp_path: Path) -> None:
    doc = parse(tmp_path / "t.adoc", (
        "= T\n\n"
        ".Limits\n[cols=\"1,2\"]\n|===\n|Name |Value\n\n|max_size\n|10 MB\n|===\n\n"  # 3-10
        "++++\n<div>raw</div>\n++++\n"
    ))
    assert blocks(doc)[1] == ("table", "Limits\nName | Value\nmax_size\n10 MB", ("T",), 3, 9)
    assert len(doc.blocks) == 2


def test_includes_stay_inside_the_root_and_cite_the_directive(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "partials").mkdir(parents=True)
    (root / "partials" / "setup.adoc").write_text(
        "Run the installer.\n\n// tag::env[]\nSet ACME_HOME first.\n// end::env[]\n")
    doc = parse(root / "guide.adoc", (
        "= Guide\n\n"
        "include::partials/setup.adoc[]\n\n"             # 3
        "include::partials/setup.adoc[tag=env]\n\n"      # 5
        "include::/etc/passwd[]\n"                       # 7
    ), root=root)
    assert blocks(doc)[1:] == [
        ("paragraph", "Run the installer.", ("Guide",), 3, 3),
        ("paragraph", "Set ACME_HOME first.", ("Guide",), 3, 3),
        ("paragraph", "Set ACME_HOME first.", ("Guide",), 5, 5),
    ]
    assert doc.metadata["includes"] == ["partials/setup.adoc"]
    assert "absolute paths are not read" in doc.metadata["include_errors"][0]


def test_inline_macros_read_as_their_text() -> None:
    attributes = {"version": "2.4"}
    assert inline_text("see linkgit:git-log[1] and <<opts,the options>> or <<opts>>", attributes) == (
        "see git-log(1) and the options or opts")
    assert inline_text("link:faq.html[the FAQ], https://example.org[home], xref:api.adoc[]", attributes) == (
        "the FAQ, home, api.adoc")
    assert inline_text("press kbd:[Ctrl+C] in v{version}; **bold**, *strong*, _em_", attributes) == (
        "press Ctrl+C in v2.4; bold, strong, em")
    assert inline_text("__init__ and snake_case_name and {unknown}", attributes) == (
        "__init__ and snake_case_name and {unknown}")


def test_a_git_page_whose_only_asciidoc_mark_is_linkgit_is_asciidoc(tmp_path: Path) -> None:
    """gitignore(5) and git's fragments: ``linkgit:`` (or ``ifdef::``) is git's AsciiDoc alone;
    read as plain text, the underlines stood in the headings ("EXAMPLES\\n--------")."""
    doc = parse(tmp_path / "gitignore.txt", (
        "gitignore(5)\n============\n\n"
        "EXAMPLES\n--------\n\n"                       # 4-5
        "See linkgit:git-rm[1] to stop tracking.\n"     # 7
    ))
    assert doc.format == "asciidoc"
    assert [(b.kind, b.text, b.start_line) for b in doc.blocks][1:] == [
        ("heading", "EXAMPLES", 4), ("paragraph", "See git-rm(1) to stop tracking.", 7)]
    frag = parse(tmp_path / "rev-list-description.txt", (
        "Thus, the following command:\n\n"
        "ifdef::git-rev-list[]\n-----\n$ git rev-list foo\n-----\nendif::git-rev-list[]\n"))
    assert frag.format == "asciidoc"
    assert [b.kind for b in frag.blocks] == ["paragraph", "code"]


def test_inline_anchors_on_titles_do_not_show(tmp_path: Path) -> None:
    """git writes ``OPTIONS[[OPTIONS]]`` and ``Integrator[[INTEGRATOR]]``; the anchor is no text."""
    doc = parse(tmp_path / "giteveryday.txt", (
        "giteveryday(7)\n==============\n\n"
        "Integrator[[INTEGRATOR]]\n------------------------\n\n"   # 4-5
        "See linkgit:git-am[1].\n\n"
        "== [[setup,Setup]]Set up\n"                              # 9
    ))
    heads = [(b.text, b.heading_path, b.start_line) for b in doc.blocks if b.kind == "heading"]
    assert heads[1:] == [("Integrator", ("giteveryday(7)", "Integrator"), 4), ("Set up", ("giteveryday(7)", "Set up"), 9)]


def test_an_indented_list_item_is_a_list_not_literal_text(tmp_path: Path) -> None:
    """`` * Use a mergetool.`` (git-merge(1)) renders as a bullet; only an indented paragraph
    that is no list item is literal (code)."""
    doc = parse(tmp_path / "git-merge.txt", (
        "git-merge(1)\n============\n\n"
        "HOW TO RESOLVE CONFLICTS\n------------------------\n\n"   # 4-5
        "  $ git show :1:filename\n\n"                             # 7
        " * Use a mergetool.  `git mergetool` to launch a\n"       # 9
        "   graphical mergetool.\n\n"                              # 10
        " * Look at the originals.  linkgit:git-show[1].\n"        # 12
    ))
    assert [(b.kind, b.text, b.start_line, b.end_line) for b in doc.blocks][2:] == [
        ("code", "```\n$ git show :1:filename\n```", 7, 7),
        ("list", "* Use a mergetool.  `git mergetool` to launch a\ngraphical mergetool.", 9, 10),
        ("list", "* Look at the originals.  git-show(1).", 12, 12),
    ]


def test_a_long_included_listing_cites_the_include_line_in_every_chunk(tmp_path: Path) -> None:
    """An included listing too long for one chunk: each part cites the ``include::`` line,
    never lines past the including page's end (git-config(1) includes config.txt's example)."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "config.txt").write_text("Example\n~~~~~~~\n\n----\n" + "".join(
        f"[section{i}]\n        key{i} = value number {i} for the example\n" for i in range(120)) + "----\n")
    doc = parse(root / "git-config.txt", (
        "git-config(1)\n=============\n\n"
        "See linkgit:git[1].\n\n"
        "include::config.txt[]\n"                                  # 6
    ), root=root)
    chunks = Chunker(OnnxMiniLM().tokenizer, 256).chunk(doc)
    code = [c for c in chunks if "key1 = value" in c.text or "key119" in c.text]
    assert len(chunks) > 3 and code
    assert {(c.start_line, c.end_line) for c in chunks[1:]} == {(6, 6)}


def test_comment_lines_inside_a_paragraph_and_macros_with_attributes(tmp_path: Path) -> None:
    doc = parse(tmp_path / "s.adoc", (
        "= S\n\n"
        "A normal paragraph.\n// a comment inside it\nStill the paragraph.\n\n"   # 3-5
        "Press image:reload.svg[reload,16] or icon:flag[role=blue], see [.big]#this# and stem:[x = 2].\n"  # 7
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "A normal paragraph.\nStill the paragraph.", ("S",), 3, 5),
        ("paragraph", "Press reload or flag, see this and x = 2.", ("S",), 7, 7),
    ]
    assert doc.blocks[1].line_map == (3, 5)
