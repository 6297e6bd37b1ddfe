"""PostgreSQL's binary ``COPY`` format for the chunks table, written directly.

Why: formatting a 384-d vector as ``[0.1,0.2,…]`` text costs about a millisecond of Python per
chunk, more than everything else a chunk needs; the binary form is ``numpy.tobytes``. psycopg
has no binary dumpers for pgvector's ``vector`` or for ``tsvector``, so the few types the
chunks table uses are encoded here (formats as read by the server's ``*_recv`` functions:
``array_recv``, ``jsonb_recv``, ``tsvectorrecv``, pgvector's ``vector_recv``).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
TRAILER = struct.pack(">h", -1)
TEXT_OID = 25
_NULL = struct.pack(">i", -1)
_INT = struct.Struct(">ii")  # length 4, value


def _field(data: bytes) -> bytes:
    return struct.pack(">i", len(data)) + data


def text(value: str | None) -> bytes:
    return _NULL if value is None else _field(value.encode())


def int4(value: int | None) -> bytes:
    return _NULL if value is None else _INT.pack(4, value)


def jsonb(value: str) -> bytes:
    return _field(b"\x01" + value.encode())  # version 1, then the JSON text


def text_array(values: Sequence[str]) -> bytes:
    if not values:
        return _field(struct.pack(">iii", 0, 0, TEXT_OID))
    body = [struct.pack(">iiiii", 1, 0, TEXT_OID, len(values), 1)]
    body.extend(_field(v.encode()) for v in values)
    return _field(b"".join(body))


def tsvector(lexemes: Iterable[str]) -> bytes:
    """Lexemes without positions (the server sorts them); each must be distinct."""
    items = [lex.encode() for lex in lexemes]
    body = [struct.pack(">i", len(items))]
    body.extend(b + b"\x00\x00\x00" for b in items)  # the C string, then zero positions (uint16)
    return _field(b"".join(body))


def vector(v: np.ndarray) -> bytes:
    values = np.asarray(v, dtype=">f4")
    return _field(struct.pack(">hh", len(values), 0) + values.tobytes())


def row(fields: Sequence[bytes]) -> bytes:
    return struct.pack(">h", len(fields)) + b"".join(fields)


__all__ = ["HEADER", "TRAILER", "int4", "jsonb", "row", "text", "text_array", "tsvector", "vector"]
