"""Start the real ``docshelf api`` (uvicorn) on a free port and wait until its index is ready."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from mcp_harness import docshelf_argv

INGEST_TOKEN = "ingest-s3cret"
READ_TOKEN = "read-s3cret"


def stop(proc: subprocess.Popen) -> None:
    """End a server the test started: SIGTERM, then SIGKILL if it has not exited within 10 s."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_corpus(root: Path) -> None:
    """Three small Markdown files (the fake embedder is enough for what these tests check)."""
    files = {
        "guides/install.md": "# Install\n\nInstall the widgetron with pip.\n\n## Upgrade\n\nUpgrade it with pip install -U widgetron.\n",
        "guides/configure.md": "---\ntags: [config]\ndate: 2024-03-01\n---\n# Configure\n\nLine one of the settings.\nLine two: the port.\nLine three: the host.\n",
        "notes/todo.md": "# Todo\n\nWrite the glossary of frobnication terms.\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@contextmanager
def api_server(tmp: Path, *args: str, env: dict[str, str] | None = None, docs: Path | None = None,
               documents: int | None = None, headers: dict[str, str] | None = None,
               command: tuple[str, ...] = ("api",)) -> Iterator[str]:
    """Run ``docshelf api [docs] args…`` (or ``command``, e.g. ``("serve", "--http", "--api")``)
    with the fake embedder; yield its base URL once it is up (and, with ``documents``, once
    /health counts that many)."""
    port = free_port()
    full_env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp / "index"), "DOCSHELF_CONFIG": os.devnull,
                "DOCSHELF_MODEL": "fake", "DOCSHELF_LOG_FILE": str(tmp / "api.log"), "DOCSHELF_WRITER_RETRY": "1",
                **(env or {})}
    argv = docshelf_argv(*command, "--port", str(port), *args, *([str(docs)] if docs else []))
    with (tmp / "api-stderr.txt").open("a") as err:
        proc = subprocess.Popen(argv, env=full_env, stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:  # bounded wait: the port answers and (optionally) the index holds the corpus
            if proc.poll() is not None:
                raise AssertionError((tmp / "api-stderr.txt").read_text())
            try:
                health = httpx.get(f"{base}/health", timeout=2).json()
                if health["status"] == "ok" and (documents is None or health["documents"] >= documents):
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"server not ready: {(tmp / 'api-stderr.txt').read_text()}")
            time.sleep(0.1)
        yield base
    finally:
        stop(proc)
