"""LanceDB's Rust log lines stay off a docshelf process's stderr (a server's stderr is its log).

The engine prints WARN lines (e.g. a deprecation notice for every vector query that selects
columns without ``_distance``: dozens per benchmark run at 100k chunks) unless ``LANCEDB_LOG``
says otherwise when the extension loads. Each check runs in a fresh interpreter, because the
level is fixed at the first ``import lancedb`` of a process. The index has the approximate
vector index (its threshold lowered, as in test_indexer), the path large indexes take.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.service import Docshelf

SRC = Path(__file__).resolve().parents[2] / "src"

SEARCHES = """
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.models import SearchFilters
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=INDEX), embedder=FakeEmbedder(), create=False)
    assert shelf.store.has_vector_index()
    for mode in ("hybrid", "semantic", "keyword", "fuzzy"):
        assert shelf.search("animal7 lives in habitat3", k=5, mode=mode).hits
    assert shelf.search("animal7 habitat3", k=5, mode="hybrid", filters=SearchFilters(collections=("docs",))) is not None
    assert shelf.search("animl7 habitat3", k=5, mode="hybrid") is not None  # the typo path (score look-ups)
"""

ENGINE_WARNING = """
    # A vector query without _distance: the engine's deprecation WARN (a benchmark's exact-recall
    # query did this); stands for any warning the engine may print.
    vector = shelf.embedder.embed_query("animal7")
    shelf.store._chunks.search(vector, vector_column_name="vector").bypass_vector_index().select(["id"]).limit(3).to_list()
"""


@pytest.fixture(scope="module")
def ann_index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ann")
    docs = root / "docs"
    docs.mkdir()
    for i in range(120):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\nanimal{i} lives in habitat{i % 7}.")
    shelf = Docshelf(Settings(index_dir=root / "index"), embedder=FakeEmbedder())
    shelf.store.vector_index_min_rows = 100  # the real threshold is 50,000 chunks
    shelf.index([docs])
    assert shelf.store.has_vector_index()
    return root / "index"


def run(index: Path, *parts: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("LANCEDB_LOG", "LANCE_LOG")}
    script = "\n".join([f"INDEX = {str(index)!r}", *map(textwrap.dedent, parts)])
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
        env={**clean, "PYTHONPATH": str(SRC), **env},
    )


def test_searches_on_an_ann_index_print_nothing_on_stderr(ann_index):
    done = run(ann_index, SEARCHES, ENGINE_WARNING)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_docshelfs_own_queries_raise_no_engine_warning_even_with_engine_logs_on(ann_index):
    marker = 'import sys; print("-- engine warning next --", file=sys.stderr, flush=True)'
    done = run(ann_index, SEARCHES, marker, ENGINE_WARNING, LANCEDB_LOG="warn")
    assert done.returncode == 0, done.stderr
    ours, after = done.stderr.split("-- engine warning next --")
    assert "WARN" not in ours, ours
    assert "WARN" in after  # the engine does print warnings at this level: the check above can fail
