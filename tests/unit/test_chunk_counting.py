"""Batched, additive token counting in the chunker: the same chunks in a fraction of the work.

The reference is the same chunker over a tokenizer that offers only ``count`` and
``token_spans`` (no ``count_many``, no ``whitespace_additive``): it tokenizes every
candidate chunk in full, as the chunker always did.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.embedders.onnx_minilm import OnnxMiniLM
from docshelf.models import Block, ParseContext, ParsedDocument
from docshelf.pipeline.chunk import Chunker
from docshelf.pipeline.discover import discover
from docshelf.pipeline.parsers import default_registry

DOCSETS = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets"

TRICKY = [
    "plain words", "Ünïcödé àccents and ß", "e\u0301 combining acute", "中文字符混合English", "tab\there",
    "ctrl\x01chars\x7f\x00gone", "private \ue000 use", "emoji 🚀 rocket", "x" * 150 + " long word",
    "punct.,;:!?()[]{}<>", "a©b™c", "\u200bzero width", "non\u00a0breaking", "line\u2028sep", "", "  ",
    "snake_case_name = obj.attr(1, 2)", "https://example.com/a?b=c#d", "’quotes” «guillemets»",
]


class CountingTokenizer:
    """Counts the calls and characters that reach the real tokenizer; ``plain`` hides the fast paths."""

    def __init__(self, tok, *, plain: bool) -> None:
        self._tok = tok
        self.calls = 0
        self.chars = 0
        if not plain:
            self.whitespace_additive = tok.whitespace_additive
            self.count_many = self._count_many

    def count(self, text: str) -> int:
        self.calls += 1
        self.chars += len(text)
        return self._tok.count(text)

    def _count_many(self, texts: list[str]) -> list[int]:
        self.calls += 1
        self.chars += sum(map(len, texts))
        return self._tok.count_many(texts)

    def token_spans(self, text: str):
        self.calls += 1
        self.chars += len(text)
        return self._tok.token_spans(text)


@pytest.fixture(scope="module")
def tok():
    return OnnxMiniLM().tokenizer


@pytest.fixture(scope="module")
def docset_pages() -> list[ParsedDocument]:
    registry = default_registry()
    found = discover([DOCSETS], registry=registry, max_bytes=Settings().max_file_bytes)
    docs = [registry.parse(f.path, f.path.read_bytes(), ParseContext(f.root)) for f in found.files]
    assert len(docs) >= 60  # both sites' pages
    return docs


def tricky_doc() -> ParsedDocument:
    """Every way a block gets split: long prose, a giant word, an oversized fence, a giant code line."""
    prose = " ".join(f"{w} sentence {i} über config_{i} 設定 value." for i, w in enumerate(TRICKY * 12))
    code = "```python\n" + "\n".join(f"x_{i} = call({i}, 'é', '中')  # {TRICKY[i % len(TRICKY)]}" for i in range(300))
    code += "\n" + "y = " + "+".join(f"v{i}" for i in range(900)) + "\n```"
    long_path = tuple(f"Heading {i} with many words to make the breadcrumb long" for i in range(12))
    blocks = (
        Block("heading", "Intro", ("Intro",), start_line=1, end_line=1, level=1),
        Block("paragraph", prose, ("Intro",), start_line=2, end_line=40),
        Block("paragraph", "Gigantic" + "x" * 5000, ("Intro",), start_line=41, end_line=41),
        Block("code", code, ("Intro",), start_line=42, end_line=345),
        *(Block("paragraph", t or "empty", ("Intro",), start_line=346 + i, end_line=346 + i)
          for i, t in enumerate(TRICKY)),
        Block("paragraph", "Deep section body " * 40, long_path, start_line=400, end_line=410),
    )
    return ParsedDocument(title="Tricky ✓ title", blocks=blocks, format="markdown")


def without_tokens(drafts):
    return [dataclasses.replace(d, tokens=None) for d in drafts]


def test_the_packaged_tokenizer_counts_add_up_over_whitespace(tok):
    assert tok.whitespace_additive
    for a in TRICKY:
        for b in TRICKY:
            for sep in (" ", "\n", "\n\n"):
                assert tok.count(a + sep + b) == tok.count(a) + tok.count(b) - 2, (a, sep, b)


def test_count_many_matches_count(tok):
    assert tok.count_many(TRICKY) == [tok.count(t) for t in TRICKY]


@pytest.mark.parametrize("max_tokens,overlap", [(256, 32), (64, 16)])
def test_fast_counting_gives_the_same_chunks_on_the_docsets(tok, docset_pages, max_tokens, overlap):
    fast_tok, plain_tok = CountingTokenizer(tok, plain=False), CountingTokenizer(tok, plain=True)
    fast, plain = Chunker(fast_tok, max_tokens, overlap), Chunker(plain_tok, max_tokens, overlap)
    assert fast.additive and not plain.additive
    total = 0
    for doc in [*docset_pages, tricky_doc()]:
        got, want = fast.chunk(doc), plain.chunk(doc)
        assert without_tokens(got) == want, doc.title
        assert [d.tokens for d in got] == [tok.count(d.embed_text) for d in got]
        assert all(d.tokens <= max_tokens for d in got)
        total += len(got)
    assert total > 600
    # The old way tokenized each growing candidate chunk again; now each text about once.
    assert fast_tok.chars * 2 < plain_tok.chars
    assert fast_tok.calls * 10 < plain_tok.calls


def test_a_tokenizer_that_does_not_add_up_is_counted_in_full(tok, docset_pages):
    class NotAdditive(CountingTokenizer):
        """Counts that do not add up over whitespace (as a BPE tokenizer's may not)."""

        def count(self, text: str) -> int:
            return super().count(text) + text.count(" ") // 3

        def _count_many(self, texts):
            return [self.count(t) for t in texts]

    batched, plain, trusting = (NotAdditive(tok, plain=False), NotAdditive(tok, plain=True),
                                NotAdditive(tok, plain=False))
    batched.whitespace_additive = False
    differs = 0
    for doc in [*docset_pages[:20], tricky_doc()]:
        got = Chunker(batched, 128, 16).chunk(doc)
        want = Chunker(plain, 128, 16).chunk(doc)
        assert got == want
        assert all(d.tokens is None for d in got)
        trusting.whitespace_additive = True  # wrongly: summing these counts packs differently
        differs += without_tokens(Chunker(trusting, 128, 16).chunk(doc)) != want
    assert differs  # so the equality above could have failed
