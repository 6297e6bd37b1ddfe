"""What a running server holds: the service, built off the request path, and its live state.

``start()`` returns at once. A background thread imports the heavy parts (LanceDB,
onnxruntime, the parsers), opens the index, and sets ``wait_for_model = False`` so a
search never waits for the model; another thread loads the model; then the
``WriterLoop`` elects a writer, reconciles the roots and watches them. Until the model
is loaded, keyword and fuzzy search work and semantic/hybrid searches answer with
keyword results and a note. A tool that arrives before the index is open waits for it
(bounded by ``ready_timeout``).

A search (``ServerRuntime.search``) that arrives during the first index of a folder
waits for it when it should finish within ``first_index_wait`` (a one-shot client that
spawns the server and searches at once gets real answers), and one that arrives while
the model loads waits for the model (bounded by ``model_wait``). Otherwise it answers
with what is indexed so far and a note saying what is happening ("first index at 40 of
300 files, about 20 s left"); a note never blames the model when the truth is that
nothing is indexed yet.

Once the model is loaded the runtime also answers ``docshelf search`` from the shell over a
private Unix socket in the index folder (``live/query_socket.py``), so a CLI search on an
index a server holds costs no imports, no store opening and no model load.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import DocshelfError, EmbedderUnavailable

if TYPE_CHECKING:
    from ..models import SearchResult
    from ..requests import SearchRequest
    from ..service import Docshelf
    from .query_socket import QueryServer
    from .writer import WriterLoop

log = logging.getLogger(__name__)


class ServiceStarting(EmbedderUnavailable):
    """The index is still being opened; retry in a moment."""


class ServerRuntime:
    def __init__(
        self,
        settings: Settings,
        roots: list[Path] | None = None,
        *,
        watch: bool = True,
        poll: bool = False,
        writer_retry: float = 3.0,
        debounce: float = 0.4,
        ready_timeout: float = 30.0,
        read_only: bool = False,
        first_index_wait: float = 15.0,
        model_wait: float = 10.0,
        query_socket: bool = True,
        kind: str = "serve",
    ) -> None:
        self.read_only = read_only
        self.query_socket = query_socket  # answer `docshelf search` once the model is loaded
        self.kind = kind
        self.query_server: QueryServer | None = None
        self.settings = settings
        self.roots = [Path(r).expanduser().resolve() for r in (roots or [])]
        self.watch = watch
        self.poll = poll
        self.writer_retry = writer_retry
        self.debounce = debounce
        self.ready_timeout = ready_timeout
        self.first_index_wait = first_index_wait
        self.model_wait = model_wait
        self.empty_at_start = False  # the index held nothing when this server opened it
        self.started_at = time.time()
        self.phase = "not started"  # "opening", "ready", "failed"
        self.error = ""
        self.model_state = "not loaded"  # "loading", "loaded", "failed: ..."
        self.writer: WriterLoop | None = None
        self.on_ready: list[Any] = []  # callables(service), run on the start-up thread
        self.on_change: list[Any] = []  # callables(service), run on the writer thread after the index changed
        self._service: Docshelf | None = None
        self._ready = threading.Event()
        self._model_done = threading.Event()  # the model loaded or failed to
        self._started = False
        self._closed = False
        self._lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Begin opening the index in the background (idempotent, returns immediately)."""
        with self._lock:
            if self._started:
                return
            self._started = True
        self.phase = "opening"
        threading.Thread(target=self._open, name="docshelf-startup", daemon=True).start()

    def _open(self) -> None:
        try:
            from ..service import Docshelf

            started = time.monotonic()
            service = Docshelf(self.settings)
            service.wait_for_model = False
            self.empty_at_start = service.store.count_chunks() == 0
            self._service = service
            threading.Thread(target=self._load_model, name="docshelf-model", daemon=True).start()
            roots = service.live_roots(self.roots)
            from .writer import WriterLoop

            self.writer = WriterLoop(
                service, roots, watch=self.watch, poll=self.poll, retry=self.writer_retry, debounce=self.debounce,
                read_only=self.read_only, on_change=lambda: self._run_callbacks(self.on_change, service),
            )
            self.phase = "ready"
            self._ready.set()
            log.info("index %s open in %.2fs", service.index_dir, time.monotonic() - started)
            self._run_callbacks(self.on_ready, service)
            with self._lock:  # close() may have run meanwhile: then it found no writer to stop
                if self._closed:
                    log.info("the server stopped while it opened the index: not writing it")
                    return
                self.writer.start()
        except Exception as exc:  # noqa: BLE001 - reported by every tool call and index_status
            self.error = str(exc) if isinstance(exc, DocshelfError) else f"{type(exc).__name__}: {exc}"
            self.phase = "failed"
            log.exception("opening the index failed")
            self._ready.set()

    @staticmethod
    def _run_callbacks(callbacks: list[Any], service: Docshelf) -> None:
        for callback in list(callbacks):
            try:
                callback(service)
            except Exception:  # noqa: BLE001
                log.exception("a runtime callback failed")

    def _load_model(self) -> None:
        assert self._service is not None
        self.model_state = "loading"
        started = time.monotonic()
        try:
            self._service.embedder.load()
        except Exception as exc:  # noqa: BLE001 - keyword search still works
            self.model_state = f"failed: {exc}"
            log.error("loading the embedding model failed: %s; keyword and fuzzy search still work", exc)
            self._model_done.set()
            return
        self.model_state = "loaded"
        self._model_done.set()
        log.info("model %s loaded in %.2fs", self._service.embedder.model_id, time.monotonic() - started)
        if self.query_socket:
            self._start_query_server()
        from .. import allocator, collector

        collector.freeze_startup()  # start-up's objects out of every later full GC pass (see collector.py)
        allocator.drop_startup_pages()  # library pages only starting up used (see allocator.py)

    def _start_query_server(self) -> None:
        """Answer ``docshelf search`` from this process (``live/query_socket.py``): only now that the
        model is loaded, so the answer is the one the CLI would compute in-process."""
        from .query_socket import QueryServer, settings_key

        assert self._service is not None
        server = QueryServer(self._service.index_dir, self._service.search, settings_key(self.settings), self.kind)
        with self._lock:
            if self._closed:
                return
            if server.start():
                self.query_server = server

    def close(self) -> bool:
        """Stop the writer (releasing the lock); True when everything stopped in time."""
        with self._lock:
            self._closed = True
            if self.query_server is not None:
                self.query_server.close()
        if self.writer is not None:
            return self.writer.stop()
        return True

    # -- access ---------------------------------------------------------------------------
    def service(self, timeout: float | None = None) -> Docshelf:
        """The open service; waits (bounded) while start-up is still opening the index."""
        self.start()
        if not self._ready.wait(self.ready_timeout if timeout is None else timeout):
            raise ServiceStarting("docshelf is still opening the index; retry in a few seconds")
        if self._service is None or self.phase == "failed":
            raise DocshelfError(f"docshelf could not open the index: {self.error}")
        return self._service

    def write(self, op: str, request: Any, timeout: float = 120.0) -> Any:
        """Run one push-ingest write (``op``: upsert, delete or reset; ``request``: its model) as
        the index's writer and return its result.

        In the writer process it runs on the writer thread, in order with the watcher's
        batches; in a reader process (another one holds the writer lock) it is handed to the
        writer through the index folder (``live/spool.py``), so any process can take pushes.
        """
        from ..errors import IndexLocked
        from ..ingest import DeleteResult, UpsertResult
        from ..stores import backend_of
        from .spool import Spool, run_op

        service = self.service()
        deadline = time.monotonic() + self.ready_timeout
        # The election takes a moment (a writer that failed meanwhile is refused below, saying why).
        while self.writer is None or (self.writer.role == "starting" and self.writer.phase != "failed"):
            if time.monotonic() > deadline:
                raise ServiceStarting("docshelf is still deciding which process writes the index; retry shortly")
            time.sleep(0.05)
        data = request.model_dump(mode="json")
        if self.writer.role == "reader" and not self.read_only:
            spool = Spool(service.index_dir)
            shared = {"postgres": "PostgreSQL", "qdrant": "Qdrant"}.get(backend_of(self.settings.store))
            if shared and not spool.served():  # the writer is a server elsewhere (or a `docshelf index` run)
                raise IndexLocked(
                    f"the writer of this shared {shared} index is a docshelf process that does not share this "
                    f"server's index folder ({service.index_dir}); nothing was written: send pushes to the "
                    "writer's server (its status says role: writer), or run the servers on one index folder"
                )
            result = spool.submit(op, data, timeout)
            if op == "upsert":
                return UpsertResult(result["upserted"], result["embedded"], tuple(result["sources"]),
                                    tuple(result.get("cut", ())))
            return DeleteResult(result["deleted"], tuple(result["sources"]))
        if self.read_only:
            raise IndexLocked("this server is read-only (--read-only); it does not write the index")
        future = self.writer.submit(lambda: run_op(service, op, data))
        try:
            return future.result(timeout)
        except TimeoutError:
            raise ServiceStarting(
                "the index writer is busy (indexing the roots); the write is queued and will still run, "
                "retry the lookup in a while"
            ) from None

    def search(self, request: SearchRequest) -> SearchResult:
        """``Docshelf.search`` as a server answers it: waits (bounded) for a first index that is
        about to finish and for a loading model, then says in the note what is still going on."""
        from dataclasses import replace

        service = self.service()  # waits (ready_timeout) while the index is being opened
        deadline = time.monotonic() + self.first_index_wait
        self._wait_for_first_index(deadline)
        if self.model_state in ("not loaded", "loading"):
            self._model_done.wait(max(0.0, min(self.model_wait, deadline - time.monotonic())))
        result = service.search(request)
        notes = [n for n in [self.progress_note(), result.note] if n]
        if not result.hits and service.store.count_chunks() == 0:
            # The model is not why there are no hits: nothing is indexed (yet).
            notes = [self.progress_note() or self.empty_note()]
        return replace(result, note="; ".join(dict.fromkeys(notes)))

    def _wait_for_first_index(self, deadline: float) -> None:
        """Wait while this server builds a first index that should be done before ``deadline``."""
        writer = self.writer
        if writer is None or not self.empty_at_start:
            return
        while not writer.settled.is_set():
            left = deadline - time.monotonic()
            eta = writer.eta()
            if left <= 0 or (eta is not None and eta > left):
                return
            writer.settled.wait(min(0.1, left))

    def progress_note(self) -> str:
        """What the writer is doing, for a search note ('' when nothing is in progress)."""
        writer = self.writer
        if writer is None or writer.phase not in ("starting", "reconciling") or writer.settled.is_set():
            return ""
        what = "first index" if self.empty_at_start else "start-up index update"
        if writer.phase == "starting" or not writer.reconcile_total:
            return f"the {what} is starting (looking for files); results cover only what is indexed so far"
        eta = writer.eta()
        left = f", about {eta:.0f} s left" if eta is not None else ""
        return (f"{what} at {writer.reconcile_done} of {writer.reconcile_total} files{left}; "
                "results cover only the files indexed so far")

    def empty_note(self) -> str:
        roots = self.writer.roots if self.writer else self.roots
        if self.writer is not None and self.writer.role == "reader":
            return "nothing is indexed yet; another docshelf process is indexing this index"
        if not roots:
            return "nothing is indexed: no folders to index; run `docshelf index PATH` or serve with a PATH"
        return f"nothing is indexed: no indexable documents under {', '.join(map(str, roots))} (see index_status)"

    @property
    def ready(self) -> bool:
        return self._ready.is_set() and self._service is not None

    def state(self) -> dict[str, Any]:
        writer = self.writer.state() if self.writer else {}
        phase = self.phase
        if phase == "ready" and writer.get("phase") == "reconciling":
            phase = "indexing"
        return {
            "state": phase, "error": self.error, "model": self.model_state, "started_at": self.started_at,
            "role": writer.get("role", "starting"), "watcher": writer.get("watcher", "starting"),
            "pending": writer.get("pending", 0), "last_update": writer.get("last_update"),
            "last_error": writer.get("last_error", ""), "missing_roots": writer.get("missing_roots", []),
            "failed": dict(self.writer.failed) if self.writer else {},
        }


__all__ = ["ServerRuntime", "ServiceStarting"]
