"""Settings keys remembered per command line: the thin ``docshelf search`` needs no settings code.

To be answered by a running server the CLI sends its settings key
(``query_socket.settings_key``), and computing that takes pydantic-settings: most of a
server-answered search's start-up. The key is a function of inputs that are cheap to read:
the docshelf code, the working folder, the settings-shaping global options as typed
(``--index-dir``, ``--config``, ``--model``, ``--device``), the ``DOCSHELF_*`` environment
(plus ``HOME`` and the XDG folders that place the default index and config), and the
content of every config file that could be read. The full CLI records the key it computed
under a fingerprint of those inputs (``remember``); the thin client fingerprints the same
inputs with the standard library alone and uses the recorded key (``recall``).

Any change of an input is another fingerprint: a miss, so the full CLI runs and records
it. A recorded key is the key the full CLI would compute now, and a server answers only a
key equal to its own, so a wrong entry could only make a server decline, never answer for
other settings. Entries live in ``<temp dir>/docshelf-<uid>/keys/`` (owner-only folder and
files; anything else is ignored), one small file per fingerprint, pruned past ``KEEP``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import query_socket

if TYPE_CHECKING:
    from ..config import Settings

log = logging.getLogger(__name__)

KEEP = 256  # entries kept (one per working folder × option set × environment in use)
_ENV_NAMES = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")  # where platformdirs puts the defaults
# The modules whose code decides the key: the settings, the result's shape, the key itself.
_CODE = ("__init__.py", "config.py", "models.py", "live/query_socket.py", "live/query_keys.py")


def fingerprint(settings_args: list[str]) -> str:
    """A digest of everything the settings key depends on, for the global options ``settings_args``."""
    package = Path(__file__).resolve().parent.parent
    code = []
    for rel in _CODE:
        st = os.stat(package / rel)
        code.append([rel, st.st_mtime_ns, st.st_size])
    env = sorted((k, v) for k, v in os.environ.items() if k.upper().startswith("DOCSHELF_") or k in _ENV_NAMES)
    configs = {str(path): _digest(path) for path in config_candidates(settings_args)}
    data = {"python": sys.executable, "package": str(package), "code": code, "cwd": os.getcwd(),
            "args": settings_args, "env": env, "configs": configs}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def config_candidates(settings_args: list[str]) -> list[Path]:
    """Every config file ``config.load_settings`` might read for these options (a superset:
    ``--config``, ``$DOCSHELF_CONFIG``, ``./docshelf.toml``, the user's config.toml)."""
    import platformdirs

    found = []
    for i, arg in enumerate(settings_args):
        name, eq, value = arg.partition("=")
        if name in ("--config", "-c"):
            found.append(value if eq else settings_args[i + 1])
    if os.environ.get("DOCSHELF_CONFIG"):
        found.append(os.environ["DOCSHELF_CONFIG"])
    found.append("docshelf.toml")
    found.append(str(Path(platformdirs.user_config_dir("docshelf", appauthor=False)) / "config.toml"))
    return [Path(p) for p in found]


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:  # absent (or a folder, /dev/null is empty): recorded as such
        return None


def _folder(create: bool) -> Path:
    return query_socket.private_folder("keys", create=create)


def remember(settings_args: list[str], settings: Settings, key: str) -> None:
    """Record ``key`` (computed from ``settings``) for these options; never raises."""
    try:
        entry = {"fingerprint": fingerprint(settings_args), "index_dir": str(settings.index_dir),
                 "resolved": str(Path(settings.index_dir).expanduser().resolve()), "key": key}
        folder = _folder(create=True)
        path = folder / f"{entry['fingerprint']}.json"
        if _read(path) == entry:
            return
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(entry, f)
        os.replace(tmp, path)
        _prune(folder)
    except OSError as exc:
        log.debug("settings key not recorded: %s", exc)


def recall(settings_args: list[str]) -> tuple[Path, str] | None:
    """(index folder, settings key) recorded for these options in this environment, or None."""
    try:
        fp = fingerprint(settings_args)
        entry = _read(_folder(create=False) / f"{fp}.json")
    except OSError as exc:
        log.debug("no recorded settings key: %s", exc)
        return None
    if entry is None or entry.get("fingerprint") != fp:
        return None
    try:
        # The same folder as when recorded (a symbolic link on the way may have moved since).
        if str(Path(entry["index_dir"]).expanduser().resolve()) != entry["resolved"]:
            return None
        return Path(entry["resolved"]), str(entry["key"])
    except (KeyError, TypeError, OSError, RuntimeError):
        return None


def _read(path: Path) -> dict[str, Any] | None:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in entries[: max(0, len(entries) - KEEP)]:
        old.unlink(missing_ok=True)


__all__ = ["config_candidates", "fingerprint", "recall", "remember"]
