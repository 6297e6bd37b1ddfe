"""A search makes no engine round trip it does not need: none counts the table's rows (a
LanceDB table's truth value is its ``len``, a ``count_rows`` round trip; the read snapshot's
handle was once tested that way before every query)."""

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
