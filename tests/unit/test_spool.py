"""Writes a reader process hands to the writer through the index folder (``live/spool.py``)."""

from __future__ import annotations

import os
import threading

from docshelf.ingest import UpsertRequest
from docshelf.live import spool as spool_module
from docshelf.live.spool import Spool


def test_a_request_still_being_written_is_not_taken_by_the_writer(shelf, monkeypatch):
    """A reader writes its request to a temp file in the spool folder (``.tmp-….json``), then
    renames it. The writer took every ``*.json`` but the outcomes: a temp file too, when it
    looked between the write and the rename. It then ran a request that was maybe half written,
    removed the temp file, and the reader's rename failed (FileNotFoundError, a 500 for a
    write that was done). Here the writer looks exactly then."""
    spool = Spool(shelf.index_dir)
    real_replace = os.replace
    looked: list[int] = []

    def replace_after_the_writer_looked(src, dst):  # the reader's rename, with the writer's turn before it
        if not str(dst).endswith(".done.json") and not looked:
            looked.append(spool.process(shelf))
        return real_replace(src, dst)

    monkeypatch.setattr(spool_module.os, "replace", replace_after_the_writer_looked)
    stop = threading.Event()

    def writer() -> None:  # the writer's loop: takes what is spooled
        while not stop.wait(0.05):
            if spool.pending():
                spool.process(shelf)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    request = UpsertRequest(records=[{"id": "r1", "content": "the spooled wombat record", "metadata": {}}])
    try:
        result = spool.submit("upsert", request.model_dump(mode="json"), timeout=30)
    finally:
        stop.set()
        thread.join(5)
    assert looked == [0]  # the writer saw nothing to run while the request was being written
    assert (result["upserted"], result["sources"]) == (1, ["r1"])
    assert [h.chunk_id for h in shelf.search("wombat", mode="keyword").hits] == ["push:r1"]
    assert sorted(p.name for p in spool.dir.iterdir() if p.name != ".writer.lock") == []


def test_a_full_disk_recording_an_outcome_does_not_stop_the_writer(shelf, monkeypatch):
    """Writing a spooled write's outcome failed with ENOSPC: the OSError left ``process`` and the
    writer's loop, which ended the writer thread, and live updates stopped while the server kept
    answering. Now the failure is logged, the request is not run again, and the next one runs."""
    import errno

    spool = Spool(shelf.index_dir)
    spool.dir.mkdir(parents=True, exist_ok=True)
    for n, word in enumerate(["wombat", "platypus"]):
        request = UpsertRequest(records=[{"id": f"r{n}", "content": f"the spooled {word} record", "metadata": {}}])
        spool_module._write_json(spool.dir / f"{n:020d}-req.json", {"op": "upsert", "request": request.model_dump(mode="json")})
    real_write = spool_module._write_json
    failed: list[str] = []

    def disk_full_once(path, data):
        if path.name.endswith(".done.json") and not failed:
            failed.append(path.name)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(path, data)

    monkeypatch.setattr(spool_module, "_write_json", disk_full_once)
    assert spool.process(shelf) == 2  # on main: OSError out of process()
    assert failed == [f"{0:020d}-req.done.json"]
    assert sorted(p.name for p in spool.dir.glob("*.json")) == [f"{1:020d}-req.done.json"]
    assert spool.process(shelf) == 0  # the first request is not run again
    assert {h.chunk_id for h in shelf.search("spooled record", mode="keyword").hits} == {"push:r0", "push:r1"}
