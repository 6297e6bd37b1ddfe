"""Store URLs for the backend suite: fresh tables or collections for every call."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

BACKENDS = ["embedded", "postgres", "qdrant"]
_counter = itertools.count()


def _with_prefix(url: str, prefix: str) -> str:
    return url + ("&" if "?" in url else "?") + f"prefix={prefix}"


def fresh_url(kind: str, request, folder: Path) -> str | None:
    """A store URL of ``kind`` on tables/collections no other test uses (``None``: embedded)."""
    n = next(_counter)
    if kind == "embedded":
        return None
    if kind == "postgres":
        return _with_prefix(request.getfixturevalue("postgres_url"), f"t{os.getpid()}_{n}_")
    server = os.environ.get("DOCSHELF_TEST_QDRANT_URL")
    if server:
        sep = "&" if "?" in server else "?"
        return f"{server}{sep}collection=t{os.getpid()}_{n}"
    return f"qdrant+local://{folder / f'qdrant{n}'}"


