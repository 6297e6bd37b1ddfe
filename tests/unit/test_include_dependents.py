"""Pages that include other files are parsed again when one of those files changes, is
deleted or comes back, although their own bytes did not change (``pipeline.dependents``)."""

from __future__ import annotations

import os
import time

import pytest


from docshelf.stores.lancedb_store import LanceStore

PAGE = '# Tutorial\n\nStart the app like this.\n\n{* docs_src/app.py *}\n'


@pytest.fixture
def shelf(make_shelf, fake_embedder):
    """Examples are excluded from indexing, as sites often do: only the pages show them."""
    return make_shelf(fake_embedder, exclude=["docs_src/"])


def page_text(shelf, path: str = "tutorial.md") -> str:
    return shelf.get_document(path).text


def keyword(shelf, word: str) -> set[str]:
    return {h.path for h in shelf.search(word, k=20, mode="keyword").hits}


def backdate(*paths, seconds: float = 3600) -> None:
    """An mtime well before the next read, so the racy-clean rule does not re-check it."""
    then = time.time() - seconds
    for path in paths:
        os.utime(path, (then, then))


def test_a_page_follows_a_code_file_it_includes_through_edit_delete_and_return(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "tutorial.md", PAGE)
    app = write(docs, "docs_src/app.py", "app = Flamingo()\n")  # excluded: not a document, only included
    report = shelf.index([docs])
    assert report.added == ["tutorial.md"]
    assert "Flamingo" in page_text(shelf) and keyword(shelf, "flamingo") == {"tutorial.md"}

    app.write_text("app = Heron()\n")
    report = shelf.index([docs])
    assert (report.added, report.updated, report.removed) == ([], ["tutorial.md"], [])
    assert "Heron" in page_text(shelf) and "Flamingo" not in page_text(shelf)
    assert (keyword(shelf, "heron"), keyword(shelf, "flamingo")) == ({"tutorial.md"}, set())

    app.unlink()
    report = shelf.index([docs])
    assert report.updated == ["tutorial.md"] and report.failed == {}
    assert "Heron" not in page_text(shelf) and keyword(shelf, "heron") == set()
    record = shelf.find_document("tutorial.md")
    assert (record.includes, record.status) == ((), "indexed")
    assert "docs_src/app.py" in record.include_missing

    write(docs, "docs_src/app.py", "app = Ibis()\n")
    report = shelf.index([docs])
    assert report.updated == ["tutorial.md"]
    assert "Ibis" in page_text(shelf) and keyword(shelf, "ibis") == {"tutorial.md"}
    assert shelf.find_document("tutorial.md").includes == ("docs_src/app.py",)


def test_an_unchanged_include_does_not_reparse_its_page(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    backdate(write(docs, "tutorial.md", PAGE), write(docs, "docs_src/app.py", "app = Flamingo()\n"))
    shelf.index([docs])
    report = shelf.index([docs])
    assert (report.updated, report.unchanged, report.chunks_embedded) == ([], 1, 0)


def test_a_nested_include_and_a_page_and_snippet_both_indexed(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "guide/page.md", '# Page\n\nIntro.\n\n--8<-- "snippets/outer.md"\n')
    write(docs, "snippets/outer.md", 'Outer part.\n\n--8<-- "snippets/inner.md"\n')
    inner = write(docs, "snippets/inner.md", "the old walrus\n")
    shelf.index([docs])
    inner.write_text("the new narwhal\n")
    report = shelf.index([docs])
    assert sorted(report.updated) == ["guide/page.md", "snippets/inner.md", "snippets/outer.md"]
    assert keyword(shelf, "walrus") == set()
    assert keyword(shelf, "narwhal") == {"guide/page.md", "snippets/inner.md", "snippets/outer.md"}
    assert shelf.find_document("guide/page.md").includes == ("snippets/outer.md", "snippets/inner.md")


def test_a_live_update_of_an_included_path_reparses_the_pages_elsewhere(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "a/tutorial.md", PAGE)
    write(docs, "b/other.md", "# Other\n\nno includes here\n")
    app = write(docs, "docs_src/app.py", "app = Flamingo()\n")
    shelf.index([docs])
    app.write_text("app = Heron()\n")
    report = shelf.reindex_paths(docs, ["docs_src/app.py"])  # what the watcher hands over
    assert (report.added, report.updated, report.removed) == ([], ["a/tutorial.md"], [])
    assert keyword(shelf, "heron") == {"a/tutorial.md"} and keyword(shelf, "flamingo") == set()
    app.unlink()
    assert shelf.reindex_paths(docs, ["docs_src/app.py"]).updated == ["a/tutorial.md"]
    assert keyword(shelf, "heron") == set()
    (docs / "docs_src").rmdir()
    write(docs, "docs_src/app.py", "app = Ibis()\n")
    assert shelf.reindex_paths(docs, ["docs_src"]).updated == ["a/tutorial.md"]  # a folder event
    assert keyword(shelf, "ibis") == {"a/tutorial.md"}


def test_an_index_written_before_include_records_opens_and_learns_them_from_its_chunks(
    write, tmp_path, make_shelf, fake_embedder
):
    docs = tmp_path / "docs"
    write(docs, "tutorial.md", PAGE)
    write(docs, "plain.md", "# Plain\n\nno includes\n")
    app = write(docs, "docs_src/app.py", "app = Flamingo()\n")
    shelf = make_shelf(fake_embedder, exclude=["docs_src/"])
    shelf.index([docs])
    store = shelf.store
    assert isinstance(store, LanceStore)
    store._docs.drop_columns(["includes", "include_missing"])  # the records table as older releases made it
    shelf = make_shelf(fake_embedder, exclude=["docs_src/"])
    assert shelf.find_document("tutorial.md").includes == ()  # a reader sees "includes nothing"
    app.write_text("app = Heron()\n")  # changed before the first run of this release
    report = shelf.index([docs])
    assert (report.updated, report.unchanged) == (["tutorial.md"], 1)  # the upgrade read the chunks' metadata
    assert keyword(shelf, "heron") == {"tutorial.md"} and keyword(shelf, "flamingo") == set()
    records = {r.path: r for r in shelf.store.records()}
    assert (records["tutorial.md"].includes, records["plain.md"].includes) == (("docs_src/app.py",), ())
    assert {"includes", "include_missing"} <= set(shelf.store._docs.schema.names)


def test_a_frontmatter_field_named_includes_is_not_read_as_paths(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "note.md", "---\nincludes: every weekday\n---\n# Note\n\ntext\n")
    shelf.index([docs])
    assert shelf.find_document("note.md").includes == ()


