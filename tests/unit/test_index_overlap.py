"""Parsing overlaps embedding: a thread parses the next batch while the current one embeds,
commits stay in order, and the thread's errors and early stops are handled."""

from __future__ import annotations

import pathlib
import threading

import pytest

from docshelf.errors import StoreError
from docshelf.pipeline import indexer as indexer_module
from docshelf.pipeline.indexer import _ahead


def test_the_next_batch_is_parsed_while_this_one_embeds(write, tmp_path, shelf, monkeypatch):
    docs = tmp_path / "docs"
    words = ["alpaca", "bison", "camel", "dingo", "emu", "ferret"]
    for i, word in enumerate(words):
        write(docs, f"d{i}.md", f"# Doc {i}\n\na note about the {word}")
    monkeypatch.setattr(indexer_module, "COMMIT_CHUNKS", 2)  # three batches of two files
    third_read = threading.Event()
    real_read = pathlib.Path.read_bytes

    def read(path: pathlib.Path) -> bytes:
        if path.name == "d2.md":
            third_read.set()
        return real_read(path)

    monkeypatch.setattr(pathlib.Path, "read_bytes", read)
    seen: list[bool] = []
    real_embed = shelf.embedder.embed_documents

    def embed(texts):
        # The first batch's embedding waits (at most 10 s) for the second batch's first file.
        seen.append(third_read.wait(timeout=10) if not seen else third_read.is_set())
        return real_embed(texts)

    monkeypatch.setattr(shelf.embedder, "embed_documents", embed)
    commits: list[list[str]] = []
    real_replace = shelf.store.replace_documents
    monkeypatch.setattr(
        shelf.store, "replace_documents", lambda items: (commits.append([r.path for r, _, _ in items]), real_replace(items))[1]
    )
    report = shelf.index([docs])
    assert seen == [True, True, True]
    assert commits == [["d0.md", "d1.md"], ["d2.md", "d3.md"], ["d4.md", "d5.md"], []]
    assert report.chunks_embedded == 6 and sorted(report.added) == [f"d{i}.md" for i in range(6)]
    assert {h.path for h in shelf.search("emu", k=3, mode="keyword").hits} == {"d4.md"}
    assert not [t for t in threading.enumerate() if t.name == "docshelf-parse"]


def test_ahead_keeps_order_and_raises_the_parsers_error_in_the_caller():
    def batches():
        yield 1
        yield 2
        raise StoreError("the disk is full")

    got = []
    with pytest.raises(StoreError, match="the disk is full"):
        for item in _ahead(batches()):
            got.append(item)
    assert got == [1, 2]


def test_ahead_stops_the_parser_when_the_caller_stops():
    made: list[int] = []

    def batches():
        for i in range(1000):
            made.append(i)
            yield i

    ahead = _ahead(batches())
    assert next(ahead) == 0
    ahead.close()
    assert not [t for t in threading.enumerate() if t.name == "docshelf-parse"]
    assert len(made) <= 4  # one handed over, one queued, one waiting to be: nothing ran ahead
