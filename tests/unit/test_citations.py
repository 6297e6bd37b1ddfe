"""Every hit's citation is true: its lines hold its text, and its heading is the section they lie in.

Run over many searches of set A (the Starlette documentation, benchmarks/docsets/starlette) in
every mode, with the fake embedder (citations do not depend on ranking quality) and a real
LanceDB index. Adjacent chunks of one document are merged into one hit only within one section.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

from docshelf.pipeline.parsers import default_registry

SET_A = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "starlette"
_WORD = re.compile(r"\w+")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}).*$", re.M)  # the chunker re-fences each part of a split code block


def _is_subsequence(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(word in it for word in needle)


@lru_cache(maxsize=None)
def _headings(file: Path) -> list[tuple[int, tuple[str, ...]]]:
    doc = default_registry().parse(file, file.read_bytes())
    return [(b.start_line, b.heading_path) for b in doc.blocks if b.kind == "heading" and b.start_line]


@pytest.fixture(scope="module")
def shelf_on_set_a(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("cite") / "index"), embedder=FakeEmbedder())
    shelf.index([SET_A / "docs"])
    return shelf


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "semantic", "fuzzy"])
def test_every_hit_cites_lines_that_hold_its_text_within_one_section(shelf_on_set_a, mode):
    queries = [json.loads(line)["query"] for line in (SET_A / "questions.jsonl").read_text().splitlines()]
    checked = 0
    for query in queries:
        for hit in shelf_on_set_a.search(query, k=10, mode=mode).hits:
            file = SET_A / "docs" / hit.path
            lines = file.read_text(encoding="utf-8").splitlines()
            cited = "\n".join(lines[hit.start_line - 1 : hit.end_line])
            # (case-folded: the parser writes an admonition's kind as a label, ``!!! note`` -> ``Note``)
            words = _WORD.findall(_FENCE.sub("", hit.text).lower())
            assert _is_subsequence(words, _WORD.findall(cited.lower())), (query, hit.path, hit.start_line)
            # The section: the nearest heading at or above the first cited line, and no other
            # heading starts inside the cited lines.
            heads = _headings(file)
            above = [path for line, path in heads if line <= hit.start_line]
            assert hit.heading_path == (above[-1] if above else ()), (query, hit.path, hit.start_line, hit.heading_path)
            inside = [line for line, _ in heads if hit.start_line < line <= hit.end_line]
            assert not inside, (query, hit.path, hit.start_line, hit.end_line, inside)
            checked += 1
    assert checked > 500


def test_a_split_rst_list_with_blank_lines_between_items_cites_the_lines_holding_each_part(tmp_path):
    """A reST change log: items two blank lines apart, some over several lines. The list is one
    block whose text drops those blank lines; split into chunks, each part cited lines counted
    from the block's first line, drifting further down the list (pytest's changelog: a part
    holding lines 318-330 cited 304-309)."""
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    items = []
    for n in range(60):
        body = f"Fixed issue number {n} where the collector {'skipped' if n % 2 else 'repeated'} item {n}."
        if n % 3 == 0:
            body += f"\n  It also affected :confval:`option_{n}`\n  and the ``--flag-{n}`` flag."
        items.append(f"- `#{1000 + n} <https://example.org/issues/{1000 + n}>`_: {body}")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "changelog.rst").write_text("Changelog\n=========\n\nBug fixes\n---------\n\n" + "\n\n\n".join(items) + "\n")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=FakeEmbedder())
    shelf.index([docs])
    chunks = shelf.store.document_chunks(str(docs), "changelog.rst")
    assert len(chunks) >= 3  # the list was split
    lines = (docs / "changelog.rst").read_text().splitlines()
    for c in chunks:
        cited = "\n".join(lines[c.start_line - 1 : c.end_line])
        words = _WORD.findall(c.text.lower())
        assert _is_subsequence(words, _WORD.findall(cited.lower())), (c.start_line, c.end_line, c.text[:80])


def test_a_split_html_paragraph_cites_lines_that_hold_each_part(tmp_path):
    """An HTML paragraph set over many source lines is one line of text: split into chunks,
    every part cited the paragraph's first line alone (set N, the PostgreSQL manual: a part of
    a paragraph at lines 31-51 cited 31-31), and that line holds none of the later parts."""
    from docshelf.config import Settings
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf

    sentences = [f"Setting number {n} changes how the {'planner' if n % 2 else 'vacuum'} treats table t{n}." for n in range(80)]
    page = ("<html><head><title>Tuning</title></head><body>\n<h1>Tuning</h1>\n<p>"
            + "\n".join(sentences) + "</p>\n</body></html>\n")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "tuning.html").write_text(page)
    shelf = Docshelf(Settings(index_dir=tmp_path / "index"), embedder=FakeEmbedder())
    shelf.index([docs])
    chunks = shelf.store.document_chunks(str(docs), "tuning.html")
    assert len(chunks) >= 3  # the paragraph was split
    lines = page.splitlines()
    for c in chunks:
        cited = re.sub(r"<[^>]+>", " ", "\n".join(lines[c.start_line - 1 : c.end_line]))
        words = _WORD.findall(c.text.lower())
        assert _is_subsequence(words, _WORD.findall(cited.lower())), (c.start_line, c.end_line, c.text[:80])
