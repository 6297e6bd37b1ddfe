"""The calibrated score of the default mode says "not covered" for questions whose words the
documentation never uses, with the real model (issue 8: scores with a meaning)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from test_typo_correction import TOPICS

pytestmark = pytest.mark.e2e

PAGES = {
    "arguments.md": "# Arguments\n\n## Argument escape sequences\n\nTo process arguments that look like options, "
    "such as a file named `-foo.txt` or `--foo.txt`, pass the `--` separator first.\n",
    "options.md": "# Options\n\n## Multiple options\n\nAn option given several times, like `-m foo -m bar`, "
    "collects every value when `multiple=True` is set.\n",
    "help.md": "# Help pages\n\n## Help texts\n\nCommands and options accept help arguments; the docstring of "
    "the function becomes the help text of a command.\n",
} | {f"topics/{t.lower().replace(' ', '-')}.md": f"# {t}\n\n{x}\n" for t, x in TOPICS}


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    root = tmp_path_factory.mktemp("docs")
    for name, text in PAGES.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(text)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([root]).failed == {}
    return shelf


def test_pool_coverage_lowers_a_question_in_words_the_docs_never_use_when_turned_on(shelf):
    """The pool-coverage and BM25 terms of the dense estimate are off by default (they called
    answered paraphrases 'none': tests/e2e/test_eval_search_quality.py); turned on, they do
    what they are for."""
    from docshelf.search.engine import Searcher

    searcher = shelf.searcher
    unanswerable = "translate the help messages into other languages with gettext"
    answerable = "let an option be given several times"
    assert shelf.search(answerable).confidence == "high"
    assert shelf.search(answerable).hits[0].path == "options.md"
    # the help page shares 'help messages' with the question but not 'translate', 'languages', 'gettext'
    default = shelf.search(unanswerable)
    on = replace(searcher.options.calibration, bm25_weight=2.0, pool_weight=2.0, pivot=0.2)
    strict = Searcher(searcher.store, searcher.embedder, replace(searcher.options, calibration=on))
    assert strict.search(unanswerable).confidence in ("medium", "low", "none")
    assert strict.search(unanswerable).hits[0].score < default.hits[0].score
