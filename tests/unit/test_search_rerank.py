"""The optional reranker: rescoring within a time budget, and turning itself off when it cannot."""

from __future__ import annotations

import logging
import time

from docshelf.models import Chunk
from docshelf.search.engine import Searcher
from docshelf.search.rerank import Reranker


def chunk(i: int, text: str) -> Chunk:
    return Chunk(id=f"c{i}", root="/r", path=f"{i}.md", collection="default", doc_type="doc", title=str(i),
                 heading_path=(), chunk_index=0, text=text, embed_text=text)


SCORED = [(chunk(0, "apples"), 0.9), (chunk(1, "the answer about pears"), 0.8), (chunk(2, "plums"), 0.7)]


def test_reranker_reorders_the_top_candidates_with_scores_in_unit_range():
    rr = Reranker(score_fn=lambda q, texts: [5.0 if "pears" in t else -5.0 for t in texts], top_n=2)
    out = rr.rerank("pears?", list(SCORED))
    assert [c.id for c, _ in out] == ["c1", "c0", "c2"]
    assert all(0.0 <= s <= 1.0 for _, s in out)
    assert [s for _, s in out] == sorted((s for _, s in out), reverse=True)


def test_reranker_over_budget_turns_itself_off_with_a_warning(caplog):
    def slow(q, texts):
        time.sleep(0.05)
        return [0.0] * len(texts)

    rr = Reranker(score_fn=slow, budget_ms=1)
    with caplog.at_level(logging.WARNING, logger="docshelf.search.rerank"):
        out = rr.rerank("q", list(SCORED))
    assert out == SCORED  # this query keeps the fused order
    assert rr.enabled is False
    assert "over the 1 ms budget" in rr.disabled_reason
    assert any("turned off" in r.getMessage() for r in caplog.records)
    assert rr.rerank("q", list(SCORED)) == SCORED


def test_a_reranker_that_cannot_load_turns_off():
    rr = Reranker("no/such-cross-encoder-model-anywhere")
    rr._load = lambda: (_ for _ in ()).throw(ImportError("sentence-transformers is not installed"))  # type: ignore[method-assign]
    assert rr.rerank("q", list(SCORED)) == SCORED
    assert rr.enabled is False
    assert rr.disabled_reason == "could not load it (ImportError: sentence-transformers is not installed)"


def test_none_by_default(shelf):
    assert isinstance(shelf.searcher, Searcher)
    assert shelf.searcher.reranker is None


def test_a_configured_reranker_is_wired_in(make_shelf, fake_embedder):
    shelf = make_shelf(fake_embedder, reranker="cross-encoder/ms-marco-MiniLM-L-6-v2", rerank_budget_ms=250)
    rr = shelf.searcher.reranker
    assert (rr.model, rr.budget_ms, rr.top_n, rr.enabled) == ("cross-encoder/ms-marco-MiniLM-L-6-v2", 250, 20, True)
