"""Storage backends behind the ``Store`` protocol. LanceDB is the embedded default."""

from __future__ import annotations

from pathlib import Path

from ..protocols import Store


def open_store(index_dir: Path, dimensions: int) -> Store:
    from .lancedb_store import LanceStore

    return LanceStore(index_dir, dimensions)


def index_exists(index_dir: Path) -> bool:
    """Whether an index was ever written at ``index_dir``: readers check, so they never create one."""
    from .lancedb_store import MANIFEST

    return (Path(index_dir).expanduser() / MANIFEST).is_file()


__all__ = ["index_exists", "open_store"]
