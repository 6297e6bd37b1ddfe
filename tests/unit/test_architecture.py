"""Layering guards: the core never imports an interface, and the public API is what it says."""

from __future__ import annotations

import ast
from pathlib import Path

import docshelf

SRC = Path(docshelf.__file__).parent
INTERFACE_PACKAGES = ("typer", "rich", "mcp", "fastapi", "uvicorn", "starlette")


def imports_of(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_does_not_import_interfaces():
    offenders = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("interfaces/"):
            continue
        bad = imports_of(path) & set(INTERFACE_PACKAGES)
        if bad and not rel.startswith("live/"):
            offenders[rel] = sorted(bad)
    assert offenders == {}


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
