"""The local query channel: a running ``docshelf serve`` or ``watch`` answers ``docshelf search``.

A cold CLI search pays for imports, opening the store and loading the model (~1-2 s); a
process that already holds them answers in milliseconds. So each such process listens on
a Unix domain socket and announces it with a small file in the index folder,
``query-<pid>.json`` (pid, socket path, settings key). ``docshelf search`` reads the
announcements, sends the ``SearchRequest`` it built as JSON, and prints the service's
result; when no process answers (none running, a stale file after a crash, another user's
socket, other settings, a timeout) it searches in-process instead, with the same result.

Safety: the socket and the announcement are owner-only (0600); the client ignores any
that another user owns or that others could write, and the server answers only peers of
its own user (``SO_PEERCRED``). A Unix socket is never reachable from the network. On
platforms without ``AF_UNIX`` (Windows) nothing listens and the CLI searches in-process.

Decisions stay in the service: the server rebuilds the ``SearchRequest`` (validated
again) and calls ``Docshelf.search``. It answers only when its settings key equals the
client's (same index folder, model, search settings and result shape), so an answer from
the server is the answer the CLI would have computed.

This module's client half imports nothing heavy (no pydantic, numpy, LanceDB or
onnxruntime): it runs before the CLI decides whether to load any of them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..config import Settings
    from ..models import SearchResult
    from ..requests import SearchRequest

log = logging.getLogger(__name__)

PROTOCOL = 1
ANNOUNCE_PREFIX = "query-"
MAX_MESSAGE_BYTES = 4 * 1024 * 1024  # a response of 100 hits with long texts fits easily
DEFAULT_TIMEOUT = 2.0  # seconds a client waits for an answer before searching in-process
_SUN_PATH_MAX = 100  # AF_UNIX paths are limited to ~107 bytes; stay below with margin
# Settings that do not change what a search returns: a server started with other values
# still answers the same. Anything else (a new setting too) must match.
_NOT_SEARCH_SETTINGS = frozenset({
    "roots", "log_file", "reconcile_interval", "exclude", "max_file_bytes", "embed_batch_size",
    "embed_threads", "embed_concurrency", "embed_timeout", "embed_retries", "embed_api_key", "store_api_key",
})


def supported() -> bool:
    return hasattr(socket, "AF_UNIX") and os.name == "posix"


def settings_key(settings: Settings) -> str:
    """What must match between client and server for the server's answer to be the client's:
    the index folder, every search-relevant setting, the version and the result's shape."""
    from dataclasses import fields

    from .. import __version__
    from ..models import Hit, SearchResult

    data = settings.model_dump(mode="json", exclude=set(_NOT_SEARCH_SETTINGS))
    data["index_dir"] = str(Path(settings.index_dir).expanduser().resolve())
    data["version"] = __version__
    data["shape"] = [[f.name for f in fields(SearchResult)], [f.name for f in fields(Hit)]]
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


# -- client -------------------------------------------------------------------------------
class Answer:
    """A result from a running server: the JSON of ``SearchResult`` and who answered."""

    def __init__(self, result: dict[str, Any], pid: int, kind: str, seconds: float) -> None:
        self.result, self.pid, self.kind, self.seconds = result, pid, kind, seconds


def answered_line(answer: Answer) -> str:
    """The ``-v`` log line of a CLI search a server answered (the same from either CLI path)."""
    return f"answered by docshelf {answer.kind} (pid {answer.pid}) in {answer.seconds * 1000:.0f} ms"


def ask(index_dir: Path, key: str, request: dict[str, Any], timeout: float | None = None) -> Answer | None:
    """Ask the processes serving ``index_dir`` to run ``request`` (a ``SearchRequest`` as JSON).

    None when none answered: the caller searches in-process. Never raises for a missing,
    stale, foreign or silent server; every reason is logged at DEBUG.
    """
    if not supported():
        return None
    if timeout is None:
        try:
            timeout = float(os.environ.get("DOCSHELF_QUERY_TIMEOUT", DEFAULT_TIMEOUT))
        except ValueError:
            timeout = DEFAULT_TIMEOUT
    if timeout <= 0:
        return None
    deadline = time.monotonic() + timeout
    for info in announcements(Path(index_dir)):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        answer = _ask_one(info, key, request, left)
        if answer is not None:
            return answer
    return None


