"""Change logs rank below the page that explains a feature (hybrid; sets A and E, benchmarks/README.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docshelf.search.fuse import is_changelog

GUIDE = """# Keys

## Renaming keys

Set `data_key` on a field to read and write the value under another key in the input and the
output, for example when the JSON uses camel case and the attribute does not.
"""

UPGRADING = """# Upgrading

## 3.0

- `load_from` and `dump_to` are merged into `data_key`; use `data_key` instead.
"""

OTHER_PAGES = (
    "# Nesting\n\nNest a schema inside another one to represent related objects and lists of them.\n",
    "# Validation\n\nValidators check values while loading; errors are collected per field and raised together.\n",
    "# Defaults\n\nA field may define a default value used when the input does not hold the field at all.\n",
    "# Install\n\nInstall the package with pip inside a virtual environment and import it in your code.\n",
)


@pytest.mark.parametrize("path", ["CHANGES.rst", "docs/changelog.md", "HISTORY.md", "release-notes.md",
                                  "upgrading.rst", "upgrade-guides.md", "migrating.rst", "migration-guide.md", "whatsnew5x.rst",
                                  "docs/Release_Notes.MD", "news.txt"])
def test_change_logs_are_recognised_by_file_name(path):
    assert is_changelog(path)


@pytest.mark.parametrize("path", ["quickstart.rst", "exchanges.md", "changes/usage.md", "history-api.md",
                                  "migration-tool/index.md", "migrations.md", "upgrade_button.md", "release.md.txt"])
def test_other_pages_are_not(path):
    assert not is_changelog(path)


def test_the_explaining_page_outranks_the_change_log(shelf, write, tmp_path):
    docs = tmp_path / "docs"
    write(docs, "guide.md", GUIDE)
    write(docs, "upgrading.md", UPGRADING)
    for n, text in enumerate(OTHER_PAGES):
        write(docs, f"page{n}.md", text)
    shelf.index([docs])

    def first(penalty: float) -> str:
        options = shelf.searcher.options
        shelf.searcher.options = replace(options, fusion=replace(options.fusion, changelog_penalty=penalty))
        try:
            return shelf.search("data_key", k=2, mode="hybrid").hits[0].path
        finally:
            shelf.searcher.options = options

    assert first(0.0) == "upgrading.md"  # the short change line matches best without the prior
    assert first(0.3) == "guide.md"
    assert shelf.search("data_key", k=2, mode="keyword").hits[0].path == "upgrading.md"  # single modes unchanged
