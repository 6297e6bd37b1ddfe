"""The MCP tools as thin adapters: the request models' rules and messages, through the SDK's in-memory client.

The server runs in-process (real MCP client and server, real LanceDB, the fake embedder),
so these checks take a second or two; ``test_mcp_server.py`` drives the spawned server.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from docshelf.config import Settings
from docshelf.interfaces.mcp_server import build_server
from docshelf.live.runtime import ServerRuntime

pytestmark = pytest.mark.timeout(120)
DATE_ERROR = "expected an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]), got {!r}"


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


@asynccontextmanager
async def serving(tmp_path: Path, roots: list[Path], documents: int, **settings: Any) -> AsyncIterator[Client]:
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake", **settings), roots, watch=False)
    try:
        async with Client(build_server(runtime)) as client:
            with anyio.fail_after(60):
                while True:
                    st = (await client.call_tool("index_status", {})).structured_content
                    if st["documents"] == documents and st["pending"] == 0 and st["state"] == "ready":
                        break
                    await anyio.sleep(0.1)
            yield client
    finally:
        runtime.close()


async def ok(client: Client, tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content[0].text
    return result.structured_content


async def error(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, result.structured_content
    return result.content[0].text.removeprefix(f"Error executing tool {tool}: ")


def test_dates_line_ranges_and_paging_follow_the_request_rules(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write(one, "notes/a.md", "---\ndate: 2024-01-05T23:30:00+01:00\n---\n# A\n\nalpha notes\n\n## `Tokens` and keys\n\nrotate")
    write(one, "b.md", "---\ndate: 2024-03-01\n---\n# B\n\nalpha more notes")
    write(two, "b.md", "# B two\n\nalpha in the second root")

    async def main() -> None:
        async with serving(tmp_path, [one, two], documents=3) as c:
            async def dated(**args: Any) -> list[str]:
                hits = (await ok(c, "search_docs", query="alpha", mode="keyword", **args))["hits"]
                return sorted(h["path"] for h in hits)

            assert await dated(date_from="2024-01-05") == ["b.md", "notes/a.md"]
            assert await dated(date_from="2024-01-05T18:00:00Z", date_to="2024-01-05") == ["notes/a.md"]
            assert await dated(date_to="2024-02-01 12:00") == ["notes/a.md"]
            for bad in ("2024-1-5", "yesterday"):
                assert await error(c, "search_docs", query="alpha", date_from=bad) == (
                    "date_from: " + DATE_ERROR.format(bad))
            assert await error(c, "search_docs", query="alpha", k=0) == "k: must be between 1 and 100, got 0"

            # One line-range syntax: "12" is the one-line range "12-12", as in the CLI.
            one_line = await ok(c, "get_document", path="notes/a.md", lines="10")
            assert one_line == await ok(c, "get_document", path="notes/a.md", lines="10-10")
            assert (one_line["text"], one_line["start_line"], one_line["end_line"]) == ("rotate", 10, 10)  # exactly line 10
            assert one_line["note"] == ""
            assert (await ok(c, "get_document", path="notes/a.md", lines="8-10"))["text"] == "## `Tokens` and keys\n\nrotate"
            assert await error(c, "get_document", path="notes/a.md", lines="ten") == (
                "lines: use START-END or one line number, e.g. '10-40' or '12', got 'ten'")
            assert await error(c, "get_document", lines="1-2") == "path: pass path or doc_id"

            # Sections match however the heading is written; an unknown one lists the sections.
            section = await ok(c, "get_document", path="notes/a.md", section="`tokens` AND keys")
            assert section["text"] == "## Tokens and keys\n\nrotate"
            assert await error(c, "get_document", path="notes/a.md", section="Quotas") == (
                "notes/a.md has no section 'Quotas'; its sections are: A; Tokens and keys")

            # Two roots hold b.md: paging on (path, root) lists both, each once.
            seen, cursor = [], None
            while True:
                page = await ok(c, "list_documents", limit=1, **({"cursor": cursor} if cursor else {}))
                assert page["total"] == 3
                seen += [(d["path"], d["doc_id"]) for d in page["documents"]]
                cursor = page["next_cursor"]
                if cursor is None:
                    break
            assert [p for p, _ in seen] == ["b.md", "b.md", "notes/a.md"] and len({i for _, i in seen}) == 3
            by_id = await ok(c, "get_document", doc_id=seen[1][1])
            assert by_id["text"] == "# B two\n\nalpha in the second root"
            assert (await error(c, "list_documents", cursor="b.md")).startswith("cursor: not a cursor returned by")

            schema = {t.name: t.input_schema for t in (await c.list_tools()).tools}
            assert schema["search_docs"]["properties"]["k"]["maximum"] == 100
            assert "ISO 8601" in schema["search_docs"]["properties"]["date_from"]["description"]
            assert json.dumps(schema).count("START-END") == 1

    anyio.run(main)


def test_unknown_or_mistyped_arguments_are_refused_in_plain_words(tmp_path: Path) -> None:
    """An argument the tool does not have is refused, not ignored: a misspelt filter must not search unfiltered."""
    root = tmp_path / "docs"
    write(root, "a.md", "# A\n\nalpha notes")

    async def main() -> None:
        async with serving(tmp_path, [root], documents=1) as c:
            # The HTTP body's name for the filter (collections) is not the tool's (collection).
            message = await error(c, "search_docs", query="alpha", collections=["nope"])
            assert message.startswith("unknown argument 'collections' (did you mean 'collection'?); "), message
            assert "query, k, mode, collection, doc_type" in message
            assert (await error(c, "list_collections", bogus=1)).startswith(
                "unknown argument 'bogus'; list_collections takes no arguments")
            # Wrong types and bounds read like the request models' messages, not a pydantic dump.
            assert await error(c, "search_docs", query="alpha", k="many") == (
                "k: input should be a valid integer, unable to parse string as an integer, got 'many'")
            # One string where a list is expected is a one-item list, as the request model (and HTTP) reads it.
            assert len((await ok(c, "search_docs", query="alpha", collection="default", tags=None))["hits"]) == 1
            assert (await ok(c, "search_docs", query="alpha", collection="nope"))["empty_reason"] == "unknown_collection"
            assert await error(c, "search_docs") == "query: is required"
            assert await error(c, "read_neighbors", chunk_id="x", before=-1) == "before: must be between 0 and 20, got -1"
            for text in [await error(c, "search_docs", query=12), await error(c, "search_docs", query="a", mode="bogus")]:
                assert "pydantic" not in text and "validation error" not in text, text
            assert len((await ok(c, "search_docs", query="alpha", collection=["default"]))["hits"]) == 1
            assert await error(c, "get_note", path=" ") == (
                "path: is empty; pass a note's path, file name, wiki link, title or alias")

    anyio.run(main)


def test_the_scope_listed_before_the_index_opens_says_where_the_real_one_is(tmp_path: Path) -> None:
    """Clients list tools right after initialize: a frontmatter type (``guide``) is not in the configured list."""
    from docshelf.interfaces.mcp_server import _scope_text

    configured = _scope_text(Settings(index_dir=tmp_path / "index", model="fake"))
    assert configured.startswith("Collections: default. Doc types: doc, glossary (as configured;")
    assert "list_collections lists the index's own" in configured
    assert _scope_text(Settings(index_dir=tmp_path / "index", model="fake"), [("default", ("doc", "guide"))]) == (
        "Collections: default. Doc types: doc, guide.")


def test_get_document_takes_a_pdf_page_label_or_its_number(tmp_path: Path) -> None:
    from tests.unit.test_pdf_page_labels import labelled_pdf

    books = tmp_path / "books"
    books.mkdir()
    (books / "kiln.pdf").write_bytes(labelled_pdf())

    async def main() -> None:
        async with serving(tmp_path, [books], documents=1) as c:
            by_label = await ok(c, "get_document", path="kiln.pdf", page="A-1")
            assert by_label["text"].strip() == "Appendix: glaze recipes with cobalt oxide."
            by_number = await ok(c, "get_document", path="kiln.pdf", page=2)
            assert by_number["text"].strip() == "Conventions used in the margins."
            assert (await error(c, "get_document", path="kiln.pdf", page="iv")).startswith(
                "kiln.pdf has no page labelled 'iv' with indexed text; its labels: i (PDF page 1)")

    anyio.run(main)
