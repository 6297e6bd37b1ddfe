"""docshelf: local-first documentation search for AI agents.

    from docshelf import Docshelf, load_settings
    shelf = Docshelf(load_settings(index_dir="/tmp/idx"))
    shelf.index(["docs/"])
    for hit in shelf.search("how do I rotate the ingest token?").hits:
        print(hit.path, hit.heading_path, hit.start_line, hit.score)
"""

from .config import Settings, load_settings
from .errors import (
    ConfigError,
    DocshelfError,
    EmbedderMismatch,
    EmbedderUnavailable,
    IndexLocked,
    InvalidQuery,
    NotFound,
    ParseError,
)
from .models import Chunk, DocumentRecord, Hit, IndexReport, SearchFilters, SearchResult
from .service import Docshelf

__version__ = "0.1.0"

__all__ = [
    "Chunk",
    "ConfigError",
    "Docshelf",
    "DocshelfError",
    "DocumentRecord",
    "EmbedderMismatch",
    "EmbedderUnavailable",
    "Hit",
    "IndexLocked",
    "IndexReport",
    "InvalidQuery",
    "NotFound",
    "ParseError",
    "SearchFilters",
    "SearchResult",
    "Settings",
    "load_settings",
]
