"""docshelf: local-first documentation search for AI agents.

    from docshelf import Docshelf, load_settings
    shelf = Docshelf(load_settings(index_dir="/tmp/idx"))
    shelf.index(["docs/"])
    for hit in shelf.search("how do I rotate the ingest token?").hits:
        print(hit.path, hit.heading_path, hit.start_line, hit.score)

Names are imported lazily, so ``import docshelf`` (and a server's start-up) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Docshelf": "service",
    "Settings": "config",
    "load_settings": "config",
    "Chunk": "models",
    "DocumentRecord": "models",
    "Hit": "models",
    "IndexReport": "models",
    "SearchFilters": "models",
    "SearchResult": "models",
    "SearchRequest": "requests",
    "DocumentRequest": "requests",
    "DocumentListRequest": "requests",
    "InvalidRequest": "errors",
    "ConfigError": "errors",
    "DocshelfError": "errors",
    "EmbedderMismatch": "errors",
    "EmbedderUnavailable": "errors",
    "IndexLocked": "errors",
    "InvalidQuery": "errors",
    "NotFound": "errors",
    "ParseError": "errors",
}

__all__ = [
    "Chunk",
    "ConfigError",
    "Docshelf",
    "DocshelfError",
    "DocumentListRequest",
    "DocumentRecord",
    "DocumentRequest",
    "EmbedderMismatch",
    "EmbedderUnavailable",
    "Hit",
    "IndexLocked",
    "IndexReport",
    "InvalidQuery",
    "InvalidRequest",
    "NotFound",
    "ParseError",
    "SearchFilters",
    "SearchRequest",
    "SearchResult",
    "Settings",
    "load_settings",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'docshelf' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])


if TYPE_CHECKING:  # pragma: no cover
    from .config import Settings, load_settings
    from .errors import (
        ConfigError,
        DocshelfError,
        EmbedderMismatch,
        EmbedderUnavailable,
        IndexLocked,
        InvalidQuery,
        InvalidRequest,
        NotFound,
        ParseError,
    )
    from .models import Chunk, DocumentRecord, Hit, IndexReport, SearchFilters, SearchResult
    from .requests import DocumentListRequest, DocumentRequest, SearchRequest
    from .service import Docshelf
