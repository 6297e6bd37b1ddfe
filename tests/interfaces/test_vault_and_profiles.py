"""A vault served over MCP (real server, real client, real model): links, backlinks, PARA
folders, the glossary, and the tool profiles of the servers docshelf replaces."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp_harness import call, call_error, connect, ready, server_params, write
from sample_vault import make_vault

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

BUDGET = "1_Projects/Apollo/Apollo budget.md"
LOG = "1_Projects/Apollo/Mission log.md"
VAULT_NOTES = 9  # 7 notes + the canvas + the drawing; the template and the trash are skipped


def test_vault_profile_links_backlinks_para_and_glossary(tmp_path: Path) -> None:
    vault = make_vault(tmp_path / "vault")
    params = server_params(tmp_path / "index", "--no-watch", "--profile", "vault", str(vault))

    async def main() -> None:
        async with connect(params, tmp_path / "stderr.txt") as s:
            await ready(s, VAULT_NOTES)
            names = {t.name for t in (await s.list_tools()).tools}
            assert {"search_vault", "search_glossary", "get_note", "search_docs"} <= names

            listed = await call(s, "list_documents", limit=50)
            paths = {d["path"] for d in listed["documents"]}
            assert "Templates/Daily.md" not in paths and not any(p.startswith(".trash") for p in paths)
            assert {"Board.canvas", "Sketch.excalidraw.md", "3_Resources/definitions/LEO.md"} <= paths

            found = await call(s, "search_vault", query="how much may be spent on launch services", limit=3,
                               para_folder="1_Projects")
            assert found["results"][0]["path"] == BUDGET
            assert {r["para_folder"] for r in found["results"]} == {"1_Projects"}
            assert set(found["results"][0]) == {"path", "title", "note_type", "para_folder", "heading", "tags",
                                                "score", "text"}
            logs = await call(s, "search_vault", query="budget", note_type="log")
            assert {r["path"] for r in logs["results"]} == {LOG}
            assert "[[" not in logs["results"][0]["text"] and "the budget" in logs["results"][0]["text"]

            # One-line definitions are indexed and found like any other note.
            leo = await call(s, "search_glossary", query="low Earth orbit", limit=2)
            assert leo["results"][0]["path"] == "3_Resources/definitions/LEO.md"
            dv = await call(s, "search_glossary", query="change in velocity", limit=2)
            assert dv["results"][0]["path"] == "3_Resources/definitions/Delta-v.md"
            assert all(r["path"].startswith("3_Resources/definitions/") for r in dv["results"])

            note = await call(s, "get_note", path="Budget 2025")  # by alias
            assert note["path"] == BUDGET
            assert note["backlinks"] == [LOG, "2_Areas/Finance/Overview.md"]
            log = await call(s, "get_note", path="[[Mission log]]")
            assert [(l["target"], l["path"]) for l in log["links"]] == [
                ("Apollo budget", BUDGET), ("Saturn V", "3_Resources/Saturn V.md"), ("diagram.png", None)]
            archived = await call(s, "get_note", path="4_Archive/Apollo budget.md")
            assert archived["backlinks"] == ["2_Areas/Finance/Overview.md"]

            linked = await call(s, "search_docs", query="budget", k=10, mode="keyword", linked_to=["Apollo budget"])
            assert {h["path"] for h in linked["hits"]} == {LOG, "2_Areas/Finance/Overview.md"}
            assert "linked_to: no note named" in await call_error(s, "search_docs", query="x", linked_to=["Nope"])

            tagged = await call(s, "search_docs", query="spend", mode="keyword", tags=["area/finance"])
            assert {h["path"] for h in tagged["hits"]} == {BUDGET}
            drawing = await call(s, "search_docs", query="fuel depot launch pad", k=3)
            top = drawing["hits"][0]
            assert top["path"] == "Sketch.excalidraw.md" and "N4Ig" not in top["text"]
            board = await call(s, "search_docs", query="engine test slipped", k=3)
            assert board["hits"][0]["path"] == "Board.canvas"

    anyio.run(main)


DOCS = {
    "guides/backup.md": "---\ntype: guide\ndate: 2024-02-01\n---\n# Backups\n\nSnapshots run nightly at 02:00.\n\n"
                        "## Restore\n\nRestore a snapshot with the restore command.\n",
    "faq/tokens.md": "---\ntype: faq\ndate: 2023-06-01\n---\n# Tokens\n\nRotate the ingest token in the admin console.\n",
    "reference/limits.md": "---\ntype: reference\n---\n# Limits\n\nA snapshot may hold at most 2 TB.\n",
}


def test_docs_and_builder_profiles(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for rel, text in DOCS.items():
        write(docs, rel, text)

    async def docs_profile() -> None:
        params = server_params(tmp_path / "index", "--no-watch", "--profile", "docs", str(docs))
        async with connect(params, tmp_path / "stderr.txt") as s:
            await ready(s, 3)
            out = await call(s, "search_docs", query="how do I restore a snapshot", n_results=2)
            hit = out["results"][0]
            assert set(hit) == {"text", "source", "score", "category", "page", "section"}
            assert (hit["source"], hit["section"], hit["category"]) == ("guides/backup.md", "Backups > Restore", "default")
            assert 0 <= hit["score"] <= 1
            assert "n_results" in await call_error(s, "search_docs", query="x", n_results=21)
            cols = await call(s, "list_collections")
            assert cols["collections"] == [{"name": "default", "documents": 3, "chunks": cols["collections"][0]["chunks"]}]
            whole = await call(s, "get_document", source="guides/backup.md")
            assert "Snapshots run nightly" in whole["text"] and "Restore a snapshot" in whole["text"]
            none = await call(s, "search_docs", query="snapshot", category="nonexistent")
            assert none["results"] == []

    async def builder_profile() -> None:
        params = server_params(tmp_path / "index", "--no-watch", "--profile", "builder", str(docs))
        async with connect(params, tmp_path / "stderr2.txt") as s:
            await ready(s, 3)
            out = await call(s, "search_docs", query="snapshot", k=5, mode="keyword", doc_type="guide, reference")
            assert {r["source"] for r in out["results"]} == {"guides/backup.md", "reference/limits.md"}
            assert out["mode"] == "keyword"
            typo = await call(s, "search_docs", query="snapshoot", mode="keyword")  # their keyword mode was fuzzy
            assert typo["results"]
            dated = await call(s, "search_docs", query="token snapshot", mode="embedding", date_from="2024-01-01")
            assert {r["source"] for r in dated["results"]} == {"guides/backup.md"}
            assert "date_from" in await call_error(s, "search_docs", query="x", date_from="yesterday")
            assert "mode" in await call_error(s, "search_docs", query="x", mode="hybrid")

    anyio.run(docs_profile)
    anyio.run(builder_profile)


def test_an_unknown_profile_is_refused(tmp_path: Path) -> None:
    import subprocess

    from mcp_harness import docshelf_argv

    proc = subprocess.run(docshelf_argv("serve", "--profile", "chroma", str(tmp_path)), capture_output=True,
                          text=True, env={**params_env(tmp_path)}, timeout=60)
    assert proc.returncode == 1 and "unknown profile 'chroma'" in proc.stderr


def params_env(tmp_path: Path) -> dict[str, str]:
    import os

    return {**os.environ, **server_params(tmp_path / "index").env}
