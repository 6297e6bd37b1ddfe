"""Markdown as documentation sites write it: heading attributes, tags, includes, site markup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docshelf.models import Block, ParseContext
from parsing import blocks, parse


# --- Heading attributes and tags ---------------------------------------------------------


def test_heading_attributes_leave_titles_paths_and_tags(tmp_path: Path) -> None:
    doc = parse(tmp_path / "cors.md", (
        "# CORS { #cors }\n\n"
        "## Use CORSMiddleware { #use-corsmiddleware .big data-x=\"1\" }\n\nText.\n\n"
        "Recap {#recap}\n-----\n\nDone.\n\n"
        "### Using {var} templates\n"
    ))
    assert doc.title == "CORS"
    assert blocks(doc) == [
        ("heading", "# CORS", ("CORS",), 1, 1),
        ("heading", "## Use CORSMiddleware", ("CORS", "Use CORSMiddleware"), 3, 3),
        ("paragraph", "Text.", ("CORS", "Use CORSMiddleware"), 5, 5),
        ("heading", "Recap\n-----", ("CORS", "Recap"), 7, 8),
        ("paragraph", "Done.", ("CORS", "Recap"), 10, 10),
        ("heading", "### Using {var} templates", ("CORS", "Recap", "Using {var} templates"), 12, 12),
    ]
    assert "tags" not in doc.metadata


def test_tags_come_from_frontmatter_and_prose_only(tmp_path: Path) -> None:
    doc = parse(tmp_path / "note.md", (
        "---\ntags: [project]\n---\n"
        "# Heading #not-a-tag\n\n"
        "Filed under #area/storage and #todo, see [#linked](https://x.org/#frag).\n\n"
        "Not from `#code-span`, https://example.com/page#anchor, issue #123 or C#.\n\n"
        "```bash\necho #fenced\n```\n\n"
        "- list item #listed\n\n"
        "[Button](x.md){ .md-button #button-id }\n"
    ))
    assert doc.metadata["tags"] == ["project", "area/storage", "todo", "linked", "listed"]
    assert doc.blocks[-1].text == "[Button](x.md)"


# --- Includes ------------------------------------------------------------------------------


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "docs_src").mkdir()
    (tmp_path / "docs_src" / "app.py").write_text(
        "from fastapi import FastAPI\n\napp = FastAPI()\n# --8<-- [start:route]\n"
        "@app.get('/')\ndef root():\n    return {'ok': True}\n# --8<-- [end:route]\n"
    )
    (tmp_path / "docs" / "includes").mkdir(parents=True)
    (tmp_path / "docs" / "includes" / "shared.md").write_text("Shared *note* text.\n")
    (tmp_path / "docs" / "includes" / "nested.md").write_text('Before.\n\n--8<-- "includes/shared.md"\n')
    return tmp_path


def test_snippet_includes_expand_and_cite_the_directive_line(site: Path) -> None:
    doc = parse(site / "docs" / "page.md", (
        "# Page\n\n"
        '--8<-- "docs_src/app.py:5:7"\n\n'
        '--8<-- "docs_src/app.py:route"\n\n'
        '    --8<-- "includes/shared.md"\n\n'
        "--8<--\nincludes/shared.md\n;includes/ignored.md\n--8<--\n\n"
        '--8<-- "includes/nested.md"\n\n'
        ';--8<-- "escaped.md"\n'
    ), root=site)
    route = "```python\n@app.get('/')\ndef root():\n    return {'ok': True}\n```"
    assert blocks(doc)[1:] == [
        ("code", route, ("Page",), 3, 3),
        ("code", route, ("Page",), 5, 5),
        ("code", "    Shared *note* text.", ("Page",), 7, 7),  # indented include: CommonMark code
        ("paragraph", "Shared *note* text.", ("Page",), 10, 10),
        ("paragraph", "Before.", ("Page",), 14, 14),
        ("paragraph", "Shared *note* text.", ("Page",), 14, 14),
        ("paragraph", '--8<-- "escaped.md"', ("Page",), 16, 16),
    ]
    assert doc.metadata["includes"] == ["docs_src/app.py", "docs/includes/shared.md", "docs/includes/nested.md"]
    assert "include_errors" not in doc.metadata


def test_curly_and_bang_includes_with_line_options(site: Path) -> None:
    doc = parse(site / "docs" / "tutorial" / "first.md", (
        "# First\n\n"
        "{* ../../docs_src/app.py ln[1:3] hl[3] *}\n\n"
        "```python\n{! ../../docs_src/app.py ln[3] !}\n```\n\n"
        "{!includes/shared.md!}\n\n"
        "{!../docs_src/app.py!lines=1 3-3}\n\n"
        "```python\n{!../../docs_src/app.py[ln:1-1,3-3]!}\n```\n"
    ), root=site)
    assert blocks(doc)[1:] == [
        ("code", "```python\nfrom fastapi import FastAPI\n\napp = FastAPI()\n```", ("First",), 3, 3),
        ("code", "```python\napp = FastAPI()\n```", ("First",), 5, 7),
        ("paragraph", "Shared *note* text.", ("First",), 9, 9),
        ("code", "```python\nfrom fastapi import FastAPI\napp = FastAPI()\n```", ("First",), 11, 11),
        ("code", "```python\nfrom fastapi import FastAPI\napp = FastAPI()\n```", ("First",), 13, 15),
    ]


def test_fastapi_style_includes_drop_section_markers(site: Path) -> None:
    doc = parse(site / "docs" / "tutorial" / "second.md", (
        "```Python hl_lines=\"3\"\n{!> ../../docs_src/app.py!}\n```\n\n"
        "{* ../../docs_src/app.py hl[3,8:10] ln[3:5] *}\n"
    ), root=site)
    assert blocks(doc) == [
        ("code", "```Python hl_lines=\"3\"\nfrom fastapi import FastAPI\n\napp = FastAPI()\n"
                 "@app.get('/')\ndef root():\n    return {'ok': True}\n```", (), 1, 3),
        ("code", "```python\napp = FastAPI()\n@app.get('/')\n```", (), 5, 5),
    ]
    assert doc.metadata["includes"] == ["docs_src/app.py"]


def test_curly_includes_show_the_newest_variant_and_ln0_the_whole_file(site: Path) -> None:
    """markdown-include-variants: ``tutorial001.py`` shows ``tutorial001_an_py310.py``; ``ln[0]`` the whole file."""
    variants = site / "docs_src" / "variants"
    variants.mkdir()
    for name in ("tutorial001.py", "tutorial001_py39.py", "tutorial001_an_py39.py", "tutorial001_an_py310.py"):
        (variants / name).write_text(f"# {name}\n")
    doc = parse(site / "docs" / "tutorial" / "third.md", (
        "{* ../../docs_src/variants/tutorial001.py hl[1] *}\n\n"
        "{* ../../docs_src/variants/tutorial001_py39.py *}\n\n"
        "{* ./docs_src/app.py ln[0] *}\n"
    ), root=site)
    assert [(b.text, b.start_line) for b in doc.blocks] == [
        ("```python\n# tutorial001_an_py310.py\n```", 1),
        ("```python\n# tutorial001_py39.py\n```", 3),
        ("```python\nfrom fastapi import FastAPI\n\napp = FastAPI()\n@app.get('/')\ndef root():\n"
         "    return {'ok': True}\n```", 5),
    ]
    assert "include_errors" not in doc.metadata


def test_includes_never_leave_the_indexed_root(site: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text("TOP SECRET\n")
    os.symlink(outside, site / "docs" / "link.md")
    relative = os.path.relpath(outside, site / "docs")
    doc = parse(site / "docs" / "page.md", (
        f'--8<-- "{outside}"\n\n--8<-- "{relative}"\n\n--8<-- "link.md"\n\n'
        '--8<-- "https://example.com/x.md"\n\n--8<-- "missing.md"\n\n--8<-- "page.md"\n\n'
        '--8<-- "docs_src/app.py:nosuch"\n\nKept.\n'
    ), root=site)
    assert blocks(doc) == [("paragraph", "Kept.", (), 15, 15)]
    assert doc.metadata["include_errors"] == [
        f"'{outside}' (line 1): absolute paths are not read",
        f"'{relative}' (line 3): outside the indexed root",
        "'link.md' (line 5): outside the indexed root",
        "'https://example.com/x.md' (line 7): URLs are not fetched",
        "'missing.md' (line 9): not found inside the indexed root",
        "'page.md' (line 11): a page cannot include itself",
        "'docs_src/app.py:nosuch' (line 13): no section named 'nosuch'",
    ]


def test_includes_without_a_root_are_left_out_and_reported(tmp_path: Path) -> None:
    doc = parse(tmp_path / "p.md", '# P\n\n--8<-- "x.md"\n')
    assert blocks(doc) == [("heading", "# P", ("P",), 1, 1)]
    assert doc.metadata["include_errors"] == ["'x.md' (line 3): no indexed root to read includes from"]


def test_include_cycles_stop(site: Path) -> None:
    (site / "a.md").write_text('A.\n\n--8<-- "b.md"\n')
    (site / "b.md").write_text('B.\n\n--8<-- "a.md"\n')
    doc = parse(site / "page.md", '--8<-- "a.md"\n', root=site)
    texts = [b.text for b in doc.blocks]
    assert texts[:4] == ["A.", "B.", "A.", "B."] and len(texts) == 5
    assert doc.metadata["include_errors"] == ["'b.md' (line 1): includes nested more than 5 deep"]


# --- Site markup -------------------------------------------------------------------------


def test_admonitions_tabs_and_callouts_read_as_text(tmp_path: Path) -> None:
    doc = parse(tmp_path / "guide.md", (
        "# Guide\n\n"
        '!!! note "Read this"\n    The body is indented.\n\n    ```python\n    print("code")\n    ```\n\n'
        "??? tip\n    Collapsed tip.\n\n"
        '!!! warning ""\n    Untitled.\n\n'
        '=== "Python 3.10+"\n\n    Tab body.\n\n'
        ":::warning[Careful]\nDocusaurus warning.\n:::\n\n"
        "::: tip Vite tip\nBody.\n:::\n\n"
        "> [!NOTE]\n> GitHub alert.\n\n"
        "    indented code stays code\n"
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "Read this:\nThe body is indented.", ("Guide",), 3, 4),
        ("code", '```python\nprint("code")\n```', ("Guide",), 6, 8),
        ("paragraph", "Tip:\nCollapsed tip.", ("Guide",), 10, 11),
        ("paragraph", "Untitled.", ("Guide",), 14, 14),
        ("paragraph", "Python 3.10+:", ("Guide",), 16, 16),
        ("paragraph", "Tab body.", ("Guide",), 18, 18),
        ("paragraph", "Warning: Careful\nDocusaurus warning.", ("Guide",), 20, 21),
        ("paragraph", "Tip: Vite tip\nBody.", ("Guide",), 24, 25),
        ("quote", "> Note:\n> GitHub alert.", ("Guide",), 28, 29),
        ("code", "    indented code stays code", ("Guide",), 31, 31),
    ]


def test_pymdownx_blocks_read_as_admonitions_and_tabs(tmp_path: Path) -> None:
    """The generic block syntax of pymdownx.blocks (newer MkDocs Material sites)."""
    doc = parse(tmp_path / "blocks.md", (
        "# Guide\n\n"
        "/// note | Did you know?\nYou can create a note with Blocks!\n///\n\n"
        "/// tip\nPlain tip.\n///\n\n"
        "//// details | Summary line\n    type: warning\n    open: True\n\n"
        "/// html | div.result\nInner content.\n///\n////\n\n"
        "/// tab | Python 3.10+\n\n```python\nx = 1\n///\n```\n\n///\n\n"
        "/// admonition | Custom title\n    type: danger\nDanger body.\n///\n\n"
        "/// some-custom-type\nCustom.\n///\n\n"
        "/// not a block header\n\n///\n\n"
        "1.  Step one\n\n    /// note\n    Remember: this is content.\n    ///\n"
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "Note: Did you know?\nYou can create a note with Blocks!", ("Guide",), 3, 4),
        ("paragraph", "Tip:\nPlain tip.", ("Guide",), 7, 8),
        ("paragraph", "Summary line:", ("Guide",), 11, 11),
        ("paragraph", "Inner content.", ("Guide",), 16, 16),
        ("paragraph", "Python 3.10+:", ("Guide",), 20, 20),
        ("code", "```python\nx = 1\n///\n```", ("Guide",), 22, 25),
        ("paragraph", "Custom title:", ("Guide",), 29, 29),
        ("paragraph", "Danger body.", ("Guide",), 31, 31),
        ("paragraph", "Some custom type:\nCustom.", ("Guide",), 34, 35),
        ("paragraph", "/// not a block header", ("Guide",), 38, 38),
        ("paragraph", "///", ("Guide",), 40, 40),
        ("list", "1.  Step one\n\n    Note:\n    Remember: this is content.", ("Guide",), 42, 45),
    ]


def test_html_inside_markdown_reads_as_its_text(tmp_path: Path) -> None:
    """Raw HTML shows only its text; code spans and code blocks keep theirs."""
    doc = parse(tmp_path / "html.md", (
        "# Guide <small>v2</small>\n\n"
        'It has <abbr title="included the source code">vendored</abbr> Click &amp; more.\n\n'
        '<div class="termy">\n\n```console\n$ run <b>it</b>\n```\n\n</div>\n\n'
        "<details>\n<summary>Why <em>this</em>?</summary>\n\nBecause.\n\n</details>\n\n"
        "<!-- a comment with `code`\nover two lines -->\n\n"
        "Press <kbd>Ctrl</kbd>+<kbd>C</kbd>; write `<br>` and `#!python print(1)`; List<String> stays.\n\n"
        '<script>var hidden = 1;</script>\n'
    ))
    assert blocks(doc) == [
        ("heading", "# Guide v2", ("Guide v2",), 1, 1),
        ("paragraph", "It has vendored Click & more.", ("Guide v2",), 3, 3),
        ("code", "```console\n$ run <b>it</b>\n```", ("Guide v2",), 7, 9),  # one tag: maybe printed
        ("paragraph", "Why this?", ("Guide v2",), 13, 14),
        ("paragraph", "Because.", ("Guide v2",), 16, 16),
        ("paragraph", "Press Ctrl+C; write `<br>` and `print(1)`; List<String> stays.", ("Guide v2",), 23, 23),
    ]


def test_an_unclosed_comment_inside_a_paragraph_is_text(tmp_path: Path) -> None:
    """CommonMark reads ``<!--`` without ``-->`` in its paragraph as text: it hid the rest of
    the paragraph, and the chunk's text then was not what its cited lines hold (found by the
    citation property in tests/robust/test_properties.py on ``0 <!--.``)."""
    doc = parse(tmp_path / "c.md", "# T\n\nsee a <!-- b and more.\n\nNext <!-- hidden --> shown.\n")
    assert blocks(doc) == [
        ("heading", "# T", ("T",), 1, 1),
        ("paragraph", "see a <!-- b and more.", ("T",), 3, 3),
        ("paragraph", "Next shown.", ("T",), 5, 5),
    ]


def test_terminal_sessions_drawn_in_html_read_as_the_terminal_shows_them(tmp_path: Path) -> None:
    doc = parse(tmp_path / "cli.md", (
        "```console\n$ python main.py --help\n\n"
        '<b> </b><font color="#F4BF75"><b>Usage: </b></font><b>main.py [OPTIONS] NAME</b>\n'
        '<font color="#A5A5A1">│ </font><font color="#A1EFE4"><b>--lastname</b></font>  <b>&lt;str&gt;</b> │\n```\n\n'
        '```html\n<span class="x">kept</span> <b>as</b> written\n```\n'
    ))
    assert blocks(doc) == [
        ("code", "```console\n$ python main.py --help\n\n Usage: main.py [OPTIONS] NAME\n│ --lastname  <str> │\n```",
         (), 1, 6),
        ("code", '```html\n<span class="x">kept</span> <b>as</b> written\n```', (), 8, 10),
    ]


def test_material_icon_shortcodes_are_dropped(tmp_path: Path) -> None:
    doc = parse(tmp_path / "icons.md", (
        "[:octicons-file-code-24:][source]{: .source-link }\n\n"
        "## Bug Reports :material-bug:\n\n"
        "-   :material-clock-fast:{ .lg .middle } __Set up in 5 minutes__\n\n"
        "Write `:material-check:` to show :material-check: a check; :smile: stays.\n\n"
        "[source]: https://example.test\n"
    ))
    assert blocks(doc) == [
        ("heading", "## Bug Reports", ("Bug Reports",), 3, 3),
        ("list", "- __Set up in 5 minutes__", ("Bug Reports",), 5, 5),
        ("paragraph", "Write `:material-check:` to show a check; :smile: stays.", ("Bug Reports",), 7, 7),
    ]


def test_a_fenced_example_of_tabs_stays_one_code_block(tmp_path: Path) -> None:
    """An indented fence inside a fenced example does not close it (CommonMark: at most 3 spaces)."""
    doc = parse(tmp_path / "tabs.md", (
        '``` title="Content tabs"\n=== "C"\n\n    ``` c\n    int main(void);\n    ```\n\n'
        '=== "C++"\n\n    ``` c++\n    int main();\n    ```\n```\n\n'
        '=== "Real tab"\n\n    ```python\n    x = 1\n    ```\n'
    ))
    assert blocks(doc) == [
        ("code", '``` title="Content tabs"\n=== "C"\n\n    ``` c\n    int main(void);\n    ```\n\n'
                 '=== "C++"\n\n    ``` c++\n    int main();\n    ```\n```', (), 1, 13),
        ("paragraph", "Real tab:", (), 15, 15),
        ("code", "```python\nx = 1\n```", (), 17, 19),
    ]


def test_mdx_statements_and_hugo_shortcodes(tmp_path: Path) -> None:
    doc = parse(tmp_path / "page.mdx", (
        "import Tabs from '@theme/Tabs';\n"
        "import {\n  A,\n  B,\n} from './x';\n"
        "export const meta = {\n  a: 1,\n};\n\n"
        "# Page\n\n"
        "{{< highlight go >}}\nfmt.Println(\"hi\")\n{{< /highlight >}}\n\n"
        "{{% notice tip %}}Hugo inner text{{% /notice %}}\n\n"
        "See [the guide]({{< ref \"guide.md\" >}}).\n\n"
        "Write `{{</* figure */>}}` to add a figure.\n\n"
        "```js\nimport x from 'y';\n{{< kept-in-code >}}\n```\n"
    ))
    assert blocks(doc) == [
        ("heading", "# Page", ("Page",), 10, 10),
        ("code", '```go\nfmt.Println("hi")\n```', ("Page",), 12, 14),
        ("paragraph", "Hugo inner text", ("Page",), 16, 16),
        ("paragraph", "See [the guide]().", ("Page",), 18, 18),
        ("paragraph", "Write `{{< figure >}}` to add a figure.", ("Page",), 20, 20),
        ("code", "```js\nimport x from 'y';\n{{< kept-in-code >}}\n```", ("Page",), 22, 25),
    ]


def test_mdx_components_comments_and_tabs_read_as_the_page_shows_them(tmp_path: Path) -> None:
    """Docusaurus' own template (npm create-docusaurus 3.10): a heading id written as an MDX
    comment, <Tabs>/<TabItem> with indented bodies (no indented code in MDX), components and a
    JSX attribute holding "=>" left markup, comments and code blocks in chunks and headings."""
    doc = parse(tmp_path / "install.mdx", (
        "---\nsidebar_position: 2\n---\n\n"
        "import Tabs from '@theme/Tabs';\n\n"
        "# Install {/* #install */}\n\n"
        "{/* hidden on the page */}\n\n"
        "<Tabs groupId=\"os\">\n"
        "  <TabItem value=\"mac\" label=\"macOS\" default>\n"
        "    Run `brew install acme`.\n"
        "  </TabItem>\n"
        "  <TabItem\n    value=\"win\"\n    label=\"Windows\">\n\n"
        "    Download the installer.\n\n"
        "  </TabItem>\n"
        "</Tabs>\n\n"
        "Version 1 is <Highlight color=\"#25c2a0\">no longer supported</Highlight>.\n\n"
        "<button onClick={() => alert('clicked!')}>Click me!</button>\n\n"
        "<DocCardList />\n\n"
        "Write `<Tabs>` and `{/* x */}` as code; a < b > c stays.\n\n"
        "```jsx\n<Tabs>{/* kept in code */}</Tabs>\n```\n"
    ))
    assert doc.title == "Install"
    assert blocks(doc) == [
        ("heading", "# Install", ("Install",), 7, 7),
        ("paragraph", "  macOS:\n    Run `brew install acme`.", ("Install",), 12, 13),
        ("paragraph", "  Windows:", ("Install",), 17, 17),
        ("paragraph", "    Download the installer.", ("Install",), 19, 19),
        ("paragraph", "Version 1 is no longer supported.", ("Install",), 24, 24),
        ("paragraph", "Click me!", ("Install",), 26, 26),
        ("paragraph", "Write `<Tabs>` and `{/* x */}` as code; a < b > c stays.", ("Install",), 30, 30),
        ("code", "```jsx\n<Tabs>{/* kept in code */}</Tabs>\n```", ("Install",), 32, 34),
    ]


def test_an_mdx_line_that_opens_no_tag_is_kept(tmp_path: Path) -> None:
    """'<Note that…' never closes as a tag: its lines stay prose, not blanked as tag attributes."""
    doc = parse(tmp_path / "p.mdx", "# P\n\n<Warning level\nstays as prose.\n\nNext paragraph.\n")
    assert blocks(doc) == [("heading", "# P", ("P",), 1, 1),
                           ("paragraph", "<Warning level\nstays as prose.", ("P",), 3, 4),
                           ("paragraph", "Next paragraph.", ("P",), 6, 6)]


def test_a_md_page_that_imports_components_reads_as_mdx(tmp_path: Path) -> None:
    """Docusaurus 3 compiles .md as MDX: a page importing Tabs is MDX whatever its suffix."""
    doc = parse(tmp_path / "setup.md", (
        "import Tabs from '@theme/Tabs';\nimport TabItem from '@theme/TabItem';\n\n"
        "## Setup {/* #setup */}\n\n<Tabs>\n  <TabItem value=\"npm\" label=\"npm\">\n\n"
        "    Run the installer.\n\n  </TabItem>\n</Tabs>\n"
    ))
    assert blocks(doc) == [("heading", "## Setup", ("Setup",), 4, 4), ("paragraph", "  npm:", ("Setup",), 7, 7),
                           ("paragraph", "    Run the installer.", ("Setup",), 9, 9)]


def test_plain_markdown_keeps_its_indented_code_and_angle_types(tmp_path: Path) -> None:
    doc = parse(tmp_path / "p.md", "Use List<String> here.\n\n    indented code\n\n"
                                   "import the module, then run it.\n\n```js\nimport x from 'y';\n```\n")
    assert blocks(doc)[:3] == [("paragraph", "Use List<String> here.", (), 1, 1),
                               ("code", "    indented code", (), 3, 3),
                               ("paragraph", "import the module, then run it.", (), 5, 5)]


def test_prose_that_looks_like_markup_is_kept(tmp_path: Path) -> None:
    doc = parse(tmp_path / "p.md", "import the module first, then run it.\n\nUse {braces} freely.\n")
    assert [b.text for b in doc.blocks] == ["import the module first, then run it.", "Use {braces} freely."]


def test_include_is_indented_into_an_admonition(site: Path) -> None:
    doc = parse(site / "docs" / "p.md", '!!! tip "Shared"\n\n    --8<-- "includes/shared.md"\n', root=site)
    assert blocks(doc) == [("paragraph", "Shared:", (), 1, 1),
                           ("paragraph", "Shared *note* text.", (), 3, 3)]


def test_the_indexer_expands_includes_from_its_root(tmp_path: Path, shelf, write) -> None:
    """Through the service: the included example is searchable and cited at the including page."""
    docs = tmp_path / "site"
    write(docs, "docs_src/cors.py", "app.add_middleware(CORSMiddleware, allow_origins=['https://acme.test'])\n")
    write(docs, "docs/cors.md", "# CORS { #cors }\n\n## Use CORSMiddleware { #use-cors }\n\n"
                                "{* ../docs_src/cors.py *}\n")
    shelf.index([docs])
    page = shelf.get_document("docs/cors.md")
    assert "allow_origins=['https://acme.test']" in page.text
    assert (page.start_line, page.end_line) == (5, 5)
    hits = shelf.search("allow_origins acme.test", mode="keyword", k=5).hits
    assert sorted((h.path, h.heading_path, h.start_line) for h in hits) == [
        ("docs/cors.md", ("CORS", "Use CORSMiddleware"), 5), ("docs_src/cors.py", (), 1)]
    assert shelf.find_document("docs/cors.md").tags == ()


def test_a_parser_without_a_context_parameter_still_works_with_one(tmp_path: Path) -> None:
    from docshelf.models import ParsedDocument
    from docshelf.pipeline.parsers import ParserRegistry

    class OldStyle:
        name = "old"
        suffixes = (".old",)

        def parse(self, path: Path, data: bytes) -> ParsedDocument:
            return ParsedDocument(path.stem, (), "old")

    registry = ParserRegistry([OldStyle()])
    assert registry.parse(tmp_path / "a.old", b"", ParseContext(tmp_path)).title == "a"


def test_myst_directives_and_mkdocstrings(tmp_path: Path) -> None:
    doc = parse(tmp_path / "myst.md", (
        "# API\n\n"
        "```{note}\n:class: dropdown\nTokens expire.\n```\n\n"
        "````{admonition} Rotate often\nSee below.\n\n```python\nrotate()\n```\n````\n\n"
        "```{code-block} python\n:linenos:\n\nprint('hi')\n```\n\n"
        "```{toctree}\n:maxdepth: 2\n\nintro\n```\n\n"
        ":::{tip}\nColon fence.\n:::\n\n"
        "::: acme.client.Client\n    options:\n      show_source: false\n\n"
        "After.\n\n"
        "(options-label)=\n\n"
        "Use the {func}`~click.option` decorator, see {ref}`positional arguments <arguments>` and {pep}`8`.\n"
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "Note:", ("API",), 3, 3),
        ("paragraph", "Tokens expire.", ("API",), 5, 5),
        ("paragraph", "Rotate often:\nSee below.", ("API",), 8, 9),
        ("code", "```python\nrotate()\n```", ("API",), 11, 13),
        ("code", "```python\n\n\nprint('hi')\n```", ("API",), 16, 20),  # the option line is blanked
        ("paragraph", "Tip:\nColon fence.", ("API",), 28, 29),
        ("paragraph", "After.", ("API",), 36, 36),
        ("paragraph", "Use the option decorator, see positional arguments and PEP 8.", ("API",), 40, 40),
    ]


def test_myst_targets_may_hold_spaces(tmp_path: Path) -> None:
    """pip's pages put ``(SSL Certificate Verification)=`` above their title; Sphinx takes any
    label text, so such a line is a target like ``(config-file)=``, never a paragraph."""
    doc = parse(tmp_path / "certs.md", (
        "(SSL Certificate Verification)=\n\n# HTTPS Certificates\n\n(vcs support)=\n\nText (see below)=\n"
    ))
    assert blocks(doc) == [
        ("heading", "# HTTPS Certificates", ("HTTPS Certificates",), 3, 3),
        ("paragraph", "Text (see below)=", ("HTTPS Certificates",), 7, 7),
    ]


def test_myst_version_directives_and_admonitions_read_as_sphinx_renders_them(tmp_path: Path) -> None:
    """``{versionchanged} 23.3`` is "Changed in version 23.3:" (the version was lost: the block
    read "Versionchanged:"), ``{seealso}`` is "See also:", and a directive without arguments
    reads text on its first line as content, as reST's ``.. note:: Text`` does."""
    doc = parse(tmp_path / "caching.md", (
        "# Caching\n\n"
        "```{versionadded} 6.0\n\n```\n\n"
        "```{versionchanged} 23.3\nA new cache format.\n```\n\n"
        ":::{deprecated} 8.5.0 Use a temporary directory.\n:::\n\n"
        "```{seealso}\nThe pip config command.\n```\n\n"
        "```{note} Tokens expire.\n```\n"
    ))
    assert [b.text for b in doc.blocks][1:] == [
        "New in version 6.0:",
        "Changed in version 23.3:\nA new cache format.",
        "Deprecated since version 8.5.0: Use a temporary directory.",
        "See also:\nThe pip config command.",
        "Note: Tokens expire.",
    ]


