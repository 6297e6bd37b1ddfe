"""The README's first command, on the sample docs it ships: the answer a new user sees first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "sample-docs"


def quick_start_question() -> str:
    """The question the README's first command asks (read from the README, so the two cannot drift)."""
    found = re.search(r'docshelf index examples/sample-docs && docshelf search "([^"]+)"', (ROOT / "README.md").read_text())
    assert found, "the README's first command indexes examples/sample-docs and asks a question"
    return found.group(1)


def test_the_readme_question_is_answered_by_the_pages_that_answer_it(tmp_path):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=tmp_path / "index"))
    shelf.index([SAMPLE])
    hits = shelf.search(quick_start_question(), k=3).hits
    # The guide's section with the steps, and the FAQ entry that points to it; not a page that
    # merely quotes the question (the sample README once did, and ranked second).
    assert {h.path for h in hits} <= {"guides/authentication.md", "faq.md"}, [(h.path, h.heading_path) for h in hits]
    assert any(h.heading_path[-1:] == ("Rotating the ingest token",) for h in hits[:2])
    assert shelf.search(quick_start_question(), k=3).confidence == "high"
