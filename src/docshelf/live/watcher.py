"""Watch folder roots and hand over debounced batches of changed relative paths.

watchdog's native observer (inotify, FSEvents, ReadDirectoryChangesW) is used when it
starts; otherwise (watch limits, network file systems, ``poll=True``) its polling
observer. Created, modified, deleted and moved paths are collected per root; a batch is
flushed once no event arrived for ``debounce`` seconds (or ``max_delay`` after the
first), so an editor's atomic save (write ``.x.swp``/``x~``/temp, then rename over
``x``) arrives as one batch naming both the temp file and the target. The receiver
decides what each path means (the discovery rules live in the indexer); this module
only drops paths that can never be documents (``.git/`` and the like, the index itself).

A single-file root is watched through its folder, without recursion, and only events on
that file are passed on (as a batch for the folder naming the file).
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..pipeline.discover import DEFAULT_EXCLUDED_DIRS, IGNORE_FILES

log = logging.getLogger(__name__)

# on_batch(root, rel_paths, rescan): rescan=True when an ignore file changed (rules differ now).
BatchHandler = Callable[[Path, set[str], bool], None]


class RootWatcher:
    """Watches folder roots; calls ``on_batch`` from its own thread with debounced changes."""

    def __init__(
        self,
        roots: Sequence[Path],
        on_batch: BatchHandler,
        *,
        debounce: float = 0.4,
        max_delay: float = 2.0,
        poll: bool = False,
        poll_interval: float = 1.0,
        skip: Sequence[Path] = (),
        absent: Sequence[Path] = (),
    ) -> None:
        # folder roots missing now (``absent``) are watched from the moment they exist
        self.roots = [Path(r).resolve() for r in roots if Path(r).is_dir()]
        self.roots += [p for p in (Path(r).resolve() for r in absent) if not p.exists() and p not in self.roots]
        self.files = [Path(r).resolve() for r in roots if Path(r).is_file()]
        self.on_batch = on_batch
        self.debounce = debounce
        self.max_delay = max_delay
        self.poll = poll
        self.poll_interval = poll_interval
        self.skip = [Path(p).resolve() for p in skip]
        self.mode = "off"  # "native", "polling" or "off"
        self.error = ""
        self._observer = None
        self._lock = threading.Lock()
        self._pending: dict[Path, set[str]] = {}
        self._rescan: set[Path] = set()
        self._first = 0.0
        self._last = 0.0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._handler = None
        self._watches: dict[Path, object] = {}  # a folder root's watch, to replace when the root is
        self._inodes: dict[Path, int | None] = {}  # ... removed and made again (its inode then differs)

    # -- lifecycle ------------------------------------------------------------------------
    def _schedule(self, observer, handler) -> None:  # noqa: ANN001 - watchdog types
        for root in self.roots:
            self._inodes[root] = _inode(root)
            if self._inodes[root] is not None:  # else not yet there: _rearm watches it once it is
                self._watches[root] = observer.schedule(handler, str(root), recursive=True)
        for folder in sorted({f.parent for f in self.files}):
            if not any(folder == r or r in folder.parents for r in self.roots):  # else already watched
                observer.schedule(handler, str(folder), recursive=False)

    def start(self) -> None:
        if not self.roots and not self.files:
            self.mode = "off"
            return
        from watchdog.events import FileSystemEventHandler

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event) -> None:  # noqa: ANN001 - watchdog's event type
                watcher._on_event(event)

        handler = self._handler = Handler()
        if not self.poll:
            try:
                from watchdog.observers import Observer

                observer = Observer()
                self._schedule(observer, handler)
                observer.start()
                self._observer, self.mode = observer, "native"
            except Exception as exc:  # noqa: BLE001 - e.g. inotify watch limit reached
                self.error = f"native file watching failed ({exc}); polling instead"
                log.warning("%s", self.error)
        if self._observer is None:
            from watchdog.observers.polling import PollingObserver

            observer = PollingObserver(timeout=self.poll_interval)
            self._schedule(observer, handler)
            observer.start()
            self._observer, self.mode = observer, "polling"
        self._thread = threading.Thread(target=self._flush_loop, name="docshelf-watch-debounce", daemon=True)
        self._thread.start()
        log.info("watching %s (%s)", ", ".join(map(str, self.roots + self.files)), self.mode)

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._observer is not None:
            try:
                self._observer.stop()
                self._observer.join(timeout=5)
            except Exception as exc:  # noqa: BLE001 - stopping must not raise
                log.debug("stopping the observer: %s", exc)
        self.mode = "off"

    @property
    def pending(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._pending.values())

    # -- events ---------------------------------------------------------------------------
    def _on_event(self, event) -> None:  # noqa: ANN001
        kind = event.event_type
        if kind not in ("created", "modified", "deleted", "moved"):
            return  # opened / closed: no content change
        if kind == "modified" and event.is_directory:
            return  # a folder's mtime changes whenever an entry does; the entry has its own event
        paths = [event.src_path] + ([event.dest_path] if kind == "moved" else [])
        for raw in paths:
            path = Path(raw if isinstance(raw, str) else raw.decode())
            if kind in ("deleted", "moved") and path in self._inodes:
                self._inodes[path] = -1  # the root itself went: watch it anew even if its inode comes back
            self._add(path)

    def _add(self, path: Path) -> None:
        if any(path == s or s in path.parents for s in self.skip):
            return
        if path in self.files:
            self._queue_path(path.parent, path.name, rescan=False)
            return
        for root in self.roots:
            try:
                rel = path.relative_to(root)
            except ValueError:
                continue
            parts = rel.parts
            if not parts or any(p in DEFAULT_EXCLUDED_DIRS for p in parts[:-1]) or parts[-1] in DEFAULT_EXCLUDED_DIRS:
                return
            self._queue_path(root, rel.as_posix(), rescan=parts[-1] in IGNORE_FILES)
            return

    def _queue_path(self, root: Path, rel: str, *, rescan: bool) -> None:
        now = time.monotonic()
        with self._lock:
            if rescan:
                self._rescan.add(root)
            if not self._first:  # the first change since the last flush, under any root
                self._first = now
            self._pending.setdefault(root, set()).add(rel)
            self._last = now
        self._wake.set()

    def _rearm(self) -> None:
        """A folder root removed and made again (``make clean html``, ``rm -rf site && cp -r``,
        a branch checkout) is a new folder: its old watch saw the removal and then nothing. Once a
        second, each root's inode is compared; a root back again is watched anew and re-checked
        whole (its files came back without events)."""
        for root in self.roots:
            inode = _inode(root)
            if inode == self._inodes.get(root):
                continue
            self._inodes[root] = inode
            if inode is None:
                log.warning("root %s was removed; its files are dropped, and it is watched again if it comes back", root)
                continue
            old = self._watches.pop(root, None)
            try:
                if old is not None:
                    self._observer.unschedule(old)
            except Exception as exc:  # noqa: BLE001 - the old watch may have ended with its folder
                log.debug("unscheduling the old watch of %s: %s", root, exc)
            try:
                self._watches[root] = self._observer.schedule(self._handler, str(root), recursive=True)
            except Exception as exc:  # noqa: BLE001 - gone again, or no watch left: the next second retries
                log.warning("could not watch %s again (%s)", root, exc)
                self._inodes[root] = None
                continue
            log.info("root %s is back; watching it again and re-checking it", root)
            now = time.monotonic()
            with self._lock:
                self._rescan.add(root)
                self._first = self._first or now
                self._last = now

    def _flush_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(timeout=1.0)
            self._wake.clear()
            if self._observer is not None and not self._stop.is_set():
                self._rearm()
            while not self._stop.is_set():
                with self._lock:
                    if not self._pending and not self._rescan:
                        break
                    now = time.monotonic()
                    quiet = now - self._last
                    waited = now - self._first
                    if quiet < self.debounce and waited < self.max_delay:
                        delay = min(self.debounce - quiet, self.max_delay - waited)
                    else:
                        batches, rescan = self._pending, self._rescan
                        self._pending, self._rescan, self._first = {}, set(), 0.0
                        delay = -1.0
                if delay >= 0:
                    self._stop.wait(delay)
                    continue
                for root in sorted(set(batches) | rescan):
                    try:
                        self.on_batch(root, batches.get(root, set()), root in rescan)
                    except Exception:  # noqa: BLE001 - one bad batch must not stop watching
                        log.exception("handling changes under %s failed", root)


def _inode(folder: Path) -> int | None:
    try:
        st = os.stat(folder)
    except OSError:
        return None
    return st.st_ino if stat.S_ISDIR(st.st_mode) else None


__all__ = ["RootWatcher", "BatchHandler"]