def test_myst_tab_keeps_its_title(tmp_path: Path) -> None:
    """sphinx-inline-tabs' ``{tab} Linux`` names the platform its content is for; it read
    "Tab:" and the name was lost."""
    doc = parse(tmp_path / "cache.md", (
        "# Default paths\n\n````{tab} Linux\n```\n~/.cache/pip\n```\n````\n\n"
        "```{tab} MacOS\n~/Library/Caches/pip\n```\n"
    ))
    assert [(b.kind, b.text) for b in doc.blocks][1:] == [
        ("paragraph", "Linux:"),
        ("code", "```\n~/.cache/pip\n```"),
        ("paragraph", "MacOS:\n~/Library/Caches/pip"),
    ]


def test_myst_definition_lists_lose_their_markers(tmp_path: Path) -> None:
    """MyST's ``deflist``: ``Term`` then ``: definition`` (a blank line between is allowed).
    The ``:`` markers stayed in the text; the term now reads "Term:" above its definition.
    A ``:`` line under a paragraph of several lines, or inside code, is left alone."""
    doc = parse(tmp_path / "config.md", (
        "# Location\n\n"
        "Global\n: In a \"pip\" subdirectory of `XDG_CONFIG_DIRS`.\n: Then /etc/pip.conf.\n\n"
        "**needs rebase or merge**\n\n: marks PRs that have merge conflicts\n\n"
        "Two lines\nof prose\n: stays\n\n"
        "```\nkey\n: value\n```\n"
    ))
    assert [(b.text, b.start_line, b.end_line) for b in doc.blocks][1:] == [
        ("Global:\nIn a \"pip\" subdirectory of `XDG_CONFIG_DIRS`.\nThen /etc/pip.conf.", 3, 5),
        ("**needs rebase or merge**:", 7, 7),
        ("marks PRs that have merge conflicts", 9, 9),
        ("Two lines\nof prose\n: stays", 11, 13),
        ("```\nkey\n: value\n```", 15, 18),
    ]


