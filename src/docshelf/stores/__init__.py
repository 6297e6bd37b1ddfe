"""Storage backends behind the ``Store`` protocol, chosen by the ``store`` setting:

- unset (default): the embedded LanceDB store in ``index_dir``;
- ``postgresql://…`` (or ``postgres://…``): PostgreSQL + pgvector (extra ``postgres``);
- ``qdrant://host:port`` / ``qdrant+https://host``: a Qdrant server (extra ``qdrant``);
  ``qdrant+local:///path`` runs qdrant-client's local mode (tests, one process only).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import ConfigError
from ..protocols import Store


_USER_PASSWORD = re.compile(r"://([^:/@?#]+):[^@/?#]*@")
_SECRET_PARAM = re.compile(r"([?&](?:password|sslpassword|api_key|apikey|token)=)[^&#]*", re.IGNORECASE)


def redact(location: str) -> str:
    """A store URL fit to print: the password of ``user:password@`` and the values of secret
    query parameters (libpq's ``password``, Qdrant's ``api_key``) replaced by ``***``."""
    return _SECRET_PARAM.sub(r"\1***", _USER_PASSWORD.sub(r"://\1:***@", location))


def backend_of(location: str | None) -> str:
    """``lancedb``, ``postgres`` or ``qdrant`` for a store URL (``None`` or a path: embedded)."""
    if not location:
        return "lancedb"
    scheme = location.split("://", 1)[0].lower() if "://" in location else ""
    if scheme in ("postgresql", "postgres"):
        return "postgres"
    if scheme.startswith("qdrant"):
        return "qdrant"
    if scheme in ("", "file", "lancedb"):
        return "lancedb"
    raise ConfigError(
        f"unknown store {location!r}: use postgresql://…, qdrant://…, qdrant+https://… or leave it unset (embedded)"
    )


def open_store(
    index_dir: Path,
    dimensions: int,
    location: str | None = None,
    *,
    read_url: str | None = None,
    api_key: str | None = None,
) -> Store:
    backend = backend_of(location)
    if backend == "postgres":
        from .postgres_store import PostgresStore

        return PostgresStore(location, dimensions, read_url=read_url)
    if backend == "qdrant":
        from .qdrant_store import QdrantStore

        return QdrantStore(location, dimensions, api_key=api_key)
    from .lancedb_import import import_lancedb
    from .lancedb_store import LanceStore

    import_lancedb()  # a third of plain `import lancedb`'s cost (see lancedb_import.py)

    if location and "://" in location:
        index_dir = Path(location.split("://", 1)[1])
    elif location:
        index_dir = Path(location)
    return LanceStore(Path(index_dir).expanduser(), dimensions)


def index_exists(index_dir: Path, location: str | None = None) -> bool:
    """Whether an index was ever written there: readers check, so they never create one.

    For a server backend (``location`` a postgresql:// or qdrant:// URL) this is True: the
    server is shared, and an index there without a manifest simply answers with no results."""
    if backend_of(location) != "lancedb":
        return True
    from .lancedb_store import MANIFEST

    if location:
        index_dir = Path(location.split("://", 1)[1] if "://" in location else location)
    return (Path(index_dir).expanduser() / MANIFEST).is_file()


__all__ = ["backend_of", "index_exists", "open_store", "redact"]
