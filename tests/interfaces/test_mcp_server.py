"""``docshelf serve`` over stdio, driven by the MCP SDK's real client (real model, real LanceDB)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp_harness import (
    DOCSHELF,
    call,
    call_error,
    connect,
    docshelf_argv,
    make_corpus,
    paths_found,
    ready,
    server_params,
    wait_for,
    write,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

TOOLS = {
    "search_docs": {"query", "k", "mode", "collection", "doc_type", "date_from", "date_to", "path_prefix", "tags",
                    "linked_to", "min_score"},
    "search_glossary": {"query", "k", "mode"},
    "get_document": {"path", "doc_id", "lines", "page", "section", "max_chars"},
    "read_neighbors": {"chunk_id", "before", "after"},
    "get_note": {"path", "max_chars"},
    "list_collections": set(),
    "list_documents": {"collection", "path_prefix", "limit", "cursor"},
    "index_status": set(),
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    make_corpus(docs)
    return docs


def test_every_tool_over_stdio(tmp_path: Path, corpus: Path) -> None:
    params = server_params(tmp_path / "index", str(corpus), "--max-response-chars", "4000")

    async def main() -> None:
        async with connect(params, tmp_path / "stderr.txt") as s:
            # Tools answer while the index is still opening (they wait, bounded, for it).
            early = await call(s, "search_docs", query="widgetron")
            assert early["mode"] in ("keyword", "hybrid")

            listed = {t.name: t for t in (await s.list_tools()).tools}
            assert {n: set(t.input_schema.get("properties", {})) for n, t in listed.items()} == TOOLS
            for tool in listed.values():
                assert tool.annotations is not None and tool.annotations.read_only_hint is True
                assert tool.description and len(tool.description) > 40
            assert "Doc types:" in listed["search_docs"].description
            assert listed["search_docs"].input_schema["properties"]["k"]["maximum"] == 100

            st = await ready(s, documents=4)
            assert st["role"] == "writer" and st["watcher"] in ("native", "polling")
            assert st["roots"] == [str(corpus.resolve())]
            assert st["failed"] == [] and st["state"] == "ready"

            # search_docs: hybrid by default, citation fields, filters.
            res = await call(s, "search_docs", query="how do I install the widgetron toolkit", k=3)
            assert res["mode"] == "hybrid" and res["note"] == ""
            top = res["hits"][0]
            assert top["path"] == "guides/install.md" and top["title"] == "Installing Widgetron"
            assert top["heading_path"][0] == "Installing Widgetron" and top["start_line"] >= 1
            assert top["citation"].startswith("guides/install.md › Installing Widgetron")
            assert top["uri"] == "docshelf://doc/guides/install.md" and 0 < top["score"] <= 1
            assert [h["rank"] for h in res["hits"]] == list(range(1, len(res["hits"]) + 1))
            assert await paths_found(s, "zeppelin") == {"long.md"}  # secret/ is gitignored
            assert await paths_found(s, "quasar", doc_type=["doc"], date_from="2024-01-01") == {"guides/install.md"}
            assert await paths_found(s, "quasar", date_to="2023-12-31") == {"notes/release.md"}
            assert await paths_found(s, "quasar", path_prefix="notes/") == {"notes/release.md"}
            assert await paths_found(s, "widgets", tags=["terms"]) == {"glossary/frobnicator.md"}
            # min_score drops the hits that score under it (the scores are absolute estimates).
            loose = await call(s, "search_docs", query="how do I install the widgetron toolkit", k=10)
            floor = loose["hits"][0]["score"] - 1e-4
            strict = await call(s, "search_docs", query="how do I install the widgetron toolkit", k=10, min_score=floor)
            assert len(loose["hits"]) > 1 and [h["path"] for h in strict["hits"]] == [loose["hits"][0]["path"]]
            banana = await call(s, "search_docs", query="recipe for banana bread", min_score=0.3)
            assert (banana["hits"], banana["empty_reason"]) == ([], "below_min_score")  # says what to change
            assert strict["empty_reason"] == ""
            assert await call_error(s, "search_docs", query="x", min_score=1.5) == (
                "Error executing tool search_docs: min_score: must be between 0.0 and 1.0, got 1.5")
            assert await call_error(s, "search_docs", query="x", k=101) == (
                "Error executing tool search_docs: k: must be between 1 and 100, got 101")
            assert await call_error(s, "search_docs", query="   ") == (
                "Error executing tool search_docs: query: is empty; pass some words to search for")

            # The response budget: long hits are shortened, and the note says so.
            big = await call(s, "search_docs", query="zeppelin hangar maintenance", k=10, mode="keyword")
            assert len(json.dumps(big)) <= 4000 + 500
            assert any(h["text_truncated"] for h in big["hits"]) and "shortened" in big["note"]

            gl = await call(s, "search_glossary", query="frobnicator")
            assert [h["path"] for h in gl["hits"]] == ["glossary/frobnicator.md"]

            cols = await call(s, "list_collections")
            assert cols["total_documents"] == 4 and cols["collections"][0]["name"] == "default"
            assert cols["model_state"] == "loaded" and cols["index_state"] == "ready"
            assert set(cols["collections"][0]["doc_types"]) == {"doc", "glossary"}

            doc = await call(s, "get_document", path="guides/install.md")
            assert doc["text"].startswith("# Installing Widgetron") and "## Troubleshooting" in doc["text"]
            assert doc["truncated"] is False and doc["chunks_returned"] == doc["total_chunks"]
            by_id = await call(s, "get_document", doc_id=top["doc_id"])
            assert by_id["text"] == doc["text"]
            by_uri = await call(s, "get_document", path=doc["uri"])  # a hit's uri names its document too
            assert (doc["uri"], by_uri["text"]) == ("docshelf://doc/guides/install.md", doc["text"])
            section = await call(s, "get_document", path="guides/install.md", section="Configuration")
            assert "WIDGETRON_HOME" in section["text"] and "quasar" not in section["text"]
            lines = await call(s, "get_document", path="guides/install.md", lines="15-15")
            assert "quasar" in lines["text"] and "WIDGETRON_HOME" not in lines["text"]
            cut = await call(s, "get_document", path="long.md", max_chars=500)
            assert cut["truncated"] is True and len(cut["text"]) == 500
            missing = await call_error(s, "get_document", path="nope.md")
            assert "no indexed document at 'nope.md'" in missing

            chunk_id = next(h["chunk_id"] for h in big["hits"])
            nb = await call(s, "read_neighbors", chunk_id=chunk_id, before=1, after=1)
            assert nb["path"] == "long.md" and sum(c["is_anchor"] for c in nb["chunks"]) == 1
            indexes = [c["chunk_index"] for c in nb["chunks"]]
            assert indexes == sorted(indexes) and 2 <= len(indexes) <= 3
            assert "no chunk with id" in await call_error(s, "read_neighbors", chunk_id="nope")

            page1 = await call(s, "list_documents", limit=2)
            assert [d["path"] for d in page1["documents"]] == ["glossary/frobnicator.md", "guides/install.md"]
            page2 = await call(s, "list_documents", limit=2, cursor=page1["next_cursor"])
            assert [d["path"] for d in page2["documents"]] == ["long.md", "notes/release.md"]
            assert page2["next_cursor"] is None
            only = await call(s, "list_documents", path_prefix="notes/")
            assert [d["path"] for d in only["documents"]] == ["notes/release.md"]

            note = await call(s, "get_note", path="[[frobnicator]]")
            assert note["path"] == "glossary/frobnicator.md" and note["doc_type"] == "glossary"
            assert note["tags"] == ["terms"] and "polished gadgets" in note["text"]
            assert (await call(s, "get_note", path="Installing Widgetron"))["path"] == "guides/install.md"
            assert "no note named" in await call_error(s, "get_note", path="Nonexistent")

            resource = await s.read_resource("docshelf://doc/guides/install.md")
            assert resource.contents[0].text == doc["text"]

    anyio.run(main)


def test_live_index_follows_file_changes(tmp_path: Path, corpus: Path) -> None:
    params = server_params(tmp_path / "index", str(corpus))

    async def main() -> None:
        async with connect(params, tmp_path / "stderr.txt") as s:
            await ready(s, documents=4)

            async def found(word: str) -> set[str]:
                return await paths_found(s, word)

            # created
            write(corpus, "new/alpha.md", "# Alpha\n\nThe xylophone stands in the hall.\n")
            await wait_for(lambda: _eq(found("xylophone"), {"new/alpha.md"}))
            # modified
            write(corpus, "new/alpha.md", "# Alpha\n\nThe marimba replaced the old instrument.\n")
            await wait_for(lambda: _eq(found("marimba"), {"new/alpha.md"}))
            assert await found("xylophone") == set()
            # moved (renamed): old path vanishes, new path appears
            (corpus / "new/alpha.md").rename(corpus / "new/beta.md")
            await wait_for(lambda: _eq(found("marimba"), {"new/beta.md"}))
            # an editor's atomic save: write a temp file, rename it over the target
            tmp = corpus / "new/.beta.md.swp"
            tmp.write_text("# Beta\n\nThe glockenspiel arrived.\n")
            os.replace(tmp, corpus / "new/beta.md")
            await wait_for(lambda: _eq(found("glockenspiel"), {"new/beta.md"}))
            assert await found("marimba") == set()
            # deleted
            (corpus / "new/beta.md").unlink()
            await wait_for(lambda: _eq(found("glockenspiel"), set()))
            # ignored and unsupported files never enter the index
            write(corpus, "secret/more.md", "# More\n\nThe ocarina is secret.\n")
            (corpus / "data.bin").write_bytes(b"\x00\x01ocarina\x02" * 100)
            write(corpus, "new/gamma.md", "# Gamma\n\nThe ocarina is public.\n")
            await wait_for(lambda: _eq(found("ocarina"), {"new/gamma.md"}))
            # a whole folder moved away and back in
            (corpus / "new").rename(tmp_path / "outside")
            await wait_for(lambda: _eq(found("ocarina"), set()))
            (tmp_path / "outside").rename(corpus / "back")
            await wait_for(lambda: _eq(found("ocarina"), {"back/gamma.md"}))
            st = await call(s, "index_status")
            assert st["failed"] == [] and st["last_update"] is not None
            assert {d["path"] for d in (await call(s, "list_documents"))["documents"]} == {
                "back/gamma.md", "glossary/frobnicator.md", "guides/install.md", "long.md", "notes/release.md"}

    anyio.run(main)


async def _eq(value, expected) -> bool:
    return (await value) == expected


def test_two_servers_share_one_index(tmp_path: Path, corpus: Path) -> None:
    """One writes (and watches), the other serves reads and sees new data; the reader takes over."""
    index = tmp_path / "index"
    anyio.run(_two_servers, server_params(index, str(corpus)), server_params(index, str(corpus)), corpus, tmp_path)


async def _len(value, n: int) -> bool:
    return len(await value) == n


async def _two_servers(a, b, corpus: Path, tmp_path: Path) -> None:
    async with anyio.create_task_group() as tg:
        stops = {"a": anyio.Event(), "b": anyio.Event()}
        sessions: dict[str, object] = {}

        async def hold(name: str, params) -> None:
            async with connect(params, tmp_path / f"{name}.txt") as session:
                sessions[name] = session
                await stops[name].wait()

        tg.start_soon(hold, "a", a)
        tg.start_soon(hold, "b", b)
        await wait_for(lambda: _true(len(sessions) == 2), timeout=30)
        sa, sb = sessions["a"], sessions["b"]
        await ready(sa, documents=4)
        await ready(sb, documents=4)
        ra, rb = (await call(sa, "index_status"))["role"], (await call(sb, "index_status"))["role"]
        assert {ra, rb} == {"writer", "reader"}
        writer_name = "a" if ra == "writer" else "b"
        writer, reader = (sa, sb) if writer_name == "a" else (sb, sa)
        write(corpus, "shared.md", "# Shared\n\nThe theremin hums quietly.\n")
        await wait_for(lambda: _eq(paths_found(writer, "theremin"), {"shared.md"}))
        await wait_for(lambda: _eq(paths_found(reader, "theremin"), {"shared.md"}))
        for i in range(12):
            write(corpus, f"burst/b{i}.md", f"# Burst {i}\n\nThe bagpipe number {i} plays.\n")
        for _ in range(10):  # the reader keeps answering while the writer indexes
            assert "shared.md" in await paths_found(reader, "theremin")
        await wait_for(lambda: _len(paths_found(reader, "bagpipe"), 12))
        # The writer exits; the reader takes over and picks up new changes.
        stops[writer_name].set()
        await wait_for(lambda: _role_is(reader, "writer"), timeout=20)
        write(corpus, "after.md", "# After\n\nThe harmonium plays on.\n")
        await wait_for(lambda: _eq(paths_found(reader, "harmonium"), {"after.md"}))
        st = await call(reader, "index_status")
        assert st["failed"] == [] and st["documents"] == 4 + 1 + 12 + 1
        for stop in stops.values():
            stop.set()


async def _true(value: bool) -> bool:
    return value


async def _role_is(session, role: str) -> bool:
    return (await call(session, "index_status"))["role"] == role


def test_stdout_carries_only_protocol(tmp_path: Path, corpus: Path) -> None:
    """Raw JSON-RPC over pipes with -vv: every stdout line is a protocol message; logs go to stderr and the file."""
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp_path / "index"), "DOCSHELF_CONFIG": os.devnull,
           "DOCSHELF_LOG_FILE": str(tmp_path / "logs" / "serve.log")}
    errfile = (tmp_path / "stderr.txt").open("w")
    proc = subprocess.Popen(docshelf_argv("-vv", "serve", str(corpus)), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=errfile, env=env, text=True)
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "index_status", "arguments": {}}},
    ]
    assert proc.stdin and proc.stdout
    lines: list[str] = []
    try:
        for m in messages:
            proc.stdin.write(json.dumps(m) + "\n")
            proc.stdin.flush()
            if "id" in m:
                _response(proc, lines)
        # Let the background start-up (imports, model, indexing, watcher) run, then search.
        deadline = time.monotonic() + 30
        n = 3
        while time.monotonic() < deadline:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "index_status", "arguments": {}}}) + "\n")
            proc.stdin.flush()
            line = _response(proc, lines)
            n += 1
            status = json.loads(line)["result"]["structuredContent"]
            if status["documents"] == 4 and status["model_state"] == "loaded":
                break
            time.sleep(0.2)
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 999, "method": "tools/call", "params": {
            "name": "search_docs", "arguments": {"query": "widgetron"}}}) + "\n")
        proc.stdin.flush()
        found = json.loads(_response(proc, lines))
        proc.stdin.close()  # end of input: the server exits
        assert proc.wait(timeout=20) == 0
        rest = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
        errfile.close()
    stderr = (tmp_path / "stderr.txt").read_text()
    lines += rest.splitlines()
    assert lines and all(line.strip() for line in lines)
    for line in lines:
        msg = json.loads(line)
        assert msg["jsonrpc"] == "2.0" and ("result" in msg or "error" in msg or "method" in msg), line
    assert found["id"] == 999 and found["result"]["structuredContent"]["hits"]
    notices = {json.loads(line)["method"] for line in lines if "id" not in json.loads(line)}
    assert notices <= {"notifications/tools/list_changed"}, notices
    assert "docshelf.live.writer" in stderr and "reconciled" in stderr
    log_text = (tmp_path / "logs" / "serve.log").read_text()
    assert "reconciled" in log_text and "model" in log_text


def _response(proc: subprocess.Popen, lines: list[str]) -> str:
    """The next response line; the server's notifications before it (tools/list_changed once the
    description names the index's scope) are protocol lines too, kept in ``lines``."""
    while True:
        line = _readline(proc)
        lines.append(line)
        if "id" in json.loads(line):
            return line