def test_a_fence_opening_a_list_item_closes_at_the_items_column(tmp_path: Path) -> None:
    """pip's configuration page opens a fence on a list item (a fence right after ``- ``); its indented
    closing line was taken for an opener, so the page's later ``{note}`` read as a code block
    with the directive in it."""
    doc = parse(tmp_path / "config.md", (
        "# Environment Variables\n\n"
        "- ```\n  PIP_FIND_LINKS=a\n  ```\n\n  is the same as\n\n  ```\n  --find-links=a\n  ```\n\n"
        "```{note}\nAn empty string is not false.\n```\n"
    ))
    assert [(b.kind, b.text, b.start_line) for b in doc.blocks][-1] == (
        "paragraph", "Note:\nAn empty string is not false.", 13)


def test_a_myst_role_wrapped_over_two_lines_is_read(tmp_path: Path) -> None:
    """Hard-wrapped MyST (pip, click) breaks a role's text over a line end; the role stayed
    raw (``{ref}`direct`` … ``<pypug:dependency-specifiers>`)``). A role-like text inside a
    code span (starlette's ``{prefix}:{name}``) is no role."""
    doc = parse(tmp_path / "resolver.md", (
        "# Finder\n\n"
        "Candidates from other sources (local directories, {ref}`direct\n"
        "URL references <pypug:dependency-specifiers>`) skip the finder.\n\n"
        "Submounts use a `{prefix}:{name}`\nnaming `scheme`.\n"
    ))
    assert [(b.text, b.start_line, b.end_line) for b in doc.blocks][1:] == [
        ("Candidates from other sources (local directories, direct URL references\n) skip the finder.", 3, 4),
        ("Submounts use a `{prefix}:{name}`\nnaming `scheme`.", 6, 7),
    ]


