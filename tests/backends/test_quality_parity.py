"""Quality parity with the real packaged model: the same index copied into each backend
(``migrate``, same vectors) ranks the same documents for the same questions, in every mode.
The full SciFact comparison is ``benchmarks/backends.py parity`` (benchmarks/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.service import Docshelf

from backend_urls import fresh_url

pytestmark = pytest.mark.e2e
SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sample-docs"
QUESTIONS = [
    "how do I rotate the ingest token?",
    "what happens to events when the network is down",
    "deploy with helm on kubernetes",
    "why am I rate limited with 429",
    "can data stay in the EU",
    "token expiry",
    "how big should the machine be",
    "systemd unit",
]


@pytest.fixture(scope="module")
def shelves(tmp_path_factory, request):
    from docshelf.embedders import embedder_from_settings

    tmp = tmp_path_factory.mktemp("parity")
    embedder = embedder_from_settings(Settings(index_dir=tmp / "index"))
    embedded = Docshelf(Settings(index_dir=tmp / "index"), embedder=embedder)
    embedded.index([SAMPLE])
    out = {"embedded": embedded}
    for kind in ("postgres", "qdrant"):
        url = fresh_url(kind, request, tmp)
        assert embedded.migrate_to(url, sample=5).ok
        out[kind] = Docshelf(Settings(index_dir=tmp / "unused", store=url), embedder=embedder)
    return out


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword"])
@pytest.mark.parametrize("backend", ["postgres", "qdrant"])
def test_same_answers_as_the_embedded_store(shelves, backend, mode):
    for question in QUESTIONS:
        want = shelves["embedded"].search(question, k=3, mode=mode).hits
        got = shelves[backend].search(question, k=3, mode=mode).hits
        assert [(h.path, h.heading_path) for h in got[:1]] == [(h.path, h.heading_path) for h in want[:1]], question
        if mode == "keyword":  # the server stores' BM25 equals LanceDB's (test_keyword_parity.py)
            assert [h.chunk_id for h in got] == [h.chunk_id for h in want], question
        # hybrid: the vector side is HNSW on PostgreSQL; the best answer is the same, the rest of
        # the top 3 may swap one document.
        assert len({h.chunk_id for h in got} & {h.chunk_id for h in want}) >= min(2, len(want)), question
        if mode == "semantic":  # same vectors: same cosine scores
            assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-4)


def test_docshelf_eval_gives_the_same_ndcg_on_every_backend(tmp_path, request):
    """``docshelf eval``'s path (``eval.runner``) on the repository's small BEIR-format set
    (``benchmarks/beir/faq``, 51 judged test questions): the index copied into each server store
    gives nDCG@10 within 0.01 of the embedded store in every mode, as the full SciFact
    comparison does (``benchmarks/backends.py parity``)."""
    from docshelf.eval.beir import load_dataset
    from docshelf.eval.runner import EvalIndex, open_eval_index, run_eval

    dataset = load_dataset(Path(__file__).resolve().parents[2] / "benchmarks" / "beir" / "faq", "test")
    base = open_eval_index(dataset, cache_dir=tmp_path / "cache")
    modes = ["hybrid", "semantic", "keyword"]
    want = {m.mode: m.metrics["ndcg@10"] for m in run_eval(dataset, base, modes).modes}
    assert want["hybrid"] > 0.5  # the premise: a set the model answers well
    for kind in ("postgres", "qdrant"):
        url = fresh_url(kind, request, tmp_path)
        assert base.service.migrate_to(url, sample=5).ok
        copy = Docshelf(Settings(index_dir=tmp_path / kind, store=url), embedder=base.service.embedder)
        got = {m.mode: m.metrics["ndcg@10"] for m in run_eval(dataset, EvalIndex(copy, base.names, 0.0, True), modes).modes}
        assert got == pytest.approx(want, abs=0.01), kind
