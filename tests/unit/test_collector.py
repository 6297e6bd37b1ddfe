"""A server freezes its start-up objects once the index is open and the model loaded, so later
full GC passes walk only what it made since (``collector.py``); other processes are left alone."""

from __future__ import annotations

import gc
import time
from pathlib import Path

import pytest

from docshelf import collector
from docshelf.config import Settings
from docshelf.live.runtime import ServerRuntime


class Later:
    """An object made after start-up."""


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()  # the test process's objects go back to the collector


def test_nothing_is_frozen_unless_the_process_asked(unfrozen, monkeypatch) -> None:
    monkeypatch.setattr(collector, "_enabled", False)
    assert collector.freeze_startup() == 0
    assert gc.get_freeze_count() == 0


def test_a_server_freezes_the_open_index_and_loaded_model_and_nothing_made_later(
        tmp_path: Path, unfrozen, monkeypatch) -> None:
    monkeypatch.setattr(collector, "_enabled", True)
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake"), watch=False, read_only=True,
                            query_socket=False)
    try:
        runtime.start()
        service = runtime.service(timeout=60)
        deadline = time.monotonic() + 60
        while gc.get_freeze_count() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert runtime.model_state == "loaded"
        later = Later()
        collected = {id(o) for o in gc.get_objects()}  # the generations a pass walks; frozen ones are not there
        assert id(service) not in collected and id(service.embedder) not in collected and id(runtime) not in collected
        assert id(later) in collected
    finally:
        runtime.close()
