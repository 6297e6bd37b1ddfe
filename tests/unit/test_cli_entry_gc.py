"""The ``docshelf`` entry point turns the cyclic garbage collector off for a search only.

A search process ends right after its one answer (``cli_entry.leave``), so the collector's
passes over the imports' objects are pure cost; any other command (``serve``, ``watch``,
``index``: long-lived or allocating) keeps it, and a caller's process gets it back.
"""

from __future__ import annotations

import gc

from docshelf.interfaces import cli, cli_entry


def test_the_collector_is_off_during_a_search_and_restored_after(monkeypatch):
    seen = []
    monkeypatch.setattr(cli_entry, "_search", lambda args: seen.append(gc.isenabled()))
    assert gc.isenabled()
    cli_entry.main(["search", "anything", "--json"])
    assert seen == [False] and gc.isenabled()


def test_other_commands_keep_the_collector(monkeypatch):
    seen = []
    monkeypatch.setattr(cli, "main", lambda args: seen.append(gc.isenabled()))
    cli_entry.main(["status"])
    assert seen == [True] and gc.isenabled()
