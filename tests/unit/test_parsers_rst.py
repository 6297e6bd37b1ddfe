"""reStructuredText (Sphinx) as a reader sees it, with heading paths and line citations."""

from __future__ import annotations

from pathlib import Path

from docshelf.models import ParseContext
from docshelf.pipeline.parsers.rst_inline import inline_text
from parsing import REGISTRY, blocks, parse
DOCSET = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "coverage" / "docs"


def test_sections_nest_by_first_appearance_of_each_adornment(tmp_path: Path) -> None:
    doc = parse(tmp_path / "guide.rst", (
        "=======\n Guide\n=======\n\n"      # 1-3: overline + underline: level 1
        "Intro.\n\n"                        # 5
        "Install\n-------\n\n"              # 7-8: level 2
        "Run it.\n\n"                       # 10
        "From source\n~~~~~~~~~~~\n\n"      # 12-13: level 3
        "Clone.\n\n"                        # 15
        "Usage\n-----\n\n"                  # 17-18: back to level 2
        "Call it.\n"                        # 20
    ))
    g, i, s, u = "Guide", "Install", "From source", "Usage"
    assert doc.title == "Guide"
    assert doc.format == "rst"
    assert blocks(doc) == [
        ("heading", g, (g,), 1, 3),
        ("paragraph", "Intro.", (g,), 5, 5),
        ("heading", i, (g, i), 7, 8),
        ("paragraph", "Run it.", (g, i), 10, 10),
        ("heading", s, (g, i, s), 12, 13),
        ("paragraph", "Clone.", (g, i, s), 15, 15),
        ("heading", u, (g, u), 17, 18),
        ("paragraph", "Call it.", (g, u), 20, 20),
    ]
    assert [b.level for b in doc.blocks if b.kind == "heading"] == [1, 2, 3, 2]


def test_code_blocks_literal_blocks_and_doctests(tmp_path: Path) -> None:
    doc = parse(tmp_path / "code.rst", (
        "Code\n====\n\n"
        ".. code-block:: python\n   :caption: app.py\n   :linenos:\n\n   import os\n\n   print(os.sep)\n\n"
        "Run this::\n\n    $ app --help\n\n"
        "A lone marker:\n\n::\n\n    raw text\n\n"
        ">>> 1 + 1\n2\n\n"
        ".. highlight:: console\n\n"
        "Then ::\n\n    $ app run\n"
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "app.py:", ("Code",), 4, 5),
        ("code", "```python\nimport os\n\nprint(os.sep)\n```", ("Code",), 4, 10),
        ("paragraph", "Run this:", ("Code",), 12, 12),
        ("code", "```\n$ app --help\n```", ("Code",), 14, 14),
        ("paragraph", "A lone marker:", ("Code",), 16, 16),
        ("code", "```\nraw text\n```", ("Code",), 20, 20),
        ("code", "```pycon\n>>> 1 + 1\n2\n```", ("Code",), 22, 23),
        ("paragraph", "Then", ("Code",), 27, 27),
        ("code", "```console\n$ app run\n```", ("Code",), 29, 29),
    ]


def test_admonitions_and_version_notes_read_as_text(tmp_path: Path) -> None:
    doc = parse(tmp_path / "notes.rst", (
        ".. note::\n\n   Tokens expire.\n\n"
        ".. warning:: Never commit tokens.\n\n"
        ".. versionadded:: 2.1\n\n"
        ".. version-changed:: 3.0 The default is now ``off``.\n\n"
        ".. admonition:: Custom title\n\n   Body text.\n\n"
        ".. seealso::\n\n   .. code-block:: ini\n\n      [run]\n"
    ))
    assert blocks(doc) == [
        ("paragraph", "Note: Tokens expire.", (), 1, 3),
        ("paragraph", "Warning: Never commit tokens.", (), 5, 5),
        ("paragraph", "New in version 2.1:", (), 7, 7),
        ("paragraph", "Changed in version 3.0: The default is now `off`.", (), 9, 9),
        ("paragraph", "Custom title: Body text.", (), 11, 13),
        ("paragraph", "See also:", (), 15, 15),
        ("code", "```ini\n[run]\n```", (), 17, 19),
    ]



def test_an_admonition_body_without_a_blank_line_is_cited_over_all_its_lines(tmp_path: Path) -> None:
    # pytest's docs write ``.. note::`` and ``.. versionchanged:: 9.2`` with the text on the
    # very next lines; the citation must cover that text, not only the directive's line.
    doc = parse(tmp_path / "notes.rst", (
        ".. note::\n    The name is\n    the opposite.\n\n    Second paragraph.\n\n"
        ".. versionchanged:: 9.2\n    Entry points are\n    accepted.\n\n"
        ".. warning:: Keep the first\n   line and this one.\n"
    ))
    assert blocks(doc) == [
        ("paragraph", "Note: The name is the opposite.", (), 1, 3),
        ("paragraph", "Second paragraph.", (), 5, 5),
        ("paragraph", "Changed in version 9.2: Entry points are accepted.", (), 7, 9),
        ("paragraph", "Warning: Keep the first line and this one.", (), 11, 12),
    ]

