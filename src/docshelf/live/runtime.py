"""What a running server holds: the service, built off the request path, and its live state.

``start()`` returns at once. A background thread imports the heavy parts (LanceDB,
onnxruntime, the parsers), opens the index, and sets ``wait_for_model = False`` so a
search never waits for the model; another thread loads the model; then the
``WriterLoop`` elects a writer, reconciles the roots and watches them. Until the model
is loaded, keyword and fuzzy search work and semantic/hybrid searches answer with
keyword results and a note. A tool that arrives before the index is open waits for it
(bounded by ``ready_timeout``).
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
    from ..service import Docshelf
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
    ) -> None:
        self.read_only = read_only
        self.settings = settings
        self.roots = [Path(r).expanduser().resolve() for r in (roots or [])]
        self.watch = watch
        self.poll = poll
        self.writer_retry = writer_retry
        self.debounce = debounce
        self.ready_timeout = ready_timeout
        self.started_at = time.time()
        self.phase = "not started"  # "opening", "ready", "failed"
        self.error = ""
        self.model_state = "not loaded"  # "loading", "loaded", "failed: ..."
        self.writer: WriterLoop | None = None
        self.on_ready: list[Any] = []  # callables(service), run on the start-up thread
        self._service: Docshelf | None = None
        self._ready = threading.Event()
        self._started = False
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
            self._service = service
            threading.Thread(target=self._load_model, name="docshelf-model", daemon=True).start()
            roots = list(service.roots)
            for r in self.roots:
                if r not in roots:
                    roots.append(r)
            from .writer import WriterLoop

            self.writer = WriterLoop(
                service, roots, watch=self.watch, poll=self.poll, retry=self.writer_retry, debounce=self.debounce,
                read_only=self.read_only,
            )
            self.phase = "ready"
            self._ready.set()
            log.info("index %s open in %.2fs", service.index_dir, time.monotonic() - started)
            for callback in self.on_ready:
                try:
                    callback(service)
                except Exception:  # noqa: BLE001
                    log.exception("start-up callback failed")
            self.writer.start()
        except Exception as exc:  # noqa: BLE001 - reported by every tool call and index_status
            self.error = str(exc) if isinstance(exc, DocshelfError) else f"{type(exc).__name__}: {exc}"
            self.phase = "failed"
            log.exception("opening the index failed")
            self._ready.set()

    def _load_model(self) -> None:
        assert self._service is not None
        self.model_state = "loading"
        started = time.monotonic()
        try:
            self._service.embedder.load()
        except Exception as exc:  # noqa: BLE001 - keyword search still works
            self.model_state = f"failed: {exc}"
            log.error("loading the embedding model failed: %s; keyword and fuzzy search still work", exc)
            return
        self.model_state = "loaded"
        log.info("model %s loaded in %.2fs", self._service.embedder.model_id, time.monotonic() - started)

    def close(self) -> bool:
        """Stop the writer (releasing the lock); True when everything stopped in time."""
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

    def write(self, work: Any, timeout: float = 120.0) -> Any:
        """Run ``work(service)`` on this process's writer thread and return its result.

        Pushed records are written where the watcher's batches are, one writer per index;
        a reader process (another one writes) raises ``IndexLocked`` saying so.
        """
        service = self.service()
        deadline = time.monotonic() + self.ready_timeout
        while self.writer is None or self.writer.role == "starting":  # the election takes a moment
            if time.monotonic() > deadline:
                raise ServiceStarting("docshelf is still deciding which process writes the index; retry shortly")
            time.sleep(0.05)
        future = self.writer.submit(lambda: work(service))
        try:
            return future.result(timeout)
        except TimeoutError:
            raise ServiceStarting(
                "the index writer is busy (indexing the roots); the write is queued and will still run, "
                "retry the lookup in a while"
            ) from None

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
