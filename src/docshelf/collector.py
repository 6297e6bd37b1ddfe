"""Python's cyclic garbage collector in a long-running server: start-up's objects frozen.

A server holds ~130k GC-tracked objects once its index is open and its model loaded (the
imports, the MCP SDK, LanceDB, the parsers), nearly all alive for the process's life. Every
full (generation 2) collection walks all of them: ~50–150 ms with the GIL held, landing
inside whichever search allocated last (a 144 ms pass was seen in 100 hybrid searches at
100k chunks; benchmarks/README.md, "GC pauses in a long-running server"). ``freeze_startup()``
collects once and moves what survives into the permanent generation, so later full passes
walk only what the server made since; young collections are unchanged.

The price: a frozen object that later becomes part of unreachable cycles is never freed
(reference counting still frees everything else). Measured at 10k chunks, a whole second
service replacing the first (a store reopened) left the same RSS with or without the
freeze. Only a process that asked for it (``enable()``, the command-line entry point) is
touched, so a library user's or a test run's collector stays as it is.
"""

from __future__ import annotations

import gc
import logging
import time

log = logging.getLogger(__name__)

_enabled = False


def enable() -> None:
    """Let ``freeze_startup()`` act in this process (called once by the command-line entry point)."""
    global _enabled
    _enabled = True


def freeze_startup() -> int:
    """Collect, then freeze every object that survived; return how many are frozen (0 when not enabled)."""
    if not _enabled:
        return 0
    started = time.monotonic()
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.debug("froze %d start-up objects in %.0f ms", frozen, (time.monotonic() - started) * 1000)
    return frozen
