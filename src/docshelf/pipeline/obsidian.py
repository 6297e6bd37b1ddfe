"""What an Obsidian vault means by its folders: templates to skip, and the PARA folder of a note.

A root is a vault when it has an ``.obsidian`` folder. Its template folder (from Obsidian's
core Templates plugin, ``.obsidian/templates.json``, or the Templater plugin's settings; else
a top-level ``templates/``) holds placeholders such as ``{{title}}``, not knowledge, so
discovery skips it. ``.obsidian`` and ``.trash`` are skipped for every root.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

# 1_Projects, 2-Areas, "3 Resources", 04_Archive, Projects … (the PARA method's top folders)
_PARA = re.compile(r"^(\d+[\s._-]*)?(projects?|areas?|resources?|archives?)\b", re.I)


def is_vault(root: Path) -> bool:
    return (Path(root) / ".obsidian").is_dir()


def template_folders(root: Path) -> set[str]:
    """Root-relative POSIX folders holding templates (lower-cased), empty for a non-vault."""
    root = Path(root)
    if not is_vault(root):
        return set()
    found: set[str] = set()
    for settings, key in ((".obsidian/templates.json", "folder"),
                          (".obsidian/plugins/templater-obsidian/data.json", "templates_folder")):
        try:
            value = json.loads((root / settings).read_text(encoding="utf-8")).get(key)
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str) and value.strip("/ "):
            found.add(value.strip("/ ").lower())
    return found or {"templates"}


def para_folder(rel_path: str) -> str | None:
    """The top-level PARA folder a note sits in (``1_Projects``), or None."""
    top, sep, _ = rel_path.partition("/")
    return top if sep and _PARA.match(top) else None


def _para_kind(name: str) -> str | None:
    """``"1_Projects"``, ``"projects"``, ``"Project"`` → ``"project"``: the PARA category a folder name means."""
    match = _PARA.match(name.strip())
    return match.group(2).lower().rstrip("s") if match and match.end() == len(name.strip()) else None


def match_para_folder(name: str, folders: list[str]) -> str | None:
    """The vault folder among ``folders`` that ``name`` means: itself (any case), else the one
    of the same category (``Projects`` or ``projects`` for ``1_Projects``), when only one is."""
    want = name.strip().strip("/")
    same = [f for f in folders if f.lower() == want.lower()]
    if len(same) == 1:
        return same[0]
    kind = _para_kind(want)
    alike = [f for f in folders if kind and _para_kind(f) == kind]
    return alike[0] if len(alike) == 1 else None
