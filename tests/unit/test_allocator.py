"""allocator.tune(): a large block freed and allocated again gets its own mapping (returned to
the OS on free) instead of staying in the heap, which is what kept a server's RSS high."""

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

if sys.argv[1] == "tuned":
    allocator.tune()
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = MallInfo2
size = 4 * 1024 * 1024
libc.free(libc.malloc(size))  # glibc's default raises its mmap threshold after this free
block = libc.malloc(size)
mapped = libc.mallinfo2().hblkhd >= size  # the block has its own mapping (not carved from the heap)
libc.free(block)
print(json.dumps({"mapped": mapped}))
"""


def probe(mode: str) -> bool:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True,
                         env={"PATH": "", "PYTHONPATH": ":".join(sys.path)})
    return json.loads(out.stdout)["mapped"]


def test_a_large_block_reallocated_after_a_free_is_mapped_when_tuned():
    assert probe("default") is False  # the behaviour tune() exists to change
    assert probe("tuned") is True


def test_tune_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("DOCSHELF_MALLOC_TUNING", "0")
    assert allocator.tune() is False
