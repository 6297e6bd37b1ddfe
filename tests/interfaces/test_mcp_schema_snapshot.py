"""The tools' names, descriptions, input schemas and annotations are the agent-facing contract.

A change to any of them must be deliberate: regenerate the snapshot with
``DOCSHELF_UPDATE_SNAPSHOTS=1 python -m pytest tests/interfaces/test_mcp_schema_snapshot.py``
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio

from mcp_harness import connect, server_params

SNAPSHOT = Path(__file__).parent / "snapshots" / "mcp_tools.json"


async def _tools(index: Path, docs: Path, errlog: Path) -> dict:
    async with connect(server_params(index, "--no-watch", str(docs)), errlog) as session:
        tools = (await session.list_tools()).tools
        return {
            t.name: {
                "description": t.description,
                "input_schema": t.input_schema,
                "annotations": t.annotations.model_dump(exclude_none=True) if t.annotations else None,
            }
            for t in sorted(tools, key=lambda t: t.name)
        }


def test_tool_schemas_match_the_snapshot(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    current = anyio.run(_tools, tmp_path / "index", docs, tmp_path / "err.txt")
    if os.environ.get("DOCSHELF_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(json.dumps(current, indent=2, sort_keys=True) + "\n")
    assert current == json.loads(SNAPSHOT.read_text())
