"""``docshelf migrate``: every backend into the next one and back, vectors copied, resumable, verified."""

from __future__ import annotations

import json

import pytest

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.errors import EmbedderMismatch
from docshelf.interfaces.cli import main
from docshelf.models import SearchFilters
from docshelf.service import Docshelf

from backend_urls import BACKENDS, fresh_url


def hits(shelf, query, mode, **filters):
    result = shelf.search(query, k=5, mode=mode, filters=SearchFilters(**filters))
    return [(h.path, h.chunk_index, h.start_line) for h in result.hits]


def test_migrate_round_trip_and_resume(backend, backend_shelf, write, tmp_path, request):
    docs = tmp_path / "docs"
    for i in range(12):
        write(docs, f"notes/n{i:02d}.md", f"---\ntags: [t{i % 3}]\n---\n# Note {i}\n\nTopic {i} covers walruses and item{i}.\n")
    write(docs, "broken.pdf", "not a pdf")
    fake = FakeEmbedder()
    source = backend_shelf(fake)
    source.index([docs])
    embedded_before = fake.texts_embedded

    target_kind = BACKENDS[(BACKENDS.index(backend) + 1) % len(BACKENDS)]
    target_url = fresh_url(target_kind, request, tmp_path) or str(tmp_path / "target-index")
    report = source.migrate_to(target_url, sample=5)
    assert report.ok, report.problems
    assert (report.copied, report.skipped, report.source_chunks, report.target_chunks) == (13, 0, 12, 12)
    assert (report.searches, report.vector_self_found, report.keyword_self_found) == (5, 5, 5)
    assert fake.texts_embedded == embedded_before  # no re-embedding

    target = Docshelf(Settings(index_dir=tmp_path / "target-index", store=target_url if "://" in target_url else None),
                      embedder=FakeEmbedder())
    assert target.store.read_manifest()["migration"]["complete"] is True
    assert {r.path: r.status for r in target.store.records()} == {r.path: r.status for r in source.store.records()}
    for mode in ("keyword", "semantic", "hybrid"):
        assert hits(target, "walruses item7", mode)[:1] == hits(source, "walruses item7", mode)[:1]
        assert {p for p, *_ in hits(target, "walruses", mode, tags_any=("t1",))} == {
            p for p, *_ in hits(source, "walruses", mode, tags_any=("t1",))
        }

    # Resume / catch up: only what changed is copied, what vanished is removed.
    (docs / "notes/n03.md").write_text("# Note 3\n\nRewritten about pelicans.\n")
    (docs / "notes/n04.md").unlink()
    source.index([docs])
    again = source.migrate_to(target_url, sample=3)
    assert again.ok and (again.copied, again.skipped, again.removed) == (1, 11, 1)
    assert [p for p, *_ in hits(target, "pelicans", "keyword")] == ["notes/n03.md"]


def test_migrate_refuses_a_target_of_another_model(backend_shelf, write, tmp_path, request):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\ntext")
    source = backend_shelf()
    source.index([docs])
    other_url = fresh_url("postgres", request, tmp_path)
    other = Docshelf(Settings(index_dir=tmp_path / "other", store=other_url), embedder=FakeEmbedder(dimensions=32))
    other.index([docs])
    with pytest.raises(EmbedderMismatch, match="another embedder"):
        source.migrate_to(other_url)


def test_migrate_command_prints_the_report(backend_shelf, write, tmp_path, request, capsys, monkeypatch):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe walrus text")
    source = backend_shelf()
    source.index([docs])
    monkeypatch.setattr("docshelf.interfaces.cli._service", lambda **_: source)
    target_url = fresh_url("qdrant", request, tmp_path)
    try:
        main(["migrate", "--to", target_url, "--json", "--sample", "1"])
    except SystemExit as done:
        assert done.code in (0, None)
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["copied"], report["target_chunks"], report["searches"]) == (True, 1, 1, 1)


