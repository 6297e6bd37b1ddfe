"""Live updates: subtree re-walks, vectors reused across moves, single-file roots watched,
the periodic re-check, and ``docshelf watch``."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from docshelf.config import Settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.live.writer import WriterLoop
from docshelf.service import Docshelf


def found(shelf: Docshelf, word: str) -> set[str]:
    shelf.store.refresh()
    return {h.path for h in shelf.search(word, k=20, mode="keyword").hits}


def wait_until(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_a_folder_event_rewalks_only_that_folder(write, tmp_path, shelf, monkeypatch):
    docs = tmp_path / "docs"
    for folder in ("a", "b", "c/deep"):
        write(docs, f"{folder}/note.md", f"# {folder}\n\nnote in {folder}")
    shelf.index([docs])
    write(docs, "b/new.md", "# New\n\nthe new ocelot note")
    scanned: list[str] = []
    real_scandir = os.scandir

    def recording_scandir(path="."):
        scanned.append(Path(path).resolve().relative_to(docs.resolve()).as_posix())
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", recording_scandir)
    report = shelf.reindex_paths(docs, ["b"])
    assert report.added == ["b/new.md"] and report.removed == []
    assert scanned == ["b"]
    assert found(shelf, "ocelot") == {"b/new.md"}


def test_a_renamed_folder_is_not_reembedded_by_a_live_update(write, tmp_path, shelf, fake_embedder):
    docs = tmp_path / "docs"
    for i in range(3):
        write(docs, f"old/n{i}.md", f"# Note {i}\n\n" + f"gecko {i} words " * 30)
    shelf.index([docs])
    before = fake_embedder.texts_embedded
    (docs / "old").rename(docs / "new")
    report = shelf.reindex_paths(docs, ["old", "new"])  # what the watcher hands over for a folder move
    assert (sorted(report.removed), sorted(report.added)) == (
        ["old/n0.md", "old/n1.md", "old/n2.md"], ["new/n0.md", "new/n1.md", "new/n2.md"]
    )
    assert (report.chunks_embedded, fake_embedder.texts_embedded) == (0, before)
    assert found(shelf, "gecko") == {"new/n0.md", "new/n1.md", "new/n2.md"}


def test_a_single_file_root_is_watched_and_its_siblings_are_not(write, tmp_path, fake_embedder):
    notes = tmp_path / "notes"
    todo = write(notes, "todo.md", "# Todo\n\nfeed the lynx")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [todo.resolve()], debounce=0.1)
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "watching" and found(shelf, "lynx") == {"todo.md"})
        assert loop.watcher is not None and loop.watcher.mode in ("native", "polling")
        write(notes, "sibling.md", "# Sibling\n\nthe lynx sibling")
        todo.write_text("# Todo\n\nfeed the lynx and the caracal")
        assert wait_until(lambda: found(shelf, "caracal") == {"todo.md"})
        time.sleep(1.0)  # the sibling's event came in the same burst; it must not be indexed
        assert found(shelf, "lynx") == {"todo.md"}
    finally:
        assert loop.stop()


def test_the_watcher_reparses_a_page_when_the_snippet_it_includes_changes(write, tmp_path, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "guide/page.md", '# Page\n\nIntro.\n\n--8<-- "snippets/part.md"\n')
    snippet = write(docs, "snippets/part.md", "the tapir part\n")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [docs.resolve()], debounce=0.1)
    loop.start()
    try:
        both = {"guide/page.md", "snippets/part.md"}
        assert wait_until(lambda: loop.phase == "watching" and found(shelf, "tapir") == both)
        snippet.write_text("the quokka part\n")
        assert wait_until(lambda: found(shelf, "quokka") == both)
        assert found(shelf, "tapir") == set()
        snippet.unlink()
        assert wait_until(lambda: found(shelf, "quokka") == set())
        write(docs, "snippets/part.md", "the dugong part\n")
        assert wait_until(lambda: found(shelf, "dugong") == both)
    finally:
        assert loop.stop()


def test_the_periodic_recheck_catches_changes_the_watcher_missed(write, tmp_path, fake_embedder):
    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe first serval")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0.5), embedder=fake_embedder)
    loop = WriterLoop(shelf, [docs.resolve()], watch=False)  # no watcher: only the re-check can see changes
    loop.start()
    try:
        assert wait_until(lambda: loop.reconciles >= 1 and found(shelf, "serval") == {"a.md"}, timeout=60)
        write(docs, "b.md", "# B\n\nthe second serval")
        (docs / "a.md").unlink()
        assert wait_until(lambda: loop.reconciles >= 2 and found(shelf, "serval") == {"b.md"}, timeout=60)
    finally:
        assert loop.stop()


def ctrl_c_as_in_a_terminal() -> None:
    """SIGINT acts as Ctrl-C in the child even when this suite runs as a background job (``nohup
    … &`` starts it with SIGINT ignored, the child inherits that, and the signal then did nothing)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def test_docshelf_watch_indexes_then_follows_changes_until_interrupted(write, tmp_path):
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    write(docs, "a.md", "# A\n\nthe margay guide")
    env = {
        **os.environ, "DOCSHELF_MODEL": "fake", "DOCSHELF_INDEX_DIR": str(index_dir),
        "DOCSHELF_LOG_FILE": str(tmp_path / "watch.log"), "DOCSHELF_CONFIG": str(tmp_path / "none.toml"),
    }
    (tmp_path / "none.toml").write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-m", "docshelf.interfaces.cli", "watch", str(docs)], env=env, cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_in_a_terminal,
    )
    try:
        reader: list[Docshelf] = []

        def finds(word: str, paths: set[str]) -> bool:
            if not (index_dir / "manifest.json").exists():
                return False
            if not reader:
                reader.append(Docshelf(Settings(index_dir=index_dir), embedder=FakeEmbedder()))
            return found(reader[0], word) == paths

        assert wait_until(lambda: finds("margay", {"a.md"}), timeout=90)
        write(docs, "sub/b.md", "# B\n\nthe margay in a subfolder")
        assert wait_until(lambda: finds("margay", {"a.md", "sub/b.md"}))
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=90)  # a loaded machine (full suite at load 6) once took over 30 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert "watching" in stderr and "Traceback" not in stderr
    # lines for a person: a time and the message, no process id, level or logger name
    updates = [line for line in stderr.splitlines() if re.match(r"\d\d:\d\d:\d\d ", line)]
    assert updates and not [line for line in stderr.splitlines() if "INFO" in line or "docshelf.live" in line]
    assert reader[0].roots == [docs.resolve()]


