"""Every error docshelf raises, under one root so callers can catch it once.

    DocshelfError
    ├── ConfigError            bad settings or config file
    ├── SourceError            a file could not be read
    │   └── ParseError         a file could not be parsed (carries the path)
    ├── EmbedderError
    │   └── EmbedderUnavailable  the model is missing or still loading
    ├── StoreError
    │   ├── IndexNotFound
    │   ├── EmbedderMismatch   the index was built with another model/chunker
    │   └── IndexLocked        another process is writing this index
    ├── NotFound               no such document or chunk
    └── InvalidQuery           a query or filter the engine cannot run
        └── InvalidRequest     a request field is wrong (``.field`` names it)

Messages name the thing and the next step.
"""

from __future__ import annotations


class DocshelfError(Exception):
    """Root of every docshelf error."""


class ConfigError(DocshelfError):
    pass


class SourceError(DocshelfError):
    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class ParseError(SourceError):
    pass


class EmbedderError(DocshelfError):
    pass


class EmbedderUnavailable(EmbedderError):
    pass


class StoreError(DocshelfError):
    pass


class IndexNotFound(StoreError):
    pass


class EmbedderMismatch(StoreError):
    pass


class IndexLocked(StoreError):
    pass


class NotFound(DocshelfError):
    pass


class InvalidQuery(DocshelfError):
    pass


class InvalidRequest(InvalidQuery):
    """One field of a request (``docshelf.requests``) is invalid; the message starts with its name."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.reason = message
