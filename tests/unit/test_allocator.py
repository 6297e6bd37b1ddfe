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


PAGES = """
import ctypes, json, mmap, sys
from docshelf import allocator

libc = ctypes.CDLL("libc.so.6")
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
SIZE = 8 << 20
path = sys.argv[2]
with open(path, "wb") as f:
    f.write(bytes(range(256)) * (SIZE // 256))

def resident(m) -> int:
    start = ctypes.addressof(ctypes.c_char.from_buffer(m)) if m.__class__ is not bytes else 0
    with open("/proc/self/smaps") as f:
        lines = f.read().splitlines()
    for i, line in enumerate(lines):
        if line.split()[0].split("-")[0] == format(start, "x"):
            return next(int(l.split()[1]) for l in lines[i + 1:] if l.startswith("Rss:")) // 1024
    raise AssertionError("mapping not found")

fd = open(path, "rb+")
clean = mmap.mmap(fd.fileno(), SIZE, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
written = mmap.mmap(fd.fileno(), SIZE, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
relro = mmap.mmap(fd.fileno(), SIZE, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
written[:4] = b"new!"  # a private copy of this page: writable mapping, never dropped
relro[:4] = b"mine"  # written, then made read-only: like relocated data (RELRO)
for m in (clean, written, relro):
    sum(m[i] for i in range(0, SIZE, 4096))  # every page resident
for m in (clean, relro):
    assert libc.mprotect(ctypes.addressof(ctypes.c_char.from_buffer(m)), SIZE, mmap.PROT_READ) == 0
before = [resident(m) for m in (clean, written, relro)]
tuned = allocator.tune() if sys.argv[1] == "tuned" else False
dropped = allocator.drop_startup_pages()
after = [resident(m) for m in (clean, written, relro)]
same = clean[:] == bytes(range(256)) * (SIZE // 256)
print(json.dumps({"tuned": tuned, "before": before, "after": after, "dropped_mb": dropped >> 20,
                  "clean_same": same, "written": written[:4].decode(), "relro": relro[:4].decode()}))
"""


def test_drop_startup_pages_unmaps_clean_read_only_file_pages_and_nothing_written(tmp_path):
    """A read-only private file mapping's pages leave RSS and read back the same; a writable
    mapping and a read-only one holding a written (copy-on-write) page keep their pages."""
    def run(mode: str) -> dict:
        out = subprocess.run([sys.executable, "-c", PAGES, mode, str(tmp_path / "f")], capture_output=True,
                             text=True, check=True, env={"PATH": "", "PYTHONPATH": ":".join(sys.path)})
        return json.loads(out.stdout)

    res = run("tuned")
    assert res["tuned"] is True and res["before"] == [8, 8, 8]
    assert res["after"] == [0, 8, 8]
    assert res["dropped_mb"] >= 8 and res["clean_same"]
    assert (res["written"], res["relro"]) == ("new!", "mine")
    res = run("library")  # a process that never called tune(): nothing is dropped
    assert res["tuned"] is False and res["after"] == [8, 8, 8] and res["dropped_mb"] == 0
