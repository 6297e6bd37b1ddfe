"""A spawned ``docshelf serve`` tells its client when search_docs' description learns the index's scope.

Clients list tools right after the handshake, before the index is open, and keep that list
until the server sends ``notifications/tools/list_changed``. Real server over stdio, the SDK's
own client; the fake embedder (nothing here ranks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client
from mcp_harness import server_params, write

pytestmark = [pytest.mark.timeout(120)]

RECIPE = "---\ntype: recipe\n---\n# Bread\n\nMix flour, water and salt; bake for forty minutes.\n"
RUNBOOK = "---\ntype: runbook\n---\n# Restart\n\nRestart the ingest worker when the queue stalls.\n"


def test_the_client_is_told_when_the_search_description_names_the_index_scope(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    write(docs, "bread.md", RECIPE)
    params = server_params(tmp_path / "index", str(docs), env={"DOCSHELF_MODEL": "fake"})
    changed = anyio.Event()
    seen: list[str] = []

    async def on_message(message: Any) -> None:
        nonlocal changed
        if isinstance(message, types.ToolListChangedNotification):
            seen.append(message.method)
            changed.set()

    async def description(session: ClientSession) -> str:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        return tools["search_docs"].description or ""

    async def main() -> None:
        nonlocal changed
        with (tmp_path / "stderr.txt").open("a") as err:
            async with stdio_client(params, errlog=err) as (read, write_), \
                    ClientSession(read, write_, message_handler=on_message) as session:
                with anyio.fail_after(30):
                    init = await session.initialize()
                assert init.capabilities.tools is not None and init.capabilities.tools.list_changed is True
                with anyio.fail_after(60):
                    await changed.wait()
                now = await description(session)
                assert "recipe" in now and "as configured" not in now, now

                # A new doc type indexed live changes the description again, and the client hears of it.
                changed = anyio.Event()
                write(docs, "ops/restart.md", RUNBOOK)
                with anyio.fail_after(60):
                    await changed.wait()
                assert "runbook" in await description(session)

    anyio.run(main)
    assert seen and set(seen) == {"notifications/tools/list_changed"}
