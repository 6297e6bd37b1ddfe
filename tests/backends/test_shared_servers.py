"""Several docshelf servers on one PostgreSQL or Qdrant store, as on several machines: each has
its own index folder, one of them writes. A push to a reader is handed to the writer through
the index folder (``live/spool.py``), which only works when the writer shares that folder."""

from __future__ import annotations

import time

import pytest

from backend_urls import fresh_url
from docshelf.config import Settings
from docshelf.errors import DocshelfError, IndexLocked
from docshelf.ingest import UpsertRequest
from docshelf.live.runtime import ServerRuntime


def started(url: str, folder, role: str) -> ServerRuntime:
    runtime = ServerRuntime(Settings(index_dir=folder, model="fake", store=url), [], watch=False, writer_retry=0.2,
                            query_socket=False)
    runtime.start()
    deadline = time.monotonic() + 60
    while runtime.writer is None or runtime.writer.role != role:
        assert time.monotonic() < deadline, (runtime.state(), runtime.error)
        time.sleep(0.05)
    return runtime


def push(key: str, text: str) -> UpsertRequest:
    return UpsertRequest(records=[{"id": key, "content": text, "metadata": {"source": f"kb/{key}"}}])


@pytest.mark.parametrize("kind", ["postgres", "qdrant"])
def test_a_push_to_a_reader_whose_writer_has_another_folder_is_refused_at_once(kind, request, tmp_path):
    """Before: the push waited two minutes in the reader's folder, then was said to be "queued
    and will still run" — no writer ever read that folder, so it never ran."""
    url = fresh_url(kind, request, tmp_path)
    writer = started(url, tmp_path / "host-a", "writer")
    beside = started(url, tmp_path / "host-a", "reader")  # a second server on the writer's machine
    elsewhere = started(url, tmp_path / "host-b", "reader")  # a server on another machine
    try:
        began = time.monotonic()
        with pytest.raises(IndexLocked, match=r"does not share this server's index folder .*host-b"):
            elsewhere.write("upsert", push("far", "the narwhal record"), timeout=30)
        assert time.monotonic() - began < 5
        assert not list((tmp_path / "host-b").rglob("*.json"))  # nothing left queued for nobody

        result = beside.write("upsert", push("near", "the capybara record"), timeout=60)
        assert (result.upserted, result.sources) == (1, ("kb/near",))
        hits = elsewhere.service().search("capybara", mode="keyword").hits
        assert [h.chunk_id for h in hits] == ["push:near"]
    finally:
        for runtime in (elsewhere, beside, writer):
            runtime.close()
            runtime.service().store.close()


def test_a_qdrant_lease_is_renewed_while_held_and_taken_over_once_its_holder_stops(request, tmp_path, monkeypatch):
    """Qdrant has no sessions: the writer holds a lease it renews. A holder that crashed (its
    lease left as it was, no renewals) is replaced once the lease runs out; a live one is not."""
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.service import Docshelf
    from docshelf.stores import qdrant_store

    monkeypatch.setattr(qdrant_store, "LEASE_SECONDS", 1.0)
    url = fresh_url("qdrant", request, tmp_path)
    first, second = (Docshelf(Settings(index_dir=tmp_path / name, store=url), embedder=FakeEmbedder()) for name in "ab")
    assert first.try_become_writer()
    time.sleep(2.5)  # past two lease lengths: only renewals keep it
    assert not second.try_become_writer()
    first.release_writer()
    assert second.try_become_writer()
    second.release_writer()

    crashed = {"owner": "gone-host:4242:dead", "expires": time.time() + 1.0}  # what a killed writer leaves
    first.store._meta_put("writer", crashed)
    assert not second.try_become_writer()
    time.sleep(1.2)
    assert second.try_become_writer()
    assert first.store._meta_get("writer")["owner"] != crashed["owner"]
    second.release_writer()


def test_a_postgres_writer_whose_lock_session_ended_gives_the_index_a_live_writer_again(request, tmp_path, monkeypatch):
    """The writer's advisory-lock session ends (a restart, a failover, a cut idle connection)
    and the lock is free: the writer notices while idle, steps down and elects again with the
    other server, so one of them soon holds a live lock and writes (before: the old one went on
    calling itself the writer beside the new one, every write of it failing, until restarted)."""
    import psycopg

    from docshelf.live import writer as writer_module

    monkeypatch.setattr(writer_module, "LOCK_CHECK_S", 0.2, raising=False)
    url = fresh_url("postgres", request, tmp_path)
    servers = [started(url, tmp_path / "host-a", "writer"), started(url, tmp_path / "host-b", "reader")]
    try:
        key = servers[0].service().store._lock_key("writer")
        with psycopg.connect(request.getfixturevalue("postgres_url"), autocommit=True) as admin:
            (holder,) = admin.execute(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1 "
                "AND classid = %s::oid AND objid = %s::oid", ((key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF)).fetchall()
            admin.execute("SELECT pg_terminate_backend(%s)", holder)
        deadline, failures = time.monotonic() + 30, []
        while True:  # (until the old writer notices, both may say "writer"; only one can write)
            writers = [r for r in servers if r.writer.role == "writer"]
            if len(writers) == 1:
                try:
                    if writers[0].write("upsert", push("again", "the dunlin record"), timeout=5).upserted == 1:
                        break
                except DocshelfError as exc:  # the old writer's writes fail while its lock is gone
                    failures.append(str(exc))
            assert time.monotonic() < deadline, ([r.writer.role for r in servers], failures[-1:])
            time.sleep(0.2)
        hits = servers[1 - servers.index(writers[0])].service().search("dunlin", mode="keyword").hits
        assert [h.chunk_id for h in hits] == ["push:again"]
    finally:
        for runtime in servers:
            runtime.close()
            runtime.service().store.close()
