"""Writer locks: one writing process per index, whatever the backend.

Every store hands out its own lock (``Store.writer_lock()``): a lock file beside the
embedded index, an advisory lock on PostgreSQL, a lease point in Qdrant. All are
re-entrant within one lock object (the index run nests inside the writer loop's hold)
and are freed when their holder stops, so another server takes over.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from filelock import FileLock, Timeout


class FileWriterLock:
    """A lock file in the index folder (the embedded store); the OS frees it when the process dies."""

    def __init__(self, path: Path) -> None:
        self._lock = FileLock(str(path))

    def acquire(self, timeout: float = 0) -> bool:
        try:
            self._lock.acquire(timeout=timeout)
            return True
        except Timeout:
            return False

    def release(self, force: bool = False) -> None:
        if self._lock.is_locked:
            self._lock.release(force=force)

    @property
    def held(self) -> bool:
        return self._lock.is_locked


class CountingLock:
    """Re-entrancy and polling on top of a single non-blocking ``try_take``/``give_back`` pair."""

    poll = 0.2

    def __init__(self, try_take: Callable[[], bool], give_back: Callable[[], None]) -> None:
        self._try_take = try_take
        self._give_back = give_back
        self._count = 0

    def acquire(self, timeout: float = 0) -> bool:
        if self._count:
            self._count += 1
            return True
        deadline = time.monotonic() + max(0.0, timeout)
        while True:
            if self._try_take():
                self._count = 1
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(self.poll, max(0.0, deadline - time.monotonic())))

    def release(self, force: bool = False) -> None:
        if not self._count:
            return
        self._count = 0 if force else self._count - 1
        if not self._count:
            self._give_back()

    @property
    def held(self) -> bool:
        return self._count > 0


__all__ = ["CountingLock", "FileWriterLock"]
