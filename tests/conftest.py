"""Shared fixtures: a service on a temporary index, with the fake or the real embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.service import Docshelf



@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def make_shelf(tmp_path):
    """Build a Docshelf on a fresh index; ``embedder=None`` means the real packaged model."""

    def make(embedder=None, **settings) -> Docshelf:
        settings.setdefault("index_dir", tmp_path / "index")
        return Docshelf(Settings(**settings), embedder=embedder)

    return make


@pytest.fixture
def shelf(make_shelf, fake_embedder) -> Docshelf:
    return make_shelf(fake_embedder)


def write_file(root: Path, rel: str, text: str) -> Path:
    """Write ``text`` at ``root/rel``, creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def write():
    """The ``write_file(root, rel, text)`` helper as a fixture."""
    return write_file
