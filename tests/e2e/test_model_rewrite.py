"""The load-time rewrite of the packaged model (embedders/onnx_graph.py): the int8 lookup
tables are read as int8 and dequantised after the lookup, and the vectors are exactly the
ones the model file as shipped gives, on real documentation text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from docshelf.embedders.onnx_graph import _fields, _len_field, _Node, gather_before_dequantize, int8_matmuls
from docshelf.embedders.onnx_minilm import OnnxMiniLM, _model_path

pytestmark = pytest.mark.e2e

DOCSETS = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets"
WORD_TABLE = "inner.embeddings.word_embeddings.weight"


def docs_paragraphs(limit: int = 120) -> list[str]:
    paragraphs = []
    for path in sorted(DOCSETS.rglob("*.md")):
        paragraphs += [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n") if len(p.strip()) > 40]
    return paragraphs[:: max(1, len(paragraphs) // limit)][:limit]


def graph_nodes(model: bytes) -> list[_Node]:
    graph = next(payload for number, _, payload, _ in _fields(memoryview(model)) if number == 7)
    return [_Node.parse(payload) for number, _, payload, _ in _fields(graph) if number == 1]


def test_rewritten_model_gives_the_shipped_models_vectors():
    texts = docs_paragraphs()
    assert len(texts) >= 100
    rewritten = OnnxMiniLM(threads=1)
    shipped = OnnxMiniLM(threads=1)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    shipped._session = ort.InferenceSession(str(_model_path()), sess_options=opts, providers=["CPUExecutionProvider"])
    ours, theirs = rewritten.embed_documents(texts), shipped.embed_documents(texts)
    np.testing.assert_allclose(ours, theirs, atol=1e-6, rtol=0)
    query = "how do I serve static files from a directory"
    np.testing.assert_allclose(rewritten.embed_query(query), shipped.embed_query(query), atol=1e-6, rtol=0)
    # The wrapper's copy of the model bytes is not kept alive by the session.
    assert getattr(rewritten._session, "_model_bytes", None) is None


def test_lookup_tables_are_gathered_as_int8():
    shipped = _model_path().read_bytes()
    before, after = graph_nodes(shipped), graph_nodes(gather_before_dequantize(shipped))
    lookups = lambda nodes: sorted(n.inputs[0] for n in nodes if n.op_type == "Gather" and "embeddings" in n.inputs[0])  # noqa: E731
    assert WORD_TABLE in lookups(before) and WORD_TABLE not in lookups(after)
    assert f"{WORD_TABLE}_q" in lookups(after) and f"{WORD_TABLE}_scale" in lookups(after)
    # Both int8 tables (word and position embeddings) lose their whole-table Cast; matrices keep theirs.
    casts = lambda nodes: sum(n.op_type == "Cast" and n.inputs[0].endswith("_q") for n in nodes)  # noqa: E731
    assert casts(before) - casts(after) == 2
    assert len(after) == len(before) + 2  # each table: Cast + Mul + Gather -> 2 Gathers + Cast + Mul


def test_a_graph_without_dequantised_tables_is_left_alone():
    node = _Node("Gather", ["table", "ids"], ["out"]).encode()
    model = _len_field(7, _len_field(1, node))  # ModelProto.graph with one plain Gather
    assert gather_before_dequantize(model) is None


def test_int8_matmuls_multiply_every_weight_matrix_as_int8():
    gathered = gather_before_dequantize(_model_path().read_bytes())
    before, after = graph_nodes(gathered), graph_nodes(int8_matmuls(gathered))
    # 6 layers x (query, key, value, output, two feed-forward): 36 weight matrices; the two
    # attention products (activations by activations) stay float MatMuls.
    assert sum(n.op_type == "MatMulNBits" for n in after) == 36
    assert sum(n.op_type == "MatMul" for n in before) - sum(n.op_type == "MatMul" for n in after) == 36
    assert not any(n.op_type == "Cast" and n.inputs[0].startswith("val_") for n in after)
    assert int8_matmuls(_len_field(7, _len_field(1, _Node("MatMul", ["a", "b"], ["c"]).encode()))) is None


def test_query_int8_embeds_queries_nearly_alike_and_documents_exactly_alike():
    texts = docs_paragraphs(60)
    queries = [t[:80] for t in texts[::3]] + ["how do I serve static files from a directory", "ImportError"]
    plain, int8 = OnnxMiniLM(threads=1), OnnxMiniLM(threads=1, query_int8=True)
    np.testing.assert_array_equal(int8.embed_documents(texts), plain.embed_documents(texts))
    ours = np.stack([int8.embed_query(q) for q in queries])
    theirs = np.stack([plain.embed_query(q) for q in queries])
    assert np.abs(ours - theirs).max() > 1e-5  # the int8 products are really used
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.999, cosines.min()
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert getattr(int8._query_session, "_model_bytes", None) is None
