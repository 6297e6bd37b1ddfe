"""Discovery: ignore files, default excludes, size cap, symlinks and keys."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docshelf.errors import SourceError
from docshelf.pipeline.discover import (
    DEFAULT_EXCLUDED_DIRS,
    Discovery,
    IgnoreRules,
    discover,
    is_ignored,
)
from docshelf.pipeline.parsers import default_registry

REGISTRY = default_registry()


def write(root: Path, rel: str, content: str | bytes = "text\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def rels(found: Discovery) -> list[str]:
    return [f.rel_path for f in found.files]


def test_same_named_files_in_different_folders_are_distinct(tmp_path: Path) -> None:
    write(tmp_path, "README.md")
    write(tmp_path, "guides/README.md")
    write(tmp_path, "guides/deep/README.md")
    found = discover([tmp_path], registry=REGISTRY)
    assert rels(found) == ["README.md", "guides/README.md", "guides/deep/README.md"]
    root = tmp_path.resolve()
    first = found.files[1]
    assert (first.root, first.path, first.size) == (root, root / "guides/README.md", 5)
    assert first.mtime_ns == (root / "guides/README.md").stat().st_mtime_ns
    assert found.skipped == {}


def test_nested_gitignore_with_negation(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log.md\nbuild/\ndrafts/*.md\n!drafts/keep.md\n")
    write(tmp_path, "a.md")
    write(tmp_path, "debug.log.md")
    write(tmp_path, "build/out.md")
    write(tmp_path, "drafts/wip.md")
    write(tmp_path, "drafts/keep.md")
    # A nested file applies to its own subtree and overrides the parent.
    write(tmp_path, "sub/.gitignore", "!important.log.md\nsecret.md\n")
    write(tmp_path, "sub/important.log.md")
    write(tmp_path, "sub/other.log.md")
    write(tmp_path, "sub/secret.md")
    write(tmp_path, "secret.md")  # the nested rule does not reach the parent
    found = discover([tmp_path], registry=REGISTRY)
    assert rels(found) == ["a.md", "drafts/keep.md", "secret.md", "sub/important.log.md"]
    assert found.skipped == {}


def test_files_inside_an_ignored_directory_cannot_be_reincluded(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "private/\n!private/public.md\n")
    write(tmp_path, "private/public.md")
    write(tmp_path, "ok.md")
    assert rels(discover([tmp_path], registry=REGISTRY)) == ["ok.md"]
    assert is_ignored(tmp_path, "private/public.md") is True


def test_docshelfignore_and_extra_excludes(tmp_path: Path) -> None:
    write(tmp_path, ".docshelfignore", "archive/\n*.txt\n")
    write(tmp_path, "docs/.docshelfignore", "/local.md\n")
    write(tmp_path, "archive/old.md")
    write(tmp_path, "notes.txt")
    write(tmp_path, "docs/local.md")
    write(tmp_path, "docs/nested/local.md")  # anchored pattern: only docs/local.md
    write(tmp_path, "docs/guide.md")
    write(tmp_path, "docs/tmp-1.md")
    found = discover([tmp_path], registry=REGISTRY, exclude=["tmp-*"])
    assert rels(found) == ["docs/guide.md", "docs/nested/local.md"]


def test_docshelfignore_overrides_gitignore_in_the_same_directory(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "generated/\n")
    write(tmp_path, ".docshelfignore", "!generated/\n")
    write(tmp_path, "generated/api.md")
    assert rels(discover([tmp_path], registry=REGISTRY)) == ["generated/api.md"]


def test_default_excluded_directories(tmp_path: Path) -> None:
    for name in sorted(DEFAULT_EXCLUDED_DIRS):
        write(tmp_path, f"{name}/note.md")
    write(tmp_path, "venv/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "venv/lib/readme.md")
    write(tmp_path, "env/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "env/readme.md")
    write(tmp_path, "environment/readme.md")  # no pyvenv.cfg: a normal folder
    write(tmp_path, ".DS_Store", b"\x00\x01")
    write(tmp_path, "keep.md")
    found = discover([tmp_path], registry=REGISTRY)
    assert rels(found) == ["environment/readme.md", "keep.md"]
    assert found.skipped == {}
    everything = discover([tmp_path], registry=REGISTRY, default_excludes=False)
    assert rels(everything) == sorted(
        [f"{name}/note.md" for name in DEFAULT_EXCLUDED_DIRS]
        + ["env/pyvenv.cfg", "env/readme.md", "environment/readme.md", "keep.md",
           "venv/lib/readme.md", "venv/pyvenv.cfg"])
    assert everything.skipped == {".DS_Store": "unsupported format"}


def test_size_cap_and_unsupported_formats_are_reported(tmp_path: Path) -> None:
    write(tmp_path, "big.md", "x" * 2_000)
    write(tmp_path, "small.md", "x" * 10)
    write(tmp_path, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00")
    write(tmp_path, "scan", b"%PDF-1.7\n...")
    found = discover([tmp_path], registry=REGISTRY, max_bytes=1_000)
    assert rels(found) == ["scan", "small.md"]
    assert found.skipped == {
        "big.md": "larger than the 0.001 MB size cap",
        "image.png": "unsupported format",
    }


def test_default_size_cap_message(tmp_path: Path) -> None:
    big = write(tmp_path, "huge.md", b"")
    with big.open("wb") as handle:  # sparse: 20 MB + 1 byte without writing them
        handle.truncate(20_000_001)
    assert discover([tmp_path], registry=REGISTRY).skipped == {
        "huge.md": "larger than the 20 MB size cap"}


def test_symlinks(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(outside, "secret.md")
    write(root, "real/doc.md")
    (root / "out-file.md").symlink_to(outside / "secret.md")
    (root / "out-dir").symlink_to(outside, target_is_directory=True)
    (root / "alias.md").symlink_to(root / "real/doc.md")
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "nope.md")
    found = discover([root], registry=REGISTRY)
    assert rels(found) == ["alias.md", "real/doc.md"]
    assert found.files[0].path == root.resolve() / "alias.md"
    assert found.skipped == {
        "out-file.md": "symlink outside the root",
        "out-dir": "symlink outside the root",
        "loop": "symlinked directory (not followed)",
        "dangling.md": "broken symlink",
    }


def test_single_file_root_and_missing_root(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.md\n")
    path = write(tmp_path, "docs/one.md")
    found = discover([path], registry=REGISTRY)
    docs = (tmp_path / "docs").resolve()
    assert [(f.root, f.rel_path) for f in found.files] == [(docs, "one.md")]
    with pytest.raises(SourceError) as info:
        discover([tmp_path / "missing"], registry=REGISTRY)
    assert info.value.reason == "no such file or directory; check the path"


def test_multiple_roots_sorted_and_deduplicated(tmp_path: Path) -> None:
    write(tmp_path, "b/x.md")
    write(tmp_path, "a/y.md")
    found = discover([tmp_path / "b", tmp_path / "a", tmp_path / "b"], registry=REGISTRY)
    assert [(f.root.name, f.rel_path) for f in found.files] == [("a", "y.md"), ("b", "x.md")]


def test_ignore_rules_for_a_watcher(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "tmp/\n*.bak\n")
    write(tmp_path, "docs/.gitignore", "!keep.bak\n")
    write(tmp_path, "venv/pyvenv.cfg", "")
    rules = IgnoreRules(tmp_path, exclude=["drafts/"])
    assert [rules.is_ignored(p) for p in (
        "docs/a.md", "tmp/a.md", "a.bak", "docs/keep.bak", "node_modules/x/y.md",
        "drafts/a.md", "venv/notes.md",
    )] == [False, True, True, False, True, True, True]
    assert rules.is_ignored("tmp", is_dir=True) is True
    write(tmp_path, "docs/.gitignore", "")
    assert rules.is_ignored("docs/keep.bak") is False  # cached until cleared
    rules.clear()
    assert rules.is_ignored("docs/keep.bak") is True


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")
def test_special_files_are_reported_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.md")  # reading it would block forever
    write(tmp_path, "ok.md")
    found = discover([tmp_path], registry=REGISTRY)
    assert (rels(found), found.skipped) == (["ok.md"], {"pipe.md": "not a regular file"})
