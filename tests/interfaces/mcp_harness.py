"""Spawn the real ``docshelf serve`` and talk to it with the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import docshelf

BIN = Path(sys.executable).parent
# The spawned server runs the code these tests import (a worktree on PYTHONPATH, not the installed copy).
SRC = str(Path(docshelf.__file__).resolve().parents[1])
DOCSHELF = str(BIN / "docshelf") if (BIN / "docshelf").is_file() else None


def docshelf_argv(*args: str) -> list[str]:
    if DOCSHELF:
        return [DOCSHELF, *args]
    return [sys.executable, "-c", "from docshelf.interfaces.cli import main; main()", *args]


def server_params(index: Path, *args: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    argv = docshelf_argv("serve", *args)
    return StdioServerParameters(
        command=argv[0], args=argv[1:],
        env={"DOCSHELF_INDEX_DIR": str(index), "DOCSHELF_LOG_FILE": str(index.parent / "serve.log"),
             "DOCSHELF_WRITER_RETRY": "1", "DOCSHELF_CONFIG": os.devnull, "PYTHONPATH": SRC, **(env or {})},
    )


@asynccontextmanager
async def connect(params: StdioServerParameters, errlog: Path) -> AsyncIterator[ClientSession]:
    with errlog.open("a") as err:
        async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(30):
                await session.initialize()
            yield session


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert not result.is_error, f"{tool}({args}) failed: {result.content[0].text if result.content else result}"
    assert result.structured_content is not None
    # The text content carries the same JSON for clients that ignore structured content.
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def call_error(session: ClientSession, tool: str, **args: Any) -> str:
    result = await session.call_tool(tool, args)
    assert result.is_error, f"{tool}({args}) should have failed: {result.structured_content}"
    return result.content[0].text


async def wait_for(check: Callable[[], Awaitable[Any]], timeout: float = 20.0, interval: float = 0.2) -> Any:
    """Poll ``check`` until it returns something truthy; fail with its last value after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = await check()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s; last value: {last!r}")
        await anyio.sleep(interval)


async def ready(session: ClientSession, documents: int, timeout: float = 60.0) -> dict[str, Any]:
    """Wait until the server indexed ``documents`` documents, finished its run and loaded the model."""

    async def check() -> Any:
        st = await call(session, "index_status")
        done = st["documents"] == documents and st["model_state"] == "loaded" and st["pending"] == 0
        return st if done and st["state"] == "ready" else None  # "indexing" until the run's last commit

    return await wait_for(check, timeout)


async def paths_found(session: ClientSession, query: str, **args: Any) -> set[str]:
    result = await call(session, "search_docs", query=query, mode="keyword", k=20, **args)
    return {h["path"] for h in result["hits"]}


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


GLOSSARY = """---
type: glossary
tags: [terms]
---
# Frobnicator

A frobnicator turns raw widgets into polished gadgets.
"""

INSTALL = """---
tags: [setup, widgetron]
date: 2024-05-01
---
# Installing Widgetron

Run pip install widgetron to install the Widgetron toolkit. It needs Python 3.11.

## Configuration

Set WIDGETRON_HOME to the folder that holds your widget definitions.

## Troubleshooting

If the quasar module fails to import, reinstall the toolkit.
"""

RELEASE = """---
date: 2023-01-15
---
# Release notes

Version 2 adds the quasar module and removes the legacy sprocket API.
"""


def make_corpus(root: Path) -> None:
    write(root, "guides/install.md", INSTALL)
    write(root, "glossary/frobnicator.md", GLOSSARY)
    write(root, "notes/release.md", RELEASE)
    write(root, "long.md", "# Long\n\n" + "\n\n".join(
        f"Paragraph {i} talks about the zeppelin hangar and its maintenance schedule." for i in range(300)))
    write(root, "secret/hidden.md", "# Hidden\n\nThe zeppelin password is hunter2.\n")
    write(root, ".gitignore", "secret/\n")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 4)