def test_docshelf_watch_ends_without_the_interpreter_teardown_after_ctrl_c(write, tmp_path):
    """Ctrl-C must end ``watch`` at once: the interpreter's teardown (a full garbage collection over
    LanceDB, pyarrow and numpy) held the exit for seconds on a loaded machine. A ``__main__`` object
    whose finaliser sleeps 60 s stands in for a slow teardown: only a process that skips it ends fast."""
    docs, index_dir = tmp_path / "docs", tmp_path / "index"
    write(docs, "a.md", "# A\n\nthe margay guide")
    (tmp_path / "none.toml").write_text("")
    env = {
        **os.environ, "DOCSHELF_MODEL": "fake", "DOCSHELF_INDEX_DIR": str(index_dir),
        "DOCSHELF_LOG_FILE": str(tmp_path / "watch.log"), "DOCSHELF_CONFIG": str(tmp_path / "none.toml"),
    }
    slow_teardown = (
        "import sys, time\n"
        "class SlowTeardown:\n    def __del__(self):\n        time.sleep(60)\n"
        "held = SlowTeardown()\n"
        "from docshelf.interfaces.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", slow_teardown, "watch", str(docs)], env=env, cwd=tmp_path,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_in_a_terminal,
    )
    try:
        reader: list[Docshelf] = []

        def finds(word: str) -> bool:
            if not (index_dir / "manifest.json").exists():
                return False
            if not reader:
                reader.append(Docshelf(Settings(index_dir=index_dir), embedder=FakeEmbedder()))
            return found(reader[0], word) == {"a.md"}

        assert wait_until(lambda: finds("margay"), timeout=90)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)  # the writer gets 5 s to stop; the teardown took 60 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert "watching" in stderr and "Traceback" not in stderr


