"""Layering guards: the core never imports an interface, and the public API is what it says."""

from __future__ import annotations

import ast
from pathlib import Path

import docshelf

SRC = Path(docshelf.__file__).parent
INTERFACE_PACKAGES = ("typer", "rich", "mcp", "fastapi", "uvicorn", "starlette")


def imports_of(rel: str, source: str) -> set[str]:
    """Every module the file ``rel`` (relative to the package) imports, relative imports resolved:
    ``from ..interfaces import x`` in ``live/runtime.py`` is ``docshelf.interfaces`` and ``docshelf.interfaces.x``."""
    package = ["docshelf", *Path(rel).parent.parts]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - (node.level - 1)]
                base = ".".join(parent + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return names


def forbidden(imported: set[str]) -> list[str]:
    """The interface modules among ``imported``: our own interfaces package or an interface library."""
    return sorted(
        name for name in imported
        if name == "docshelf.interfaces" or name.startswith("docshelf.interfaces.")
        or name.split(".")[0] in INTERFACE_PACKAGES
    )


def test_core_does_not_import_interfaces():
    """Every package but ``interfaces/`` (``live/``, ``eval/``, ``search/`` … included) is core;
    ``__main__.py`` (``python -m docshelf``) is the command line's entry point, not core."""
    offenders = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("interfaces/") or rel == "__main__.py":
            continue
        bad = forbidden(imports_of(rel, path.read_text()))
        if bad:
            offenders[rel] = bad
    assert offenders == {}


def test_the_guard_sees_relative_and_absolute_imports():
    """The guard itself: a relative import of the interfaces from a core package is caught."""
    cases = {
        "from ..interfaces import cli\n": ["docshelf.interfaces", "docshelf.interfaces.cli"],
        "from ..interfaces.mcp_server import build_server\n": [
            "docshelf.interfaces.mcp_server", "docshelf.interfaces.mcp_server.build_server"],
        "from .. import interfaces\n": ["docshelf.interfaces"],
        "import docshelf.interfaces.cli\n": ["docshelf.interfaces.cli"],
        "def f():\n    from mcp.server import x\n": ["mcp.server", "mcp.server.x"],
        "from ..service import Docshelf\nfrom .writer import WriterLoop\n": [],
    }
    for source, expected in cases.items():
        assert forbidden(imports_of("live/runtime.py", source)) == expected, source
    assert forbidden(imports_of("__init__.py", "from .interfaces import cli\n")) == [
        "docshelf.interfaces", "docshelf.interfaces.cli"]
    assert forbidden(imports_of("search/engine.py", "from ...interfaces import cli\n")) == []  # outside docshelf


def test_public_names_resolve():
    for name in docshelf.__all__:
        assert getattr(docshelf, name).__name__ == name


def test_every_cli_command_has_help_and_is_in_the_readme():
    from docshelf.interfaces.cli import app

    readme = (SRC.parents[1] / "README.md").read_text()
    for command in app.registered_commands:
        name = command.name or command.callback.__name__
        assert command.callback.__doc__, f"`docshelf {name}` has no help text"
        assert f"docshelf {name}" in readme, f"`docshelf {name}` is not in the README"
    for group in app.registered_groups:  # e.g. `docshelf roots` and `docshelf roots remove`
        assert group.typer_instance.registered_callback.callback.__doc__, f"`docshelf {group.name}` has no help text"
        assert f"docshelf {group.name}" in readme, f"`docshelf {group.name}` is not in the README"
        for command in group.typer_instance.registered_commands:
            name = f"{group.name} {command.name or command.callback.__name__}"
            assert command.callback.__doc__, f"`docshelf {name}` has no help text"
            assert f"docshelf {name}" in readme, f"`docshelf {name}` is not in the README"


def test_all_lists_exactly_the_lazy_exports():
    assert sorted(docshelf.__all__) == sorted(docshelf._EXPORTS)


def test_cli_modules_share_cli_app_and_import_nothing_private():
    """`cli_serve` used to import `_settings` and friends from `cli`, and `cli` imported it back."""
    offenders = []
    for path in sorted((SRC / "interfaces").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level and node.module is not None:
                private = [a.name for a in node.names if a.name.startswith("_")]
                # cli_entry.py is the entry point that hands over to cli.main: it may.
                back_to_cli = node.level == 1 and node.module == "cli" and path.stem not in ("cli", "cli_entry")
                if private or back_to_cli:
                    offenders.append(f"{path.name}: from {'.' * node.level}{node.module} import "
                                     f"{', '.join(a.name for a in node.names)}")
    assert offenders == []
