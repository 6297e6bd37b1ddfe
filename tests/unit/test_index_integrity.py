"""The index holds exactly what the roots hold: streamed reads, its own folders never indexed,
single-file roots stay single, no orphan chunks after a crash, reads never write."""

from __future__ import annotations

import pathlib
from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.errors import StoreError
from docshelf.pipeline import indexer as indexer_module
from docshelf.service import Docshelf
from docshelf.stores.lancedb_store import ORPHAN_FREE


def paths_found(shelf: Docshelf, query: str) -> set[str]:
    return {h.path for h in shelf.search(query, k=50, mode="keyword").hits}


def _word(i: int) -> str:
    return "abcdefghij"[i % 10] + "klmn"[i // 10]


class _TrackedBytes(bytes):
    """File bytes that count themselves while alive (bytes cannot be weak-referenced)."""

    alive = 0
    peak = 0

    def __new__(cls, data: bytes):
        obj = super().__new__(cls, data)
        cls.alive += 1
        cls.peak = max(cls.peak, cls.alive)
        return obj

    def __del__(self) -> None:
        type(self).alive -= 1


def test_indexing_streams_files_one_at_a_time(write, tmp_path, shelf, monkeypatch):
    """Peak memory must not depend on the number of files: never two files' bytes alive at
    once, and every store commit stays within the batch bound."""
    docs = tmp_path / "docs"
    for i in range(16):
        write(docs, f"d{i:02d}.md", f"# Doc {i}\n\n" + f"okapi{_word(i)} paragraph text. " * 120)
    real_read = pathlib.Path.read_bytes
    reads: list[str] = []

    def tracked_read(path: pathlib.Path) -> bytes:
        data = real_read(path)
        if docs in path.parents:
            reads.append(path.name)
            return _TrackedBytes(data)
        return data

    monkeypatch.setattr(pathlib.Path, "read_bytes", tracked_read)
    _TrackedBytes.alive = _TrackedBytes.peak = 0
    commits: list[int] = []
    real_replace = shelf.store.replace_documents

    def counting_replace(items):
        commits.append(sum(len(chunks) for _, chunks, _ in items))
        return real_replace(items)

    monkeypatch.setattr(shelf.store, "replace_documents", counting_replace)
    monkeypatch.setattr(indexer_module, "COMMIT_CHUNKS", 8)
    report = shelf.index([docs])
    assert len(report.added) == 16 and len(reads) == 16
    assert _TrackedBytes.peak == 1
    per_file = shelf.store.count_chunks() // 16  # every file has the same number of chunks
    assert per_file > 1 and len(commits) > 1 and all(c <= 8 + per_file for c in commits), commits
    assert paths_found(shelf, f"okapi{_word(7)}") == {"d07.md"}


def test_a_dry_run_streams_too(write, tmp_path, shelf, monkeypatch):
    docs = tmp_path / "docs"
    for i in range(10):
        write(docs, f"d{i}.md", f"# Doc {i}\n\nbody {i}")
    real_read = pathlib.Path.read_bytes
    monkeypatch.setattr(
        pathlib.Path, "read_bytes", lambda p: _TrackedBytes(real_read(p)) if docs in p.parents else real_read(p)
    )
    _TrackedBytes.alive = _TrackedBytes.peak = 0
    assert len(shelf.index([docs], dry_run=True).added) == 10
    assert _TrackedBytes.peak == 1


def test_the_index_and_log_folders_inside_a_root_are_never_indexed(write, tmp_path, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nalpha")
    shelf = Docshelf(
        Settings(index_dir=docs / ".state" / "index", log_file=docs / "logs" / "docshelf.log"), embedder=fake_embedder
    )
    (docs / "logs").mkdir()
    (docs / "logs" / "docshelf.log").write_text("2026 INFO indexed a.md\n")
    (docs / "logs" / "docshelf.log.1").write_text("2026 INFO older\n")
    (docs / "logs" / "keep.md").write_text("# Keep\n\nnot a log")
    first = shelf.index([docs])
    assert sorted(first.added) == ["a.md", "logs/keep.md"]
    assert not any(p.startswith(".state") for p in first.skipped)
    again = shelf.index([docs])
    assert (again.added, again.updated, again.unchanged) == ([], [], 2)
    assert sorted(r.path for r in shelf.store.records()) == ["a.md", "logs/keep.md"]


def test_the_default_log_folder_is_never_indexed(write, tmp_path, fake_embedder, monkeypatch):
    home = tmp_path / "home"
    log_dir = home / "state" / "docshelf" / "log"
    monkeypatch.setattr("docshelf.logs.default_log_file", lambda: log_dir / "docshelf.log")
    write(home, "notes.md", "# Notes\n\nnotes")
    write(log_dir, "docshelf.log", "INFO started\n")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=fake_embedder)
    assert shelf.index([home]).added == ["notes.md"]


def test_indexing_one_file_does_not_make_its_folder_a_root(write, tmp_path, shelf):
    notes = tmp_path / "notes"
    todo = write(notes, "todo.md", "# Todo\n\nbuy quokka food")
    write(notes, "sibling.md", "# Sibling\n\nquokka sibling")
    assert shelf.index([todo]).added == ["todo.md"]
    assert shelf.roots == [todo.resolve()]
    # A plain run refreshes the known roots: the file, not its folder.
    again = shelf.index()
    assert (again.added, again.unchanged) == ([], 1)
    assert paths_found(shelf, "quokka") == {"todo.md"}
    todo.write_text("# Todo\n\nbuy quokka food and wombat food")
    assert shelf.index().updated == ["todo.md"]
    assert paths_found(shelf, "wombat") == {"todo.md"}


def test_a_crash_between_chunks_and_record_leaves_no_orphan_after_the_file_is_deleted(
    write, tmp_path, shelf, monkeypatch
):
    docs = tmp_path / "docs"
    write(docs, "keep.md", "# Keep\n\nkeep the axolotl")
    doomed = write(docs, "doomed.md", "# Doomed\n\nthe doomed axolotl")

    real_put = shelf.store.put_records

    def crash(records):
        if records:
            raise KeyboardInterrupt("killed between the chunk commit and the record commit")
        real_put(records)

    with monkeypatch.context() as m:
        m.setattr(shelf.store, "put_records", crash)
        with pytest.raises(KeyboardInterrupt):
            shelf.index([docs])
    assert shelf.store.records() == [] and shelf.store.count_chunks() == 2  # chunks committed, no records
    doomed.unlink()
    report = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=shelf.embedder).index([docs])
    assert report.added == ["keep.md"]
    assert paths_found(shelf, "axolotl") == {"keep.md"}
    assert shelf.store.count_chunks() == 1 and shelf.store.orphan_documents() == []


