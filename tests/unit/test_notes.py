"""Link resolution as Obsidian does it: by name, path or alias; nearest note first."""

from __future__ import annotations

from docshelf.models import DocumentRecord
from docshelf.notes import NoteIndex


def note(path: str, links=(), aliases=(), title="") -> DocumentRecord:
    return DocumentRecord(root="/v", path=path, sha256="", size=0, mtime_ns=0, status="indexed",
                          collection="default", doc_type="note", title=title or path, links=tuple(links),
                          aliases=tuple(aliases))


def test_names_paths_aliases_and_titles():
    budget = note("1_Projects/Apollo/Apollo budget.md", aliases=["Budget 2025"], title="Apollo budget")
    saturn = note("3_Resources/Saturn V.md", title="The Saturn V rocket")
    index = NoteIndex([budget, saturn])
    for name in ("Apollo budget", "apollo budget", "Budget 2025", "[[Apollo budget#Q3|x]]",
                 "1_Projects/Apollo/Apollo budget", "Apollo/Apollo budget", "1_Projects/Apollo/Apollo budget.md"):
        assert index.resolve(name) is budget, name
    assert index.resolve("The Saturn V rocket") is saturn
    assert index.resolve("Mars plan") is None


def test_ambiguous_names_resolve_to_the_nearest_note():
    current = note("1_Projects/Apollo/Apollo budget.md")
    archived = note("4_Archive/Apollo budget.md")
    log = note("1_Projects/Apollo/Mission log.md", links=["Apollo budget"])
    old = note("4_Archive/Old log.md", links=["Apollo budget"])
    top = note("Index.md", links=["Apollo budget", "4_Archive/Apollo budget"])
    index = NoteIndex([current, archived, log, old, top])
    assert index.resolve("Apollo budget", log) is current
    assert index.resolve("Apollo budget", old) is archived
    assert index.resolve("Apollo budget", top) is archived  # no shared folder: the shortest path
    assert [r.path for r in index.backlinks(current)] == ["1_Projects/Apollo/Mission log.md"]
    assert [r.path for r in index.backlinks(archived)] == ["4_Archive/Old log.md", "Index.md"]
    assert [(l.target, l.path) for l in index.outgoing(top)] == [
        ("Apollo budget", "4_Archive/Apollo budget.md"), ("4_Archive/Apollo budget", "4_Archive/Apollo budget.md")]


def test_links_to_missing_notes_and_links_by_alias():
    budget = note("Budget.md", aliases=["B25"])
    memo = note("Memo.md", links=["B25", "Nowhere"])
    index = NoteIndex([budget, memo])
    assert [(l.target, l.path) for l in index.outgoing(memo)] == [("B25", "Budget.md"), ("Nowhere", None)]
    assert index.backlinks(budget) == [memo]
    assert index.linking_to(["Budget"]) == [memo]
    twin = note("Archive/Budget.md")
    old_memo = note("Archive/Old.md", links=["Budget"])
    both = NoteIndex([budget, memo, twin, old_memo])
    assert {r.path for r in both.linking_to(["Budget"])} == {"Memo.md", "Archive/Old.md"}
