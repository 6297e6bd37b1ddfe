"""Incremental indexing: unchanged, edited, deleted, renamed, same-named files, failures, manifest."""

from __future__ import annotations

import os
import time
from types import SimpleNamespace

import pytest

from docshelf.embedders.fake import FakeEmbedder
from docshelf.errors import EmbedderMismatch, IndexLocked
from docshelf.service import Docshelf


def paths_found(shelf: Docshelf, query: str, mode: str = "keyword") -> set[str]:
    return {h.path for h in shelf.search(query, k=20, mode=mode).hits}


def test_unchanged_files_are_not_reembedded(write, tmp_path, shelf, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# Alpha\n\nThe alpha guide explains rotation.")
    write(docs, "b.md", "# Beta\n\nThe beta guide explains scopes.")
    first = shelf.index([docs])
    assert (sorted(first.added), first.chunks_embedded) == (["a.md", "b.md"], 2)
    embedded = fake_embedder.texts_embedded
    again = shelf.index([docs])
    assert (again.added, again.updated, again.unchanged, again.chunks_embedded) == ([], [], 2, 0)
    assert fake_embedder.texts_embedded == embedded


def test_touched_but_identical_file_is_recognised_by_hash(write, tmp_path, shelf, fake_embedder):
    docs = tmp_path / "docs"
    path = write(docs, "a.md", "# Alpha\n\nSame content.")
    shelf.index([docs])
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    before = fake_embedder.texts_embedded
    report = shelf.index([docs])
    assert (report.unchanged, report.updated, fake_embedder.texts_embedded) == (1, [], before)
    # The new mtime was recorded: a third run takes the fast path again.
    assert shelf.index([docs]).unchanged == 1


def test_an_edit_that_keeps_size_and_mtime_right_after_indexing_is_still_found(write, tmp_path, shelf):
    """A coarse filesystem clock (FAT: 2 s) gives an edit made just after the read the same
    mtime: a file whose mtime was that close to the read is hashed again (git's racy rule)."""
    docs = tmp_path / "docs"
    path = write(docs, "a.md", "# Alpha\n\nOriginal wording about zebras.")
    before = path.stat()
    shelf.index([docs])
    path.write_text("# Alpha\n\nOriginal wording about zebrax.")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # what the coarse clock would show
    assert path.stat().st_size == before.st_size
    report = shelf.index([docs])
    assert report.updated == ["a.md"]
    assert paths_found(shelf, "zebrax") == {"a.md"}


def test_a_file_is_read_again_only_while_its_stat_cannot_vouch_for_it(write, tmp_path, shelf, monkeypatch):
    from docshelf.pipeline import indexer

    docs = tmp_path / "docs"
    old = write(docs, "old.md", "# Old\n\nan old note about otters")
    hour_ago = old.stat().st_mtime_ns - 3_600 * 10**9
    os.utime(old, ns=(hour_ago, hour_ago))
    write(docs, "new.md", "# New\n\njust written about beavers")  # read within a second of its mtime
    shelf.index([docs])
    hashed: list[int] = []
    real = indexer.sha256_bytes
    monkeypatch.setattr(indexer, "sha256_bytes", lambda data: hashed.append(len(data)) or real(data))
    assert shelf.index([docs]).unchanged == 2
    assert len(hashed) == 1  # new.md only: its stat may hide an edit; old.md's cannot
    # Read again a few seconds later, its record vouches for it from then on.
    now = time.time()
    monkeypatch.setattr(indexer, "time", SimpleNamespace(time=lambda: now + 10, monotonic=time.monotonic))
    shelf.index([docs])
    monkeypatch.setattr(indexer, "time", SimpleNamespace(time=lambda: now + 20, monotonic=time.monotonic))
    hashed.clear()
    assert shelf.index([docs]).unchanged == 2
    assert hashed == []


def test_edited_file_replaces_its_chunks(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    path = write(docs, "a.md", "# Alpha\n\nOriginal wording about zebras.")
    shelf.index([docs])
    path.write_text("# Alpha\n\nNew wording about giraffes.")
    report = shelf.index([docs])
    assert report.updated == ["a.md"]
    assert paths_found(shelf, "zebras") == set()
    assert paths_found(shelf, "giraffes") == {"a.md"}
    assert shelf.store.count_chunks() == 1


def test_deleted_file_is_pruned(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "keep.md", "# Keep\n\nkeep this walrus")
    gone = write(docs, "gone.md", "# Gone\n\ndelete this walrus")
    shelf.index([docs])
    gone.unlink()
    report = shelf.index([docs])
    assert report.removed == ["gone.md"]
    assert paths_found(shelf, "walrus") == {"keep.md"}
    assert [r.path for r in shelf.store.records()] == ["keep.md"]


def test_renamed_file_old_path_gone_new_path_found(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    old = write(docs, "old/name.md", "# Guide\n\nThe platypus configuration guide.")
    shelf.index([docs])
    (docs / "new").mkdir()
    old.rename(docs / "new" / "name.md")
    report = shelf.index([docs])
    assert (report.removed, report.added) == (["old/name.md"], ["new/name.md"])
    assert paths_found(shelf, "platypus") == {"new/name.md"}


def test_same_named_files_in_different_folders_are_two_documents(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "api/README.md", "# API\n\nThe API readme mentions okapi.")
    write(docs, "cli/README.md", "# CLI\n\nThe CLI readme mentions okapi.")
    shelf.index([docs])
    assert paths_found(shelf, "okapi") == {"api/README.md", "cli/README.md"}


def test_corrupt_file_is_recorded_as_failed_and_the_rest_is_indexed(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "good.md", "# Good\n\nA healthy document about lemurs.")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    report = shelf.index([docs])
    assert report.added == ["good.md"]
    assert list(report.failed) == ["broken.pdf"] and report.failed["broken.pdf"]
    status = shelf.status()
    assert (status.documents, list(status.failed)) == (1, ["broken.pdf"])
    assert paths_found(shelf, "lemurs") == {"good.md"}
    # Not retried while unchanged, but still reported as failed (as `status` does); retried when it changes.
    again = shelf.index([docs])
    assert (again.added, again.updated, again.unchanged, again.failed) == ([], [], 2, status.failed)
    (docs / "broken.pdf").unlink()
    write(docs, "broken.md", "# Fixed\n\nNow about lemurs too.")
    shelf.index([docs])
    assert shelf.status().failed == {}


def test_previously_good_file_that_breaks_keeps_its_last_good_version(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    path = write(docs, "notes.txt", "Capybara notes that index fine.")
    shelf.index([docs])
    path.write_bytes(b"binary\x00garbage")
    report = shelf.index([docs])
    assert list(report.failed) == ["notes.txt"]
    assert paths_found(shelf, "capybara") == {"notes.txt"}
    assert shelf.status().failed["notes.txt"] == report.failed["notes.txt"]


def test_force_reembeds_everything(write, tmp_path, shelf, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    shelf.index([docs])
    before = fake_embedder.texts_embedded
    report = shelf.index([docs], force=True)
    assert report.added == ["a.md"] and fake_embedder.texts_embedded == before + 1


def test_dry_run_lists_and_changes_nothing(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    (docs / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    report = shelf.index([docs], dry_run=True)
    assert report.added == ["a.md"]
    assert report.skipped["image.png"] == "unsupported format"
    assert shelf.store.count_chunks() == 0 and shelf.store.records() == []


def test_indexing_one_root_does_not_prune_another(write, tmp_path, shelf):
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, "a.md", "# A\n\nnarwhal one")
    write(two, "b.md", "# B\n\nnarwhal two")
    shelf.index([one])
    shelf.index([two])
    assert paths_found(shelf, "narwhal") == {"a.md", "b.md"}
    assert sorted(str(r) for r in shelf.roots) == sorted([str(one.resolve()), str(two.resolve())])
    # With no paths, every known root is refreshed.
    (one / "a.md").unlink()
    assert shelf.index().removed == ["a.md"]


def test_collections_and_doc_types_from_rules_and_frontmatter(write, tmp_path, make_shelf, fake_embedder):
    shelf = make_shelf(
        fake_embedder,
        collections=[{"name": "vendor-docs", "include": ["**/vast/**"], "doc_type": "manual"}],
        doc_types=[{"doc_type": "glossary", "include": ["**/definitions/*"]}],
    )
    docs = tmp_path / "docs"
    write(docs, "x/vast/setup.md", "# Setup\n\nvast setup")
    write(docs, "3_Resources/definitions/token.md", "# Token\n\ndefinition of token")
    write(docs, "faq.md", "---\ntype: FAQ\n---\n# FAQ\n\nquestions")
    shelf.index([docs])
    got = {r.path: (r.collection, r.doc_type) for r in shelf.store.records()}
    assert got == {
        "x/vast/setup.md": ("vendor-docs", "manual"),
        "3_Resources/definitions/token.md": ("default", "glossary"),
        "faq.md": ("default", "faq"),
    }


def test_opening_an_index_with_another_model_is_refused(write, tmp_path, make_shelf):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    make_shelf(FakeEmbedder(64)).index([docs])
    with pytest.raises(EmbedderMismatch) as info:
        make_shelf(FakeEmbedder(32))
    message = str(info.value)
    assert "fake-64 (64-d)" in message and "fake-32 (32-d)" in message and "docshelf index --force" in message


def test_changed_chunk_settings_are_refused_too(write, tmp_path, make_shelf, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    make_shelf(fake_embedder).index([docs])
    with pytest.raises(EmbedderMismatch, match="chunker"):
        make_shelf(fake_embedder, chunk_tokens=128)


def test_a_second_writer_is_refused_while_the_first_holds_the_lock(write, tmp_path, make_shelf, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    first, second = make_shelf(fake_embedder), make_shelf(FakeEmbedder())
    with first.writer():
        with pytest.raises(IndexLocked, match="another docshelf process"):
            second.index([docs], lock_timeout=0.1)
    assert second.index([docs]).added == ["a.md"]


def test_a_refused_writer_names_the_watch_that_holds_the_index(write, tmp_path, make_shelf, fake_embedder):
    """`docshelf index` beside a running `docshelf watch` said "a running `docshelf serve` keeps
    it up to date": name the process that holds the index (its query-socket announcement)."""
    from docshelf.live.query_socket import QueryServer

    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    first, second = make_shelf(fake_embedder), make_shelf(FakeEmbedder())
    server = QueryServer(first.index_dir, first.search, "key", "watch")
    assert server.start()
    try:
        with first.writer(), pytest.raises(IndexLocked) as info:
            second.index([docs], lock_timeout=0.1)
    finally:
        server.close()
    assert f": docshelf watch (pid {os.getpid()}) holds it and keeps its folders up to date itself" in str(info.value)


def test_get_document_reassembles_all_chunks_in_order(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    sections = "\n\n".join(f"## Part {i}\n\n" + f"Paragraph {i} " * 200 for i in range(1, 5))
    write(docs, "long.md", "# Long\n\n" + sections)
    shelf.index([docs])
    doc = shelf.get_document("long.md")
    assert doc.total_chunks > 4
    for i in range(1, 5):
        assert doc.text.count(f"## Part {i}") == 1
        assert doc.text.count(f"Paragraph {i}") == 200
    part = shelf.get_document("long.md", section="Part 3")
    assert "Paragraph 3" in part.text and "Paragraph 2" not in part.text


def test_large_index_gets_a_vector_index_and_still_finds_documents(write, tmp_path, shelf):
    shelf.store.vector_index_min_rows = 50  # the real threshold is 50,000 chunks
    docs = tmp_path / "docs"
    for i in range(60):
        write(docs, f"d{i}.md", f"# Doc {i}\n\nanimal{i} lives in habitat{i}")
    shelf.index([docs])
    assert shelf.store.has_vector_index()
    hits = shelf.search("animal42 lives in habitat42", k=1, mode="semantic").hits
    assert [h.path for h in hits] == ["d42.md"]


def test_large_index_gets_filter_indexes_and_filters_still_apply(write, tmp_path, shelf):
    shelf.store.scalar_index_min_rows = 20  # the real threshold is 10,000 chunks
    docs = tmp_path / "docs"
    for i in range(24):
        meta = f"date: 202{i % 3}-05-0{1 + i % 5}\ntype: {'memo' if i % 2 else 'page'}\n"
        write(docs, f"d{i}.md", f"---\n{meta}---\n# Doc {i}\n\nanimal{i} lives in habitat{i}")
    shelf.index([docs])
    assert shelf.store.scalar_indexes() == ["collection", "date", "doc_type", "id"]
    by_date = shelf.search("animal lives in habitat", k=50, mode="hybrid", date_from="2021-01-01", date_to="2021-12-31")
    assert sorted(h.path for h in by_date.hits) == sorted(f"d{i}.md" for i in range(24) if i % 3 == 1)
    by_type = shelf.search("animal lives in habitat", k=50, mode="keyword", doc_types=["memo"])
    assert sorted(h.path for h in by_type.hits) == sorted(f"d{i}.md" for i in range(24) if i % 2)
    assert shelf.search("animal lives in habitat", k=50, mode="semantic", collections=["elsewhere"]).hits == ()
    assert {c.id for c in shelf.store.get_chunks([h.chunk_id for h in by_date.hits])} == {h.chunk_id for h in by_date.hits}


def test_editing_one_section_reembeds_only_that_chunk(write, tmp_path, shelf, fake_embedder):
    docs = tmp_path / "docs"
    sections = {name: f"## {name}\n\n" + f"{name} words " * 60 for name in ("Alpha", "Beta", "Gamma")}
    path = write(docs, "big.md", "# Big\n\n" + "\n\n".join(sections.values()))
    first = shelf.index([docs])
    assert first.chunks_embedded == 3
    path.write_text(path.read_text().replace("Beta words", "Beta changed", 1))
    before = fake_embedder.texts_embedded
    report = shelf.index([docs])
    assert (report.updated, report.chunks_embedded, fake_embedder.texts_embedded - before) == (["big.md"], 1, 1)
    assert shelf.store.count_chunks() == 3
    hits = shelf.search("changed", k=1, mode="keyword").hits
    assert hits[0].heading_path == ("Big", "Beta")


def test_frontmatter_aliases_are_kept_on_the_record(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "token.md", "---\naliases: [API key, ait]\n---\n# Ingest token\n\nThe credential.")
    write(docs, "one.md", "---\naliases: solo\n---\n# One\n\ntext")
    shelf.index([docs])
    assert {r.path: r.aliases for r in shelf.store.records()} == {"token.md": ("API key", "ait"), "one.md": ("solo",)}


def test_an_index_of_another_schema_version_is_refused(write, tmp_path, make_shelf, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    shelf = make_shelf(fake_embedder)
    shelf.index([docs])
    manifest = shelf.store.read_manifest()
    shelf.store.write_manifest({**manifest, "schema_version": 1})
    with pytest.raises(EmbedderMismatch, match="schema_version 1.*docshelf index --force"):
        make_shelf(fake_embedder)


def test_the_records_a_run_hands_back_are_the_stored_ones(write, tmp_path, shelf):
    from docshelf.pipeline.indexer import Indexer

    docs = tmp_path / "docs"
    for name in ("a", "b", "c"):
        write(docs, f"{name}.md", f"# {name}\n\nthe {name} note about lemurs")
    indexer = Indexer(shelf.settings, shelf.store, shelf.embedder, shelf.registry, shelf.chunker)
    indexer.run([docs])
    write(docs, "a.md", "# a\n\nthe a note, edited")
    (docs / "b.md").unlink()
    write(docs, "d.md", "# d\n\na new note")
    (docs / "bad.pdf").write_bytes(b"%PDF-1.4 not really a pdf")
    report = indexer.run([docs])
    assert (report.added, report.updated, report.removed, list(report.failed)) == (["d.md"], ["a.md"], ["b.md"], ["bad.pdf"])

    def key(r):
        return r.path

    assert sorted(indexer.records_after, key=key) == sorted(shelf.store.records(), key=key)


def test_a_small_change_to_a_large_index_leaves_compaction_to_a_later_run(write, tmp_path, shelf, monkeypatch):
    from docshelf import service

    docs = tmp_path / "docs"
    for i in range(40):
        write(docs, f"n{i}.md", f"# Note {i}\n\nabout wombat number {i}")
    optimized = []
    real = shelf.store.optimize
    monkeypatch.setattr(shelf.store, "optimize", lambda: optimized.append(1) or real())
    shelf.index([docs])
    assert optimized == [1]  # everything was new
    for run in range(1, service.OPTIMIZE_EVERY_RUNS + 1):
        write(docs, "n0.md", f"# Note 0\n\nabout wombat number 0, edit {run}")  # 1 of 40: 2.5%
        shelf.index([docs])
        assert len(optimized) == (1 if run < service.OPTIMIZE_EVERY_RUNS else 2), run
    assert paths_found(shelf, "edit") == {"n0.md"}  # searchable before any compaction
    for i in range(2):  # 2 of 40: 5%
        write(docs, f"n{i}.md", f"# Note {i}\n\nabout wombat number {i}, rewritten")
    shelf.index([docs])
    assert len(optimized) == 3


def test_index_of_roots_a_running_watch_keeps_says_there_is_nothing_to_do(write, tmp_path, make_shelf, fake_embedder):
    """`docshelf index docs` while `docshelf watch docs` runs waited 10 s for the lock and failed
    (exit 1), though the watch indexes and watches docs itself. For roots the holder already keeps,
    the run now returns at once naming it (and the failures there are); a new root or --force is
    still refused at once, naming it."""
    import time

    from docshelf.live.query_socket import QueryServer

    docs, other = tmp_path / "docs", tmp_path / "other"
    write(docs, "a.md", "# A\n\nalpha")
    write(other, "b.md", "# B\n\nbeta")
    first, second = make_shelf(fake_embedder), make_shelf(FakeEmbedder())
    first.index([docs])
    server = QueryServer(first.index_dir, first.search, "key", "watch")
    assert server.start()
    try:
        with first.writer():
            for paths in ([docs], [docs / "a.md"], None):
                report = second.index(paths, lock_timeout=5)
                assert report.kept_by == f"docshelf watch (pid {os.getpid()})"
                assert (report.added, report.updated, report.failed) == ([], [], {})
            started = time.monotonic()  # refused at once, not after waiting for a lock a server keeps
            with pytest.raises(IndexLocked, match="holds it and keeps its folders up to date itself"):
                second.index([other], lock_timeout=30)
            with pytest.raises(IndexLocked):
                second.index([docs], force=True, lock_timeout=30)
            assert time.monotonic() - started < 10
        assert second.index([docs]).kept_by == ""  # the lock is free: a plain run
    finally:
        server.close()
