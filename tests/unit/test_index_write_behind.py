"""Writing overlaps embedding: batch N is committed by the writer thread while batch N+1 embeds;
the writer is the only thread that touches the store during the batches, commits stay in
order, and a failed commit stops the run with nothing written after it."""

from __future__ import annotations

import threading

import pytest

from docshelf.errors import StoreError
from docshelf.pipeline import indexer as indexer_module
from docshelf.pipeline.overlap import SerialWriter

WORDS = ["alpaca", "bison", "camel", "dingo", "emu", "ferret"]


def write_docs(write, docs):
    for i, word in enumerate(WORDS):
        write(docs, f"d{i}.md", f"# Doc {i}\n\na note about the {word}")


def test_a_batch_is_written_while_the_next_one_embeds(write, tmp_path, shelf, monkeypatch):
    docs = tmp_path / "docs"
    write_docs(write, docs)
    monkeypatch.setattr(indexer_module, "COMMIT_CHUNKS", 2)  # three batches of two files
    second_embed = threading.Event()
    calls = 0
    real_embed = shelf.embedder.embed_documents

    def embed(texts):
        nonlocal calls
        calls += 1
        if calls == 2:
            second_embed.set()
        return real_embed(texts)

    monkeypatch.setattr(shelf.embedder, "embed_documents", embed)
    overlapped: list[bool] = []
    threads: set[str] = set()
    commits: list[list[str]] = []
    real_replace, real_records = shelf.store.replace_documents, shelf.store.put_records

    def replace(items):
        threads.add(threading.current_thread().name)
        if items and not overlapped:  # the first commit waits (at most 10 s) for the next batch's embedding
            overlapped.append(second_embed.wait(timeout=10))
        commits.append([r.path for r, _, _ in items])
        return real_replace(items)

    def put_records(records):
        threads.add(threading.current_thread().name)
        return real_records(records)

    monkeypatch.setattr(shelf.store, "replace_documents", replace)
    monkeypatch.setattr(shelf.store, "put_records", put_records)
    report = shelf.index([docs])
    assert overlapped == [True]
    assert commits == [["d0.md", "d1.md"], ["d2.md", "d3.md"], ["d4.md", "d5.md"], []]
    assert threads == {"docshelf-write"}
    assert report.chunks_embedded == 6 and sorted(report.added) == [f"d{i}.md" for i in range(6)]
    assert {h.path for h in shelf.search("emu", k=3, mode="keyword").hits} == {"d4.md"}
    assert not [t for t in threading.enumerate() if t.name in ("docshelf-write", "docshelf-parse")]


def test_a_failed_commit_stops_the_run_and_nothing_is_written_after_it(write, tmp_path, shelf, monkeypatch):
    docs = tmp_path / "docs"
    write_docs(write, docs)
    monkeypatch.setattr(indexer_module, "COMMIT_CHUNKS", 2)
    commits: list[list[str]] = []
    real_replace = shelf.store.replace_documents

    def replace(items):
        commits.append([r.path for r, _, _ in items])
        if len(commits) == 2:
            raise StoreError("the disk is full")
        return real_replace(items)

    monkeypatch.setattr(shelf.store, "replace_documents", replace)
    with pytest.raises(StoreError, match="the disk is full"):
        shelf.index([docs])
    assert commits == [["d0.md", "d1.md"], ["d2.md", "d3.md"]]
    assert sorted(r.path for r in shelf.store.records()) == ["d0.md", "d1.md"]
    assert not [t for t in threading.enumerate() if t.name in ("docshelf-write", "docshelf-parse")]


def test_serial_writer_runs_calls_in_order_and_raises_a_failure_in_the_caller():
    done: list[int] = []
    with pytest.raises(ValueError, match="boom"):
        with SerialWriter() as writer:
            writer.write(lambda: done.append(1))
            assert writer.call(lambda: list(done)) == [1]
            writer.write(lambda: (_ for _ in ()).throw(ValueError("boom")))
            writer.write(lambda: done.append(3))  # raises the failure; never runs
    assert done == [1]

    with pytest.raises(ValueError, match="late"):  # the last commit's failure is raised on leaving
        with SerialWriter() as writer:
            writer.write(lambda: (_ for _ in ()).throw(ValueError("late")))
