"""``docshelf serve --http``: the SDK's streamable HTTP client, the bearer token, Origin/Host checks."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import anyio
import httpx
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from api_harness import stop
from mcp_harness import call, call_error, docshelf_argv, make_corpus, ready

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]
TOKEN = "s3cret-token"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The server's environment: a private index, and no token unless ``extra`` sets one."""
    env = {k: v for k, v in os.environ.items() if k != "DOCSHELF_TOKEN"}
    return {**env, "DOCSHELF_INDEX_DIR": str(tmp_path / "index"), "DOCSHELF_CONFIG": os.devnull,
            "DOCSHELF_LOG_FILE": str(tmp_path / "serve.log"), **extra}


@contextmanager
def _serving(tmp_path: Path, *args: str, env: dict[str, str]):
    """Start ``docshelf serve --http`` on a free port, wait until it accepts, yield its URL."""
    docs = tmp_path / "docs"
    make_corpus(docs)
    port = _free_port()
    with (tmp_path / "stderr.txt").open("w") as err:
        proc = subprocess.Popen(docshelf_argv("serve", "--http", "--port", str(port), *args, str(docs)), env=env,
                                stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while True:  # bounded wait for the port to accept connections
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError((tmp_path / "stderr.txt").read_text()) from None
            time.sleep(0.1)
    try:
        yield url
    finally:
        stop(proc)


@pytest.fixture
def http_server(tmp_path: Path):
    with _serving(tmp_path, env=_env(tmp_path, DOCSHELF_TOKEN=TOKEN)) as url:
        yield url


def test_http_tools_with_token(http_server: str) -> None:
    async def main() -> None:
        client = create_mcp_http_client(headers={"Authorization": f"Bearer {TOKEN}"})
        async with client, streamable_http_client(http_server, http_client=client) as (read, write):
            async with ClientSession(read, write) as s:
                init = await s.initialize()
                assert init.server_info.name == "docshelf"
                await ready(s, documents=4)
                res = await call(s, "search_docs", query="install widgetron", k=2)
                assert res["hits"][0]["path"] == "guides/install.md"
                cols = await call(s, "list_collections")
                assert cols["total_documents"] == 4
                assert "no indexed document" in await call_error(s, "get_document", path="missing.md")

    anyio.run(main)


def test_http_rejects_missing_token_and_foreign_origin(http_server: str) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(timeout=10) as http:
        assert http.post(http_server, json=INIT, headers=JSON_HEADERS).status_code == 401
        wrong = {**JSON_HEADERS, "Authorization": "Bearer nope"}
        assert http.post(http_server, json=INIT, headers=wrong).status_code == 401
        # DNS rebinding: a page on another origin (or a rebound host name) is refused.
        evil = {**JSON_HEADERS, **auth, "Origin": "http://evil.example"}
        assert http.post(http_server, json=INIT, headers=evil).status_code == 403
        rebound = {**JSON_HEADERS, **auth, "Host": "evil.example:8001"}
        assert http.post(http_server, json=INIT, headers=rebound).status_code == 421
        local = {**JSON_HEADERS, **auth, "Origin": "http://localhost:3000"}
        assert http.post(http_server, json=INIT, headers=local).status_code == 200


def test_non_loopback_without_token_refuses_to_start(tmp_path: Path) -> None:
    """Before: only a logged warning, and the index was served to the whole network."""
    argv = docshelf_argv("serve", "--http", "--host", "0.0.0.0", "--port", str(_free_port()), "--no-watch")
    done = subprocess.run(argv, env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.strip() == (
        "Error: refusing to serve on 0.0.0.0 without a token: anyone who can reach it could read the index. "
        "Set --token (or DOCSHELF_TOKEN), bind to 127.0.0.1, or pass --insecure to serve without one.")
    assert not (tmp_path / "index").exists()  # refused before anything was opened


def test_insecure_serves_a_non_loopback_address_without_token(tmp_path: Path) -> None:
    with _serving(tmp_path, "--host", "0.0.0.0", "--insecure", env=_env(tmp_path)) as url:
        with httpx.Client(timeout=10) as http:
            assert http.post(url, json=INIT, headers=JSON_HEADERS).status_code == 200
    assert "NO TOKEN (--insecure): anyone who can reach this port can read the index" in (
        tmp_path / "stderr.txt").read_text()