def test_a_search_never_writes_even_without_a_full_text_index(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe pangolin guide")
    shelf.index([docs])
    table = shelf.store._chunks
    for index in table.list_indices():
        table.drop_index(index.name)
    reader = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=shelf.embedder)
    version = table.version
    hits = reader.search("pangolin", k=5, mode="keyword").hits
    reader.search("pangolin", k=5, mode="hybrid")
    reader.search("pangolin", k=5, mode="fuzzy")
    table.checkout_latest()
    assert [h.path for h in hits] == ["a.md"]  # the rows are scanned unindexed meanwhile
    assert (table.version, table.list_indices()) == (version, [])
    # The writer builds it on its next commit.
    write(docs, "b.md", "# B\n\nanother pangolin")
    Docshelf(Settings(index_dir=tmp_path / "index"), embedder=shelf.embedder).index([docs])
    assert [i.index_type for i in table.list_indices()] == ["FTS"]


def test_every_store_read_maps_engine_errors(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe tapir guide")
    shelf.index([docs])
    chunk_id = shelf.search("tapir", k=1, mode="keyword").hits[0].chunk_id
    for data_file in (tmp_path / "index").glob("*.lance/data/*"):
        data_file.write_bytes(b"not a lance file")
    (tmp_path / "index" / ORPHAN_FREE).unlink()  # else the orphan check knows it need not read
    store = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=shelf.embedder).store
    calls = {
        "text_search": lambda: store.text_search("tapir", 5),
        "records": lambda: store.records(),
        "get_chunks": lambda: store.get_chunks([chunk_id]),
        "document_chunks": lambda: store.document_chunks(str(docs.resolve()), "a.md"),
        "document_vectors": lambda: store.document_vectors(str(docs.resolve()), "a.md"),
        "orphan_documents": lambda: store.orphan_documents(),
    }
    for name, call in calls.items():
        with pytest.raises(StoreError, match="could not .* the index at"):
            call()
        assert name


