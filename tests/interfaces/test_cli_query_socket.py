"""``docshelf search`` asks a running ``docshelf serve`` (the local query socket) and falls back.

A real ``docshelf serve`` subprocess holds a small index (fake embedder: this is about the
channel, not search quality); the CLI runs in-process or as a fresh process. The socket's
safety rules (stale files, foreign owners, open permissions, a silent server) are checked
against test-made sockets whose answers would be visibly wrong if the CLI used them.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from mcp_harness import SRC, docshelf_argv, write

from docshelf.interfaces.cli import main
from docshelf.live import query_socket

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(not query_socket.supported(), reason="Unix domain sockets (POSIX only)"),
]

DOCS = {
    "install.md": "# Installing Widgetron\n\nRun pip install widgetron to get the toolkit.\n",
    "faq.md": "# FAQ\n\nThe quasar module needs Python 3.11 and a frobnicator.\n",
    "terms.md": "# Terms\n\nA frobnicator polishes widgets before they ship.\n",
}


def _env(index: Path) -> dict[str, str]:
    return {"DOCSHELF_INDEX_DIR": str(index), "DOCSHELF_MODEL": "fake", "DOCSHELF_CONFIG": os.devnull,
            "DOCSHELF_LOG_FILE": str(index.parent / "serve.log"), "PYTHONPATH": SRC}


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("qs")
    for rel, text in DOCS.items():
        write(root / "docs", rel, text)
    index = root / "index"
    subprocess.run(docshelf_argv("index", str(root / "docs")), env={**os.environ, **_env(index)}, check=True,
                   capture_output=True, timeout=180)
    return index


def _start_serve(index: Path) -> subprocess.Popen:
    proc = subprocess.Popen(docshelf_argv("serve", "--no-watch"), env={**os.environ, **_env(index)},
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not any(a["pid"] == proc.pid for a in query_socket.announcements(index)):
        assert proc.poll() is None, "docshelf serve exited"
        assert time.monotonic() < deadline, "docshelf serve never announced its query socket"
        time.sleep(0.1)
    return proc


@pytest.fixture(scope="class")
def serve(index: Path):
    proc = _start_serve(index)
    yield proc
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.stdin.close()
        proc.wait(30)


@pytest.fixture
def cli(index: Path, monkeypatch, capsys, caplog):
    """Run ``docshelf -v ARGS`` in this process: (exit code, stdout, answered-by line or '')."""
    for name, value in _env(index).items():
        monkeypatch.setenv(name, value)

    def run(*args: str) -> tuple[int, str, str]:
        caplog.clear()
        code = 0
        with caplog.at_level(logging.INFO, logger="docshelf.cli"):
            try:
                main(["-v", *args])
            except SystemExit as exc:
                code = exc.code or 0
        out, _ = capsys.readouterr()
        answered = [r.getMessage() for r in caplog.records if r.getMessage().startswith("answered by")]
        return code, out, answered[0] if answered else ""

    return run


def _in_process(cli, *args: str) -> tuple[int, str, str]:
    before = os.environ.get("DOCSHELF_QUERY_TIMEOUT")
    os.environ["DOCSHELF_QUERY_TIMEOUT"] = "0"  # the documented switch: never ask a server
    try:
        return cli(*args)
    finally:
        if before is None:
            del os.environ["DOCSHELF_QUERY_TIMEOUT"]
        else:
            os.environ["DOCSHELF_QUERY_TIMEOUT"] = before


def _without_timing(out: str) -> dict:
    data = json.loads(out)
    data.pop("took_ms")
    return data


@pytest.fixture
def patient(monkeypatch):
    """A client that waits for a real server's answer however loaded the machine is: the 2 s
    default is the product's trade (then it searches in-process), and under load a first
    answer took longer, so the CLI searched itself and the test saw no server's answer."""
    monkeypatch.setenv("DOCSHELF_QUERY_TIMEOUT", "60")


