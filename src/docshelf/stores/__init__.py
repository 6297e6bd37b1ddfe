"""Storage backends behind the ``Store`` protocol. LanceDB is the embedded default."""

from __future__ import annotations

from pathlib import Path

from ..protocols import Store


def open_store(index_dir: Path, dimensions: int) -> Store:
    from .lancedb_store import LanceStore

    return LanceStore(index_dir, dimensions)


__all__ = ["open_store"]
