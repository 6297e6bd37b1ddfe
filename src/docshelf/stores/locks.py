"""Writer locks: one writing process per index, whatever the backend.

Every store hands out its own lock (``Store.writer_lock()``): a lock file beside the
embedded index, an advisory lock on PostgreSQL, a lease point in Qdrant. All are
re-entrant within one lock object (the index run nests inside the writer loop's hold)
and are freed when their holder stops, so another server takes over.
"""

from __future__ import annotations

import threading
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
    """Re-entrancy, thread exclusion and polling on top of one non-blocking ``try_take`` /
    ``give_back`` pair (an advisory lock, a lease). Like the lock file, it is held by one
    thread: another thread of the same process waits as another process would."""

    poll = 0.2

    def __init__(
        self, try_take: Callable[[], bool], give_back: Callable[[], None], still_held: Callable[[], bool] | None = None
    ) -> None:
        self._try_take = try_take
        self._give_back = give_back
        self._still_held = still_held
        self._thread = threading.RLock()
        self._count = 0

    def acquire(self, timeout: float = 0) -> bool:
        deadline = time.monotonic() + max(0.0, timeout)
        if not (self._thread.acquire(timeout=timeout) if timeout > 0 else self._thread.acquire(blocking=False)):
            return False
        if self._count:
            self._count += 1
            return True
        while True:
            if self._try_take():
                self._count = 1
                return True
            if time.monotonic() >= deadline:
                self._thread.release()
                return False
            time.sleep(min(self.poll, max(0.0, deadline - time.monotonic())))

    def release(self, force: bool = False) -> None:
        if not self._count:
            return
        times = self._count if force else 1
        self._count -= times
        if not self._count:
            self._give_back()
        for _ in range(times):
            self._thread.release()

    @property
    def held(self) -> bool:
        return self._count > 0

    def alive(self) -> bool:
        """Held, and still held where the lock lives (a database session or a lease can end
        without this process noticing; asks the server)."""
        return self.held and (self._still_held is None or self._still_held())


__all__ = ["CountingLock", "FileWriterLock"]
