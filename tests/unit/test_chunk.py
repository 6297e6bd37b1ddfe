"""Chunk boundaries and token limits, counted with the real MiniLM tokenizer."""

from __future__ import annotations

import pytest

from docshelf.embedders.onnx_minilm import OnnxMiniLM
from docshelf.models import Block, ParsedDocument
from docshelf.pipeline.chunk import Chunker, embed_prefix


@pytest.fixture(scope="module")
def tok():
    return OnnxMiniLM().tokenizer


def doc(*blocks: Block, title: str = "Guide") -> ParsedDocument:
    return ParsedDocument(title=title, blocks=tuple(blocks), format="markdown")


def test_sections_become_separate_chunks_with_breadcrumbs(tok):
    chunker = Chunker(tok, 256)
    d = doc(
        Block("heading", "Install", ("Install",), start_line=1, end_line=1, level=1),
        Block("paragraph", "Run pip install acme.", ("Install",), start_line=3, end_line=3),
        Block("heading", "Tokens", ("Install", "Tokens"), start_line=5, end_line=5, level=2),
        Block("paragraph", "Rotate the token monthly.", ("Install", "Tokens"), start_line=7, end_line=8),
    )
    chunks = chunker.chunk(d)
    assert [(c.heading_path, c.text, c.start_line, c.end_line) for c in chunks] == [
        (("Install",), "Run pip install acme.", 3, 3),
        (("Install", "Tokens"), "Rotate the token monthly.", 7, 8),
    ]
    assert chunks[1].embed_text == "Guide\nInstall > Tokens\n\nRotate the token monthly."
    assert [c.chunk_index for c in chunks] == [0, 1]


def test_every_chunk_fits_the_model_including_breadcrumb(tok):
    chunker = Chunker(tok, 256, overlap=32)
    sentences = " ".join(f"Sentence number {i} explains configuration option alpha{i} in detail." for i in range(200))
    d = doc(Block("paragraph", sentences, ("A very long heading about configuration",), start_line=1, end_line=1))
    chunks = chunker.chunk(d)
    assert len(chunks) > 5
    assert all(tok.count(c.embed_text) <= 256 for c in chunks)
    # Consecutive chunks overlap by whole sentences of prose.
    for a, b in zip(chunks, chunks[1:]):
        first_of_b = b.text.split(". ")[0] + "."
        assert first_of_b in a.text and not a.text.startswith(first_of_b)
        assert first_of_b in a.text[-250:]  # the overlap is a tail of at most 32 tokens


def test_code_fence_is_never_split_when_it_fits(tok):
    chunker = Chunker(tok, 256)
    fence = "```bash\n# not a heading\nacme token rotate --force\n# another comment\n```"
    prose = "word " * 150
    d = doc(
        Block("paragraph", prose.strip(), ("Rotate",), start_line=1, end_line=1),
        Block("code", fence, ("Rotate",), start_line=3, end_line=7),
        Block("paragraph", prose.strip(), ("Rotate",), start_line=9, end_line=9),
    )
    chunks = chunker.chunk(d)
    holding = [c for c in chunks if "acme token rotate" in c.text]
    assert len(holding) == 1 and fence in holding[0].text
    assert all(tok.count(c.embed_text) <= 256 for c in chunks)


def test_oversized_code_fence_splits_at_lines_and_keeps_fences(tok):
    chunker = Chunker(tok, 128)
    lines = [f"print('line {i} of a long script with words')" for i in range(80)]
    fence = "```python\n" + "\n".join(lines) + "\n```"
    d = doc(Block("code", fence, ("Script",), start_line=10, end_line=10 + len(lines) + 1))
    chunks = chunker.chunk(d)
    assert len(chunks) > 2
    for c in chunks:
        assert c.text.startswith("```python\n") and c.text.endswith("\n```")
        assert tok.count(c.embed_text) <= 128
    body = [line for c in chunks for line in c.text.split("\n")[1:-1]]
    assert body == lines  # nothing lost, nothing repeated, in order
    assert chunks[0].start_line == 11 and chunks[-1].end_line == 10 + len(lines)


def test_line_numbers_follow_sentence_splits(tok):
    chunker = Chunker(tok, 64, overlap=0)
    text = "\n".join(f"Line {i} has a sentence about topic {i}." for i in range(1, 31))
    d = doc(Block("paragraph", text, (), start_line=101, end_line=130))
    chunks = chunker.chunk(d)
    assert chunks[0].start_line == 101 and chunks[-1].end_line == 130
    for c in chunks:
        first = int(c.text.split()[1])
        assert c.start_line == 100 + first


def test_giant_word_is_cut_at_token_boundaries(tok):
    chunker = Chunker(tok, 64)
    d = doc(Block("paragraph", "x" * 5000, ()))
    chunks = chunker.chunk(d)
    assert "".join(c.text for c in chunks) == "x" * 5000
    assert all(tok.count(c.embed_text) <= 64 for c in chunks)


def test_embed_prefix_skips_heading_equal_to_title():
    assert embed_prefix("Guide", ("Guide", "Setup")) == "Guide\nSetup\n\n"
    assert embed_prefix("", ()) == ""
