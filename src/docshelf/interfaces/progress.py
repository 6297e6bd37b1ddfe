"""A Rich progress bar on stderr for long indexing: files, chunks, chunks/s and ETA."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn


class IndexProgressBar:
    def __init__(self, console: Console, enabled: bool = True) -> None:
        self.enabled = enabled
        self._progress = Progress(
            TextColumn("[bold]indexing"),
            BarColumn(),
            TextColumn("{task.completed}/{task.total} files"),
            TextColumn("{task.fields[chunks]} chunks"),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=console,
            transient=False,
            disable=not enabled,
        )
        self._task = None
        self._chunks = 0
        self._started = time.monotonic()

    def __enter__(self) -> IndexProgressBar:
        if self.enabled:
            self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self._progress.__exit__(*exc)

    def planned(self, files: int, to_index: int) -> None:
        self._started = time.monotonic()
        self._task = self._progress.add_task("index", total=to_index, chunks=0, rate="")

    def file_done(self, path: str) -> None:
        if self._task is not None:
            self._progress.advance(self._task)

    def chunks_embedded(self, n: int) -> None:
        self._chunks += n
        if self._task is not None:
            rate = self._chunks / max(time.monotonic() - self._started, 1e-6)
            self._progress.update(self._task, chunks=self._chunks, rate=f"{rate:.1f} chunks/s")
