"""allocator: inside an embedding batch a large block gets its own mapping (returned to the OS
on free) instead of heap space that stays resident; outside one, and in a process that never
called tune() (a library user's), glibc behaves as it always does."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from docshelf import allocator

pytestmark = pytest.mark.skipif(allocator._glibc() is None, reason="mallopt/mallinfo2 are glibc's")

PROBE = """
import ctypes, json, sys
from docshelf import allocator

class MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = MallInfo2
SIZE = 4 * 1024 * 1024

def mapped() -> bool:
    libc.free(libc.malloc(SIZE))  # glibc's default raises its mmap threshold after this free
    block = libc.malloc(SIZE)
    own = libc.mallinfo2().hblkhd >= SIZE  # the block has its own mapping, not heap space
    libc.free(block)
    return own

tuned = allocator.tune() if sys.argv[1] == "tuned" else False
with allocator.embedding():
    inside = mapped()
print(json.dumps({"tuned": tuned, "inside": inside, "after": mapped()}))
"""


def probe(mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True,
                         env={"PATH": "", "PYTHONPATH": ":".join(sys.path)})
    return json.loads(out.stdout)


def test_large_blocks_are_mapped_only_inside_an_embedding_batch_of_a_tuned_process():
    assert probe("tuned") == {"tuned": True, "inside": True, "after": False}
    assert probe("library") == {"tuned": False, "inside": False, "after": False}


def test_tune_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("DOCSHELF_MALLOC_TUNING", "0")
    assert allocator.tune() is False


TOPS = """
import ctypes, sys, threading
from docshelf import allocator

libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
libc.mallopt(-3, 32 * 1024 * 1024)  # where glibc's dynamic scheme ends after large frees
libc.mallopt(-1, 64 * 1024 * 1024)  # (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD)
tuned = allocator.tune() if sys.argv[1] == "tuned" else False

def rss_mb():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS")) / 1024

done, stop = threading.Event(), threading.Event()
def worker():  # a query thread: fills its arena, frees it all, stays alive (its arena stays bound)
    blocks = [libc.malloc(1 << 20) for _ in range(48)]
    for b in blocks:
        ctypes.memset(b, 1, 1 << 20)
    for b in reversed(blocks):
        libc.free(b)
    done.set()
    stop.wait()
t = threading.Thread(target=worker)
t.start()
done.wait()
before = rss_mb()
allocator.release()
print(tuned, round(before - rss_mb()))
stop.set()
t.join()
"""


def test_release_hands_back_the_free_top_of_a_thread_arena():
    """malloc_trim alone leaves a live thread arena's free top resident (~48 MB here)."""
    def returned(mode: str) -> tuple[str, int]:
        out = subprocess.run([sys.executable, "-c", TOPS, mode], capture_output=True, text=True, check=True,
                             env={"PATH": "", "PYTHONPATH": ":".join(sys.path)})
        tuned, mb = out.stdout.split()
        return tuned, int(mb)

    tuned, freed = returned("tuned")
    assert tuned == "True" and freed >= 40
    tuned, freed = returned("library")  # malloc_trim only: the top stays
    assert tuned == "False" and freed < 10