def test_an_interrupted_migration_resumes_where_it_stopped(backend, backend_shelf, write, tmp_path, request, monkeypatch):
    """The target fails after four documents (a dropped connection, a killed process): the
    manifest says the copy is incomplete, and the next run copies only the rest."""
    from docshelf import migrate as migrate_module
    from docshelf.errors import StoreError
    from docshelf.stores import open_store

    docs = tmp_path / "docs"
    for i in range(10):
        write(docs, f"n{i}.md", f"# Note {i}\n\nThe otter number {i} swims.\n")
    source = backend_shelf()
    source.index([docs])
    target_kind = BACKENDS[(BACKENDS.index(backend) + 1) % len(BACKENDS)]
    target_url = fresh_url(target_kind, request, tmp_path) or str(tmp_path / "target-index")
    monkeypatch.setattr(migrate_module, "BATCH_CHUNKS", 1)  # one document a write
    real_open, writes = open_store, []

    def failing_store(*args, **kwargs):
        store = real_open(*args, **kwargs)
        replace = store.replace_documents

        def replace_then_fail(items):
            if len(writes) == 4:
                raise StoreError("connection lost")
            writes.append(items)
            replace(items)

        store.replace_documents = replace_then_fail
        return store

    monkeypatch.setattr("docshelf.stores.open_store", failing_store)
    with pytest.raises(StoreError, match="connection lost"):
        source.migrate_to(target_url, sample=3)
    monkeypatch.setattr("docshelf.stores.open_store", real_open)
    target = Docshelf(Settings(index_dir=tmp_path / "target-index", store=target_url if "://" in target_url else None),
                      embedder=FakeEmbedder())
    assert target.store.read_manifest()["migration"]["complete"] is False
    assert len(target.store.records()) == 4
    report = source.migrate_to(target_url, sample=3)
    assert report.ok and (report.copied, report.skipped, report.target_chunks) == (6, 4, 10)
    assert target.store.read_manifest()["migration"]["complete"] is True


def test_chunks_that_share_a_vector_do_not_fail_the_verification(backend, backend_shelf, write, tmp_path, request):
    """Two texts the model reads alike (the fake embedder: the same words in another order and
    case) have one vector; whichever the target lists first, the copy is right. Before, the
    second one's search found its twin first and ``migrate`` reported a problem (exit 1)."""
    docs = tmp_path / "docs"
    write(docs, "a.md", "# Tusks\n\nWalrus tusks grow slowly.")
    write(docs, "b.md", "# TUSKS\n\nslowly GROW tusks walrus.")
    source = backend_shelf()
    source.index([docs])
    target_kind = BACKENDS[(BACKENDS.index(backend) + 1) % len(BACKENDS)]
    target_url = fresh_url(target_kind, request, tmp_path) or str(tmp_path / "target-index")
    report = source.migrate_to(target_url, sample=2)
    assert (report.searches, report.problems, report.vector_self_found) == (2, [], 2)


def test_a_document_that_failed_its_last_read_keeps_its_text_on_the_target(backend, backend_shelf, write, tmp_path,
                                                                            request):
    """A file indexed once and then broken (a notebook saved half-way) is ``failed`` and keeps the
    chunks of its last good version: search still finds it. The migration copied only its record,
    so the target lost its text, the counts differed, and every run reported the problem and never
    marked the migration complete."""
    import json as _json

    docs = tmp_path / "docs"
    write(docs, "ok.md", "# Ok\n\nA page about herons.\n")
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Lab\n", "\n", "Measuring the axolotl tank.\n"]}]
    write(docs, "lab.ipynb", _json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    source = backend_shelf(FakeEmbedder())
    source.index([docs])
    (docs / "lab.ipynb").write_text('{"cells": [')  # broken after it was indexed
    report = source.index([docs])
    assert "lab.ipynb" in report.failed
    assert [h.path for h in source.search("axolotl", mode="keyword").hits] == ["lab.ipynb"]  # its last good text

    target_kind = BACKENDS[(BACKENDS.index(backend) + 1) % len(BACKENDS)]
    target_url = fresh_url(target_kind, request, tmp_path) or str(tmp_path / "target-index")
    migrated = source.migrate_to(target_url, sample=5)
    assert migrated.ok, migrated.problems
    assert (migrated.source_chunks, migrated.target_chunks) == (2, 2)
    target = Docshelf(Settings(index_dir=tmp_path / "target-index", store=target_url if "://" in target_url else None),
                      embedder=FakeEmbedder())
    assert [h.path for h in target.search("axolotl", mode="keyword").hits] == ["lab.ipynb"]
    assert {r.path: r.status for r in target.store.records()} == {"ok.md": "indexed", "lab.ipynb": "failed"}
