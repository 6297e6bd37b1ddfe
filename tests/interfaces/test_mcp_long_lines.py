"""MCP over a minified file: hits and the chunks around them cite their characters in its one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_harness import write

pytestmark = [pytest.mark.timeout(120)]


def test_search_and_read_neighbors_cite_characters_inside_one_long_line(tmp_path: Path) -> None:
    """A minified file's chunks all cited 'lines 1-1'; a hit and the chunks around it name their characters,
    and get_document reads exactly those (in-process server, the SDK's client)."""
    import json

    from mcp import Client
    from mcp_harness import call, wait_for

    from docshelf.config import Settings
    from docshelf.interfaces.mcp_server import build_server
    from docshelf.live.runtime import ServerRuntime

    docs = tmp_path / "docs"
    line = json.dumps([{"id": i, "name": f"item{i}", "note": "a widget record"} for i in range(6000)])
    write(docs, "data.json", line)
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake"), [docs], watch=False)

    async def main() -> None:
        async with Client(build_server(runtime)) as c:
            async def found() -> Any:
                hits = (await call(c, "search_docs", query="item4321", mode="keyword", k=1))["hits"]
                return hits[0] if hits else None

            hit = await wait_for(found, timeout=60)
            first, last = hit["start_col"], hit["end_col"]
            assert hit["citation"] == f"data.json (line 1, chars {first}-{last})"
            doc = await call(c, "get_document", path="data.json", lines=f"1:{first}-{last}")
            assert doc["text"] == line[first - 1 : last] and "item4321" in doc["text"]
            near = (await call(c, "read_neighbors", chunk_id=hit["chunk_id"], before=1, after=1))["chunks"]
            assert len(near) == 3 and [n["is_anchor"] for n in near] == [False, True, False]
            for n in near:
                cited = line[n["start_col"] - 1 : n["end_col"]]
                assert cited.split() == n["text"].split(), n["chunk_index"]
            assert near[0]["start_col"] < first < near[2]["start_col"]

    try:
        anyio.run(main)
    finally:
        runtime.close()