def _readline(proc: subprocess.Popen, timeout: float = 30.0) -> str:
    """One stdout line, or fail after ``timeout`` seconds (never hang the suite)."""
    import select

    ready_to_read, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready_to_read, f"no protocol line from the server within {timeout}s"
    return proc.stdout.readline()


@pytest.mark.skipif(DOCSHELF is None, reason="needs the installed docshelf script")
def test_install_print_and_write(tmp_path: Path) -> None:
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp_path / "index"), "DOCSHELF_CONFIG": os.devnull}
    shown = subprocess.run(docshelf_argv("install", "cursor", str(tmp_path), "--print"), env=env,
                           capture_output=True, text=True, check=True)
    entry = json.loads(shown.stdout)["mcpServers"]["docshelf"]
    assert entry == {"command": DOCSHELF, "args": ["serve", str(tmp_path.resolve())],
                     "env": {"DOCSHELF_INDEX_DIR": str((tmp_path / "index").resolve())}}
    target = tmp_path / "claude.json"
    target.write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}, "theme": "dark"}))
    subprocess.run(docshelf_argv("install", "claude-code", "--config-path", str(target)), env=env,
                   capture_output=True, text=True, check=True)
    data = json.loads(target.read_text())
    assert data["theme"] == "dark" and data["mcpServers"]["other"] == {"command": "x"}
    assert data["mcpServers"]["docshelf"]["type"] == "stdio"
    assert data["mcpServers"]["docshelf"]["args"] == ["serve"]
    bad = subprocess.run(docshelf_argv("install", "vim"), env=env, capture_output=True, text=True)
    assert bad.returncode == 2


