"""One glob dialect everywhere: gitignore-style patterns (via ``pathspec``).

The same rules apply to ignore files (``.gitignore``/``.docshelfignore``, ``exclude``),
config rules (``collections``/``doc_types`` ``include``) and the ``--glob``/``path_glob``
search filter, always against a path relative to its root:

* a pattern without a slash (``*.md``, ``README.md``) matches the name at any depth;
* a pattern with a slash (``docs/*.md``) is anchored at the root;
* ``*`` and ``?`` never cross ``/``; ``**`` spans folders (``docs/**/*.md``, ``**/vast/**``);
* a pattern ending in ``/`` (``guides/``) matches everything inside such a folder.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from pathspec import GitIgnoreSpec

from .errors import InvalidQuery


@lru_cache(maxsize=512)
def _spec(patterns: tuple[str, ...]) -> GitIgnoreSpec:
    return GitIgnoreSpec.from_lines(list(patterns))


def matches(rel_path: str, patterns: Sequence[str]) -> bool:
    """Whether the root-relative POSIX path matches any of the gitignore-style patterns."""
    return bool(patterns) and _spec(tuple(patterns)).match_file(rel_path)


def to_regex(pattern: str) -> str:
    """One pattern as an anchored regular expression (for stores that filter in SQL).

    Raises InvalidQuery for an empty or negated pattern: a filter selects, it cannot exclude.
    """
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    text = pattern.strip()
    if not text or text.startswith("!") or text.startswith("#"):
        raise InvalidQuery(
            f"path glob {pattern!r} is not a pattern: use gitignore-style globs such as '*.md', "
            "'docs/**/*.md' or 'guides/'"
        )
    try:
        regex, include = GitIgnoreSpecPattern.pattern_to_regex(text)
    except ValueError as exc:  # pathspec's GitIgnorePatternError: e.g. a lone trailing backslash
        raise InvalidQuery(f"path glob {pattern!r} is not a valid gitignore-style pattern: {exc}") from None
    if regex is None or not include:
        raise InvalidQuery(f"path glob {pattern!r} selects nothing")
    return re.sub(r"\(\?P<\w+>", "(", regex)  # plain groups: every regex engine reads them


__all__ = ["matches", "to_regex"]
