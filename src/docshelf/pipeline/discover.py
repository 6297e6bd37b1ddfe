"""Walk roots and decide which files become documents, and why the others do not.

Ignore rules follow git: ``.gitignore`` files at any depth apply to their own
subtree, deeper files win, ``!pattern`` re-includes, and nothing inside an
ignored directory can be re-included. ``.docshelfignore`` files use the same
syntax and win over a ``.gitignore`` in the same directory. Symlinks never lead
out of a root, and symlinked directories are not followed (no loops, no
duplicates). Everything skipped for a reason the user may not expect (size,
format, symlinks) is reported; ignored files are silent because they were asked for.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pathspec import GitIgnoreSpec

from ..errors import SourceError
from ..models import SourceFile
from .built_site import BuiltSites
from .obsidian import template_folders
from .parsers import SNIFF_BYTES, ParserRegistry

logger = logging.getLogger(__name__)

DEFAULT_EXCLUDED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", ".obsidian", ".trash", ".venv", "__pycache__",
    ".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".idea", ".ipynb_checkpoints",
})
"""Directory names never entered. Any directory holding ``pyvenv.cfg`` (a virtualenv
such as ``venv/`` or ``env/``) is skipped as well."""
DEFAULT_EXCLUDED_FILES = frozenset({".DS_Store"})
IGNORE_FILES = (".gitignore", ".docshelfignore")
"""Read in this order per directory; later lines win, so ``.docshelfignore`` overrides."""


@dataclass
class Discovery:
    """Files to index, sorted by (root, rel_path), and skipped rel paths → reason."""

    files: list[SourceFile] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    skipped_by_root: dict[str, dict[str, str]] = field(default_factory=dict)
    """The same reasons per root (absolute path): what ``docshelf status`` keeps showing."""

    def skip(self, root: Path, rel: str, reason: str) -> None:
        self.skipped[rel] = reason
        self.skipped_by_root.setdefault(str(root), {})[rel] = reason


def _decide(spec: GitIgnoreSpec | None, rel: str, is_dir: bool) -> bool | None:
    """True: ignored; False: re-included by a ``!`` pattern; None: no pattern matched."""
    if spec is None:
        return None
    return spec.check_file(rel + "/" if is_dir else rel).include


class IgnoreRules:
    """The ignore rules of one root, with ignore files read once per directory.

    A file watcher keeps one instance per root and asks ``is_ignored`` for each
    changed path; call ``clear()`` when a ``.gitignore``/``.docshelfignore`` changes.
    """

    def __init__(self, root: Path, *, exclude: Sequence[str] = (),
                 default_excludes: bool = True) -> None:
        self.root = Path(root)
        self.default_excludes = default_excludes
        self._exclude = GitIgnoreSpec.from_lines(list(exclude)) if exclude else None
        self._specs: dict[str, GitIgnoreSpec | None] = {}
        self._chains: dict[str, tuple[tuple[int, GitIgnoreSpec], ...]] = {}
        self._templates = template_folders(self.root) if default_excludes else set()

    def clear(self) -> None:
        """Forget cached ignore files (after one was created, edited or deleted)."""
        self._specs.clear()
        self._chains.clear()

    def is_ignored(self, rel_path: str, *, is_dir: bool = False) -> bool:
        """Whether ``rel_path`` (POSIX, relative to the root) is ignored, ancestors included."""
        parts = [p for p in rel_path.strip("/").split("/") if p not in ("", ".")]
        if not parts:
            return False
        for i in range(1, len(parts)):
            if self.ignored_entry("/".join(parts[:i]), is_dir=True):
                return True
        return self.ignored_entry("/".join(parts), is_dir=is_dir)

    def ignored_entry(self, rel: str, *, is_dir: bool) -> bool:
        """Like ``is_ignored`` but assumes the parent directories are not ignored (walks)."""
        parent, _, name = rel.rpartition("/")
        return self.ignored_in(self.specs_for(parent), rel, name, is_dir=is_dir)

    def specs_for(self, folder: str) -> tuple[tuple[int, GitIgnoreSpec], ...]:
        """The ignore files that apply inside ``folder``, deepest first, as (prefix length, spec).

        Found once per folder, so a walk matches each entry against ready specs only.
        """
        chain = self._chains.get(folder)
        if chain is None:
            parts = folder.split("/") if folder else []
            chain = tuple(
                (len(base) + 1 if base else 0, spec)
                for depth in range(len(parts), -1, -1)  # deepest ignore file first
                if (spec := self._spec(base := "/".join(parts[:depth]))) is not None
            )
            self._chains[folder] = chain
        return chain

    def ignored_in(self, chain: tuple[tuple[int, GitIgnoreSpec], ...], rel: str, name: str, *, is_dir: bool) -> bool:
        """Whether ``rel`` (whose folder's ``specs_for`` is ``chain``) is ignored."""
        if self.default_excludes:
            if is_dir and (name in DEFAULT_EXCLUDED_DIRS or _is_file(self.root / rel / "pyvenv.cfg")):
                return True
            if not is_dir and name in DEFAULT_EXCLUDED_FILES:
                return True
            if is_dir and rel.lower() in self._templates:
                return True
        decision = _decide(self._exclude, rel, is_dir)
        if decision is not None:
            return decision
        for cut, spec in chain:
            decision = _decide(spec, rel[cut:], is_dir)
            if decision is not None:
                return decision
        return False

    def _spec(self, base: str) -> GitIgnoreSpec | None:
        if base not in self._specs:
            lines: list[str] = []
            for name in IGNORE_FILES:
                path = self.root / base / name
                try:
                    lines += path.read_text(encoding="utf-8", errors="replace").splitlines()
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    logger.warning("cannot read %s: %s", path, exc)
            self._specs[base] = GitIgnoreSpec.from_lines(lines) if lines else None
        return self._specs[base]


def _is_file(path: Path) -> bool:
    """``Path.is_file`` that answers False for an unreadable folder instead of raising."""
    try:
        return path.is_file()
    except OSError:
        return False


def display_name(rel: str) -> str:
    """``rel`` printable and storable: bytes that are not UTF-8 shown as ``\\xNN``."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def is_ignored(root: Path, rel_path: str, *, is_dir: bool = False, exclude: Sequence[str] = (),
               default_excludes: bool = True) -> bool:
    """One-off check of one path against a root's rules (reads the ignore files each call).

    For repeated checks (a watcher) keep an ``IgnoreRules`` instead.
    """
    rules = IgnoreRules(root, exclude=exclude, default_excludes=default_excludes)
    return rules.is_ignored(rel_path, is_dir=is_dir)


def _size_reason(max_bytes: int) -> str:
    return f"larger than the {max_bytes / 1_000_000:g} MB size cap"


class _Walker:
    def __init__(self, registry: ParserRegistry, max_bytes: int, result: Discovery,
                 skip: Sequence[Path] = ()) -> None:
        self.registry = registry
        self.max_bytes = max_bytes
        self.result = result
        self.skip = {Path(p).expanduser().resolve() for p in skip}
        self._skip_strings = {str(p) for p in self.skip}  # compared with DirEntry.path, no Path per entry
        self._suffixes = frozenset(registry.suffixes)
        self.sites = BuiltSites()

    def consider(self, root: Path, rel: str, entry: os.DirEntry | None = None) -> None:
        """Add ``root/rel`` (a regular file or a link to one) unless size or format rule it out.

        ``entry``: the walk's DirEntry for it; with it no Path is built unless the suffix is unknown.
        """
        try:
            stat = entry.stat() if entry is not None else (root / rel).stat()
            if stat.st_size > self.max_bytes:
                self.result.skip(root, rel, _size_reason(self.max_bytes))
                return
            # A known suffix settles it without a Path; anything else asks the registry (and sniffs).
            if os.path.splitext(rel)[1].lower() not in self._suffixes and self.registry.for_file(path := root / rel) is None:
                with path.open("rb") as handle:
                    head = handle.read(SNIFF_BYTES)
                if self.registry.for_file(path, head) is None:
                    self.result.skip(root, rel, "unsupported format")
                    return
        except OSError as exc:
            self.result.skip(root, rel, f"unreadable ({exc.strerror or exc})")
            return
        self.result.files.append(SourceFile(root, rel, stat.st_size, stat.st_mtime_ns))

    def walk(self, root: Path, rules: IgnoreRules, start: str = "") -> None:
        """Walk ``root`` (or only its subtree ``start``; the caller checked it is not ignored)."""
        stack = [start.strip("/")]
        while stack:
            prefix = stack.pop()
            try:
                with os.scandir(root / prefix) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as exc:
                self.result.skip(root, prefix or ".", f"unreadable ({exc.strerror or exc})")
                continue
            chain = rules.specs_for(prefix)  # this folder's ignore files, looked up once
            # A built site's own indexes and copies of its pages (built_site.py), when this folder is one's root.
            site = self.sites.in_folder(root / prefix, [e.name for e in entries]) if rules.default_excludes else {}
            subdirs = []
            for entry in entries:
                name = entry.name
                rel = f"{prefix}/{name}" if prefix else name
                if not rel.isascii() and rel != display_name(rel):  # the store, JSON and terminals need UTF-8
                    self.result.skip(root, display_name(rel), "file name is not valid UTF-8 (rename it)")
                    continue
                try:
                    is_dir = entry.is_dir()  # follows symlinks
                    is_file = entry.is_file()
                    is_link = entry.is_symlink()
                except OSError as exc:
                    self.result.skip(root, rel, f"unreadable ({exc.strerror or exc})")
                    continue
                if not is_dir and name in IGNORE_FILES:
                    continue
                if rules.ignored_in(chain, rel, name, is_dir=is_dir) or entry.path in self._skip_strings:
                    continue
                if name in site:
                    self.result.skip(root, rel + "/" if is_dir else rel, site[name])
                    continue
                if is_link:
                    try:
                        outside = not Path(entry.path).resolve().is_relative_to(root)
                    except (OSError, RuntimeError):  # a loop (3.11 raises RuntimeError)
                        outside = False
                    if outside:
                        self.result.skip(root, rel, "symlink outside the root")
                        continue
                    if not (is_dir or is_file):
                        self.result.skip(root, rel, "broken symlink")
                        continue
                    if is_dir:
                        self.result.skip(root, rel, "symlinked directory (not followed)")
                        continue
                if is_dir:
                    subdirs.append(rel)
                elif is_file:
                    self.consider(root, rel, entry)
                else:
                    self.result.skip(root, rel, "not a regular file")
            stack.extend(reversed(subdirs))


def discover(
    roots: Sequence[Path],
    *,
    registry: ParserRegistry,
    max_bytes: int = 20_000_000,
    exclude: Sequence[str] = (),
    default_excludes: bool = True,
    skip: Sequence[Path] = (),
) -> Discovery:
    """Find the files under ``roots`` that docshelf can index.

    A root may be a single file: its root is then its parent directory and ignore
    rules do not apply to it (it was named explicitly). ``exclude`` holds extra
    gitignore-style patterns relative to each root; they win over ignore files.
    ``skip`` names folders and files never entered (docshelf's own index and logs,
    even when they lie inside a root).
    Raises SourceError for a root that does not exist.
    """
    result = Discovery()
    walker = _Walker(registry, max_bytes, result, skip)
    for given in roots:
        given = Path(given).expanduser()
        if not given.exists():
            raise SourceError(str(given), "no such file or directory; check the path")
        if given.is_dir():
            root = given.resolve()
            walker.walk(root, IgnoreRules(root, exclude=exclude, default_excludes=default_excludes))
            continue
        root = given.absolute().parent.resolve()
        if given.is_symlink() and not given.resolve().is_relative_to(root):
            result.skip(root, given.name, "symlink outside the root")
        elif given.is_file():
            walker.consider(root, given.name)
        else:
            result.skip(root, given.name, "not a regular file")
    unique = {(str(f.root), f.rel_path): f for f in result.files}
    result.files = [unique[key] for key in sorted(unique)]
    return result