def announcements(index_dir: Path) -> list[dict[str, Any]]:
    """The usable announcements in ``index_dir``, newest first (own user, owner-only, live pid)."""
    try:
        names = [n for n in os.listdir(index_dir) if n.startswith(ANNOUNCE_PREFIX) and n.endswith(".json")]
    except OSError:
        return []
    found = []
    for name in names:
        path = index_dir / name
        info = _read_announcement(path)
        if info is None:
            continue
        found.append(info)
    found.sort(key=lambda i: i.get("started", 0), reverse=True)
    return found


def _private(st: os.stat_result) -> bool:
    return st.st_uid == os.getuid() and not (st.st_mode & 0o077)


def _read_announcement(path: Path) -> dict[str, Any] | None:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or not _private(st):
            log.debug("ignoring %s: not a private file of this user", path)
            return None
        info = json.loads(path.read_text(encoding="utf-8"))
        pid, sock = int(info["pid"]), str(info["socket"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("ignoring %s: %s", path, exc)
        return None
    if info.get("protocol") != PROTOCOL or not _alive(pid):
        log.debug("ignoring %s: protocol %s, pid %d alive: %s", path, info.get("protocol"), pid, _alive(pid))
        return None
    try:
        sst = os.lstat(sock)
    except OSError:
        return None
    if not stat.S_ISSOCK(sst.st_mode) or not _private(sst):
        log.debug("ignoring %s: %s is not a private socket of this user", path, sock)
        return None
    return info


def private_folder(*parts: str, create: bool = True) -> Path:
    """``<temp dir>/docshelf-<uid>[/parts]``, made owner-only; OSError when someone else
    owns it or may write to it (or, with ``create=False``, when it does not exist)."""
    import tempfile

    # Named for the effective uid: the identity that creates (and so owns) what is in it.
    folder = Path(tempfile.gettempdir()) / f"docshelf-{os.geteuid()}"
    for path in (folder, folder.joinpath(*parts)) if parts else (folder,):
        if create:
            path.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode) or not _private(st):
            raise OSError(f"{path} is not a private folder of this user")
    return folder.joinpath(*parts)


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process took the pid
        return False
    return True


def _ask_one(info: dict[str, Any], key: str, request: dict[str, Any], timeout: float) -> Answer | None:
    started = time.monotonic()
    message = json.dumps({"protocol": PROTOCOL, "op": "search", "key": key, "request": request}).encode() + b"\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(timeout)
            conn.connect(info["socket"])
            conn.sendall(message)
            conn.shutdown(socket.SHUT_WR)
            reply = _read_all(conn, deadline=started + timeout)
        data = json.loads(reply)
    except (OSError, ValueError) as exc:  # refused (stale), timed out, cut off, not JSON
        log.debug("no answer from pid %s: %s", info.get("pid"), exc)
        return None
    if not isinstance(data, dict) or not data.get("ok") or not isinstance(data.get("result"), dict):
        log.debug("pid %s declined: %s", info.get("pid"), data.get("reason") if isinstance(data, dict) else data)
        return None
    return Answer(data["result"], int(info["pid"]), str(info.get("kind", "")), time.monotonic() - started)


def _read_all(conn: socket.socket, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("timed out")
        conn.settimeout(left)
        chunk = conn.recv(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_MESSAGE_BYTES:
            raise ValueError("message too large")
        chunks.append(chunk)


# -- server -------------------------------------------------------------------------------
class QueryServer:
    """Answers searches from ``docshelf search`` on a private Unix socket (one thread per query).

    ``search`` is ``Docshelf.search`` (or a wrapper of it); ``key`` is ``settings_key`` of the
    settings the process was started with; ``kind`` names the process ("serve", "watch").
    """

    def __init__(self, index_dir: Path, search: Callable[[SearchRequest], SearchResult], key: str, kind: str) -> None:
        self.index_dir = Path(index_dir).expanduser().resolve()
        self.search = search
        self.key = key
        self.kind = kind
        self.answered = 0  # searches answered (tests and logs read it)
        self.socket_path: Path | None = None
        self.announce_path = self.index_dir / f"{ANNOUNCE_PREFIX}{os.getpid()}.json"
        self._sock: socket.socket | None = None
        self._closed = threading.Event()

    def start(self) -> bool:
        """Listen and announce; False (logged) when this platform or folder does not allow it."""
        if not supported():
            return False
        try:
            self._remove_stale()
            self.socket_path = self._socket_path()
            self._listen(self.socket_path)
            self._announce()
        except OSError as exc:
            log.warning("the local query socket is off (%s); `docshelf search` will search in-process", exc)
            self.close()
            return False
        threading.Thread(target=self._accept_loop, name="docshelf-query-socket", daemon=True).start()
        log.info("answering `docshelf search` on %s", self.socket_path)
        return True

    def _socket_path(self) -> Path:
        own = self.index_dir / f"{ANNOUNCE_PREFIX}{os.getpid()}.sock"
        if len(os.fsencode(str(own))) <= _SUN_PATH_MAX:
            return own
        # Too long for AF_UNIX: a private folder of this user under the temp dir.
        folder = private_folder()
        digest = hashlib.sha256(str(self.index_dir).encode()).hexdigest()[:16]
        return folder / f"{digest}-{os.getpid()}.sock"

    def _listen(self, path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            # Bound with the default umask the socket is at most 0755: only its owner may
            # connect (connecting needs write permission) until the chmod makes it 0600.
            sock.bind(str(path))
            os.chmod(path, 0o600)
            sock.listen(16)
        except OSError:
            sock.close()
            raise
        self._sock = sock

    def _announce(self) -> None:
        info = {"protocol": PROTOCOL, "pid": os.getpid(), "socket": str(self.socket_path), "kind": self.kind,
                "started": time.time()}
        tmp = self.announce_path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(info, f)
        os.replace(tmp, self.announce_path)

    def _remove_stale(self) -> None:
        """Announcements (and their sockets) left by processes that died without cleaning up."""
        try:
            names = [n for n in os.listdir(self.index_dir) if n.startswith(ANNOUNCE_PREFIX)]
        except OSError:
            return
        for name in names:
            path = self.index_dir / name
            stem = name[len(ANNOUNCE_PREFIX):].split(".", 1)[0]
            if not stem.isdigit() or int(stem) == os.getpid() or _alive(int(stem)):
                continue
            try:
                if name.endswith(".json"):
                    sock = json.loads(path.read_text(encoding="utf-8")).get("socket")
                    if sock and Path(sock).name.endswith(f"{stem}.sock"):
                        Path(sock).unlink(missing_ok=True)
                path.unlink(missing_ok=True)
            except (OSError, ValueError):
                continue

    def close(self) -> None:
        """Stop answering and remove the socket and the announcement."""
        self._closed.set()
        for path in (self.announce_path, self.socket_path):
            if path is not None:
                try:
                    path.unlink()
                except OSError:
                    pass
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()

    def _accept_loop(self) -> None:
        assert self._sock is not None
        while not self._closed.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                if self._closed.is_set():
                    return
                time.sleep(0.05)
                continue
            threading.Thread(target=self._serve, args=(conn,), name="docshelf-query", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                reply = self._answer(conn)
            except Exception as exc:  # noqa: BLE001 - the client searches in-process instead
                log.exception("local query failed")
                reply = {"ok": False, "reason": f"{type(exc).__name__}: {exc}"}
            try:
                conn.sendall(json.dumps(reply, ensure_ascii=False).encode())
            except OSError:
                pass

    def _answer(self, conn: socket.socket) -> dict[str, Any]:
        if not _same_user(conn):
            return {"ok": False, "reason": "another user"}
        raw = _read_all(conn, deadline=time.monotonic() + 5.0)
        message = json.loads(raw)
        if message.get("protocol") != PROTOCOL or message.get("op") != "search":
            return {"ok": False, "reason": "unknown protocol or operation"}
        if message.get("key") != self.key:
            return {"ok": False, "reason": "other settings (index, model or search settings differ)"}
        from dataclasses import asdict

        from ..errors import DocshelfError
        from ..requests import SearchRequest

        try:
            request = SearchRequest(**message["request"])
            result = self.search(request)
        except DocshelfError as exc:  # the client repeats it in-process and reports it the usual way
            return {"ok": False, "reason": f"{type(exc).__name__}: {exc}"}
        self.answered += 1
        log.info("answered a local search (%d so far)", self.answered)
        return {"ok": True, "result": asdict(result)}


def _same_user(conn: socket.socket) -> bool:
    """The peer runs as this user (Linux ``SO_PEERCRED``; elsewhere the socket's 0600 decides)."""
    peercred = getattr(socket, "SO_PEERCRED", None)
    if peercred is None:
        return True
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, peercred, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", creds)
    return uid == os.getuid()


__all__ = ["Answer", "QueryServer", "announcements", "answered_line", "ask", "private_folder", "settings_key", "supported"]