def test_myst_doctest_is_code_and_its_setup_is_dropped(tmp_path: Path) -> None:
    """structlog's MyST pages show examples in ``{doctest}`` fences after hidden
    ``{testsetup}`` ones; both read as prose ("Doctest:" above the ``>>>`` lines, "Testsetup:"
    above code no reader sees). They now read as reST's ``.. doctest::`` / ``.. testsetup::``."""
    doc = parse(tmp_path / "getting-started.md", (
        "# Getting Started\n\n"
        "```{testsetup}\nimport structlog\n```\n\n"
        "```{doctest}\n>>> log = structlog.get_logger()\n```\n\n"
        "```{console}\n$ pip install structlog\n```\n"
    ))
    assert [(b.kind, b.text) for b in doc.blocks][1:] == [
        ("code", "```\n>>> log = structlog.get_logger()\n```"),
        ("code", "```\n$ pip install structlog\n```"),
    ]


def test_an_unknown_directive_holding_a_console_session_is_code(tmp_path: Path) -> None:
    """pip's own ``{pip-cli}`` directive holds ``$ pip install …`` sessions that its Sphinx
    extension renders as a console; it read "Pip cli:" above the commands as prose. An unknown
    directive whose body opens with a prompt is now a console block; one without stays
    labelled."""
    doc = parse(tmp_path / "local.md", (
        "# Editable installs\n\n"
        "```{pip-cli}\n$ pip install -e path/to/SomeProject\n```\n\n"
        "```{rubric-like}\nSome words.\n```\n"
    ))
    assert [(b.kind, b.text) for b in doc.blocks][1:] == [
        ("code", "```console\n$ pip install -e path/to/SomeProject\n```"),
        ("paragraph", "Rubric like:\nSome words."),
    ]


