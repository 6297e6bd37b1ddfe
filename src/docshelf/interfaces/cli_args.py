"""Command-line parsing that needs no CLI framework: global options and the thin ``search``.

The Typer app (``cli_app.py``) uses ``hoist_global_options`` so global options may come
anywhere; ``cli_entry.py`` uses ``parse_search`` to answer ``docshelf search`` through a
running server before Typer, pydantic or the settings are imported. ``parse_search`` is
deliberately narrow: anything it does not fully understand (``--help``, an unknown or
repeated option, a value that looks like an option, a bad number) returns None and the
full CLI runs, so errors and help come from one place. ``SEARCH_OPTIONS`` must match the
Typer ``search`` command's options (names, defaults, multiple or not, types); a test
compares them.
"""

from __future__ import annotations

import logging
import re
import sys
from dataclasses import dataclass
from typing import Any

# Global options: name → takes a value. Kept in step with ``cli_app.main_options``.
GLOBAL_OPTIONS = {
    "--config": True, "-c": True, "--index-dir": True, "--model": True, "--device": True, "--verbose": False,
}
_VERBOSE_SHORT = re.compile(r"^-v+$")


def hoist_global_options(args: list[str]) -> list[str]:
    """Move global options found after the command to the front, where Click expects them.

    ``docshelf index PATH --index-dir X`` becomes ``docshelf --index-dir X index PATH``.
    Nothing after ``--`` is touched (``docshelf search -- --model`` searches for "--model").
    """
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest.extend(args[i:])
            break
        name = arg.split("=", 1)[0]
        if _VERBOSE_SHORT.match(arg) or (name in GLOBAL_OPTIONS and ("=" in arg or not GLOBAL_OPTIONS[name])):
            front.append(arg)
        elif name in GLOBAL_OPTIONS and i + 1 < len(args):
            front.extend(args[i : i + 2])
            i += 1
        else:
            rest.append(arg)
        i += 1
    return front + rest


def command_of(args: list[str]) -> str | None:
    """The command a command line runs (global options may come anywhere), or None."""
    hoisted = hoist_global_options(args)
    i = 0
    while i < len(hoisted):
        arg = hoisted[i]
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
        if GLOBAL_OPTIONS.get(arg):  # takes a value: skip it
            i += 1
        i += 1
    return None


def configure_logging(verbose: int) -> None:
    """``-v`` once: INFO; twice: DEBUG; else WARNING — on stderr, one format for every command."""
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")


# The ``search`` command's options: flag → (SearchRequest field, type, multiple). Same as the
# Typer command in ``cli.py`` (tests/interfaces/test_cli_entry.py compares them).
SEARCH_OPTIONS: dict[str, tuple[str, type, bool]] = {
    "-k": ("k", int, False), "--limit": ("k", int, False),
    "--mode": ("mode", str, False), "-m": ("mode", str, False),
    "--collection": ("collections", str, True), "--type": ("doc_types", str, True),
    "--tag": ("tags_any", str, True), "--all-tag": ("tags_all", str, True), "--field": ("fields", str, True),
    "--path": ("path_prefix", str, False), "--glob": ("path_glob", str, False),
    "--from": ("date_from", str, False), "--to": ("date_to", str, False),
    "--linked-to": ("linked_to", str, True), "--min-score": ("min_score", float, False),
}
SEARCH_DEFAULTS: dict[str, Any] = {"k": 5, "min_score": 0.0}  # the Typer command's defaults
# Numbers the thin parser converts itself: plain digits, which every converter reads alike.
_PLAIN_NUMBER = {int: re.compile(r"^[0-9]+$"), float: re.compile(r"^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$")}


@dataclass
class SearchCall:
    """A ``docshelf search`` command line the thin client can run as it is."""

    settings_args: list[str]  # the global options that shape the settings, as typed
    verbose: int
    request: dict[str, Any]  # the SearchRequest's fields, as the Typer command passes them
    as_json: bool


