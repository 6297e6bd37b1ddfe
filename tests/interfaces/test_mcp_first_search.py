"""A server's first search: it waits for a small first index and for the model, and otherwise says what is going on.

One test spawns the real ``docshelf serve`` (real model) the way a one-shot client does:
spawn, search at once, exit. The others run the server in-process with the fake
embedder and pause the first index at a controlled point to see what a search says then.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_harness import call, connect, server_params, write

from docshelf.config import Settings
from docshelf.interfaces.mcp_server import build_server
from docshelf.live.runtime import ServerRuntime
from docshelf.pipeline import indexer as indexer_module

pytestmark = pytest.mark.timeout(180)


@pytest.mark.e2e
def test_a_search_right_after_spawning_on_a_new_folder_finds_its_documents(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "install.md", "# Installing Widgetron\n\nRun pip install widgetron to get the toolkit.\n")
    write(docs, "faq.md", "# FAQ\n\nThe quasar module needs Python 3.11.\n")
    write(docs, "terms.md", "# Terms\n\nA frobnicator polishes widgets.\n")

    async def main() -> None:
        async with connect(server_params(tmp_path / "index", str(docs)), tmp_path / "stderr.txt") as s:
            res = await call(s, "search_docs", query="how do I install widgetron")
            assert res["hits"] and res["hits"][0]["path"] == "install.md", res
            assert (res["mode"], res["note"]) == ("hybrid", "")

    anyio.run(main)


@pytest.mark.e2e
def test_a_search_right_after_spawning_on_an_indexed_folder_waits_for_the_model(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "install.md", "# Installing Widgetron\n\nRun pip install widgetron to get the toolkit.\n")
    write(docs, "faq.md", "# FAQ\n\nThe quasar module needs Python 3.11.\n")
    from docshelf.service import Docshelf

    Docshelf(Settings(index_dir=tmp_path / "index")).index([docs])

    async def main() -> None:
        async with connect(server_params(tmp_path / "index", str(docs)), tmp_path / "stderr.txt") as s:
            res = await call(s, "search_docs", query="setting up the toolkit")
            assert (res["mode"], res["note"], res["hits"][0]["path"]) == ("hybrid", "", "install.md")

    anyio.run(main)


def _pause_after(monkeypatch: pytest.MonkeyPatch, files: int) -> tuple[threading.Event, threading.Event]:
    """Make the indexer stop before preparing file number ``files + 1`` until ``release`` is set."""
    reached, release = threading.Event(), threading.Event()
    prepare = indexer_module.Indexer._prepare
    seen = [0]

    def paused(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen[0] += 1
        if seen[0] == files + 1:
            reached.set()
            release.wait(60)
        return prepare(self, *args, **kwargs)

    monkeypatch.setattr(indexer_module.Indexer, "_prepare", paused)
    return reached, release


def test_a_search_during_a_long_first_index_answers_at_once_and_says_so(tmp_path: Path, monkeypatch) -> None:
    docs = tmp_path / "docs"
    for i in range(5):
        write(docs, f"d{i}.md", f"# Doc {i}\n\nThe zeppelin hangar number {i}.\n")
    reached, release = _pause_after(monkeypatch, 2)
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake"), [docs], watch=False,
                            first_index_wait=0.5)

    async def main() -> None:
        async with Client(build_server(runtime)) as c:
            await call(c, "index_status")  # starts the server
            assert await anyio.to_thread.run_sync(reached.wait, 60)
            res = await call(c, "search_docs", query="zeppelin hangar")
            assert (res["hits"], res["note"]) == (
                [], "first index at 0 of 5 files; results cover only the files indexed so far")
            st = await call(c, "index_status")
            assert (st["state"], st["pending"], st["documents"]) == ("indexing", 5, 0)
            release.set()
            with anyio.fail_after(60):
                while (await call(c, "index_status"))["state"] != "ready":
                    await anyio.sleep(0.05)
            res = await call(c, "search_docs", query="zeppelin hangar", k=10)
            assert (len(res["hits"]), res["note"]) == (5, "")

    try:
        anyio.run(main)
    finally:
        release.set()
        runtime.close()


def test_a_search_on_an_empty_folder_says_nothing_is_indexed_not_that_the_model_loads(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake"), [docs], watch=False)

    async def main() -> None:
        async with Client(build_server(runtime)) as c:
            res = await call(c, "search_docs", query="anything at all")
            assert (res["hits"], res["note"]) == (
                [], f"nothing is indexed: no indexable documents under {docs.resolve()} (see index_status)")

    try:
        anyio.run(main)
    finally:
        runtime.close()


def test_a_preset_whose_scope_is_empty_says_so(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "guide.md", "# Guide\n\nA frobnicator polishes widgets.\n")
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake"), [docs], watch=False)

    async def main() -> None:
        async with Client(build_server(runtime)) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert "Searches only doc types glossary" in tools["search_glossary"].description
            res = await call(c, "search_glossary", query="frobnicator")
            assert res["hits"] == []
            assert res["note"] == ("no indexed document is in this tool's scope (doc types glossary, definition), so it cannot "
                                   "find anything yet; search_docs searches everything")
            assert (await call(c, "search_docs", query="frobnicator"))["note"] == ""

    try:
        anyio.run(main)
    finally:
        runtime.close()