def test_mkdocs_click_directive_is_dropped_with_its_options(tmp_path: Path) -> None:
    """``::: mkdocs-click`` (hatch's CLI page) is filled in at build time; its option lines
    are no prose, and a hyphenated directive name must not read as a ``:::`` admonition."""
    doc = parse(tmp_path / "cli.md", (
        "# CLI\n\n"
        "::: mkdocs-click\n    :module: hatch.cli\n    :command: hatch\n    :depth: 0\n\n"
        "After.\n\n"
        "::: tip Vite tip\nBody.\n:::\n"
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "After.", ("CLI",), 8, 8),
        ("paragraph", "Tip: Vite tip\nBody.", ("CLI",), 10, 11),
    ]


def test_atx_closing_hashes_leave_the_heading_text(tmp_path: Path) -> None:
    """``### Dependencies ### {: #target-dependencies }`` (CommonMark's optional closing
    sequence, then an attr_list id) reads ``### Dependencies``; a ``#`` inside a word stays."""
    doc = parse(tmp_path / "build.md", (
        "# Build ##\n\n"
        "### Dependencies ### {: #target-dependencies }\n\nText.\n\n"
        "## Using C#\n"
    ))
    assert [(b.text, b.heading_path) for b in doc.blocks if b.kind == "heading"] == [
        ("# Build", ("Build",)),
        ("### Dependencies", ("Build", "Dependencies")),
        ("## Using C#", ("Build", "Using C#")),
    ]


