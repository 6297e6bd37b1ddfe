"""glibc malloc settings that keep a docshelf process's RSS close to what it really uses.

Measured with ``benchmarks/rss.py`` (benchmarks/README.md, "Memory"). With glibc's defaults a
server holding 10k chunks sat at ~760 MB after 80 searches, and ``docshelf index`` peaked
at ~1 GB. Three things cause it, each with its remedy here:

* glibc's *dynamic* mmap threshold: once a large block is freed, glibc raises the threshold,
  so later large blocks come from the heap, where freed space is seldom handed back. Within
  one onnxruntime run over 8 × 256 tokens that fragmentation alone took RSS ~535 MB above
  the model (~190 MB with large blocks in their own mappings). ``embedding()`` maps large
  blocks for the duration of an embedding batch. Not for searches: there the same setting
  cost ~40x more page faults and ~50 % more CPU per query (the heap's reuse is what makes
  them cheap), so after a batch the threshold goes back to glibc's own ceiling (32 MiB);
* free heap pages that are never returned: ``trim_when_idle()`` hands them back to the OS
  once the process has been quiet for a moment (after a burst of searches, an index run,
  the model load), never in the middle of work;
* one malloc arena per thread (up to 8 × cores) each keeping its own free lists: four are
  plenty on the machines docshelf targets (two made fuzzy searches wait on arena locks);
* free space at the top of a thread arena's heap: ``malloc_trim`` returns free pages inside
  every arena but never that one (glibc shrinks a thread arena's top only inside a ``free()``
  into that arena, once the top exceeds ``M_TRIM_THRESHOLD``, which its dynamic scheme raises
  to 64 MiB). LanceDB's query threads left ~55 MB there in a 10k-chunk server after a few
  searches. ``release()`` lowers the threshold for a moment and has short-lived threads,
  one per arena, free a block each, so every arena trims its top; only at idle, because a
  low threshold during searches (each query's buffers handed back and faulted in again)
  cost semantic, hybrid and fuzzy searches 15–35 % more CPU;
* shared-library pages that only starting up touched: importing LanceDB, Arrow, onnxruntime
  and the MCP SDK and loading the model map ~150 MB of library code and read-only data into a
  server, of which its searches use ~75 MB. ``drop_startup_pages()``, called once a server has
  started, unmaps the clean file-backed pages (they stay in the page cache, shared with other
  processes; what a search needs comes back as a minor fault).

``tune()`` is called once by the command-line entry point, before any thread starts. Until
it is, everything here does nothing, so a library user's process keeps its allocator as it
is. Elsewhere than glibc (musl, macOS) everything here does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

# mallopt() parameters (glibc malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

BATCH_MMAP_THRESHOLD = 256 * 1024  # while embedding: blocks this large get their own mapping
SEARCH_MMAP_THRESHOLD = 32 * 1024 * 1024  # otherwise: glibc's own ceiling for its dynamic threshold
ARENA_MAX = 4  # 2 cost fuzzy searches (many parallel index reads) wall time here
IDLE_SECONDS = 2.0  # quiet time before free pages go back to the OS
TOP_TRIM_THRESHOLD = 128 * 1024  # while release() trims the arenas' tops: glibc's initial value
POKE_BLOCK = 256 * 1024  # freed by each short-lived thread: over glibc's 64 KiB trigger for a trim
MADV_DONTNEED = 4  # madvise(2), Linux

_libc: ctypes.CDLL | None = None
_tuned = False
_lock = threading.Lock()
_embedding = 0  # embedding batches in progress (threads may overlap)
_trim_at: float | None = None
_trimmer: threading.Thread | None = None


def _glibc() -> ctypes.CDLL | None:
    global _libc
    if _libc is None:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.gnu_get_libc_version  # noqa: B018 - only glibc has it (and mallopt/malloc_trim)
        except (OSError, AttributeError):
            return None
        _libc = libc
    return _libc


def tune() -> bool:
    """Four arenas, and turn on ``embedding()`` and ``trim_when_idle()``. False when not on glibc
    or opted out with ``DOCSHELF_MALLOC_TUNING=0``. A ``MALLOC_ARENA_MAX`` the user set wins."""
    global _tuned
    libc = _glibc()
    if libc is None or os.environ.get("DOCSHELF_MALLOC_TUNING", "1") == "0":
        return False
    if "MALLOC_ARENA_MAX" not in os.environ:
        libc.mallopt(M_ARENA_MAX, ARENA_MAX)
    _tuned = "MALLOC_MMAP_THRESHOLD_" not in os.environ
    return True


@contextmanager
def embedding() -> Iterator[None]:
    """Large blocks get their own mappings (freed straight back to the OS) inside this block."""
    global _embedding
    if not _tuned:
        yield
        return
    with _lock:
        _embedding += 1
        _libc.mallopt(M_MMAP_THRESHOLD, BATCH_MMAP_THRESHOLD)  # type: ignore[union-attr]
    try:
        yield
    finally:
        with _lock:
            _embedding -= 1
            if not _embedding:
                _libc.mallopt(M_MMAP_THRESHOLD, SEARCH_MMAP_THRESHOLD)  # type: ignore[union-attr]
        trim_when_idle()


def trim_when_idle(delay: float = IDLE_SECONDS) -> None:
    """Return free heap pages to the OS once nothing has called this for ``delay`` seconds."""
    global _trim_at, _trimmer
    if not _tuned:
        return
    with _lock:
        _trim_at = time.monotonic() + delay
        if _trimmer is None or not _trimmer.is_alive():
            _trimmer = threading.Thread(target=_trim_loop, name="docshelf-malloc-trim", daemon=True)
            _trimmer.start()


def _trim_loop() -> None:
    global _trim_at
    while True:
        with _lock:
            due = _trim_at
            if due is None:
                return
            wait = due - time.monotonic()
            if wait <= 0 and not _embedding:
                _trim_at = None
        if wait > 0 or _embedding:
            time.sleep(max(wait, 0.2))
            continue
        release()


def release() -> None:
    """Hand free heap pages back to the OS now (glibc only): every arena's free pages, and in
    a tuned process the free tops of the thread arenas too (see the module's docstring)."""
    libc = _glibc()
    if libc is None:
        return
    if _tuned:
        _trim_arena_tops(libc)
    libc.malloc_trim(0)


def _trim_arena_tops(libc: ctypes.CDLL) -> None:
    """A ``free()`` into each arena while ``M_TRIM_THRESHOLD`` is low, then glibc's own ceilings.

    A thread is bound to an arena on its first allocation: an idle one if any, a new one
    below the arena limit, else the next in turn. Threads alive at the same time therefore
    spread over the arenas, ``ARENA_MAX + 2`` of them cover every one; each frees a block it
    took from its arena, and glibc trims that arena's top in the ``free()``. Afterwards the
    thresholds are those glibc's dynamic scheme ends at (and ``embedding()`` sets after each
    batch): blocks up to 32 MiB from the heap, tops kept up to 64 MiB while searching.
    """
    with _lock:
        if _embedding:  # a batch's own thresholds stay until it ends (its end calls this again)
            return
        libc.mallopt(M_MMAP_THRESHOLD, SEARCH_MMAP_THRESHOLD)  # the block comes from the arena
        libc.mallopt(M_TRIM_THRESHOLD, TOP_TRIM_THRESHOLD)
        try:
            threads = _poke_arenas(libc, ARENA_MAX + 2)
        finally:
            libc.mallopt(M_TRIM_THRESHOLD, 2 * SEARCH_MMAP_THRESHOLD)
    log.debug("trimmed the arenas' tops with %d threads", threads)


def _poke_arenas(libc: ctypes.CDLL, count: int) -> int:
    malloc, free = libc.malloc, libc.free
    malloc.restype, malloc.argtypes, free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]
    all_bound = threading.Barrier(count + 1)  # alive together, so each is bound to its own arena

    def poke() -> None:
        block = malloc(POKE_BLOCK)
        try:
            all_bound.wait(5)
        except threading.BrokenBarrierError:
            pass
        free(block)

    started = []
    for n in range(count):
        t = threading.Thread(target=poke, name=f"docshelf-malloc-trim-{n}", daemon=True)
        try:
            t.start()
        except RuntimeError:  # no more threads: trim what the started ones reach
            break
        started.append(t)
    if len(started) < count:
        all_bound.abort()
    else:
        try:
            all_bound.wait(5)
        except threading.BrokenBarrierError:
            pass
    for t in started:
        t.join(5)
    return len(started)


