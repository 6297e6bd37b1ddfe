"""SIGKILL at chosen points of `docshelf index` (``docshelf.crashpoints``), over a generated corpus.

Each case changes the corpus (edits, additions, deletions), runs the indexer in a child
process that kills itself the N-th time it reaches a named point (parse, embed, chunk
write, record write, prune, compaction), checks that it died exactly there and what the
index holds after the kill, then runs the indexer again and checks that the run finished
the work: no orphan chunks, no duplicates, no document with chunks of two versions, every
document findable at its current version, no deleted document findable. The fake embedder
is enough here: this is about storage consistency, not search quality.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.service import Docshelf

N_DOCS = 120  # x 3 sections = 360 chunks: two store batches on a full run
SECTIONS = 3
_CHILD = (
    "import sys; from docshelf.config import load_settings; from docshelf.service import Docshelf; "
    "Docshelf(load_settings()).index([sys.argv[1]])"
)


def word(i: int) -> str:
    """A letters-only token unique to document ``i`` (digits would be split by the analyzer)."""
    letters = "bcdfghjklmnpqrstvwxz"
    return "qu" + letters[i // 400 % 20] + letters[i // 20 % 20] + letters[i % 20] + "o"


class Corpus:
    """The files on disk and the version each one holds."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.version: dict[int, int] = {}
        self.next_id = 0

    def path(self, i: int) -> Path:
        return self.root / f"d{i % 4}" / f"doc{i}.md"

    def write(self, i: int, version: int) -> None:
        tag = "ver" + "abcdefghijklmnopqrstuvwxyz"[version % 26] * 2
        parts = "\n\n".join(
            f"## Part {s}\n\n" + f"{word(i)} {tag} section {'xyz'[s]} of the document body. " * 12
            for s in range(SECTIONS)
        )
        path = self.path(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Document {word(i)}\n\n{parts}\n")
        self.version[i] = version

    def add(self, n: int) -> list[int]:
        ids = list(range(self.next_id, self.next_id + n))
        self.next_id += n
        for i in ids:
            self.write(i, 0)
        return ids

    def delete(self, i: int) -> None:
        self.path(i).unlink()
        del self.version[i]

    def rel(self, i: int) -> str:
        return self.path(i).relative_to(self.root).as_posix()

    def sha(self, i: int) -> str:
        return hashlib.sha256(self.path(i).read_bytes()).hexdigest()

    def mutate(self, step: int, share: int) -> None:
        """Edit every ``share``-th document, delete two, add three."""
        alive = sorted(self.version)
        for i in alive[step % share :: share]:
            self.write(i, self.version[i] + 1)
        for i in alive[step % 7 :: 53][:2]:
            self.delete(i)
        self.add(3)


@dataclass(frozen=True)
class Case:
    point: str
    n: int
    share: int = 3  # which documents the step edits (every share-th)
    delete_after_kill: bool = False  # the files the killed run was writing vanish before the restart
    then: tuple[str, int] | None = None  # a second kill (another point) before the restart


CASES = [
    Case("chunk_write", 2, share=1),  # first full index: the second batch never lands
    Case("parse", 1),
    Case("parse", 25),
    Case("parse", 70, share=1),
    Case("embed", 1),
    Case("embed", 3, share=1),
    Case("chunk_write", 1),
    Case("record_write", 1, delete_after_kill=True),
    Case("record_write", 2, share=1),
    Case("record_write", 1, share=2, delete_after_kill=True),
    Case("prune", 1),
    Case("compaction", 1),
    Case("parse", 5, then=("record_write", 1)),
    Case("embed", 2, share=1, then=("chunk_write", 2)),
    Case("record_write", 1, share=1, then=("prune", 1)),
    Case("chunk_write", 2, share=1, delete_after_kill=True),
    Case("prune", 1, share=2),
    Case("compaction", 1, share=1),
    Case("record_write", 2, share=1, delete_after_kill=True),
]


def kill_at(index_dir: Path, corpus: Corpus, point: str, n: int, tmp_path: Path) -> None:
    """Run `index` in a child that SIGKILLs itself at ``point:n``; assert it died right there."""
    marker = tmp_path / "died-at"
    marker.unlink(missing_ok=True)
    env = {
        **os.environ, "DOCSHELF_INDEX_DIR": str(index_dir), "DOCSHELF_MODEL": "fake",
        "DOCSHELF_CRASH_AT": f"{point}:{n}", "DOCSHELF_CRASH_MARKER": str(marker),
        "DOCSHELF_CONFIG": str(tmp_path / "no-config.toml"),
    }
    env.pop("DOCSHELF_ROOTS", None)
    (tmp_path / "no-config.toml").write_text("")
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(corpus.root)], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, f"{point}:{n} was never reached (exit {proc.returncode}): {proc.stderr}"
    assert marker.read_text() == f"{point}:{n}"


def chunk_rows(shelf: Docshelf) -> list[dict]:
    table = shelf.store._chunks  # the whole table, duplicates and orphans included
    return table.search().select(["id", "root", "path", "chunk_index", "text"]).limit(max(1, table.count_rows())).to_list()


