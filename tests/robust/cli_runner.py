"""Run the real ``docshelf`` CLI (or server) in a subprocess without the right to read locked files.

Tests here run as root on CI, and root reads a ``chmod 000`` file anyway. Dropping the
two capabilities that let root ignore file modes (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH)
from the child's bounding set before exec makes a 000 file unreadable to it, as it is to
any user. A non-root run needs nothing: the mode already applies.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interfaces"))
from mcp_harness import docshelf_argv  # noqa: E402

_PR_CAPBSET_DROP = 24
_CAPS = (1, 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH

DROP_CAPS_CODE = (
    "import ctypes, os, sys\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n"
    "for cap in (1, 2):\n"
    "    if os.geteuid() == 0 and libc.prctl(24, cap, 0, 0, 0) != 0:\n"
    "        raise SystemExit('cannot drop capability %d: errno %d' % (cap, ctypes.get_errno()))\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)


def drop_file_mode_override() -> None:
    """preexec_fn: the child can no longer read files its mode bits forbid, even as root."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in _CAPS:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), f"prctl(PR_CAPBSET_DROP, {cap})")


def unprivileged_argv(*args: str) -> list[str]:
    """argv that runs ``docshelf ARGS`` through the capability-dropping exec wrapper."""
    return [sys.executable, "-c", DROP_CAPS_CODE, *docshelf_argv(*args)]


def run_cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        docshelf_argv(*args), env=env, capture_output=True, text=True, timeout=timeout,
        preexec_fn=drop_file_mode_override,
    )


# Runs the CLI as its only child and writes that child's own peak RSS (kB) to a file, so a test
# measures the indexer alone, not every process the test session has started before it.
_MEASURE = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[2:]); "
            "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)); "
            "sys.exit(r.returncode)")


def run_cli_measured(env: dict[str, str], rss_file: Path, *args: str,
                     timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _MEASURE, str(rss_file), *docshelf_argv(*args)], env=env, capture_output=True,
        text=True, timeout=timeout, preexec_fn=drop_file_mode_override,
    )


def cli_env(index: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "DOCSHELF_INDEX_DIR": str(index), "DOCSHELF_CONFIG": os.devnull,
            "COLUMNS": "200", **extra}