@pytest.mark.usefixtures("patient")
class TestWithARunningServe:
    """One ``docshelf serve`` for these tests (starting one takes seconds)."""

    def test_a_running_serve_answers_and_the_answer_is_the_in_process_one(self, serve, cli) -> None:
        args = ("search", "how do I install widgetron", "-k", "3", "--json")
        code, via_server, answered = cli(*args)
        assert (code, answered.split(" in ")[0]) == (0, f"answered by docshelf serve (pid {serve.pid})")
        code, local, answered = _in_process(cli, *args)
        assert (code, answered) == (0, "")
        assert _without_timing(via_server) == _without_timing(local)
        assert _without_timing(local)["hits"][0]["path"] == "install.md"
        # The human output too, filters included.
        human = ("search", "frobnicator", "--mode", "keyword", "--path", "faq")
        served, local = cli(*human), _in_process(cli, *human)
        assert served[2] and not local[2]
        assert served[1] == local[1] and served[1].startswith("1. faq.md › FAQ (lines 3-3)")

    def test_a_server_with_other_search_settings_is_not_asked(self, serve, cli, monkeypatch) -> None:
        monkeypatch.setenv("DOCSHELF_SEARCH_MODE", "keyword")
        code, out, answered = cli("search", "widgetron", "--json")
        assert (code, answered, json.loads(out)["mode"]) == (0, "", "keyword")

    def test_the_thin_client_loads_no_store_model_numpy_or_cli_framework(self, serve, index) -> None:
        """The ``docshelf`` entry point (``cli_entry``): the first call records the settings key,
        the second finds it and imports none of the heavy or framework modules."""
        code = (
            "import json, sys\n"
            "from docshelf.interfaces.cli_entry import main\n"
            "try:\n"
            "    main(['search', 'quasar', '--json'])\n"
            "except SystemExit as exc:\n"
            "    assert not exc.code, exc.code\n"
            "heavy = ('lancedb', 'onnxruntime', 'numpy', 'pyarrow', 'pydantic', 'pydantic_settings', 'typer', 'rich')\n"
            "print(json.dumps(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)\n"
        )
        runs = [subprocess.run([sys.executable, "-c", code], env={**os.environ, **_env(index)}, capture_output=True,
                               text=True, timeout=120) for _ in range(2)]
        for done in runs:
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout)["hits"][0]["path"] == "faq.md"
        assert runs[1].stderr.strip().splitlines()[-1] == "[]"

    def test_the_thin_client_prints_what_the_full_cli_prints(self, serve, index, tmp_path) -> None:
        """Byte for byte (``took_ms`` aside) for every flag the thin parser takes; a value the
        request or the service rejects leaves it to the full CLI, which reports it as before."""
        variants = [
            ["search", "frobnicator", "--json"],
            ["search", "widgetron install", "-k", "2", "--mode", "keyword", "--json"],
            ["search", "--json", "quasar", "--path", "faq", "--min-score", "0.1", "-m", "hybrid"],
            ["search", "widgets", "--json", "--collection", "default", "--type", "doc", "--limit=3"],
            ["search", "widgets", "--json", "--tag", "x", "--all-tag", "y", "--field", "title=FAQ"],
            ["search", "quasar", "--from", "2020-01-01", "--to", "2030-12-31T10:00", "--glob", "*.md", "--json"],
            ["--index-dir", str(index), "search", "--json", "--", "--frobnicator"],
            ["search", "quasar", "--json", "--model", "fake"],
        ]
        rejected = [["search", "quasar", "-k", "0", "--json"], ["search", "quasar", "--mode", "bogus", "--json"],
                    ["search", "quasar", "--from", "yesterday", "--json"],
                    ["search", "quasar", "--linked-to", "nowhere", "--json"]]  # the service's error, exit 1
        script = tmp_path / "both.py"
        script.write_text(
            "import contextlib, io, json, sys\n"
            "from docshelf.interfaces.cli_entry import answer_from_server\n"
            "variants, rejected = json.loads(sys.argv[1]), json.loads(sys.argv[2])\n"
            "def full(args):\n"
            "    from docshelf.interfaces.cli import main\n"
            "    out, err = io.StringIO(), io.StringIO()\n"
            "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
            "        try:\n"
            "            main(args)\n"
            "            code = 0\n"
            "        except SystemExit as exc:\n"
            "            code = exc.code or 0\n"
            "    return [code, out.getvalue(), err.getvalue()]\n"
            "def thin(args):\n"
            "    out = io.StringIO()\n"
            "    with contextlib.redirect_stdout(out):\n"
            "        answered = answer_from_server(args)\n"
            "    return [answered, out.getvalue(), 'typer' in sys.modules or 'pydantic' in sys.modules]\n"
            "first = [thin(a) for a in variants]\n"  # nothing recorded for --model/--index-dir yet: declined
            "thin_rejected = [thin(a) for a in rejected]\n"
            "full_out = [full(a) for a in variants + rejected]\n"  # the full CLI (records every key)
            "again = [thin(a) for a in variants]\n"
            "print(json.dumps({'first': first, 'thin_rejected': thin_rejected, 'full': full_out, 'again': again}))\n"
        )
        done = subprocess.run([sys.executable, str(script), json.dumps(variants), json.dumps(rejected)],
                              env={**os.environ, **_env(index)}, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        data = json.loads(done.stdout)
        took = re.compile(r'"took_ms": [0-9.e-]+')
        assert [f[0] for f in data["first"]][-2:] == [False, False]
        assert all(not t[2] for t in data["first"] + data["thin_rejected"])  # no framework imported so far
        assert data["thin_rejected"] == [[False, "", False]] * len(rejected)
        full_variants, full_rejected = data["full"][: len(variants)], data["full"][len(variants):]
        for args, (answered, out, _), (code, full_out, _) in zip(variants, data["again"], full_variants):
            assert answered and code == 0, args
            assert took.sub("", out) == took.sub("", full_out), args
            assert json.loads(out)["query"], args
        for args, (code, out, err) in zip(rejected, full_rejected):
            assert (code, out) == ((1, "") if "--linked-to" in args else (2, "")), args
            assert ("Error: linked_to" if "--linked-to" in args else "Invalid value") in err, (args, err)

    def test_a_path_typed_from_the_clients_folder_scopes_the_servers_search(self, serve, index, cli,
                                                                         monkeypatch) -> None:
        """``--path docs/faq.md`` typed beside ``docs/`` (the server runs in another folder, and the
        index stores ``faq.md``) found nothing, through the full CLI and the thin client alike."""
        monkeypatch.chdir(index.parent)
        for args in (("--path", "docs/faq.md"), ("--path", "docs/"), ("--path", str(index.parent / "docs"))):
            code, out, answered = cli("search", "frobnicator", "--mode", "keyword", "--json", *args)
            assert (code, bool(answered)) == (0, True), args
            paths = sorted(h["path"] for h in json.loads(out)["hits"])
            assert paths == (["faq.md"] if args[1].endswith("faq.md") else ["faq.md", "terms.md"]), args
        thin = ("import json\nfrom docshelf.interfaces.cli_entry import main\n"
                "main(['search', 'frobnicator', '--mode', 'keyword', '--json', '--path', 'docs/faq.md'])\n")
        runs = [subprocess.run([sys.executable, "-c", thin], env={**os.environ, **_env(index)}, cwd=index.parent,
                               capture_output=True, text=True, timeout=120) for _ in range(2)]  # records, then thin
        for done in runs:
            assert done.returncode == 0, done.stderr
            assert [h["path"] for h in json.loads(done.stdout)["hits"]] == ["faq.md"]
        code, out, _ = cli("documents", "--path", "docs/f", "--json")  # not on disk: as the index stores it
        assert json.loads(out)["documents"] == []

    def test_the_servers_socket_and_announcement_are_owner_only(self, serve, index) -> None:
        for path in (index / f"query-{serve.pid}.json", index / f"query-{serve.pid}.sock"):
            assert os.stat(path).st_mode & 0o777 == 0o600, path


def test_after_the_server_is_killed_the_cli_searches_in_process(index, cli) -> None:
    proc = _start_serve(index)
    proc.kill()  # no clean-up: its announcement and socket stay behind
    proc.wait(30)
    assert (index / f"query-{proc.pid}.json").exists() and (index / f"query-{proc.pid}.sock").exists()
    started = time.monotonic()
    code, out, answered = cli("search", "quasar", "--json")
    assert (code, answered, json.loads(out)["hits"][0]["path"]) == (0, "", "faq.md")
    assert time.monotonic() - started < 60
    # The next server clears what the dead one left.
    proc2 = _start_serve(index)
    try:
        assert not (index / f"query-{proc.pid}.json").exists() and not (index / f"query-{proc.pid}.sock").exists()
    finally:
        proc2.send_signal(signal.SIGTERM)
        proc2.stdin.close()
        proc2.wait(30)


# -- sockets made by the test: their answer is visibly wrong, so using one would show ----------
FAKE = {"query": "x", "mode": "keyword", "hits": [], "note": "FROM THE TEST SOCKET", "took_ms": 0.0,
        "confidence": "none"}


class FakeServer:
    """A socket in the index folder announced for this (live) test process; ``reply`` None: never answers."""

    def __init__(self, index: Path, reply: dict | None, mode: int = 0o600) -> None:
        self.path = index / "query-test.sock"
        self.announce = index / f"query-{os.getpid()}.json"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(self.path))
        os.chmod(self.path, mode)
        self.sock.listen(4)
        self.reply = reply
        self.held: list[socket.socket] = []
        fd = os.open(self.announce, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"protocol": query_socket.PROTOCOL, "pid": os.getpid(), "socket": str(self.path),
                       "kind": "test", "started": time.time() + 1000}, f)
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.reply is None:
                self.held.append(conn)  # accepted, never answered
                continue
            with conn:
                conn.recv(1 << 20)
                conn.sendall(json.dumps({"ok": True, "result": self.reply}).encode())

    def stop_listening(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() (close alone does not)
        except OSError:
            pass
        self.sock.close()

    def close(self) -> None:
        self.stop_listening()
        for conn in self.held:
            conn.close()
        self.path.unlink(missing_ok=True)
        self.announce.unlink(missing_ok=True)


@pytest.fixture
def fake_server(index: Path):
    made: list[FakeServer] = []

    def make(reply: dict | None, mode: int = 0o600) -> FakeServer:
        made.append(FakeServer(index, reply, mode))
        return made[-1]

    yield make
    for s in made:
        s.close()


def test_a_private_socket_of_this_user_is_used(fake_server, cli) -> None:
    """The control for the tests below: the same socket with the right owner and mode is asked."""
    fake_server(FAKE)
    code, out, answered = cli("search", "quasar", "--json")
    assert (code, json.loads(out)["note"], answered.split(" (")[0]) == (0, "FROM THE TEST SOCKET",
                                                                        "answered by docshelf test")


def test_a_socket_others_may_use_is_ignored(fake_server, cli) -> None:
    fake_server(FAKE, mode=0o666)
    code, out, answered = cli("search", "quasar", "--json")
    assert (code, answered, json.loads(out)["hits"][0]["path"]) == (0, "", "faq.md")


def test_a_socket_of_another_user_is_ignored(fake_server, cli, monkeypatch) -> None:
    fake_server(FAKE)
    real_uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)  # the files now belong to someone else
    code, out, answered = cli("search", "quasar", "--json")
    assert (code, answered, json.loads(out)["hits"][0]["path"]) == (0, "", "faq.md")