def test_the_watcher_logs_the_frontmatter_warnings_index_prints_once_per_change(write, tmp_path, fake_embedder,
                                                                                  caplog):
    """A note edited under ``docshelf watch`` with broken YAML or an ambiguous date says so, as ``index`` does."""
    import logging

    docs = tmp_path / "docs"
    write(docs, "sleep.md", "---\ntags: [health\n---\nthe sleep log\n")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [docs.resolve()], debounce=0.1)

    def warned(word: str) -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING and word in r.getMessage()]

    caplog.set_level(logging.WARNING, logger="docshelf")
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "watching" and found(shelf, "sleep") == {"sleep.md"})
        assert len(warned("sleep.md: invalid YAML frontmatter")) == 1  # the start-up re-check says it too
        write(docs, "run.md", "---\ndate: 03/04/2024\n---\nthe run log\n")
        assert wait_until(lambda: found(shelf, "run") == {"run.md"})
        assert wait_until(lambda: len(warned("run.md: date '03/04/2024' is ambiguous")) == 1)
        write(docs, "run.md", "---\ndate: 03/04/2024\n---\nthe run log, longer\n")
        assert wait_until(lambda: found(shelf, "longer") == {"run.md"})
        assert wait_until(lambda: len(warned("run.md: date '03/04/2024' is ambiguous")) == 2)  # once per change
        assert len(warned("sleep.md")) == 1
    finally:
        assert loop.stop()


def test_a_root_removed_and_made_again_is_watched_again(write, tmp_path, fake_embedder):
    """`make clean html` (or `rm -rf site && cp -r …`) while `docshelf watch site` runs: the
    new folder had no watch, so its pages were found only by the periodic re-check, minutes later."""
    import shutil

    docs = tmp_path / "site"
    write(docs, "old.md", "# Old\n\nthe old tapir page")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [docs.resolve()], debounce=0.1)
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "watching" and found(shelf, "tapir") == {"old.md"})
        shutil.rmtree(docs)
        assert wait_until(lambda: found(shelf, "tapir") == set())
        time.sleep(1.5)  # the watcher notices the root is gone
        write(docs, "new.md", "# New\n\nthe new tapir page")
        assert wait_until(lambda: found(shelf, "tapir") == {"new.md"}, timeout=20)
        write(docs, "later.md", "# Later\n\na tapir page written after the root came back")
        assert wait_until(lambda: found(shelf, "tapir") == {"new.md", "later.md"}, timeout=20)
    finally:
        assert loop.stop()


def test_a_root_replaced_at_once_is_watched_again(write, tmp_path, fake_embedder):
    """Removed and made again within the same second (its inode may even be reused)."""
    import shutil

    docs = tmp_path / "site"
    write(docs, "old.md", "# Old\n\nthe old okapi page")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [docs.resolve()], debounce=0.1)
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "watching" and found(shelf, "okapi") == {"old.md"})
        shutil.rmtree(docs)
        write(docs, "new.md", "# New\n\nthe new okapi page")
        assert wait_until(lambda: found(shelf, "okapi") == {"new.md"}, timeout=20)
        time.sleep(1.5)
        write(docs, "later.md", "# Later\n\nan okapi page written after the root came back")
        assert wait_until(lambda: found(shelf, "okapi") == {"new.md", "later.md"}, timeout=20)
    finally:
        assert loop.stop()