def test_roles_links_and_substitutions_read_as_their_text() -> None:
    assert inline_text(
        "Call :func:`connect` or :py:meth:`~client.Client.close`, see :class:`a.b.C`, "
        ":ref:`the guide <guide-label>`, :pep:`8`, `Docs <https://x.org>`_, `anon <https://y>`__, "
        "``literal`` text, `default role`, |name|, a footnote [1]_ and :envvar:`HOME`.",
        {"name": "Acme"},
    ) == (
        "Call connect or close, see a.b.C, the guide, PEP 8, Docs, anon, `literal` text, "
        "default role, Acme, a footnote and HOME."
    )


def test_doc_roles_read_as_the_page_name_not_its_path() -> None:
    assert inline_text("See :doc:`/url_safe`, :doc:`../patterns/index`, :doc:`the tutorial <tutorial/index>` "
                       "and :doc:`api`.") == "See url safe, patterns, the tutorial and api."


def test_noise_directives_targets_and_comments_are_dropped(tmp_path: Path) -> None:
    doc = parse(tmp_path / "api.rst", (
        ":orphan:\n\n"
        ".. _api-label:\n\n"
        "API\n===\n\n"
        ".. toctree::\n   :maxdepth: 2\n\n   install\n   usage\n\n"
        ".. automodule:: acme.client\n   :members:\n\n"
        ".. index:: single: client\n\n"
        ".. image:: logo.png\n   :alt: Logo\n\n"
        ".. This is a comment\n   spanning two lines.\n\n"
        ".. |project| replace:: Acme\n\n"
        ".. function:: connect(host, port=80)\n\n   Open a connection to |project|.\n\n"
        "----\n\n"
        ".. [1] The footnote text.\n"
    ))
    assert blocks(doc) == [
        ("heading", "API", ("API",), 5, 6),
        ("paragraph", "module acme.client", ("API",), 14, 14),
        ("paragraph", "connect(host, port=80)", ("API",), 27, 27),
        ("paragraph", "Open a connection to Acme.", ("API",), 29, 29),
        ("paragraph", "The footnote text.", ("API",), 33, 33),
    ]


def test_autodoc_directives_keep_the_qualified_names_they_document(tmp_path: Path) -> None:
    """No docstrings in a docs folder: the names Sphinx would head each entry with stay searchable."""
    doc = parse(tmp_path / "api.rst", (
        "API\n===\n\n"
        ".. module:: flask\n\n"
        ".. autoclass:: Flask([options])\n"
        "    :members: run, test_client,\n"
        "              app_context\n"
        "    :inherited-members:\n\n"
        "    .. automethod:: route\n\n"
        "    Hand-written note about the class.\n\n"
        ".. autofunction:: render_template\n\n"
        ".. autoexception:: flask.BadRequest\n\n"
        ".. autodecorator:: before_request\n\n"
        ".. currentmodule:: flask.json\n\n"
        ".. autofunction:: dumps\n"
    ))
    assert blocks(doc)[1:] == [
        ("paragraph", "class flask.Flask([options])\nMembers: run, test_client, app_context", ("API",), 6, 6),
        ("paragraph", "route", ("API",), 11, 11),
        ("paragraph", "Hand-written note about the class.", ("API",), 13, 13),
        ("paragraph", "flask.render_template", ("API",), 15, 15),
        ("paragraph", "exception flask.BadRequest", ("API",), 17, 17),
        ("paragraph", "@flask.before_request", ("API",), 19, 19),
        ("paragraph", "flask.json.dumps", ("API",), 23, 23),
    ]


def test_python_objects_are_headed_as_sphinx_heads_them(tmp_path: Path) -> None:
    doc = parse(tmp_path / "api.rst", (
        "API\n===\n\n"
        ".. currentmodule:: flask\n\n"
        ".. class:: Blueprint(name, import_name)\n\n"
        "   .. method:: register(app)\n\n"
        "      Called by the app.\n\n"
        ".. data:: g\n\n"
        "   A namespace object.\n\n"
        ".. py:function:: url_for(endpoint)\n\n"
        ".. option:: --debug\n\n"
        ".. c:function:: int main(void)\n"
    ))
    assert [b.text for b in doc.blocks[1:]] == [
        "class flask.Blueprint(name, import_name)", "register(app)", "Called by the app.",
        "flask.g", "A namespace object.", "flask.url_for(endpoint)", "--debug", "int main(void)",
    ]


