"""The Typer app every ``docshelf`` command module registers on, and what they share.

``cli.py`` (index, search, …), ``cli_serve.py`` (serve, install), ``cli_doctor.py`` and
``cli_eval.py`` all import from here and never from each other. Global options
(``--index-dir``, ``--config``, ``--model``, ``--device``, ``-v``) are accepted before or after the
command: ``GlobalOptionsGroup`` moves them to the front before Click parses.
"""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from .. import __version__
from .cli_args import GLOBAL_OPTIONS, configure_logging, hoist_global_options  # noqa: F401 - GLOBAL_OPTIONS re-exported
from .output import json_text


class GlobalOptionsGroup(TyperGroup):
    """The top-level group: global options work anywhere on the command line."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoist_global_options(args))


def plain_type(shown: str | None) -> str | None:
    """``<list[str]>`` → ``<str>``, ``<list[Path]>`` → ``<path>``: a repeatable option or a list
    argument takes one value each time, and a reader does not need Python's type names."""
    if not shown:
        return shown
    return re.sub(r"list\[([^\]]*)\]", r"\1", shown).replace("Path", "path")


def _flags_show_no_type() -> None:
    """Typer 0.29 prints a type after every option (``--force <bool>``, ``-v <int>``), which reads
    as if a flag took a value; a flag (or a counted ``-v``) shows none. Older Typers print none
    already and have no ``display_type_rich``, so nothing is changed there."""
    option = getattr(typer.core, "TyperOption", None)
    shown = getattr(option, "display_type_rich", None)
    if shown is None or getattr(shown, "_docshelf", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        return plain_type(shown(self, ctx))

    display_type_rich._docshelf = True  # type: ignore[attr-defined]
    option.display_type_rich = display_type_rich


def _arguments_read_as_words() -> None:
    """Typer 0.29 writes a required argument as ``{query}`` in usage lines (``docshelf search
    [OPTIONS] {query}``), a placeholder syntax no person writes; show ``QUERY``, ``[PATHS]...``
    as Click and most tools do. Older Typers have no ``_usage_display_name`` and print these already."""
    argument = getattr(typer.core, "TyperArgument", None)
    usage = getattr(argument, "_usage_display_name", None)
    if usage is None or getattr(usage, "_docshelf", False):
        return

    def name_of(self: Any) -> str:
        return self.metavar if self.metavar is not None else (self.name or "").upper()

    def usage_name(self: Any) -> str:
        name = name_of(self) if self.required else f"[{name_of(self)}]"
        return name + ("..." if self.nargs != 1 else "")

    def rich_name(self: Any) -> str:
        return name_of(self) + ("..." if self.metavar is None and self.nargs != 1 else "")

    usage_name._docshelf = True  # type: ignore[attr-defined]
    argument._usage_display_name = usage_name
    if hasattr(argument, "_rich_display_name"):
        argument._rich_display_name = rich_name
    typed = getattr(argument, "display_type_rich", None)
    if typed is not None:
        argument.display_type_rich = lambda self, ctx: plain_type(typed(self, ctx))


_flags_show_no_type()
_arguments_read_as_words()

app = typer.Typer(
    name="docshelf",
    cls=GlobalOptionsGroup,
    help="Local-first documentation search for AI agents: index folders, search them, serve them over MCP.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class LazyConsole:
    """A Rich ``Console`` made on first use: ``--json`` output, and a search a running server
    answers, never import Rich (a tenth of such a command's start-up)."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Any = None

    @property
    def console(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


def escape(text: str) -> str:
    """``rich.markup.escape``, imported when first needed."""
    from rich.markup import escape as rich_escape

    return rich_escape(text)


out = LazyConsole(soft_wrap=True)
err = LazyConsole(stderr=True, soft_wrap=True)


class State:
    """The global options of this invocation."""

    config: Optional[Path] = None
    index_dir: Optional[Path] = None
    model: Optional[str] = None
    device: Optional[str] = None
    settings_args: Optional[list[str]] = None  # those options as typed (cli_args.settings_args_of)


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
    sys.stdout.write(json_text(data))


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
    configure_logging(verbose)