def drop_startup_pages() -> int:
    """Unmap the clean pages of read-only private file mappings (Linux, tuned processes only);
    return how many bytes were resident in them.

    A server calls this once it has started (index open, model loaded): the library code and
    data that only imports and start-up touched stop counting in its RSS, and the pages a
    search needs come back from the page cache on first use (a minor fault, no disk read while
    the file stays cached). Only mappings that are private, not writable and hold no
    anonymous (copy-on-write) page are touched, so nothing a process wrote is ever discarded:
    relocated read-only data (RELRO) has anonymous pages and is skipped. Python imports are
    held off meanwhile, so no library is being mapped and relocated by ``dlopen`` as it runs.
    """
    if not _tuned or not sys.platform.startswith("linux"):
        return 0
    libc = _glibc()
    if libc is None:
        return 0
    import _imp

    madvise = libc.madvise
    madvise.argtypes, madvise.restype = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int], ctypes.c_int
    dropped = 0
    _imp.acquire_lock()
    try:
        for start, end, resident in _clean_file_mappings():
            if madvise(start, end - start, MADV_DONTNEED) == 0:
                dropped += resident
    except OSError as exc:  # no /proc: nothing to do
        log.debug("could not drop start-up pages: %s", exc)
    finally:
        _imp.release_lock()
    log.debug("dropped %.1f MB of start-up pages", dropped / 1e6)
    return dropped


def _clean_file_mappings() -> list[tuple[int, int, int]]:
    """(start, end, resident bytes) of each private, read-only mapping of a regular file with
    resident pages and no anonymous ones, from ``/proc/self/smaps``."""
    found: list[tuple[int, int, int]] = []
    current: dict | None = None

    def close() -> None:
        if current and current["ok"] and current["rss"] and not current["anon"]:
            found.append((current["start"], current["end"], current["rss"]))

    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split(maxsplit=5)
            if not head[0].endswith(":") and "-" in head[0]:
                close()
                start, end = (int(x, 16) for x in head[0].split("-"))
                perms = head[1]
                path = head[5].rstrip("\n") if len(head) > 5 else ""
                ok = (perms[1] == "-" and perms[3] == "p" and path.startswith("/")
                      and not path.startswith("/dev/") and not path.endswith("(deleted)"))
                current = {"start": start, "end": end, "ok": ok, "rss": 0, "anon": 1}
            elif current is not None and head[0] == "Rss:":
                current["rss"] = int(head[1]) * 1024
            elif current is not None and head[0] == "Anonymous:":
                current["anon"] = int(head[1])
    close()
    return found