def test_doctor_checks_everything(tmp_path: Path, corpus: Path) -> None:
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp_path / "index"), "DOCSHELF_CONFIG": os.devnull,
           "DOCSHELF_LOG_FILE": str(tmp_path / "serve.log")}
    subprocess.run(docshelf_argv("index", str(corpus)), env=env, capture_output=True, check=True)
    done = subprocess.run(docshelf_argv("doctor", "--json"), env=env, capture_output=True, text=True)
    report = json.loads(done.stdout)
    assert done.returncode == 0, report
    assert [c["check"] for c in report["checks"]] == ["index", "model", "roots", "writer lock", "server handshake"]
    assert [c["status"] for c in report["checks"]] == ["ok"] * 5
    assert "4 documents" in report["checks"][0]["detail"]
    assert "docshelf" in report["checks"][4]["detail"] and "8 tools" in report["checks"][4]["detail"]
    (corpus / "guides/install.md").unlink()
    corpus.rename(tmp_path / "gone")
    # A missing root is skipped by `docshelf index`, so it is a warning, not a failure.
    warned = subprocess.run(docshelf_argv("doctor", "--json"), env=env, capture_output=True, text=True)
    roots = json.loads(warned.stdout)["checks"][2]
    assert (warned.returncode, roots["status"]) == (0, "warn")
    assert roots["detail"].startswith(f"missing: {corpus.resolve()} (skipped when indexing")
    (tmp_path / "index" / "manifest.json").write_text("{not json")
    failed = subprocess.run(docshelf_argv("doctor", "--json"), env=env, capture_output=True, text=True)
    assert failed.returncode == 1
    assert json.loads(failed.stdout)["checks"][0]["status"] == "fail"


def test_polling_watcher(tmp_path: Path, corpus: Path) -> None:
    """The fallback for file systems without native events (--poll) picks up changes too."""
    params = server_params(tmp_path / "index", str(corpus), "--poll")

    async def main() -> None:
        async with connect(params, tmp_path / "stderr.txt") as s:
            st = await ready(s, documents=4)
            assert st["watcher"] == "polling"
            write(corpus, "polled.md", "# Polled\n\nThe didgeridoo drones.\n")
            await wait_for(lambda: _eq(paths_found(s, "didgeridoo"), {"polled.md"}))
            (corpus / "polled.md").unlink()
            await wait_for(lambda: _eq(paths_found(s, "didgeridoo"), set()))

    anyio.run(main)
