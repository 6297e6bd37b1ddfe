"""glibc malloc settings that keep a docshelf process's RSS close to what it really uses.

Measured in ``benchmarks/rss.py`` (see benchmarks/README.md, "Memory"): with glibc's
defaults a server holding 10k chunks sat at ~735 MB after a few dozen searches, and one
embedding batch of 8 × 256 tokens raised RSS by ~570 MB of which ~170 MB stayed. Two
defaults cause it:

* the *dynamic* mmap threshold: once a large block (an onnxruntime activation, an Arrow
  buffer from LanceDB) is freed, glibc raises the threshold, so the next large blocks come
  from the heap, where freed space is rarely handed back to the OS. A fixed threshold keeps
  large blocks in their own mappings, returned the moment they are freed;
* one malloc arena per thread (up to 8 × cores): LanceDB's runtime, onnxruntime and the
  server's worker threads each keep their own free lists. Two arenas are plenty on the
  machines docshelf targets.

``tune()`` is called once by the command-line entry point, before any thread starts; a
library user keeps their process's allocator as it is unless they call it. Elsewhere than
glibc (musl, macOS) both functions do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os

log = logging.getLogger(__name__)

# mallopt() parameters (glibc malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8

MMAP_THRESHOLD = 256 * 1024  # blocks this large get their own mapping (glibc starts at 128 KiB)
TRIM_THRESHOLD = 1024 * 1024  # free space at the heap's top beyond this goes back to the OS
ARENA_MAX = 2

_libc: ctypes.CDLL | None = None


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
    """Fixed mmap and trim thresholds and two arenas; False when not on glibc or opted out
    (``DOCSHELF_MALLOC_TUNING=0``). An ``MALLOC_*_`` variable the user set wins."""
    libc = _glibc()
    if libc is None or os.environ.get("DOCSHELF_MALLOC_TUNING", "1") == "0":
        return False
    for param, value, env in (
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD, "MALLOC_MMAP_THRESHOLD_"),
        (M_TRIM_THRESHOLD, TRIM_THRESHOLD, "MALLOC_TRIM_THRESHOLD_"),
        (M_ARENA_MAX, ARENA_MAX, "MALLOC_ARENA_MAX"),
    ):
        if env not in os.environ and not libc.mallopt(param, value):
            log.debug("mallopt(%d, %d) refused", param, value)
    return True


def release() -> None:
    """Hand free heap pages back to the OS (after a burst such as loading the model or an index run)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
