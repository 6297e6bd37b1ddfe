"""kill -9 in the middle of re-indexing: every document keeps exactly its old or its new version."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.service import Docshelf

N_DOCS = 240


def write_corpus(root: Path, version: str) -> None:
    for i in range(N_DOCS):
        path = root / f"d{i // 40}" / f"doc{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        sections = "\n\n".join(f"## Section {s}\n\nversion{version} document {i} section {s} " * 3 for s in range(4))
        path.write_text(f"# Doc {i}\n\n{sections}\n")


@pytest.mark.parametrize("kill_after", [0.8, 1.6, 2.4])
def test_kill_during_reindex_leaves_each_document_whole(tmp_path, kill_after):
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    write_corpus(docs, "a")
    Docshelf(Settings(index_dir=index_dir, model="fake")).index([docs])
    write_corpus(docs, "b")
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(index_dir), "DOCSHELF_MODEL": "fake"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "docshelf.interfaces.cli", "index", str(docs)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    time.sleep(kill_after)
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    shelf = Docshelf(Settings(index_dir=index_dir, model="fake"))
    versions = {}
    for record in shelf.store.records():
        texts = " ".join(c.text for c in shelf.store.document_chunks(record.root, record.path))
        has_a, has_b = "versiona" in texts, "versionb" in texts
        assert has_a != has_b, f"{record.path} holds {'both versions' if has_a else 'no version'}"
        versions[record.path] = "a" if has_a else "b"
        assert len(shelf.store.document_chunks(record.root, record.path)) == 4
    assert len(versions) == N_DOCS
    # Re-running finishes the job: everything at the new version, nothing duplicated.
    shelf.index([docs])
    assert shelf.store.count_chunks() == N_DOCS * 4
    assert shelf.search("versiona", k=5, mode="keyword").hits == ()
    assert len(shelf.search("versionb", k=5, mode="keyword").hits) == 5