def test_snippet_files_of_link_and_abbreviation_definitions_have_no_text(tmp_path: Path) -> None:
    """pymdownx.snippets appends files such as hatch's ``.snippets/links.txt`` and ``abbrs.txt``
    to every page: reference-link targets and abbreviation titles, which a reader never sees as
    text. Alone they yield no block (no page of URLs to rank); prose around them stays."""
    links = "[PEP 508]: https://peps.python.org/pep-0508/\n[PEP 517]: https://peps.python.org/pep-0517/\n"
    abbrs = "*[PyPI]: Python Package Index\n*[HTML]: Hyper Text Markup Language\n"
    assert parse(tmp_path / ".snippets" / "links.txt", links).blocks == ()
    assert parse(tmp_path / ".snippets" / "abbrs.txt", abbrs).blocks == ()
    assert parse(tmp_path / "includes" / "abbreviations.md", "\n" + abbrs + "\n" + links).blocks == ()
    page = parse(tmp_path / "page.md", "# Publish\n\nUpload to PyPI.\n\n" + abbrs)
    assert blocks(page)[1:] == [("paragraph", "Upload to PyPI.", ("Publish",), 3, 3)]
    notes = parse(tmp_path / "notes.txt", "See [PEP 508]: it defines the strings.\n" + links)
    assert [b.text for b in notes.blocks] == ["See [PEP 508]: it defines the strings.\n" + links.strip()]



