"""One glob dialect (gitignore-style, ``docshelf.globs``) for config rules, --glob and ignore rules."""

from __future__ import annotations

import pytest

from docshelf.models import SearchFilters
from docshelf.pipeline.discover import discover
from docshelf.pipeline.parsers import default_registry

FILES = ["top.md", "docs/a.md", "docs/deep/b.md", "notes/docs/c.md", "notes/d.txt"]
# pattern -> the files it selects, by gitignore rules
EXPECTED = {
    "*.md": {"top.md", "docs/a.md", "docs/deep/b.md", "notes/docs/c.md"},  # no slash: any depth
    "docs/*.md": {"docs/a.md"},  # anchored, * stays inside one folder
    "docs/**/*.md": {"docs/a.md", "docs/deep/b.md"},
    "**/docs/*.md": {"docs/a.md", "notes/docs/c.md"},
    "docs/": {"docs/a.md", "docs/deep/b.md", "notes/docs/c.md"},  # a folder at any depth
    "notes/d.?xt": {"notes/d.txt"},
}


@pytest.mark.parametrize("pattern", sorted(EXPECTED))
def test_config_rules_path_filter_and_ignore_rules_read_a_glob_alike(pattern, tmp_path, make_shelf, fake_embedder):
    docs = tmp_path / "docs-root"
    for n, rel in enumerate(FILES):
        (docs / rel).parent.mkdir(parents=True, exist_ok=True)
        words = " ".join(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"][n:] * 3)
        (docs / rel).write_text(f"# Note {n}\n\nmarmot {words}\n")  # distinct: no near-duplicate merging
    shelf = make_shelf(
        fake_embedder, collections=[{"name": "picked", "include": [pattern]}],
        doc_types=[{"doc_type": "chosen", "include": [pattern]}],
    )
    shelf.index([docs])
    by_collection = {r.path for r in shelf.store.records() if r.collection == "picked"}
    by_doc_type = {r.path for r in shelf.store.records() if r.doc_type == "chosen"}
    hits = shelf.search("marmot", k=20, mode="keyword", filters=SearchFilters(path_glob=pattern)).hits
    by_filter = {h.path for h in hits}
    kept = {f.rel_path for f in discover([docs], registry=default_registry(), exclude=[pattern]).files}
    by_ignore = set(FILES) - kept
    assert (by_collection, by_doc_type, by_filter, by_ignore) == (EXPECTED[pattern],) * 4