def test_a_silent_server_costs_only_the_timeout(fake_server, cli, monkeypatch) -> None:
    fake_server(None)
    monkeypatch.setenv("DOCSHELF_QUERY_TIMEOUT", "0.5")
    started = time.monotonic()
    assert query_socket.ask(Path(os.environ["DOCSHELF_INDEX_DIR"]), "k", {"query": "quasar"}) is None
    assert 0.4 < time.monotonic() - started < 5
    code, out, answered = cli("search", "quasar", "--json")
    assert (code, answered, json.loads(out)["hits"][0]["path"]) == (0, "", "faq.md")


def test_a_stale_socket_file_nobody_listens_on_is_ignored(fake_server, cli) -> None:
    stale = fake_server(FAKE)
    stale.stop_listening()  # the file stays, connecting is refused
    code, out, answered = cli("search", "quasar", "--json")
    assert (code, answered, json.loads(out)["hits"][0]["path"]) == (0, "", "faq.md")


def test_a_running_watch_answers_and_cleans_up_when_stopped(index, cli, patient) -> None:
    proc = subprocess.Popen(docshelf_argv("watch"), env={**os.environ, **_env(index)}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while not any(a["pid"] == proc.pid and a["kind"] == "watch" for a in query_socket.announcements(index)):
            assert proc.poll() is None and time.monotonic() < deadline, "docshelf watch never announced its socket"
            time.sleep(0.1)
        code, out, answered = cli("search", "quasar", "--json")
        assert (code, answered.split(" in ")[0], json.loads(out)["hits"][0]["path"]) == (
            0, f"answered by docshelf watch (pid {proc.pid})", "faq.md")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    assert not (index / f"query-{proc.pid}.json").exists() and not (index / f"query-{proc.pid}.sock").exists()


def test_index_beside_a_running_watch_of_the_same_folder_says_it_keeps_it(index, cli) -> None:
    """`docshelf index docs` while `docshelf watch` kept docs waited 10 s and exited 1; the watch
    indexes every change itself, so the run says so and exits 0 at once. A folder the watch does
    not keep is still refused (exit 1), naming the watch."""
    proc = subprocess.Popen(docshelf_argv("watch"), env={**os.environ, **_env(index)}, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    other = index.parent / "other"
    write(other, "b.md", "# B\n\nbeta")
    try:
        deadline = time.monotonic() + 120
        while True:  # once the watch holds the writer lock (it announces itself first)
            started = time.monotonic()
            code, out, _ = cli("index", str(index.parent / "docs"))
            if "Nothing to do" in out:
                break
            assert proc.poll() is None and time.monotonic() < deadline, out
            time.sleep(0.2)
        assert code == 0 and time.monotonic() - started < 5
        assert out.startswith(f"Nothing to do: docshelf watch (pid {proc.pid}) holds this index and keeps these folders")
        code, out, _ = cli("index", str(other))
        assert code == 1 and "Nothing to do" not in out
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
