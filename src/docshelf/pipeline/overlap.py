"""Threads that let the indexing stages overlap: parsing ahead of embedding, writing behind it.

While the model embeds batch N, one thread parses and chunks batch N+1 (``ahead``) and another
commits batch N-1 to the store (``SerialWriter``), so the CPU the model leaves idle does that
work. The writer is the only thread that touches the store while batches flow, and it runs its calls
in the order given, so commits land as a serial run would make them.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_DONE = object()


def ahead(items: Iterator[T]) -> Iterator[T]:
    """Yield ``items`` while a thread already builds the next one (one queued at most).

    The thread's exceptions are raised here, in order; if the consumer stops early (its
    commit failed), the thread is told to stop and is joined before this returns.
    """
    handoff: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                while not stop.is_set():
                    try:
                        handoff.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            handoff.put(_DONE)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, raised there
            handoff.put(exc)

    thread = threading.Thread(target=produce, name="docshelf-parse", daemon=True)
    thread.start()
    try:
        while True:
            item = handoff.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # unblock a put waiting on a full queue
            try:
                handoff.get(timeout=0.1)
            except queue.Empty:
                pass
        thread.join()


class SerialWriter:
    """One thread for every store call of a run, run in order; use it as a context manager.

    ``write`` hands over a commit and returns at once, after the previous commit finished (at
    most one waits behind the model); ``call`` runs a read after the writes before it and
    returns its result. A failed call stops every call after it; its error is raised by the
    next ``write`` or ``call``, or on leaving the block. Leaving waits for the last commit.
    """

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue = queue.SimpleQueue()
        self._last: Future | None = None
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._serve, name="docshelf-write", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while (item := self._calls.get()) is not None:
            fn, future = item
            if self._failed is not None:  # nothing runs after a failure
                future.set_exception(self._failed)
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                self._failed = exc
                future.set_exception(exc)

    def _submit(self, fn: Callable[[], Any]) -> Future:
        if self._last is not None:
            self._last.result()  # the previous call finished (and raise its error here)
        future: Future = Future()
        self._calls.put((fn, future))
        self._last = future
        return future

    def write(self, fn: Callable[[], Any]) -> None:
        self._submit(fn)

    def call(self, fn: Callable[[], T]) -> T:
        return self._submit(fn).result()

    def __enter__(self) -> SerialWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._calls.put(None)
        self._thread.join()  # the commit under way completes (a commit is never cut short)
        if exc_type is None and self._last is not None:
            self._last.result()


__all__ = ["SerialWriter", "ahead"]
