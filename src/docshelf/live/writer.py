"""One writer per index: the election, the start-up reconcile and the live updates.

Every server process runs a ``WriterLoop`` thread. It tries the index's writer lock
(``Docshelf.try_become_writer``); the process that gets it starts the file watcher,
reconciles the roots (a normal incremental ``index`` run) and applies the watcher's batches. The others
serve reads (LanceDB readers see each commit) and retry the lock every ``retry``
seconds, so when the writer exits another process takes over within a few seconds. A
server store's lock can also end under a live writer (a database session cut, a lease run
out): the writer checks it while idle and then steps down to a reader and tries again.

All writing happens on this one thread: the lock is held per thread (filelock), and one
thread means batches are applied in order. Every ``reconcile_interval`` seconds (setting,
default 300; 0 turns it off) the writer re-checks all roots, catching what the watcher
missed (events dropped under load, changes while the machine slept, network drives).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import DocshelfError, IndexLocked
from .watcher import RootWatcher

if TYPE_CHECKING:
    from ..service import Docshelf

log = logging.getLogger(__name__)

OPTIMIZE_EVERY = 25  # live batches between store compactions
OPTIMIZE_AFTER_S = 300.0
LOCK_CHECK_S = 5.0  # while idle, how often the writer asks whether its lock is still its own
INGEST_SETTLE_S = 1.0  # after pushed writes, optimize once the queue has been quiet this long


class _Progress:
    """Counts files done and still to do during a reconcile (for ``index_status`` and search notes)."""

    def __init__(self, loop: WriterLoop) -> None:
        self.loop = loop

    def planned(self, files: int, to_index: int) -> None:
        self.loop.pending_reconcile = to_index
        self.loop.reconcile_total, self.loop.reconcile_done = to_index, 0
        self.loop.reconcile_started = time.monotonic()

    def file_done(self, path: str) -> None:
        self.loop.pending_reconcile = max(0, self.loop.pending_reconcile - 1)
        self.loop.reconcile_done += 1

    def chunks_embedded(self, n: int) -> None:
        pass


class _Job:
    """A write handed to the writer thread (push ingest); its caller waits on ``future``."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.work = work
        self.future: Future[Any] = Future()

    def run(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        try:
            self.future.set_result(self.work())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
            self.future.set_exception(exc)


class WriterLoop:
    def __init__(
        self,
        service: Docshelf,
        roots: list[Path],
        *,
        watch: bool = True,
        poll: bool = False,
        retry: float = 3.0,
        debounce: float = 0.4,
        read_only: bool = False,
        on_change: Callable[[], Any] | None = None,
    ) -> None:
        self.service = service
        self.read_only = read_only
        self.on_change = on_change  # called on this thread after a write changed the index
        self.roots = roots
        self.watch = watch
        self.poll = poll
        self.retry = retry
        self.debounce = debounce
        self.role = "starting"  # "writer" or "reader"
        self.phase = "starting"  # "reconciling", "watching", "idle", "reading"
        self.watcher: RootWatcher | None = None
        self.pending_reconcile = 0
        self.reconcile_total = 0  # files the running reconcile plans to index, and how many are done
        self.reconcile_done = 0
        self.reconcile_started: float | None = None
        self.settled = threading.Event()  # set once the start-up reconcile is over (or not ours to run)
        self.last_update: float | None = None
        self.last_error = ""
        self.failed: dict[str, str] = {}
        self.missing_roots: list[str] = []
        self._queue: queue.Queue[Any] = queue.Queue()  # (root, rels, rescan) batches and _Jobs
        # submit() checks and queues under it, and the loop refuses what is queued under it as it
        # stops writing: a job is either refused or run, never left in a queue nobody reads
        self._accepting = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="docshelf-writer", daemon=True)
        self._batches_since_optimize = 0
        self._last_optimize = time.monotonic()
        self._live_roots: list[Path] = []
        self._last_reconcile = time.monotonic()
        self.reconciles = 0  # completed full re-checks (start-up included)
        self._jobs_since_optimize = 0
        self._last_job = 0.0
        self._lost = False  # the writer lock ended under this process (see _check_lock)
        self._lock_checked = 0.0
        self._reconcile_warned: set[str] = set()  # the last re-check's warnings, not logged again

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop watching and writing; True when the thread finished (the lock is then released)."""
        self._stop.set()
        if self.watcher is not None:
            self.watcher.stop()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def pending(self) -> int:
        watched = self.watcher.pending if self.watcher else 0
        return self.pending_reconcile + watched + self._queue.qsize()

    @property
    def watcher_state(self) -> str:
        if self.read_only:
            return "off (--read-only)"
        if self.role != "writer":
            return "off (another docshelf process writes this index and watches the roots)"
        if not self.watch:
            return "off (--no-watch)"
        return self.watcher.mode if self.watcher else "starting"

    # -- the thread -----------------------------------------------------------------------
    def _run(self) -> None:
        try:
            if self.read_only:
                self.role, self.phase = "reader", "reading"
                self.settled.set()
                return
            while self._elect():
                self._write()
                if not self._lost:
                    return
                # The lock ended under us (a server store's session or lease): another process
                # may write now. Serve reads and try again, as any reader does.
                self._lost = False
                with self._accepting:
                    self.role, self.phase = "reader", "reading"
                    self._fail_jobs()
        except Exception as exc:  # noqa: BLE001 - the server keeps serving reads
            self.last_error = f"{type(exc).__name__}: {exc}"
            self.phase = "failed"
            log.exception("the index writer stopped")
        finally:
            with self._accepting:
                self._fail_jobs()
            self.settled.set()

    def _elect(self) -> bool:
        """Wait until this process holds the writer lock (True) or the loop is stopped (False)."""
        while not self._stop.is_set():
            if self.service.try_become_writer():
                return True
            self.settled.set()  # another process indexes; searches do not wait for it
            if self.role != "reader":
                log.info("another process writes %s; serving reads, retrying every %.0fs",
                         self.service.index_dir, self.retry)
            self.role, self.phase = "reader", "reading"
            self._stop.wait(self.retry)
        return False

    def _write(self) -> None:
        """As the writer: watch the roots, reconcile them, apply the batches until stopped (or
        until the lock turns out lost), then release everything."""
        log.info("this process is now the writer of %s", self.service.index_dir)
        from .spool import Spool

        spool = Spool(self.service.index_dir)
        served = spool.serve()  # readers sharing the folder hand their pushes over here
        if not served.acquire(timeout=5):  # a reader's probe holds it for an instant only
            log.warning("could not mark %s as served; readers sharing it may refuse pushes", spool.dir)
        self.role = "writer"
        self._lock_checked = time.monotonic()
        try:
            roots = self._existing_roots()
            self._live_roots = roots
            # Watch first, then reconcile: a change made while the reconcile walks the
            # roots is queued by the watcher instead of slipping between the two.
            if self.watch and not self._stop.is_set():
                self.watcher = RootWatcher(
                    roots, self._enqueue, debounce=self.debounce, poll=self.poll,
                    skip=self.service.settings.own_paths(), absent=[Path(m) for m in self.missing_roots],
                )
                self.watcher.start()
            self._reconcile(roots)
            self.phase = "watching" if self.watcher else "idle"
            self.settled.set()
            self._apply_batches()
        finally:
            if self.watcher is not None:
                self.watcher.stop()
                self.watcher = None
            served.release(force=True)
            self.service.release_writer()

    def _check_lock(self) -> None:
        """Every ``LOCK_CHECK_S`` while idle: is the writer lock still ours where it lives?"""
        if time.monotonic() - self._lock_checked < LOCK_CHECK_S:
            return
        self._lock_checked = time.monotonic()
        if not self.service.writer_alive():
            log.warning("this process lost the writer lock of %s (its database session or lease ended); "
                        "another process may write now: serving reads and trying again", self.service.index_dir)
            self._lost = True
            self.role = "reader"  # at once: status must not call this process the writer any more

    def _existing_roots(self) -> list[Path]:
        roots, missing = [], []
        for r in self.roots:
            (roots if r.exists() else missing).append(r)
        self.missing_roots = [str(m) for m in missing]
        for m in missing:
            if self.watch:
                log.warning("root %s does not exist; it is indexed and watched once it does", m)
            else:
                log.warning("root %s does not exist; not indexing it", m)
        return roots

    def _reconcile(self, roots: list[Path]) -> None:
        if not roots:
            self.phase = "idle"
            return
        self.phase = "reconciling"
        started = time.monotonic()
        try:
            report = self.service.index(roots, progress=_Progress(self), lock_timeout=0)
        except DocshelfError as exc:
            self.last_error = str(exc)
            log.error("re-checking the roots failed: %s", exc)
            return
        finally:
            self.pending_reconcile = 0
            self._last_reconcile = time.monotonic()
            self.phase = "watching" if self.watcher else "idle"
        self.reconciles += 1
        self.failed.update(report.failed)
        self._warn(report.warnings, repeat=False)
        self.last_update = time.time()
        if report.added or report.updated or report.removed:
            self._changed()
        log.info(
            "reconciled %s in %.1fs: %d new, %d changed, %d removed, %d unchanged, %d failed",
            ", ".join(map(str, roots)), time.monotonic() - started, len(report.added), len(report.updated),
            len(report.removed), report.unchanged, len(report.failed),
        )

    def _warn(self, warnings: list[str], *, repeat: bool = True) -> None:
        """Log what ``docshelf index`` would print (a note's broken frontmatter, an unread date),
        once per change; a periodic re-check does not repeat what the last one said."""
        for warning in warnings:
            if repeat or warning not in self._reconcile_warned:
                log.warning("%s", warning)
        if not repeat:
            self._reconcile_warned = set(warnings)

    def _changed(self) -> None:
        if self.on_change is not None:
            try:
                self.on_change()
            except Exception:  # noqa: BLE001 - a listener must not stop the writer
                log.exception("an index-change callback failed")

    def eta(self) -> float | None:
        """Seconds the running reconcile still needs, from its pace so far (None before the first file)."""
        if self.phase != "reconciling" or not self.reconcile_done or self.reconcile_started is None:
            return None
        pace = (time.monotonic() - self.reconcile_started) / self.reconcile_done
        return pace * max(self.reconcile_total - self.reconcile_done, 0)

    def _enqueue(self, root: Path, rels: set[str], rescan: bool) -> None:
        self._queue.put((root, rels, rescan))

    def submit(self, work: Callable[[], Any]) -> Future[Any]:
        """Run ``work`` on the writer thread, in order with the watcher's batches.

        Raises ``IndexLocked`` when this process is not the writer (another one is, or
        ``--read-only``); a job queued while the start-up reconcile runs waits for it.
        """
        if self.read_only:
            raise IndexLocked("this server is read-only (--read-only); it does not write the index")
        job = _Job(work)
        with self._accepting:
            if self.phase == "failed":
                raise IndexLocked(f"this server's index writer stopped ({self.last_error or 'see its log'}); "
                                  "nothing was written: restart the server")
            if self._stop.is_set():
                raise IndexLocked("the server is shutting down; nothing was written: retry against the next writer")
            if self.role == "reader":
                raise IndexLocked(
                    f"another docshelf process writes the index at {self.service.index_dir}; "
                    "send writes to that server, or stop it and this one takes over within seconds"
                )
            self._queue.put(job)
        return job.future

    def _apply_batches(self) -> None:
        from .spool import Spool

        spool = Spool(self.service.index_dir)  # writes handed over by reader processes
        while not self._stop.is_set() and not self._lost:
            if spool.pending() and spool.process(self.service):
                self._jobs_since_optimize += 1
                self._last_job = time.monotonic()
            try:
                first = self._queue.get(timeout=0.25)
            except queue.Empty:
                self._check_lock()
                if self._lost:
                    break
                self._maybe_reconcile()
                self._maybe_optimize(idle=True)
                continue
            merged: dict[Path, tuple[set[str], bool]] = {}
            item: Any = first
            while item is not None:
                if isinstance(item, _Job):  # keep order: apply the file batches before it, then run it
                    self._apply_merged(merged)
                    merged = {}
                    item.run()
                    self._jobs_since_optimize += 1
                    self._last_job = time.monotonic()
                else:
                    root, rels, rescan = item
                    have, again = merged.get(root, (set(), False))
                    merged[root] = (have | rels, again or rescan)
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    item = None
            self._apply_merged(merged)

    def _apply_merged(self, merged: dict[Path, tuple[set[str], bool]]) -> None:
        for root, (rels, rescan) in merged.items():
            self._apply(root, rels, rescan)

    def _fail_jobs(self) -> None:
        """Jobs still queued when the loop stops are refused, not left waiting."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, _Job) and item.future.set_running_or_notify_cancel():
                item.future.set_exception(IndexLocked("the server is shutting down; retry against the next writer"))

    def _maybe_reconcile(self) -> None:
        """The periodic full re-check, when due and nothing else is waiting."""
        every = self.service.settings.reconcile_interval
        if every and self._live_roots and time.monotonic() - self._last_reconcile >= every:
            log.info("periodic re-check of %s", ", ".join(map(str, self._live_roots)))
            self._reconcile(self._existing_roots())

    def _apply(self, root: Path, rels: set[str], rescan: bool) -> None:
        if rescan:
            log.info("re-checking the whole root %s (its ignore rules changed, or it was made again)", root)
            if str(root) in self.missing_roots:  # a root missing at start that now exists
                self.missing_roots.remove(str(root))
                self._live_roots.append(root)
            self._reconcile([root])
            return
        # A batch for a folder that is not a folder root comes from single-file roots in it.
        explicit = not any(root == r for r in self._live_roots if r.is_dir())
        try:
            report = self.service.reindex_paths(root, sorted(rels), explicit=explicit)
        except DocshelfError as exc:
            self.last_error = str(exc)
            log.error("updating %d changed paths under %s failed: %s", len(rels), root, exc)
            return
        for path in report.added + report.updated + report.removed:
            self.failed.pop(path, None)
        self._warn(report.warnings)
        self.failed.update(report.failed)
        if report.added or report.updated or report.removed or report.failed:
            self.last_update = time.time()
            self._batches_since_optimize += 1
            self._changed()
            log.info(
                "live update under %s: %s added, %s updated, %s removed, %s failed", root,
                report.added, report.updated, report.removed, list(report.failed),
            )

    def _maybe_optimize(self, idle: bool) -> None:
        """Compact and bring the indexes up to date when idle: after many live batches, a while
        after the last one, or soon after a burst of pushed writes (whose rows full-text search
        would otherwise scan unindexed)."""
        if not (self._batches_since_optimize or self._jobs_since_optimize) or not idle:
            return
        now = time.monotonic()
        due = (self._batches_since_optimize >= OPTIMIZE_EVERY or now - self._last_optimize > OPTIMIZE_AFTER_S
               or (self._jobs_since_optimize and now - self._last_job > INGEST_SETTLE_S))
        if due:
            try:
                self.service.store.optimize()
            except DocshelfError as exc:  # nothing is lost (searches read the rows unindexed): say so, keep writing
                self.last_error = str(exc)
                log.error("compacting the index failed: %s; the next writes try again", exc)
            self._batches_since_optimize = self._jobs_since_optimize = 0
            self._last_optimize = time.monotonic()

    def state(self) -> dict[str, Any]:
        return {
            "role": self.role, "phase": self.phase, "watcher": self.watcher_state, "pending": self.pending,
            "last_update": self.last_update, "last_error": self.last_error, "missing_roots": list(self.missing_roots),
        }


__all__ = ["WriterLoop"]
