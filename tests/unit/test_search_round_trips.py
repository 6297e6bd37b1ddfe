"""A search makes no engine round trip it does not need: none counts the table's rows (a
LanceDB table's truth value is its ``len``, a ``count_rows`` round trip; the read snapshot's
handle was once tested that way before every query), and the engine is asked for the latest
commit only when the commit log folder moved (or was recently written, or not for a while)."""

from __future__ import annotations


def test_a_search_never_counts_rows(shelf, write, tmp_path, monkeypatch):
    from lancedb.table import LanceTable

    docs = tmp_path / "docs"
    for i in range(12):
        write(docs, f"d{i}.md", f"# Doc {i}\n\nThe coral reef survey {i} counted {i * 3} fish near the glacier.")
    shelf.index([docs])
    counted = []
    original = LanceTable.count_rows
    monkeypatch.setattr(LanceTable, "count_rows", lambda self, *a, **kw: counted.append(1) or original(self, *a, **kw))
    for mode in ("keyword", "semantic", "hybrid", "fuzzy"):
        result = shelf.search("coral reef survey glaicer", k=5, mode=mode)  # a typo: hybrid probes too
        assert result.hits
        assert counted == [], mode


def test_the_latest_commit_is_asked_for_only_when_the_commit_log_moved(make_shelf, fake_embedder, write, tmp_path,
                                                                       monkeypatch):
    import os

    from lancedb.table import LanceTable

    from docshelf.stores import lancedb_store

    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nThe coral reef survey counted fish.")
    reader = make_shelf(fake_embedder)
    reader.index([docs])
    log = reader.store.dir / "chunks.lance" / "_versions"
    old = log.stat().st_mtime - 60
    os.utime(log, (old, old))  # a commit log that has been quiet for a minute
    asked = []
    original = LanceTable.version
    live = reader.store._chunks  # asking it names the latest commit (a handle being opened asks too: not counted)
    monkeypatch.setattr(LanceTable, "version", property(lambda self: (self is live and asked.append(1)) or original.fget(self)))
    for _ in range(3):
        assert [h.path for h in reader.search("coral reef", k=5, mode="keyword").hits] == ["a.md"]
    assert len(asked) == 1  # the folder's identity vouched for the next two

    # another process (here: another store on the same folder) commits: the next search sees it
    write(docs, "b.md", "# B\n\nA second coral reef page.")
    make_shelf(fake_embedder).index([docs])
    assert sorted(h.path for h in reader.search("coral reef", k=5, mode="keyword").hits) == ["a.md", "b.md"]
    assert len(asked) == 2

    # a log changed within the last seconds vouches for nothing: the engine is asked every time
    for _ in range(2):
        reader.search("coral reef", k=5, mode="keyword")
    assert len(asked) == 4

    # and a quiet one is asked again after RECHECK_SECONDS
    new = log.stat().st_mtime - 60
    os.utime(log, (new, new))
    reader.search("coral reef", k=5, mode="keyword")
    monkeypatch.setattr(lancedb_store, "RECHECK_SECONDS", 0.0)
    reader.search("coral reef", k=5, mode="keyword")
    assert len(asked) == 6