def test_a_moved_folder_reuses_its_vectors(write, tmp_path, shelf, fake_embedder):
    docs = tmp_path / "docs"
    for i in range(3):
        write(docs, f"old/n{i}.md", f"# Note {i}\n\n" + f"capybara {i} words " * 30)
    shelf.index([docs])
    before = fake_embedder.texts_embedded
    (docs / "old").rename(docs / "new")
    report = shelf.index([docs])
    assert sorted(report.added) == ["new/n0.md", "new/n1.md", "new/n2.md"]
    assert (report.chunks_embedded, fake_embedder.texts_embedded) == (0, before)
    assert paths_found(shelf, "capybara") == {"new/n0.md", "new/n1.md", "new/n2.md"}


def test_the_orphan_check_reads_the_tables_only_after_a_write_that_did_not_complete(
    write, tmp_path, shelf, monkeypatch
):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe okapi guide")
    shelf.index([docs])
    store = shelf.store
    scans = []
    real_scan = store._scan_orphans
    monkeypatch.setattr(store, "_scan_orphans", lambda: scans.append(1) or real_scan())
    write(docs, "a.md", "# A\n\nthe okapi guide, edited")
    shelf.index([docs])  # every write completed: the check that ends the run reads nothing
    assert store.orphan_documents() == []
    assert scans == []

    write(docs, "b.md", "# B\n\nthe quokka guide")
    with monkeypatch.context() as m:  # the chunks are written, their record never is
        m.setattr(store, "put_records", lambda records: (_ for _ in ()).throw(OSError("disk full")))
        with pytest.raises(StoreError):
            shelf.index([docs])
    assert store.orphan_documents() == [(str(docs.resolve()), "b.md")]
    assert scans == [1]


def test_a_file_or_folder_inside_a_known_root_is_indexed_as_part_of_it(write, tmp_path, shelf):
    """Not as a second root: that indexed the same file twice, under two paths, and counted it twice."""
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe axolotl guide")
    page = write(docs, "ref/cli.md", "# CLI\n\nthe narwhal command")
    shelf.index([docs])
    page.write_text("# CLI\n\nthe narwhal command, revised for the wombat")
    for inner in (page, docs / "ref"):
        report = shelf.index([inner])
        assert shelf.roots == [docs.resolve()]
        assert f"{inner.resolve()} is inside the known root {docs.resolve()}" in " ".join(report.warnings)
    assert sorted((r.root, r.path) for r in shelf.store.records()) == [
        (str(docs.resolve()), "a.md"), (str(docs.resolve()), "ref/cli.md")]
    assert paths_found(shelf, "wombat") == {"ref/cli.md"}
    assert [(i.path, i.documents) for i in shelf.root_infos()] == [(str(docs.resolve()), 2)]
    # --force on a file inside the root re-embeds that file only.
    forced = shelf.index([page], force=True)
    assert (forced.added + forced.updated, forced.chunks_embedded, forced.unchanged) == (["ref/cli.md"], 1, 1)


def test_a_folder_holding_a_known_root_takes_its_documents_over(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe axolotl guide")
    write(docs, "ref/cli.md", "# CLI\n\nthe narwhal command")
    todo = write(docs, "notes/todo.md", "# Todo\n\nfeed the quokka")
    shelf.index([docs / "ref"])
    shelf.index([todo])  # a file root
    report = shelf.index([docs])
    assert shelf.roots == [docs.resolve()]
    for inner in (docs / "ref", todo):
        assert f"the known root {inner.resolve()} is inside {docs.resolve()}" in " ".join(report.warnings)
    assert report.chunks_embedded == 1  # a.md; the inner roots' files keep their vectors
    assert sorted((r.root, r.path) for r in shelf.store.records()) == [
        (str(docs.resolve()), "a.md"), (str(docs.resolve()), "notes/todo.md"), (str(docs.resolve()), "ref/cli.md")]
    assert paths_found(shelf, "narwhal") == {"ref/cli.md"}
    assert paths_found(shelf, "quokka") == {"notes/todo.md"}
    assert shelf.index().unchanged == 3


def test_servers_and_watch_watch_only_the_outermost_roots(write, tmp_path, shelf):
    docs = tmp_path / "docs"
    page = write(docs, "ref/cli.md", "# CLI\n\nthe narwhal command")
    shelf.index([docs])
    assert shelf.live_roots([page, docs / "ref", tmp_path / "other"]) == [docs.resolve(), (tmp_path / "other").resolve()]
