"""Helpers the parser tests share: parse a text written to a file, and read blocks as tuples."""

from __future__ import annotations

from pathlib import Path

from docshelf.models import ParseContext
from docshelf.pipeline.parsers import default_registry

REGISTRY = default_registry()


def parse(path: Path, text: str, root: Path | None = None):
    """Write ``text`` at ``path`` and parse it as the indexer would (includes read inside ``root``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return REGISTRY.parse(path, text.encode(), ParseContext(root) if root is not None else None)


def blocks(doc) -> list[tuple]:
    """Each block as (kind, text, heading path, start line, end line)."""
    return [(b.kind, b.text, b.heading_path, b.start_line, b.end_line) for b in doc.blocks]
