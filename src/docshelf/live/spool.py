"""Writes handed from a reader process to the index's writer through files in the index folder.

Several server processes can share one index (uvicorn workers, replicas); only the one
holding the writer lock writes. A reader that receives a push-ingest request drops it in
``<index>/ingest-spool/<id>.json`` and waits for ``<id>.done.json``; the writer's loop picks
requests up in arrival order between its other batches, runs them and writes the outcome.
JSON only (nothing is unpickled), written atomically (temp file + rename).

The writer holds ``<index>/ingest-spool/.writer.lock`` while it takes such writes, so a reader
can tell whether anyone will: on a shared PostgreSQL or Qdrant store the writer may be a
server on another machine, with another index folder, and a write left here would never run.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .. import errors
from ..stores.locks import FileWriterLock

log = logging.getLogger(__name__)

SPOOL = "ingest-spool"
SERVED = ".writer.lock"
STALE_S = 600.0  # outcomes nobody collected are removed after this long


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def run_op(service: Any, op: str, request: dict[str, Any]) -> Any:
    """Run one spooled write on ``service`` (as the writer): upsert, delete or reset."""
    from ..ingest import ResetRequest, SelectRequest, UpsertRequest

    if op == "upsert":
        return service.ingest_upsert(UpsertRequest.model_validate(request))
    if op == "delete":
        return service.ingest_delete(SelectRequest.model_validate(request))
    if op == "reset":
        return service.ingest_reset(ResetRequest.model_validate(request).include_indexed)
    raise errors.InvalidQuery(f"unknown ingest operation {op!r}")


class Spool:
    def __init__(self, index_dir: Path) -> None:
        self.dir = Path(index_dir) / SPOOL

    def serve(self) -> FileWriterLock:
        """The lock the writer process holds while it takes the writes handed over here."""
        self.dir.mkdir(parents=True, exist_ok=True)
        return FileWriterLock(self.dir / SERVED)

    def served(self) -> bool:
        """Whether a writer process takes the writes handed over here now (it holds ``serve()``)."""
        path = self.dir / SERVED
        if not path.exists():
            return False
        probe = FileWriterLock(path)
        if probe.acquire(timeout=0):
            probe.release()
            return False
        return True

    # -- the reader's side ------------------------------------------------------------
    def submit(self, op: str, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Hand a write to the writer process and wait for its outcome (a dict of the result)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{uuid.uuid4().hex}"
        _write_json(self.dir / f"{name}.json", {"op": op, "request": request})
        done = self.dir / f"{name}.done.json"
        deadline = time.monotonic() + timeout
        while not done.exists():
            if time.monotonic() > deadline:
                raise errors.IndexLocked(
                    "the index's writer process has not taken this write yet (it may be busy indexing); "
                    "it stays queued and will still run: retry the lookup in a while"
                )
            time.sleep(0.05)
        outcome = json.loads(done.read_text())
        done.unlink(missing_ok=True)
        if "error" in outcome:
            raise _error(outcome["error"])
        return outcome["result"]

    # -- the writer's side ------------------------------------------------------------
    def pending(self) -> list[Path]:
        """Requests waiting, oldest first: not the outcomes, and not the temp files (``.tmp-…``) a
        reader is still writing (pathlib's glob matches names that start with a dot)."""
        try:
            return sorted(p for p in self.dir.glob("*.json")
                          if not p.name.endswith(".done.json") and not p.name.startswith("."))
        except OSError:
            return []

    def process(self, service: Any) -> int:
        """Run every waiting write in arrival order; returns how many ran."""
        ran = 0
        for path in self.pending():
            try:
                job = json.loads(path.read_text())
                result = run_op(service, job["op"], job["request"])
                outcome: dict[str, Any] = {"result": asdict(result)}
            except errors.DocshelfError as exc:
                outcome = {"error": {"type": type(exc).__name__, "message": str(exc)}}
            except Exception as exc:  # noqa: BLE001 - a bad file must not stop the writer
                log.exception("spooled write %s failed", path.name)
                outcome = {"error": {"type": "DocshelfError", "message": f"the write failed: {type(exc).__name__}"}}
            try:
                _write_json(path.with_name(path.name[: -len(".json")] + ".done.json"), outcome)
                path.unlink(missing_ok=True)
            except OSError as exc:  # a full disk: the writer goes on (the reader times out, told so)
                log.error("could not record the outcome of spooled write %s: %s", path.name, exc)
                with contextlib.suppress(OSError):
                    path.unlink(missing_ok=True)  # ran once: not again on every pass
            ran += 1
        self._sweep()
        return ran

    def _sweep(self) -> None:
        cutoff = time.time() - STALE_S
        for path in [*self.dir.glob("*.done.json"), *self.dir.glob(".tmp-*.json")]:  # and a crashed writer's temp files
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
            except OSError:
                pass


def _error(data: dict[str, Any]) -> errors.DocshelfError:
    cls = getattr(errors, str(data.get("type")), None)
    message = str(data.get("message", "the write failed"))
    if isinstance(cls, type) and issubclass(cls, errors.DocshelfError):
        try:
            return cls(message)
        except TypeError:  # an error whose constructor takes more than a message
            pass
    return errors.DocshelfError(message)


__all__ = ["Spool", "run_op"]
