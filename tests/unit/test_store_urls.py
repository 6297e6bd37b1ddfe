"""Store URLs: secrets never shown, and a target's own API key wins (``stores.redact``, Qdrant's ``parse_url``)."""

from __future__ import annotations

import pytest

from docshelf.stores import redact
from docshelf.stores.qdrant_store import parse_url


def test_passwords_and_api_keys_are_redacted_wherever_the_url_holds_them():
    assert redact("postgresql://docs:s3cret@db:5432/x?sslmode=require") == "postgresql://docs:***@db:5432/x?sslmode=require"
    assert redact("postgresql://docs@db/x?password=s3cret&prefix=a_") == "postgresql://docs@db/x?password=***&prefix=a_"
    assert redact("qdrant+https://q.example?collection=docs&api_key=s3cret") == (
        "qdrant+https://q.example?collection=docs&api_key=***")
    assert redact("qdrant://h:6333?API_KEY=s3cret&sslpassword=x") == "qdrant://h:6333?API_KEY=***&sslpassword=***"
    assert redact("/home/me/index") == "/home/me/index"


def test_a_url_s_own_api_key_wins_over_the_configured_one():
    """``docshelf migrate --to qdrant+https://other?api_key=K``: the target's key, not the
    source's ``store_api_key`` (which made the copy fail with 403)."""
    args, name, _ = parse_url("qdrant+https://other.example?collection=c&api_key=target-key", "source-key")
    assert (args["api_key"], args["host"], args["port"], name) == ("target-key", "other.example", 443, "c")
    assert parse_url("qdrant://h?collection=c", "source-key")[0]["api_key"] == "source-key"


def test_a_postgresql_server_that_refuses_is_one_error_at_once_with_its_reason():
    """The pool retried for 30 s, logging a warning per try, then said 'pool initialization incomplete'."""
    import socket
    import time

    from docshelf.errors import StoreError
    from docshelf.stores.postgres_store import PostgresStore

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(StoreError) as caught:
        PostgresStore(f"postgresql://user:pw@127.0.0.1:{port}/db", 64)
    assert time.monotonic() - started < 15
    message = str(caught.value)
    assert message.startswith(f"cannot connect to PostgreSQL at postgresql://user:***@127.0.0.1:{port}/db: ")
    assert "Connection refused" in message and "pw" not in message.replace("***", "")


def test_an_unreachable_qdrant_server_is_one_error_without_the_clients_warning():
    """qdrant-client warned 'Failed to obtain server version…' (two lines on stderr) before an
    error that did not name the server."""
    import socket
    import warnings

    from docshelf.errors import StoreError
    from docshelf.stores.qdrant_store import QdrantStore

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    refused = f"^Qdrant list collections failed at qdrant://127.0.0.1:{port}: .*Connection refused"
    with warnings.catch_warnings(record=True) as seen, pytest.raises(StoreError, match=refused):
        warnings.simplefilter("always")
        QdrantStore(f"qdrant://127.0.0.1:{port}", 64)
    assert not [w for w in seen if "server version" in str(w.message)], [str(w.message) for w in seen]