def test_an_mdx_1_page_keeps_its_indented_code_as_code(tmp_path: Path) -> None:
    """A page written for MDX 1 (Docusaurus 2 betas, `@docusaurus/init` 2.0.0-beta.6) shows an
    example as an indented code block; read as MDX 3 it became a paragraph of code. A top-level
    indented block after a heading or paragraph is code again; a tab's indented body and a list
    item's indented continuation stay prose, and every line keeps its number."""
    doc = parse(tmp_path / "docs" / "create-a-page.mdx", (
        "# Create a Page\n\n"
        "Add a file at `src/pages/hello.js`:\n\n"
        "    import React from 'react';\n\n"
        "    export default function Hello() {\n"
        "      return <p>Hello</p>;\n"
        "    }\n\n"
        "Then open the page.\n\n"
        "<Tabs>\n  <TabItem value=\"npm\" label=\"npm\">\n\n    Run the installer.\n\n  </TabItem>\n</Tabs>\n\n"
        "1. Step one\n\n    more about step one\n"
    ))
    assert blocks(doc) == [
        ("heading", "# Create a Page", ("Create a Page",), 1, 1),
        ("paragraph", "Add a file at `src/pages/hello.js`:", ("Create a Page",), 3, 3),
        ("code", "```\nimport React from 'react';\n\nexport default function Hello() {\n  return <p>Hello</p>;\n}\n```",
         ("Create a Page",), 4, 10),
        ("paragraph", "Then open the page.", ("Create a Page",), 11, 11),
        ("paragraph", "  npm:", ("Create a Page",), 14, 14),
        ("paragraph", "    Run the installer.", ("Create a Page",), 16, 16),
        ("list", "1. Step one\n\n    more about step one", ("Create a Page",), 21, 23),
    ]
