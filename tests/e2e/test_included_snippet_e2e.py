"""A page that includes a snippet file shows that file's current text, in search and in
``get_document``, after the snippet is edited, deleted and added back (the real model and the
embedded store; ``tests/backends/test_included_snippet_backends.py`` runs the same story on every store)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

PAGE = '# Retries\n\nThe client retries failed requests on its own.\n\n--8<-- "snippets/budget.md"\n'
QUESTION = "how many retry attempts does the client allow per minute"


def hits_with(shelf, word: str, **options) -> set[str]:
    """Paths of the hits (top 10) whose text holds ``word``."""
    return {h.path for h in shelf.search(word if "mode" in options else QUESTION, k=10, **options).hits
            if word in h.text}


def test_a_page_shows_the_current_text_of_the_snippet_it_includes(write, tmp_path, make_shelf):
    docs = tmp_path / "docs"
    write(docs, "guide/retries.md", PAGE)
    write(docs, "guide/other.md", "# Logging\n\nLogs go to standard error by default.\n")
    snippet = write(docs, "snippets/budget.md", "The retry budget is seventeen attempts per minute.\n")
    shelf = make_shelf()  # the packaged model
    shelf.index([docs])
    assert "seventeen attempts" in shelf.get_document("guide/retries.md").text
    assert "guide/retries.md" in hits_with(shelf, "seventeen")

    snippet.write_text("The retry budget is forty attempts per minute.\n")
    report = shelf.index([docs])
    assert sorted(report.updated) == ["guide/retries.md", "snippets/budget.md"]
    page = shelf.get_document("guide/retries.md").text
    assert "forty attempts" in page and "seventeen" not in page
    assert "guide/retries.md" in hits_with(shelf, "forty")  # the default mode, asked a question
    assert hits_with(shelf, "seventeen") == hits_with(shelf, "seventeen", mode="keyword") == set()

    snippet.unlink()
    report = shelf.index([docs])
    assert (report.updated, report.removed, report.failed) == (["guide/retries.md"], ["snippets/budget.md"], {})
    page = shelf.get_document("guide/retries.md").text
    assert "The client retries failed requests" in page and "forty" not in page
    assert hits_with(shelf, "forty") == hits_with(shelf, "forty", mode="keyword") == set()

    write(docs, "snippets/budget.md", "The retry budget is ninety attempts per minute.\n")
    report = shelf.index([docs])
    assert (report.added, report.updated) == (["snippets/budget.md"], ["guide/retries.md"])
    assert "ninety attempts" in shelf.get_document("guide/retries.md").text
    assert "guide/retries.md" in hits_with(shelf, "ninety")
    assert shelf.index([docs]).chunks_embedded == 0  # nothing changed since: nothing new to embed
