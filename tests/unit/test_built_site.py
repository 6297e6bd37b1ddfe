"""A built documentation site (Sphinx ``make html``, MkDocs ``site/``) indexed as a reader sees it.

The fixtures under ``tests/fixtures/built_site`` mimic each builder's output (a made-up project,
the builders' real page structure and machinery files): only the pages are documents, each page
is its main content without the theme around it, API entries are sections of their own, and the
lines a hit cites are the lines ``get`` serves.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from docshelf.interfaces.cli import main
from docshelf.pipeline.discover import discover
from docshelf.pipeline.parsers import default_registry
from docshelf.requests import DocumentRequest

REGISTRY = default_registry()
SITES = Path(__file__).resolve().parents[1] / "fixtures" / "built_site"
CHROME = ("¶", "[source]", "Sidebar", "Breadcrumb", "View page source", "Previous", "Next:", "Copyright",
          "Search docs", "Edit this page", "header title", "toc link", "Navigation")


def parse(site: str, rel: str):
    path = SITES / site / rel
    return REGISTRY.parse(path, path.read_bytes())


def test_a_sphinx_build_indexes_its_pages_and_reports_the_machinery_it_skips() -> None:
    found = discover([SITES / "sphinx"], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["api.html", "guide/intro.html", "index.html"]
    assert sorted(found.skipped) == [
        "_modules/", "_sources/", "_static/", "genindex.html", "objects.inv", "py-modindex.html",
        "search.html", "searchindex.js"]
    assert found.skipped["_sources/"] == "Sphinx site machinery (raw copies of the pages' sources), not a page"


def test_a_sphinx_not_found_page_is_machinery(tmp_path: Path) -> None:
    """sphinx-notfound-page writes 404.html (Debian's python-blinker-doc has one): it was indexed as
    a page, "Page Not Found", that a search for a missing page could find."""
    shutil.copytree(SITES / "sphinx", tmp_path / "site")
    (tmp_path / "site" / "404.html").write_text("<html><body><h1>Page Not Found</h1><p>The page you requested "
                                                "does not exist.</p></body></html>")
    found = discover([tmp_path / "site"], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["api.html", "guide/intro.html", "index.html"]
    assert found.skipped["404.html"] == "Sphinx site machinery (the not-found page of sphinx-notfound-page), not a page"


def test_a_mkdocs_build_indexes_its_pages_and_reports_the_machinery_it_skips() -> None:
    found = discover([SITES / "mkdocs"], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["index.html", "usage/index.html"]
    assert sorted(found.skipped) == ["404.html", "assets/", "search/", "sitemap.xml"]
    assert found.skipped["search/"] == "MkDocs site machinery (the search page's index), not a page"


def test_a_mkdocs_build_with_an_object_inventory_is_still_mkdocs(tmp_path: Path) -> None:
    """mkdocstrings writes Sphinx's objects.inv into a MkDocs site."""
    shutil.copytree(SITES / "mkdocs", tmp_path / "site")
    (tmp_path / "site" / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n")
    found = discover([tmp_path / "site"], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["index.html", "usage/index.html"]
    assert sorted(found.skipped) == ["404.html", "assets/", "objects.inv", "search/", "sitemap.xml"]
    assert found.skipped["objects.inv"].startswith("MkDocs site machinery")


def test_source_docs_with_a_static_folder_are_not_a_built_site(tmp_path: Path, write) -> None:
    """The same folder names in a user's own sources (no builder's markers beside .html pages)."""
    write(tmp_path, "conf.py", "project = 'x'\n")
    write(tmp_path, "index.rst", "Title\n=====\n\nText.\n")
    write(tmp_path, "_static/notes.txt", "Static notes.\n")
    write(tmp_path, "search/howto.md", "# Searching\n")
    write(tmp_path, "page.html", "<html><body><h1>Page</h1></body></html>")
    found = discover([tmp_path], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["_static/notes.txt", "conf.py", "index.rst", "page.html", "search/howto.md"]
    assert found.skipped == {}


def test_a_source_tree_with_its_own_build_indexes_the_sources_once(tmp_path: Path, write) -> None:
    """Sphinx's ``_build/`` beside ``conf.py`` (or ``build/`` beside ``source/``) and MkDocs' ``site/``
    beside ``mkdocs.yml`` hold the same pages again as HTML: skipped, with the reason."""
    write(tmp_path, "sphinx/conf.py", "project = 'x'\n")
    write(tmp_path, "sphinx/index.rst", "Title\n=====\n\nText.\n")
    shutil.copytree(SITES / "sphinx", tmp_path / "sphinx" / "_build" / "html")
    write(tmp_path, "split/source/conf.py", "project = 'x'\n")
    write(tmp_path, "split/source/index.rst", "Title\n=====\n\nText.\n")
    shutil.copytree(SITES / "sphinx", tmp_path / "split" / "build" / "html")
    write(tmp_path, "mk/mkdocs.yml", "site_name: x\n")
    write(tmp_path, "mk/docs/index.md", "# Home\n")
    shutil.copytree(SITES / "mkdocs", tmp_path / "mk" / "site")
    found = discover([tmp_path], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == [
        "mk/docs/index.md", "mk/mkdocs.yml", "sphinx/conf.py", "sphinx/index.rst", "split/source/conf.py",
        "split/source/index.rst"]
    assert sorted(found.skipped) == ["mk/site/", "sphinx/_build/", "split/build/"]
    assert found.skipped["sphinx/_build/"] == (
        "Sphinx build output (the sources beside it, built again as HTML), not a page")


def test_a_folder_named_like_a_build_without_its_builder_beside_it_is_indexed(tmp_path: Path, write) -> None:
    write(tmp_path, "site/visit.md", "# Visiting the site\n")
    write(tmp_path, "_build/notes.md", "# Build notes\n")
    write(tmp_path, "build/steps.md", "# Build steps\n")
    found = discover([tmp_path], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["_build/notes.md", "build/steps.md", "site/visit.md"]
    assert found.skipped == {}


def test_a_sphinx_page_is_its_main_content_with_api_entries_as_sections() -> None:
    doc = parse("sphinx", "api.html")
    page = "ferrule.pool — Connection pools"
    assert doc.title == page  # not "… — Ferrule 2.1 documentation"
    text = "\n".join(b.text for b in doc.blocks)
    for chrome in CHROME:
        assert chrome not in text
    headings = [b.heading_path for b in doc.blocks if b.kind == "heading"]
    assert headings == [
        (page,), (page, "Sizing"), (page, "Sizing", "ferrule.pool.Pool"),
        (page, "Sizing", "ferrule.pool.Pool", "ferrule.pool.Pool.acquire"),
        (page, "Sizing", "ferrule.pool.Pool", "ferrule.pool.Pool.drain")]
    by_text = {b.text: b for b in doc.blocks}
    assert by_text["acquire(timeout=None)"].heading_path[-1] == "ferrule.pool.Pool.acquire"  # the signature
    assert by_text["Raises PoolExhausted when none came back in time."].heading_path[-1] == "ferrule.pool.Pool.acquire"
    # Prose after an entry is back in the section that holds the entry.
    assert by_text["Pools are shared between threads without extra locking."].heading_path == (page, "Sizing")
    # A code block stays one block, an admonition stays text.
    assert by_text["from ferrule import Pool\n\npool = Pool(size=8)"].kind == "code"
    assert "A pool larger than the server’s connection limit stalls on the surplus sockets." in by_text


def test_a_classic_sphinx_theme_page_drops_its_sidebar_and_related_bar() -> None:
    doc = parse("sphinx", "guide/intro.html")
    assert doc.title == "Guide"
    assert [(b.kind, b.text) for b in doc.blocks] == [
        ("heading", "Guide"), ("paragraph", "Open a pool once at start-up and close it on shutdown."),
        ("heading", "Retries"),
        ("paragraph", "A request that fails before any byte was sent is retried on a fresh connection.")]


def test_a_heading_that_is_only_a_logo_reads_as_its_alt_text_and_a_toctree_is_dropped() -> None:
    doc = parse("sphinx", "index.html")
    assert [b.heading_path for b in doc.blocks if b.kind == "heading"] == [("Ferrule",), ("Ferrule", "Install")]
    # The toctree links to other pages' sections: an overview page must not match their names.
    assert [b.text for b in doc.blocks if b.kind != "heading"] == [
        "Ferrule is a small HTTP connection library.", "It needs Python 3.8 or later."]


def test_a_mkdocs_material_page_is_its_article() -> None:
    doc = parse("mkdocs", "usage/index.html")
    assert doc.title == "Usage"  # not "Usage - Ferrule"
    text = "\n".join(b.text for b in doc.blocks)
    for chrome in CHROME:
        assert chrome not in text
    assert [b.heading_path for b in doc.blocks if b.kind == "heading"] == [("Usage",), ("Usage", "Timeouts")]
    code = [b for b in doc.blocks if b.kind == "code"]
    assert [b.text for b in code] == [  # one inside a list item too
        'client.get("/health", timeout=2)\nclient.close()', "pip install ferrule\nferrule --version"]
    assert "Set a timeout shorter than the load balancer's idle limit." in text


def test_a_mkdocs_page_of_a_project_theme_without_landmarks_is_its_content_column() -> None:
    """A project's own MkDocs theme (Django REST framework's, Bootstrap): no ``role="main"``,
    ``<main>``, ``<article>`` or generator ``<meta>``; the site menu sits in a ``div.navbar``,
    the search box in a ``role="dialog"`` with its own ``<h3>``, the page's contents in a
    sidebar, the text in ``div#main-content`` after a label linking to the module's source."""
    doc = parse("mkdocs_theme", "retries/index.html")
    assert doc.title == "Retries"  # not "Retries - Ferrule": the MkDocs search script says who built it
    assert [b.heading_path for b in doc.blocks if b.kind == "heading"] == [("Retries",), ("Retries", "Backoff")]
    assert [b.text for b in doc.blocks if b.kind != "heading"] == [
        "A request that fails before any byte was sent is retried on a fresh connection (retry.py).",
        "Each retry waits twice as long as the one before, up to max_backoff seconds."]
    assert [(b.start_line, b.end_line) for b in doc.blocks] == [(55, 55), (56, 56), (57, 57), (58, 58)]


def test_a_dialog_is_not_page_content(tmp_path: Path) -> None:
    """A search box or cookie notice in ``role="dialog"`` is dropped even on a page of no known builder."""
    page = (b"<html><body><div role='dialog'><h3>Search the docs</h3><p>Type to search</p></div>"
            b"<h1>Pools</h1><p>Pools are shared.</p></body></html>")
    doc = REGISTRY.parse(tmp_path / "p.html", page)
    assert [(b.kind, b.text) for b in doc.blocks] == [("heading", "Pools"), ("paragraph", "Pools are shared.")]


def test_a_hit_on_an_api_entry_cites_it_and_get_serves_the_cited_lines(shelf, tmp_path) -> None:
    site = tmp_path / "site"
    shutil.copytree(SITES / "sphinx", site)
    shelf.index([site])
    assert shelf.status().skipped["_sources/"].startswith("Sphinx site machinery")
    hit = shelf.search("PoolExhausted", mode="keyword", k=3).hits[0]
    assert (hit.path, hit.heading_path[-1]) == ("api.html", "ferrule.pool.Pool.acquire")
    cited = shelf.get_document(DocumentRequest(path=hit.path, lines=f"{hit.start_line}-{hit.end_line}"))
    assert (cited.start_line, cited.end_line) == (hit.start_line, hit.end_line)
    assert cited.text == ("ferrule.pool.Pool.acquire\nacquire(timeout=None)\n\n"
                          "Borrow a connection, waiting up to timeout seconds for one to be returned.\n"
                          "Raises PoolExhausted when none came back in time.")
    assert "<" not in shelf.get_document(DocumentRequest(path="api.html", lines="1-200")).text
    section = shelf.get_document(DocumentRequest(path="api.html", section="Sizing"))
    assert "Start with twice the number of worker threads." in section.text


def test_index_says_how_many_paths_it_skipped_and_why(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("DOCSHELF_MODEL", "fake")
    site = tmp_path / "site"
    shutil.copytree(SITES / "mkdocs", site)
    try:
        main(["index", str(site)])
    except SystemExit as done:
        assert done.code in (0, None)
    out = capsys.readouterr().out
    assert "Skipped 4: 4 MkDocs site machinery (`docshelf status` lists each with its reason)." in out


def test_the_watcher_skips_a_changed_file_of_the_machinery_too(shelf, tmp_path) -> None:
    site = tmp_path / "site"
    shutil.copytree(SITES / "sphinx", site)
    shelf.index([site])
    (site / "_sources" / "api.rst.txt").write_text("Pools\n=====\n\nEdited source copy.\n")
    (site / "_static" / "extra.txt").write_text("Theme notes.\n")
    with shelf.writer():
        report = shelf.reindex_paths(site.resolve(), ["_sources/api.rst.txt", "_static"])
    assert (report.added, report.updated) == ([], [])
    assert report.skipped == {
        "_sources/api.rst.txt": "Sphinx site machinery (raw copies of the pages' sources), not a page",
        "_static/": "Sphinx site machinery (theme files and scripts), not a page"}
    assert sorted(r.path for r in shelf.store.records()) == ["api.html", "guide/intro.html", "index.html"]


def test_a_docbook_build_indexes_its_pages_and_skips_the_book_index() -> None:
    """DocBook XSL output (PostgreSQL's manual, Debian's postgresql-doc-15) has no marker files; its
    pages name their generator. ``bookindex.html`` lists every indexed term with links (450 kB,
    153 chunks in PostgreSQL's): it ranked for any identifier. The stylesheet is no document."""
    found = discover([SITES / "docbook"], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == ["index.html", "pool-settings.html", "pool-sizing.html", "pools.html"]
    assert found.skipped["bookindex.html"] == "DocBook site machinery (the book's index of terms), not a page"
    assert "bookindex.html" not in [f.rel_path for f in discover([SITES / "sphinx"], registry=REGISTRY).files]


def test_a_docbook_page_is_its_text_without_navigation_tables_and_contents() -> None:
    """Every DocBook page opens with a ``div.navheader`` table ("Prev Up <chapter> Home Next") and
    ends with a ``div.navfooter`` one; a chapter or section lists its parts in a ``div.toc`` (and
    ``div.list-of-tables``). All were read as text: 2,334 of the manual's 11,836 chunks held
    "Prev | Up", a chapter page was its contents list, and a question about pg_stat_activity
    ranked the monitoring chapter's contents first."""
    chapter = parse("docbook", "pools.html")
    assert chapter.title == "Chapter 4. Pools"
    assert [(b.kind, b.text) for b in chapter.blocks] == [
        ("heading", "Chapter 4. Pools"), ("paragraph", "A pool shares connections between threads.")]
    page = parse("docbook", "pool-sizing.html")
    text = "\n".join(b.text for b in page.blocks)
    for chrome in ("Prev", "Up", "Home", "Next", "Table of Contents", "4.3. Retries", "Chapter 4. Pools"):
        assert chrome not in text
    assert [b.text for b in page.blocks if b.kind == "heading"] == [
        "4.2. Pool Sizing", "4.2.1. Limits", "4.2.2. Idle Connections"]
    assert {b.kind for b in page.blocks} == {"heading", "paragraph"}


def test_a_docbook_admonition_is_part_of_its_section() -> None:
    """DocBook titles a note with a heading tag (``<div class="note"><h3 class="title">Note</h3>``):
    read as a heading, "Note" became a section that took over the rest of its section, up to the
    next heading (PostgreSQL's wait-event tables cited as "28.2 › Note", not "28.2.3.
    pg_stat_activity"). The label stays as text; the section goes on."""
    page = parse("docbook", "pool-sizing.html")
    limits = [b for b in page.blocks if b.heading_path == ("4.2. Pool Sizing", "4.2.1. Limits")]
    assert [(b.kind, b.text, b.start_line) for b in limits] == [
        ("heading", "4.2.1. Limits", 4),
        ("paragraph", "Start with twice the number of worker threads.", 4),
        ("paragraph", "Note", 6),
        ("paragraph", "The limit counts connections being opened.", 6),
        ("paragraph", "A borrower waits at most acquire_timeout seconds.", 8)]
    assert all("Note" not in b.heading_path for b in page.blocks)


def test_a_docbook_parameter_with_an_anchor_is_a_section_of_its_own() -> None:
    """PostgreSQL's configuration parameters are ``variablelist`` entries whose term carries an
    id (``<dt id="GUC-MAX-CONNECTIONS">``): read as paragraphs, a hit on ``max_connections`` cited
    "20.3.1. Connection Settings", dozens of parameters. Each anchored entry is now a section
    titled by its term, as a Sphinx ``confval`` is; a list without anchors stays as it was."""
    page = parse("docbook", "pool-settings.html")
    limits = ("4.4. Pool Settings", "4.4.1. Limit Settings")
    max_size, acquire = (*limits, "max_size (integer)"), (*limits, "acquire_timeout (integer)")
    assert [(b.kind, b.text, b.heading_path) for b in page.blocks[1:10]] == [
        ("heading", "4.4.1. Limit Settings", limits),
        ("heading", "max_size (integer)", max_size),
        ("paragraph", "max_size (integer)", max_size),  # the term stays text: the entry's cited lines name it
        ("paragraph", "The most connections the pool holds. The default is 10.", max_size),
        ("paragraph", "Set it below the server's connection limit.", max_size),
        ("heading", "acquire_timeout (integer)", acquire),
        ("paragraph", "acquire_timeout (integer)", acquire),
        ("paragraph", "Seconds a borrower waits for a free connection.", acquire),
        ("paragraph", "Both are read when the pool starts.", limits)]  # the section goes on after the list
    entry = page.blocks[2]
    assert (entry.level, entry.start_line) == (4, 2)
    modes = [(b.kind, b.text) for b in page.blocks if b.heading_path[-1:] == ("4.4.2. Modes",)]
    assert modes == [("heading", "4.4.2. Modes"), ("paragraph", "eager"), ("paragraph", "Opens every connection at start."),
                     ("paragraph", "lazy"), ("paragraph", "Opens connections on demand.")]


def test_get_finds_a_docbook_section_by_its_title_without_the_label(shelf, tmp_path) -> None:
    """`get --section Pools` said "no section 'Pools'; its sections are: Chapter 4. Pools"."""
    site = tmp_path / "manual"
    shutil.copytree(SITES / "docbook", site)
    shelf.index([site])
    assert "A pool shares connections" in shelf.get_document(DocumentRequest(path="pools.html", section="Pools")).text
    limits = shelf.get_document(DocumentRequest(path="pool-sizing.html", section="Pool Sizing > Limits")).text
    assert "acquire_timeout" in limits and "idle_timeout" not in limits


def _docusaurus_site(root: Path, write) -> None:
    """The files of Docusaurus' classic template (create-docusaurus 3.10) that are settings, beside pages."""
    write(root, "docusaurus.config.ts", "export default {title: 'My Site', url: 'https://example.com'};\n")
    write(root, "sidebars.ts", "export default {tutorialSidebar: [{type: 'autogenerated', dirName: '.'}]};\n")
    write(root, "docs/intro.md", "# Tutorial Intro\n\nLet's discover Docusaurus in less than 5 minutes.\n")
    write(root, "docs/tutorial-basics/_category_.json",
          '{"label": "Tutorial - Basics", "position": 2, "link": {"type": "generated-index"}}\n')
    write(root, "docs/tutorial-basics/create-a-page.md", "# Create a Page\n\nAdd Markdown files to create pages.\n")
    write(root, "blog/authors.yml", "yangshun:\n  name: Yangshun Tay\n  title: Front End Engineer @ Facebook\n")
    write(root, "blog/tags.yml", "facebook:\n  label: Facebook\n  permalink: /facebook\n")
    write(root, "blog/2021-08-01-mdx-blog-post.mdx", "---\nauthors: [yangshun]\n---\n\n# MDX Blog Post\n\nBlog text.\n")


def test_docusaurus_settings_files_are_skipped_inside_a_docusaurus_site(tmp_path: Path, write) -> None:
    """`_category_.json`, `sidebars.ts`, the blog's `authors.yml` and `tags.yml` were indexed as
    documents of labels and URLs. Inside a site (its config here or above the indexed root) they are
    skipped with their reason; the same names in any other project are indexed as before."""
    _docusaurus_site(tmp_path / "website", write)
    found = discover([tmp_path / "website"], registry=REGISTRY)
    assert [f.rel_path for f in found.files] == [
        "blog/2021-08-01-mdx-blog-post.mdx", "docs/intro.md", "docs/tutorial-basics/create-a-page.md",
        "docusaurus.config.ts"]
    assert sorted(found.skipped) == ["blog/authors.yml", "blog/tags.yml", "docs/tutorial-basics/_category_.json",
                                     "sidebars.ts"]
    assert found.skipped["blog/authors.yml"] == "Docusaurus site settings (the blog's list of authors), not a page"
    # only its docs folder indexed: the config above the root still tells
    inner = discover([tmp_path / "website" / "docs"], registry=REGISTRY)
    assert [f.rel_path for f in inner.files] == ["intro.md", "tutorial-basics/create-a-page.md"]
    # no Docusaurus config: the same names are ordinary files
    write(tmp_path / "project", "tags.yml", "release:\n  label: Release\n")
    write(tmp_path / "project", "sidebars.js", "module.exports = {};\n")
    write(tmp_path / "project", "docs/_category_.json", '{"label": "Docs"}\n')
    plain = discover([tmp_path / "project"], registry=REGISTRY)
    assert [f.rel_path for f in plain.files] == ["docs/_category_.json", "sidebars.js", "tags.yml"]
    assert not plain.skipped
