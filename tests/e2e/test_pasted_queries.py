"""Pasted program output finds the page that prints it (issue 8 item 2: each question kind at
least as good as the best single mode), on shipped documentation with the real model.

Real pages of set F (SQLModel, MkDocs with ``{* docs_src *}`` includes). The query below is
a line of output the tutorial prints (question fe05 of the set); keyword search ranks the page
that prints it first, while without ``engine.phrase_bonus`` hybrid ranked a page on the same
topic first (the dense side reads ``id=None name='Deadpond'`` as "a hero with fields", which the
UUID page shows too).
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DOCS = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets" / "sqlmodel" / "docs"
COPIED = ("tutorial/automatic-id-none-refresh.md", "advanced/uuid.md", "tutorial/relationship-attributes/back-populates.md",
          "tutorial/connect/read-connected-data.md", "docs_src/tutorial/automatic_id_none_refresh",
          "docs_src/advanced/uuid", "docs_src/tutorial/relationship_attributes/back_populates",
          "docs_src/tutorial/connect/select", "docs_src/tutorial/connect/insert")
CASES = (
    ("Hero 1: id=None name='Deadpond' secret_name='Dive Wilson' age=None", "tutorial/automatic-id-none-refresh.md"),
)


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("docs")
    for rel in COPIED:
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        if (DOCS / rel).is_dir():
            shutil.copytree(DOCS / rel, docs / rel)
        else:
            shutil.copyfile(DOCS / rel, docs / rel)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


@pytest.mark.parametrize(("query", "page"), CASES)
def test_a_pasted_output_line_ranks_the_page_that_prints_it_first(shelf, query, page):
    from docshelf.search.engine import Searcher

    searcher = shelf.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, phrase_weight=0.0))
    without = Searcher(searcher.store, searcher.embedder, off)
    assert shelf.search(query, mode="keyword", max_per_doc=1).hits[0].path == page
    assert searcher.search(query, max_per_doc=1).hits[0].path == page
    assert without.search(query, max_per_doc=1).hits[0].path != page  # another page without the rule