def test_a_root_missing_at_start_is_indexed_and_watched_once_it_exists(write, tmp_path, fake_embedder):
    """`docshelf watch _build/html` before the first `make html`: the folder was skipped for
    good (until the periodic re-check, 300 s by default), and never watched."""
    site = tmp_path / "site"
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [site.resolve()], debounce=0.1)
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "watching")
        assert loop.state()["missing_roots"] == [str(site.resolve())]
        write(site, "index.md", "# Index\n\nthe first serval page")
        assert wait_until(lambda: found(shelf, "serval") == {"index.md"}, timeout=20)
        write(site, "later.md", "# Later\n\na serval page written after")
        assert wait_until(lambda: found(shelf, "serval") == {"index.md", "later.md"}, timeout=20)
        assert loop.state()["missing_roots"] == []
    finally:
        assert loop.stop()


def test_a_second_roots_first_change_does_not_restart_the_max_delay(tmp_path):
    """Changes keep coming under one root (a build writing for seconds): its batch is due
    ``max_delay`` after its first change. A first change under another root restarted that
    clock, so with two roots the first batch came up to twice as late (with n roots, n times)."""
    from docshelf.live.watcher import RootWatcher

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    batches: list[tuple[float, str, set[str]]] = []
    watcher = RootWatcher([a, b], lambda root, rels, rescan: batches.append((time.monotonic(), root.name, set(rels))),
                          debounce=0.5, max_delay=1.0)
    watcher.start()
    try:
        assert watcher.mode == "native"
        time.sleep(0.3)  # the watches are in place
        started = time.monotonic()
        n = 0
        while time.monotonic() - started < 3.0:
            n += 1
            (a / "build.md").write_text(f"# Build\n\nstep {n}\n")  # never quiet for debounce seconds
            if 0.9 <= time.monotonic() - started and not (b / "other.md").exists():
                (b / "other.md").write_text("# Other\n\none change under the second root\n")
            time.sleep(0.1)
            if batches:
                break
        assert batches, "no batch within 3 s"
        assert batches[0][0] - started < 1.45  # due at 1.0 s; at 1.9 s when b's first change restarted the clock
        assert batches[0][1] == "a" and "build.md" in batches[0][2]
    finally:
        watcher.stop()


def test_a_push_arriving_as_the_writer_stops_is_refused_not_left_waiting(tmp_path, fake_embedder, monkeypatch):
    """``submit`` checked that the loop still writes, then queued the job; the loop, stopping in
    between, had already refused what was queued. The job sat in a queue nobody read: the push
    waited its whole timeout (120 s over HTTP) and was then told it "will still run". Here the
    server stops exactly between the check and the queueing."""
    import pytest

    from docshelf.errors import IndexLocked

    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    loop = WriterLoop(shelf, [], watch=False)
    loop.start()
    assert wait_until(lambda: loop.role == "writer" and loop.settled.is_set())
    real_put = loop._queue.put

    def put_as_the_server_stops(item, *args, **kwargs):
        loop.stop(timeout=1.0)
        real_put(item, *args, **kwargs)

    monkeypatch.setattr(loop._queue, "put", put_as_the_server_stops)
    future = loop.submit(lambda: "written")
    with pytest.raises(IndexLocked, match="shutting down"):
        future.result(timeout=10)
    monkeypatch.undo()
    assert loop.stop()
    with pytest.raises(IndexLocked, match="shutting down"):
        loop.submit(lambda: "written")


def test_a_push_to_a_writer_that_failed_says_so(tmp_path, fake_embedder):
    """The writer thread stopped on an error: a push was told that 'another docshelf process
    writes the index', sending the builder to look for a server that does not exist."""
    import pytest

    from docshelf.errors import IndexLocked

    docs = tmp_path / "docs"
    docs.mkdir()
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)

    def broken_index(*args, **kwargs):
        raise OSError(28, "No space left on device")

    shelf.index = broken_index  # the start-up reconcile fails with an error it does not expect
    loop = WriterLoop(shelf, [docs], watch=False)
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "failed")
        with pytest.raises(IndexLocked) as refused:
            loop.submit(lambda: "written")
        assert "another docshelf process" not in str(refused.value)
        assert "writer stopped (OSError: [Errno 28] No space left on device)" in str(refused.value)
    finally:
        loop.stop()


