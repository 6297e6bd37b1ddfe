"""`pip install docshelf` (no extras) must bring every library the default path imports.

The test extra installs more (PostgreSQL, Qdrant, stemmers for them), so a missing core
dependency passes every other test and only fails for a user: the typo check imported
``snowballstemmer`` while only the extras declared it.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "docshelf"
# Modules that are only imported when their extra is chosen (store URL, model name, reranker).
OPTIONAL = {
    "stores/postgres_store.py": "postgres", "stores/pg_copy.py": "postgres", "stores/pg_sql.py": "postgres",
    "stores/qdrant_store.py": "qdrant", "embedders/sentence_transformers.py": "sentence-transformers",
    "search/rerank.py": "sentence-transformers",
}


def _name(requirement: str) -> str:
    return re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _core_closure() -> set[str]:
    """Distributions that the core dependencies of pyproject.toml install, transitively."""
    todo = [_name(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [_name(r) for r in requires if "extra ==" not in r]
    return seen


def _imports(path: Path) -> set[str]:
    tops = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            tops |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            tops.add(node.module.split(".")[0])
    return tops - set(sys.stdlib_module_names) - {"docshelf"}


def test_every_library_the_core_imports_comes_with_the_core_dependencies():
    closure = _core_closure()
    providers = metadata.packages_distributions()
    missing = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel in OPTIONAL:
            continue
        for module in _imports(path):
            dists = {d.lower().replace("_", "-") for d in providers.get(module, [])}
            if not dists & closure:
                missing.setdefault(module, []).append(rel)
    assert not missing, f"imported by the core but not installed by `pip install docshelf`: {missing}"
