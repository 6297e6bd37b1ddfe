"""The default mode cites the most specific section that answers (issue 8 item 1), on shipped
documentation with the real model.

Real pages of sets C (Click, MyST Markdown) and D (Werkzeug, reStructuredText). Each question
below found its page either way, but without ``fuse.named_sections_first`` the top hit cited
the page's introduction ("Shell Completion", "Debugging Applications"), which repeats the
question's topic words, instead of the child section whose own heading names what is asked
("Enabling Completion", "Enabling the Debugger").
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DOCSETS = Path(__file__).resolve().parents[2] / "benchmarks" / "docsets"
PAGES = (("click", "shell-completion.md"), ("click", "testing.md"), ("click", "commands.md"),
         ("werkzeug", "debug.rst"), ("werkzeug", "installation.rst"))
CASES = (
    ("how to enable tab completion in bash for my program", "shell-completion.md", "Enabling Completion"),
    ("how do I enable the interactive debugger", "debug.rst", "Enabling the Debugger"),
)


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    docs = tmp_path_factory.mktemp("docs")
    for docset, page in PAGES:
        shutil.copyfile(DOCSETS / docset / "docs" / page, docs / page)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([docs]).failed == {}
    return shelf


@pytest.mark.parametrize(("query", "page", "section"), CASES)
def test_the_top_hit_cites_the_section_whose_own_heading_the_question_names(shelf, query, page, section):
    from docshelf.search.engine import Searcher

    searcher = shelf.searcher
    off = replace(searcher.options, fusion=replace(searcher.options.fusion, heading_weight=0.0))
    without = Searcher(searcher.store, searcher.embedder, off)
    top = searcher.search(query, max_per_doc=1).hits[0]
    before = without.search(query, max_per_doc=1).hits[0]
    assert (top.path, top.heading_path[-1]) == (page, section), top.heading_path
    # the same page either way (pages keep their places), another section without the rule
    assert before.path == page and before.heading_path[-1] != section, before.heading_path
