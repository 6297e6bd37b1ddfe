"""Every store re-parses a page when a file it includes is edited, deleted or added back (the
document records keep the included paths on every backend), in a full run and a live update."""

from __future__ import annotations

import pytest

PAGE = '# Retries\n\nThe client retries failed requests.\n\n--8<-- "snippets/budget.md"\n'


def found(shelf, word: str) -> set[str]:
    shelf.store.refresh()
    return {h.path for h in shelf.search(word, k=20, mode="keyword").hits}


def test_a_page_follows_the_snippet_it_includes_on_every_backend(backend_shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "guide/retries.md", PAGE)
    snippet = write(docs, "snippets/budget.md", "The budget is seventeen attempts.\n")
    shelf = backend_shelf()
    shelf.index([docs])
    assert found(shelf, "seventeen") == {"guide/retries.md", "snippets/budget.md"}

    snippet.write_text("The budget is forty attempts.\n")
    assert sorted(shelf.index([docs]).updated) == ["guide/retries.md", "snippets/budget.md"]
    assert (found(shelf, "seventeen"), found(shelf, "forty")) == (set(), {"guide/retries.md", "snippets/budget.md"})
    assert "forty" in shelf.get_document("guide/retries.md").text

    snippet.unlink()
    report = shelf.index([docs])
    assert (report.updated, report.removed, report.failed) == (["guide/retries.md"], ["snippets/budget.md"], {})
    assert found(shelf, "forty") == set() and "forty" not in shelf.get_document("guide/retries.md").text
    assert shelf.find_document("guide/retries.md").include_missing  # where it will be looked for

    write(docs, "snippets/budget.md", "The budget is ninety attempts.\n")
    assert shelf.index([docs]).updated == ["guide/retries.md"]
    assert found(shelf, "ninety") == {"guide/retries.md", "snippets/budget.md"}
    assert shelf.find_document("guide/retries.md").includes == ("snippets/budget.md",)

    snippet.write_text("The budget is zero attempts.\n")  # a live update names only the snippet
    report = shelf.reindex_paths(docs, ["snippets/budget.md"])
    assert sorted(report.updated) == ["guide/retries.md", "snippets/budget.md"]
    assert (found(shelf, "ninety"), found(shelf, "zero")) == (set(), {"guide/retries.md", "snippets/budget.md"})


def test_a_postgres_index_from_before_include_records_learns_them_when_opened(request, write, tmp_path):
    from backend_urls import fresh_url
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    docs = tmp_path / "docs"
    write(docs, "guide/retries.md", PAGE)
    snippet = write(docs, "snippets/budget.md", "The budget is seventeen attempts.\n")
    settings = Settings(index_dir=tmp_path / "index", store=fresh_url("postgres", request, tmp_path))
    shelf = Docshelf(settings, embedder=FakeEmbedder())
    shelf.index([docs])
    store = shelf.store
    with store._write() as cur:  # the records and schema version as store schema 2 left them
        cur.execute(f"UPDATE {store._t('documents')} SET record = record - 'includes' - 'include_missing'")
        cur.execute(f"UPDATE {store._t('meta')} SET value = '2' WHERE key = 'store_schema'")
    shelf.release_writer()
    store.close()
    snippet.write_text("The budget is forty attempts.\n")  # changed before the first run of this release
    shelf = Docshelf(settings, embedder=FakeEmbedder())
    try:
        assert shelf.find_document("guide/retries.md").includes == ("snippets/budget.md",)
        assert sorted(shelf.index([docs]).updated) == ["guide/retries.md", "snippets/budget.md"]
        assert (found(shelf, "seventeen"), found(shelf, "forty")) == (set(), {"guide/retries.md", "snippets/budget.md"})
    finally:
        shelf.release_writer()
        shelf.store.close()


def _strip_include_fields(shelf, backend: str, schema_was: int) -> None:
    """Make the index look as a docshelf from before include records left it: records without
    ``includes`` / ``include_missing`` (and the store's own marker of that upgrade undone)."""
    store = shelf.store
    if backend == "postgres":
        with store._write() as cur:
            cur.execute(f"UPDATE {store._t('documents')} SET record = record - 'includes' - 'include_missing'")
            cur.execute(f"UPDATE {store._t('meta')} SET value = %s WHERE key = 'store_schema'", (str(schema_was),))
    else:
        from docshelf.stores.qdrant_store import point_id

        keys = [p.id for p in store._scroll(store.docs)]
        store.client.delete_payload(store.docs, keys=["includes", "include_missing"], points=keys, wait=True)
        store.client.delete(store.meta, points_selector=[point_id("records")], wait=True)


@pytest.mark.parametrize("backend", ["postgres", "qdrant"])
def test_an_index_from_before_include_records_learns_them_as_lists_of_paths(backend, request, write, tmp_path):
    """Both server stores fill the fields from each page's first chunk's metadata (as LanceDB
    does), by the indexer's rule: a frontmatter field named ``includes`` that is not a list of
    paths lists nothing (PostgreSQL's schema 3 copied the string; a schema-4 index repairs it),
    and Qdrant fills them at all (it did not: a page whose snippet changed before the first run
    of this release was not re-parsed)."""
    from backend_urls import fresh_url
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    docs = tmp_path / "docs"
    write(docs, "guide/retries.md", PAGE)
    write(docs, "notes/plan.md", "---\nincludes: the whole team\n---\n# Plan\n\nA plan for everyone.\n")
    snippet = write(docs, "snippets/budget.md", "The budget is seventeen attempts.\n")
    settings = Settings(index_dir=tmp_path / "index", store=fresh_url(backend, request, tmp_path))
    shelf = Docshelf(settings, embedder=FakeEmbedder())
    shelf.index([docs])
    _strip_include_fields(shelf, backend, schema_was=2)
    shelf.release_writer()
    shelf.store.close()
    snippet.write_text("The budget is forty attempts.\n")
    shelf = Docshelf(settings, embedder=FakeEmbedder())
    try:
        assert sorted(shelf.index([docs]).updated) == ["guide/retries.md", "snippets/budget.md"]
        assert (found(shelf, "seventeen"), found(shelf, "forty")) == (set(), {"guide/retries.md", "snippets/budget.md"})
        plan = shelf.find_document("notes/plan.md")
        assert (plan.includes, plan.include_missing) == ((), ())
        if backend == "postgres":  # an index that ran the old schema 3 step is repaired when opened
            store = shelf.store
            with store._write() as cur:
                cur.execute(f"UPDATE {store._t('documents')} SET record = record || "
                            """'{"includes": "the whole team"}'::jsonb WHERE path = 'notes/plan.md'""")
                cur.execute(f"UPDATE {store._t('meta')} SET value = '3' WHERE key = 'store_schema'")
            shelf.release_writer()
            store.close()
            shelf = Docshelf(settings, embedder=FakeEmbedder())
            assert shelf.find_document("notes/plan.md").includes == ()
            assert shelf.find_document("guide/retries.md").includes == ("snippets/budget.md",)
    finally:
        shelf.release_writer()
        shelf.store.close()