def test_a_server_stopped_while_it_opens_the_index_never_starts_writing(write, tmp_path):
    """Ctrl-C (or a client closing stdio) in the first second of ``docshelf serve``: ``close()``
    found no writer yet and said everything had stopped; the start-up thread then made the writer,
    which took the index's lock and began indexing in a process on its way out (where the
    interpreter's teardown would stop it mid-write)."""
    from docshelf.live.runtime import ServerRuntime

    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe aardvark page")
    settings = Settings(index_dir=tmp_path / "index", model="fake")
    runtime = ServerRuntime(settings, [docs], watch=False)
    runtime.start()
    assert runtime.close()  # before the index is open (opening it takes a while: imports, LanceDB)
    assert runtime._ready.wait(30)
    time.sleep(1.0)  # the start-up thread's last steps
    assert runtime.writer is None or not runtime.writer._thread.is_alive()
    other = Docshelf(settings)
    assert other.try_become_writer()  # nobody holds the index's writer lock
    other.release_writer()


def test_a_failed_compaction_does_not_stop_live_updates(write, tmp_path, fake_embedder):
    """The writer compacts the store when idle after writes; a compaction that failed (a full
    disk, for a moment) stopped the writer thread for good: the server kept answering, but no
    change was indexed any more until it was restarted. Updates were failures logged and retried."""
    from docshelf.errors import StoreError
    from docshelf.ingest import UpsertRequest

    docs = tmp_path / "docs"
    write(docs, "a.md", "# A\n\nthe first page")
    shelf = Docshelf(Settings(index_dir=tmp_path / "index", reconcile_interval=0), embedder=fake_embedder)
    real_optimize = shelf.store.optimize
    calls: list[int] = []

    def optimize_once_failing() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise StoreError("could not compact the index: No space left on device")
        real_optimize()

    loop = WriterLoop(shelf, [docs.resolve()], debounce=0.1)
    loop.start()
    try:
        assert wait_until(lambda: loop.phase == "watching")
        shelf.store.optimize = optimize_once_failing  # from now on: the start-up index run is over
        request = UpsertRequest(records=[{"id": "p", "content": "a pushed lemur record", "metadata": {}}])
        loop.submit(lambda: shelf.ingest_upsert(request)).result(timeout=30)
        assert wait_until(lambda: calls, timeout=10)  # the writer's compaction after the push ran, and failed
        assert "No space left on device" in loop.last_error
        write(docs, "b.md", "# B\n\nthe later marmot page")
        assert wait_until(lambda: found(shelf, "marmot") == {"b.md"}, timeout=20)
        assert loop.phase == "watching"
    finally:
        assert loop.stop()


def test_a_push_to_a_server_whose_writer_failed_to_start_says_why_at_once(write, tmp_path, monkeypatch):
    """The writer thread died electing itself (the store's server down when it asked for the lock):
    its role stayed 'starting', and a push waited the whole start-up timeout to be told that the
    server was 'still deciding which process writes the index; retry shortly'."""
    import pytest

    from docshelf.errors import IndexLocked, StoreError
    from docshelf.ingest import UpsertRequest
    from docshelf.live.runtime import ServerRuntime

    def store_down(self) -> bool:
        raise StoreError("cannot reach the PostgreSQL server at db.example:5432")

    monkeypatch.setattr(Docshelf, "try_become_writer", store_down)
    runtime = ServerRuntime(Settings(index_dir=tmp_path / "index", model="fake"), [], watch=False, ready_timeout=10)
    runtime.start()
    try:
        runtime.service()
        assert wait_until(lambda: runtime.writer is not None and runtime.writer.phase == "failed", timeout=10)
        started = time.monotonic()
        request = UpsertRequest(records=[{"id": "p", "content": "a pushed record", "metadata": {}}])
        with pytest.raises(IndexLocked, match="writer stopped .*cannot reach the PostgreSQL server"):
            runtime.write("upsert", request)
        assert time.monotonic() - started < 2.0
    finally:
        runtime.close()