def test_lists_tables_and_definitions(tmp_path: Path) -> None:
    doc = parse(tmp_path / "lists.rst", (
        "- first item\n  continued\n- second :option:`--all`\n\n"
        "#. step one\n#. step two::\n\n      code in a step\n\n"
        "term\n   The definition.\n\n"
        "=====  =====\nA      B\n=====  =====\n1      2\n=====  =====\n\n"
        "+---+---+\n| a | b |\n+---+---+\n"
    ))
    assert blocks(doc) == [
        ("list", "- first item\ncontinued\n- second --all", (), 1, 3),
        ("list", "1. step one", (), 5, 5),
        ("list", "2. step two:", (), 6, 6),
        ("code", "```\ncode in a step\n```", (), 8, 8),
        ("paragraph", "term\nThe definition.", (), 10, 11),
        ("table", "A      B\n1      2", (), 13, 17),
        ("table", "| a | b |", (), 19, 21),
    ]


def test_include_and_literalinclude_stay_inside_the_root(tmp_path: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.rst"
    outside.write_text("SECRET\n")
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "demo.py").write_text(
        "import os\n\n\nclass Demo:\n    def run(self):\n        return 1\n\n    def stop(self):\n        pass\n"
    )
    (tmp_path / "docs" / "shared").mkdir(parents=True)
    (tmp_path / "docs" / "shared" / "note.rst").write_text("Shared paragraph.\n")
    doc = parse(tmp_path / "docs" / "guide.rst", (
        "Guide\n=====\n\n"
        ".. include:: shared/note.rst\n\n"
        ".. literalinclude:: ../examples/demo.py\n   :pyobject: Demo.run\n\n"
        ".. literalinclude:: /examples/demo.py\n   :lines: 1,4-5\n   :caption: Demo\n\n"
        f".. include:: {outside}\n\n"
        ".. include:: ../../" + outside.parent.name + "/secret.rst\n\n"
        ".. include:: <isonum.txt>\n"
    ), root=tmp_path)
    assert blocks(doc)[1:] == [
        ("paragraph", "Shared paragraph.", ("Guide",), 4, 4),
        ("code", "```python\ndef run(self):\n    return 1\n```", ("Guide",), 6, 6),
        ("paragraph", "Demo:", ("Guide",), 9, 9),  # an include's lines all cite its directive
        ("code", "```python\nimport os\nclass Demo:\n    def run(self):\n```", ("Guide",), 9, 9),
    ]
    assert doc.metadata["includes"] == ["docs/shared/note.rst", "examples/demo.py"]
    # A leading "/" means the top of the docs in Sphinx, so an absolute path is looked up there.
    assert [e.split(": ", 1)[1] for e in doc.metadata["include_errors"]] == [
        "not found inside the indexed root", "outside the indexed root"]


def test_real_sphinx_page_from_the_coverage_docs() -> None:
    """config.rst of coverage.py's docs: cog comments, sphinx-tabs, roles, targets, versions."""
    path = DOCSET / "config.rst"
    data = path.read_bytes()
    doc = REGISTRY.parse(path, data, ParseContext(DOCSET))
    lines = data.decode().split("\n")
    assert doc.title == "Configuration reference"
    paths = [b.heading_path for b in doc.blocks if b.kind == "heading"]
    assert ("Configuration reference", "[run]", "[run] branch") in paths
    assert ("Configuration reference", "[report]", "[report] exclude_also") in paths
    assert all(len(p) <= 3 for p in paths)
    text = "\n".join(b.text for b in doc.blocks)
    for noise in (".. ", ":ref:", "[[[cog", "]]]", ":caption:", ".. _config"):
        assert noise not in text
    branch = next(b for b in doc.blocks if b.heading_path[-1:] == ("[run] branch",) and b.kind == "paragraph")
    assert branch.text.startswith("(boolean, default False) Whether to measure branch coverage")
    for block in doc.blocks:  # every cited range holds the block's last word
        cited = " ".join(lines[block.start_line - 1 : block.end_line])
        last_word = block.text.split()[-1].strip("`*:().,")
        if block.kind != "code":
            assert last_word in cited, (block, cited)
    assert sum(b.kind == "code" for b in doc.blocks) >= 8


def test_refs_to_sections_of_the_same_page_read_as_their_titles(tmp_path: Path) -> None:
    doc = parse(tmp_path / "refs.rst", (
        ".. _top:\n\nGuide\n=====\n\nSee :ref:`install-label` and :ref:`elsewhere`.\n\n"
        ".. _Install-Label:\n.. _setup:\n\nInstall ``acme``\n----------------\n\nBack to :ref:`setup`.\n"
    ))
    assert [b.text for b in doc.blocks] == [
        "Guide", "See Install acme and elsewhere.", "Install `acme`", "Back to Install acme."]


