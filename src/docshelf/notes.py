"""Which note a name means, and which notes link where: a vault's links, resolved as Obsidian does.

A wikilink names a note by file name (``[[Apollo budget]]``), by path (``[[1_Projects/Apollo
budget]]``), by alias (frontmatter ``aliases``) or by title. When several notes share a name,
the nearest one to the linking note wins — the one sharing the longest folder prefix with it,
then the shortest path — as Obsidian resolves it. Links are stored unresolved on each
document record (``DocumentRecord.links``) and resolved here, against the whole index, when
they are read: a note added or renamed later is found without re-indexing its linkers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .models import DocumentRecord

_NOTE_SUFFIXES = (".md", ".markdown", ".mdx", ".canvas")


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    for suffix in (".excalidraw.md", *_NOTE_SUFFIXES):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _without_suffix(path: str) -> str:
    folder, _, _ = path.rpartition("/")
    return f"{folder}/{_stem(path)}" if folder else _stem(path)


def _folder(path: str) -> list[str]:
    return path.split("/")[:-1]


def clean_target(name: str) -> str:
    """``[[Note#Heading|alias]]`` or ``Note#Heading`` → ``Note``."""
    want = name.strip()
    if want.startswith("[[") and want.endswith("]]"):
        want = want[2:-2]
    return want.split("|", 1)[0].split("#", 1)[0].split("^", 1)[0].strip().lstrip("/")


@dataclass(frozen=True)
class ResolvedLink:
    target: str  # as written in the note
    path: str | None  # the note it resolves to, or None for a link to a note that does not exist
    root: str | None


def _same(a: DocumentRecord | None, b: DocumentRecord) -> bool:
    return a is not None and a.root == b.root and a.path == b.path


class NoteIndex:
    """Look-ups over the indexed documents' records (only ``status == "indexed"`` ones)."""

    def __init__(self, records: Iterable[DocumentRecord]) -> None:
        self.records = [r for r in records if r.status == "indexed"]
        self._by_key: dict[str, list[DocumentRecord]] = {}
        for r in self.records:
            keys = {r.path.lower(), _without_suffix(r.path).lower(), _stem(r.path).lower()}
            keys.update(a.lower() for a in r.aliases if a)
            for key in keys:
                self._by_key.setdefault(key, []).append(r)
        self._by_title: dict[str, list[DocumentRecord]] = {}
        for r in self.records:
            if r.title:
                self._by_title.setdefault(r.title.lower(), []).append(r)

    def candidates(self, name: str) -> list[DocumentRecord]:
        """Every note ``name`` may mean: path, path without suffix, file name or alias; else title."""
        key = clean_target(name).lower()
        if not key:
            return []
        found = self._by_key.get(key)
        if found is None and "/" in key:  # a partial path: "Apollo/Apollo budget"
            found = [r for r in self.records if _without_suffix(r.path).lower().endswith("/" + key)]
        return list(found or self._by_title.get(key, []))

    def resolve(self, name: str, source: DocumentRecord | None = None) -> DocumentRecord | None:
        """The note ``name`` means, seen from ``source``: nearest first, then the shortest path."""
        found = self.candidates(name)
        if source is not None:
            same_root = [r for r in found if r.root == source.root]
            found = same_root or found
        if not found:
            return None
        here = _folder(source.path) if source is not None else []

        def distance(r: DocumentRecord) -> tuple[int, int, str]:
            there = _folder(r.path)
            shared = 0
            for a, b in zip(here, there):
                if a != b:
                    break
                shared += 1
            return (-shared, len(r.path), r.path)

        return min(found, key=distance)

    def outgoing(self, note: DocumentRecord) -> list[ResolvedLink]:
        out = []
        for target in note.links:
            hit = self.resolve(target, note)
            out.append(ResolvedLink(target, hit.path if hit else None, hit.root if hit else None))
        return out

    def backlinks(self, note: DocumentRecord) -> list[DocumentRecord]:
        """Notes whose links resolve to ``note``, in path order."""
        names = {k for k, rs in self._by_key.items() if any(_same(r, note) for r in rs)} | {note.title.lower()}
        found = []
        for other in self.records:
            if _same(other, note):
                continue
            for target in other.links:
                key = clean_target(target).lower()
                if (key in names or "/" in key) and _same(self.resolve(target, other), note):
                    found.append(other)
                    break
        return sorted(found, key=lambda r: (r.path, r.root))

    def linking_to(self, names: Sequence[str]) -> list[DocumentRecord]:
        """Notes that link to any of the notes ``names`` may mean (the ``linked_to`` filter).

        A name shared by several notes counts for all of them: a filter should not guess.
        """
        targets = [t for n in names for t in self.candidates(n)]
        seen: dict[tuple[str, str], DocumentRecord] = {}
        for t in targets:
            for r in self.backlinks(t):
                seen[(r.root, r.path)] = r
        return list(seen.values())