def _global_part(hoisted: list[str]) -> tuple[list[str], int, int] | None:
    """(the settings-shaping global options as typed, the ``-v`` count, where the command
    starts) of hoisted arguments, or None for any global option this module does not handle."""
    settings_args: list[str] = []
    verbose = 0
    i = 0
    while i < len(hoisted) and hoisted[i].startswith("-") and hoisted[i] != "--":
        arg = hoisted[i]
        if _VERBOSE_SHORT.match(arg):
            verbose += len(arg) - 1
        elif arg == "--verbose":
            verbose += 1
        elif "=" in arg and arg.startswith("--") and GLOBAL_OPTIONS.get(arg.split("=", 1)[0]):
            settings_args.append(arg)
        elif GLOBAL_OPTIONS.get(arg) and i + 1 < len(hoisted) and not hoisted[i + 1].startswith("-"):
            settings_args.extend(hoisted[i : i + 2])
            i += 1
        else:
            return None  # --version, --help, an unknown option, a value that looks like an option
        i += 1
    return settings_args, verbose, i


def settings_args_of(args: list[str]) -> list[str] | None:
    """The global options of ``args`` that shape the settings, exactly as ``parse_search`` sees them."""
    part = _global_part(hoist_global_options(args))
    return None if part is None else part[0]


def typed_path(value: str) -> str:
    """A ``--path`` that names a file or folder from here (``docs/guides/`` typed beside
    ``docs/``, ``~/docs``) → its absolute path, which the service reads against the index's
    roots (``Docshelf.root_relative``); a server running in another folder could not resolve
    it. Anything else (``guides/``, a path as the index stores it) is sent as typed."""
    from pathlib import Path

    here = Path(value).expanduser()
    try:
        if not value.strip() or not here.exists():
            return value
        absolute = str(here.resolve())
        return absolute + "/" if here.is_dir() and absolute != "/" else absolute
    except (OSError, RuntimeError):  # unreadable, a symlink loop: as typed
        return value


def parse_search(args: list[str]) -> SearchCall | None:
    """``args`` as a ``SearchCall``, or None when it is not a plain ``search`` (then the full CLI runs)."""
    hoisted = hoist_global_options(args)
    part = _global_part(hoisted)
    if part is None:
        return None
    settings_args, verbose, i = part
    if hoisted[i : i + 1] != ["search"]:
        return None
    request: dict[str, Any] = dict(SEARCH_DEFAULTS)
    given: set[str] = set()
    positional: list[str] = []
    as_json = False
    rest = hoisted[i + 1 :]
    j = 0
    while j < len(rest):
        arg = rest[j]
        if arg == "--":
            positional.extend(rest[j + 1 :])
            break
        if not arg.startswith("-") or arg == "-":
            if arg == "-":
                return None
            positional.append(arg)
        elif arg == "--json":
            if as_json:
                return None
            as_json = True
        else:
            name, eq, value = arg.partition("=")
            if not eq:
                if j + 1 >= len(rest) or rest[j + 1].startswith("-"):
                    return None
                name, value = arg, rest[j + 1]
                j += 1
            elif not name.startswith("--"):  # -k=5: Click reads "=5"; let it say so
                return None
            spec = SEARCH_OPTIONS.get(name)
            if spec is None:
                return None
            target, kind, multiple = spec
            if kind is not str and not _PLAIN_NUMBER[kind].match(value):
                return None  # "1e3", " 5", "5_0", "nan": converters differ; let the CLI's decide
            converted = kind(value) if target != "path_prefix" else typed_path(value)
            if multiple:
                request.setdefault(target, []).append(converted)
            elif target in given:
                return None  # a repeated single option: leave Click's rule to Click
            else:
                request[target] = converted
            given.add(target)
        j += 1
    if len(positional) != 1:
        return None
    request["query"] = positional[0]
    return SearchCall(settings_args, verbose, request, as_json)