def test_sphinx_sources_named_txt_are_read_as_rst(tmp_path: Path) -> None:
    source = ".. _topics-http:\n\nRequests\n========\n\nSee :class:`~django.http.HttpRequest`.\n"
    doc = parse(tmp_path / "request-response.txt", source)
    assert (doc.format, [b.text for b in doc.blocks]) == ("rst", ["Requests", "See HttpRequest."])
    plain = parse(tmp_path / "notes.txt", "Notes\n=====\n\nJust text with one :func:`x` mention.\n")
    assert plain.format == "text"


def test_a_dotted_autodoc_name_is_not_qualified_again_by_the_current_module(tmp_path: Path) -> None:
    """pytest's reference sets ``.. currentmodule:: _pytest.hookspec`` and later documents
    ``.. autoclass:: pytest.Approx()``: Sphinx heads it ``class pytest.Approx``, since an
    explicit module path wins over the current module."""
    doc = parse(tmp_path / "reference.rst", (
        "API\n===\n\n"
        ".. currentmodule:: _pytest.hookspec\n\n"
        ".. autofunction:: pytest_addoption\n\n"
        ".. autoclass:: pytest.Approx()\n    :members:\n\n"
        ".. class:: pytest.fail.Exception\n"
    ))
    assert [b.text for b in doc.blocks[1:]] == [
        "_pytest.hookspec.pytest_addoption", "class pytest.Approx()", "class pytest.fail.Exception",
    ]


def test_an_enumerator_followed_by_an_unindented_line_starts_a_paragraph(tmp_path: Path) -> None:
    """docutils reads ``1. text`` as a list item only when the next line is blank, indented or
    another item; otherwise (pytest's monkeypatch page) the lines are one paragraph, not an
    item cut after its first line."""
    doc = parse(tmp_path / "monkeypatch.rst", (
        "1. Modifying the behavior of a function e.g.\n"
        "there is an API call you will not make.\n\n"
        "2. Modifying dictionaries e.g. a global\n"
        "configuration.\n\n"
        "3. A real item\n"
        "   continued.\n"
        "4. Another item.\n"
    ))
    assert blocks(doc) == [
        ("paragraph", "1. Modifying the behavior of a function e.g.\nthere is an API call you will not make.", (), 1, 2),
        ("paragraph", "2. Modifying dictionaries e.g. a global\nconfiguration.", (), 4, 5),
        ("list", "3. A real item\ncontinued.\n4. Another item.", (), 7, 9),
    ]


def test_a_field_body_with_a_directive_is_read_as_blocks_not_flattened(tmp_path: Path) -> None:
    """pytest's ``filterwarnings`` reference: a ``:keyword:`` field whose body holds a
    ``.. code-block::`` showed the directive line raw inside the field's text."""
    doc = parse(tmp_path / "reference.rst", (
        ".. py:function:: pytest.mark.filterwarnings(filter)\n\n"
        "    :keyword str filter:\n"
        "        A *warning specification string*, separated by ``\":\"``.\n\n"
        "        For example:\n\n"
        "        .. code-block:: python\n\n"
        "            @pytest.mark.filterwarnings(\"ignore\")\n"
        "            def test_foo(): ...\n\n"
        "    :param x: The x,\n"
        "        wrapped.\n"
        "    :returns: nothing.\n"
    ))
    assert blocks(doc) == [
        ("paragraph", "pytest.mark.filterwarnings(filter)", (), 1, 1),
        ("list", ":keyword str filter: A *warning specification string*, separated by `\":\"`.", (), 3, 4),
        ("paragraph", "For example:", (), 6, 6),
        ("code", "```python\n@pytest.mark.filterwarnings(\"ignore\")\ndef test_foo(): ...\n```", (), 8, 11),
        ("list", ":param x: The x,\nwrapped.\n:returns: nothing.", (), 13, 15),
    ]


def test_auto_enumerated_items_read_as_the_numbers_docutils_gives_them(tmp_path) -> None:
    """``#.`` renders as 1., 2., …, continuing an explicit number or letter before it: a step list
    cites as steps, not as a column of '#.'."""
    from pathlib import Path

    from docshelf.pipeline.parsers import default_registry

    source = b"Steps\n=====\n\n#. Switch off.\n#. Drain.\n#. Refill.\n\n3. Three\n#. Four\n\na) Alpha\n#) Beta\n"
    doc = default_registry().parse(Path(tmp_path) / "steps.rst", source)
    assert [(b.text, b.start_line, b.end_line) for b in doc.blocks if b.kind == "list"] == [
        ("1. Switch off.\n2. Drain.\n3. Refill.", 4, 6), ("3. Three\n4. Four", 8, 9), ("a) Alpha\nb) Beta", 11, 12)]