def versions_in(text: str) -> set[str]:
    return {w for w in text.split() if w.startswith("ver") and len(w) == 5}


def check_whole(shelf: Docshelf, corpus: Corpus) -> dict[str, set[str]]:
    """What must hold at any moment, even right after a kill. Returns each document's version tags."""
    shelf.store.refresh()
    rows = chunk_rows(shelf)
    ids = Counter(r["id"] for r in rows)
    assert [i for i, n in ids.items() if n > 1] == [], "duplicate chunk ids"
    by_doc: dict[str, list[dict]] = {}
    for r in rows:
        by_doc.setdefault(r["path"], []).append(r)
    tags: dict[str, set[str]] = {}
    for path, chunks in by_doc.items():
        assert sorted(c["chunk_index"] for c in chunks) == list(range(len(chunks))), f"{path}: chunks missing or doubled"
        tags[path] = set().union(*(versions_in(c["text"]) for c in chunks))
        assert len(tags[path]) == 1, f"{path} holds chunks of two versions: {tags[path]}"
    on_disk = {corpus.rel(i): i for i in corpus.version}
    for r in shelf.store.records():
        i = on_disk.get(r.path)
        if r.status == "indexed" and i is not None and r.sha256 == corpus.sha(i):  # a completed document
            assert len(by_doc.get(r.path, [])) == r.chunk_count == SECTIONS, r.path
    return tags


def check_finished(shelf: Docshelf, corpus: Corpus, deleted: set[int]) -> None:
    """After a complete run: the index holds exactly the files on disk, each at its current version."""
    tags = check_whole(shelf, corpus)
    assert shelf.store.orphan_documents() == []
    records = {r.path: r for r in shelf.store.records()}
    assert sorted(records) == sorted(corpus.rel(i) for i in corpus.version)
    for i, version in corpus.version.items():
        rel = corpus.rel(i)
        assert (records[rel].status, records[rel].sha256) == ("indexed", corpus.sha(i)), rel
        assert tags[rel] == {"ver" + "abcdefghijklmnopqrstuvwxyz"[version % 26] * 2}, rel
    assert set(tags) == set(records), "chunks without a record"
    sample = sorted(corpus.version)[:: max(1, len(corpus.version) // 12)]
    for i in sample:
        assert {h.path for h in shelf.search(word(i), k=3, mode="keyword").hits} == {corpus.rel(i)}
    for i in sorted(deleted)[-6:]:
        assert shelf.search(word(i), k=3, mode="keyword").hits == (), f"deleted doc{i} is still found"


def check_landed(case_point: str, before: set[str], shelf: Docshelf, corpus: Corpus) -> None:
    """The index shows the kill happened where it was aimed."""
    shelf.store.refresh()
    rows = chunk_rows(shelf)
    ids = {r["id"] for r in rows}
    if case_point in ("parse", "embed") or case_point == "chunk_write":
        # Nothing of this run's first batch is committed before its chunk write.
        return
    records = {r.path: r for r in shelf.store.records()}
    on_disk = {corpus.rel(i): i for i in corpus.version}
    if case_point == "record_write":
        # This batch's chunks are in, its records are not: a chunk ahead of (or without) its record.
        stale = [
            p for p in {r["path"] for r in rows}
            if p in on_disk and (p not in records or records[p].sha256 != corpus.sha(on_disk[p]))
        ]
        assert ids != before and stale, "the kill did not land between the chunk and the record commit"
    elif case_point == "prune":
        chunked = {r["path"] for r in rows}
        assert [p for p in records if p not in on_disk and p not in chunked], "no record left without its chunks"


def test_kills_at_every_write_point_never_leave_an_inconsistent_index(tmp_path):
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    corpus = Corpus(docs)
    corpus.add(N_DOCS)
    shelf = Docshelf(Settings(index_dir=index_dir), embedder=FakeEmbedder())
    deleted: set[int] = set()
    kills = 0
    for step, case in enumerate(CASES):
        if step:
            had = set(corpus.version)
            corpus.mutate(step, case.share)
            deleted |= had - set(corpus.version)
        before = {r["id"] for r in chunk_rows(shelf)}
        kill_at(index_dir, corpus, case.point, case.n, tmp_path)
        kills += 1
        if case.point in ("parse", "embed", "chunk_write") and case.n == 1:
            shelf.store.refresh()
            assert {r["id"] for r in chunk_rows(shelf)} == before, f"{case}: a write happened before the kill"
        check_landed(case.point, before, shelf, corpus)
        check_whole(shelf, corpus)
        if case.then:
            kill_at(index_dir, corpus, *case.then, tmp_path)
            kills += 1
            check_whole(shelf, corpus)
        if case.delete_after_kill:
            fresh = [i for i in corpus.version if corpus.version[i] > 0 or i >= N_DOCS][:4]
            for i in fresh:
                corpus.delete(i)
            deleted |= set(fresh)
        shelf.index([docs])  # the restart
        check_finished(shelf, corpus, deleted)
    assert kills >= 20
