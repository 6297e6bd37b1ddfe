"""The pipeline's vectors on real pages, with the packaged model, equal each chunk's text
embedded alone: batching, length order and the chunker's fast counts change speed only."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from docshelf.config import Settings
from docshelf.pipeline.indexer import EMBED_BATCH
from docshelf.service import Docshelf

pytestmark = pytest.mark.e2e

STARLETTE = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "starlette" / "docs"


def test_indexed_vectors_equal_each_text_embedded_alone(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for page in sorted(STARLETTE.glob("*.md"), key=lambda p: p.stat().st_size)[:11]:  # the 11 smallest pages (46 chunks)
        shutil.copyfile(page, docs / page.name)
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", embed_threads=1))
    report = shelf.index([docs])
    assert report.chunks_embedded > EMBED_BATCH and not report.failed  # more than one call
    model = shelf.embedder
    tok = model.tokenizer
    checked = 0
    lengths = set()
    for record in shelf.store.records():
        stored = shelf.store.document_vectors(record.root, record.path)
        assert len(stored) == record.chunk_count
        for text, vector in stored.items():
            alone = model._run(tok.encode_truncated([text]))[0]
            np.testing.assert_allclose(vector, alone, atol=1e-5, rtol=0)
            lengths.add(tok.count(text))
            checked += 1
    assert checked == report.chunks_embedded and len(lengths) > 10
