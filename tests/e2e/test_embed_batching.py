"""The packaged model's length-grouped batches give the same vectors, in the same order, as
embedding each text alone or the whole list padded in its own order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docshelf.embedders.onnx_minilm import OnnxMiniLM

pytestmark = pytest.mark.e2e

README = Path(__file__).resolve().parents[2] / "README.md"


def real_texts() -> list[str]:
    """Paragraphs of this project's README, of many lengths, plus one longer than the model reads."""
    paragraphs = [p.strip() for p in README.read_text(encoding="utf-8").split("\n\n") if len(p.strip()) > 20]
    picked = paragraphs[:: max(1, len(paragraphs) // 12)][:12]
    return [*picked, " ".join(paragraphs[:40]), "short", picked[0]]  # a duplicate too


def test_bucketed_vectors_equal_unbucketed_ones():
    texts = real_texts()
    model = OnnxMiniLM(batch_size=8, threads=1)
    lengths = [len(e.ids) for e in model.tokenizer.encode_truncated(texts)]
    assert min(lengths) < 10 and max(lengths) == model.max_tokens and len(set(lengths)) > 8
    grouped = model.embed_documents(texts)
    model.load()
    alone = np.stack([model._run(model.tokenizer.encode_truncated([t]))[0] for t in texts])
    in_order = model._run(model.tokenizer.encode_truncated(texts))  # one batch, padded, no grouping
    wide = OnnxMiniLM(batch_size=4, batch_tokens=4 * 256, threads=1).embed_documents(texts)
    assert grouped.shape == (len(texts), 384)
    np.testing.assert_allclose(grouped, alone, atol=1e-5, rtol=0)
    np.testing.assert_allclose(grouped, in_order, atol=1e-5, rtol=0)
    np.testing.assert_allclose(wide, alone, atol=1e-5, rtol=0)
    # Each row belongs to its own text: neighbours differ, the duplicate matches its twin.
    assert np.all(np.abs(np.diff(grouped, axis=0)).max(axis=1) > 1e-3)
    np.testing.assert_array_equal(grouped[-1], grouped[0])
    np.testing.assert_allclose(model.embed_query(texts[3]), alone[3], atol=1e-5, rtol=0)
