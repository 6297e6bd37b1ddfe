"""``python -m docshelf`` is the ``docshelf`` command (for a venv whose scripts are not on PATH)."""

from __future__ import annotations

import subprocess
import sys

import docshelf


def test_python_dash_m_docshelf_runs_the_cli() -> None:
    done = subprocess.run([sys.executable, "-m", "docshelf", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert docshelf.__version__ in done.stdout
