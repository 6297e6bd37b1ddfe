"""The Typer app every ``docshelf`` command module registers on, and what they share.

``cli.py`` (index, search, …), ``cli_serve.py`` (serve, install), ``cli_doctor.py`` and
``cli_eval.py`` all import from here and never from each other. Global options
(``--index-dir``, ``--config``, ``--model``, ``--device``, ``-v``) are accepted before or after the
command: ``GlobalOptionsGroup`` moves them to the front before Click parses.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from typer.core import TyperGroup

from .. import __version__
from .output import to_jsonable

# Global options: name → takes a value. Kept in step with ``main_options`` below.
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


class GlobalOptionsGroup(TyperGroup):
    """The top-level group: global options work anywhere on the command line."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_global_options(args))


app = typer.Typer(
    name="docshelf",
    cls=GlobalOptionsGroup,
    help="Local-first documentation search for AI agents: index folders, search them, serve them over MCP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)


class State:
    """The global options of this invocation."""

    config: Optional[Path] = None
    index_dir: Optional[Path] = None
    model: Optional[str] = None
    device: Optional[str] = None


state = State()


def settings(**overrides: Any):
    """Settings from the config file, the environment and the global options."""
    from ..config import load_settings

    return load_settings(state.config, index_dir=state.index_dir, model=state.model, device=state.device, **overrides)


def service(rebuild: bool = False, create: bool = False, **overrides: Any):
    """The ``Docshelf`` for this invocation: a reader unless ``create`` (only ``index`` writes).

    ``rebuild=True`` is for ``index --force``, which starts over whatever the index holds.
    """
    from ..service import Docshelf

    return Docshelf(settings(**overrides), rebuild=rebuild, create=create)


def close_server(runtime: Any) -> None:
    """Stop a server's runtime; if a write is still running, leave without tearing down native threads."""
    import os

    stopped = runtime.close()
    logging.shutdown()
    if not stopped:
        os._exit(0)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(to_jsonable(data), indent=2, ensure_ascii=False) + "\n")


def verbosity() -> int:
    """0, 1 or 2: how many ``-v`` were given (read back from the root logger's level)."""
    level = logging.getLogger().level
    return 0 if level >= logging.WARNING or level == logging.NOTSET else 1 if level >= logging.INFO else 2


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"docshelf {__version__}\n")
        raise typer.Exit()


@app.callback()
def main_options(
    config: Annotated[Optional[Path], typer.Option("--config", "-c", help="TOML config file.")] = None,
    index_dir: Annotated[
        Optional[Path], typer.Option("--index-dir", envvar="DOCSHELF_INDEX_DIR", help="Where the index lives.")
    ] = None,
    model: Annotated[Optional[str], typer.Option("--model", help="Embedding model (default all-MiniLM-L6-v2).")] = None,
    device: Annotated[
        Optional[str],
        typer.Option("--device", help="Where the packaged model runs: cpu, cuda (the gpu extra) or auto (default)."),
    ] = None,
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True, help="More logging on stderr.")] = 0,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Global options; they may also follow the command (``docshelf index PATH --index-dir X``)."""
    if device is not None and device not in ("cpu", "cuda", "auto"):
        raise typer.BadParameter(f"{device!r} is not one of cpu, cuda, auto", param_hint="'--device'")
    state.config, state.index_dir, state.model, state.device = config, index_dir, model, device
    level = logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
