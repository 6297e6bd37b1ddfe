"""A small Obsidian vault, written by the tests: PARA folders, links of every kind, aliases,
nested tags, a glossary, a template folder, the trash, a canvas and an Excalidraw drawing."""

from __future__ import annotations

import json
from pathlib import Path

NOTES = {
    "1_Projects/Apollo/Apollo budget.md": """---
type: project
tags: [budget]
aliases: [Budget 2025]
date: 2025-03-01
---
# Apollo budget

The Apollo programme may spend 4.2 million on launch services this year. #area/finance

## Q3

Q3 spending was frozen after the engine test slipped.
""",
    "1_Projects/Apollo/Mission log.md": """---
type: log
tags: [apollo]
---
# Mission log

The team reviewed [[Apollo budget|the budget]] and the [[Apollo budget#Q3]] freeze.
The launch rehearsal is planned with [[Saturn V]] hardware. ![[diagram.png]]
""",
    "2_Areas/Finance/Overview.md": """---
type: area
---
# Finance overview

Every programme reports against its yearly plan; see [[Budget 2025]] for Apollo.
Old figures live in [[4_Archive/Apollo budget]].
""",
    "3_Resources/definitions/LEO.md": "LEO: low Earth orbit, an orbit below 2,000 km.\n",
    "3_Resources/definitions/Delta-v.md": "---\ntype: definition\n---\nDelta-v: the change in velocity a manoeuvre needs.\n",
    "3_Resources/Saturn V.md": "# Saturn V\n\nThe Saturn V is a three-stage rocket. #area/engineering\n",
    "4_Archive/Apollo budget.md": "# Apollo budget (2019)\n\nThe 2019 budget was 1.1 million.\n",
    "Templates/Daily.md": "# {{date}}\n\n## Tasks\n- [ ] {{title}}\n",
    ".trash/Deleted idea.md": "# Deleted idea\n\nA moon base made of cheese.\n",
    "Sketch.excalidraw.md": """---
excalidraw-plugin: parsed
tags: [excalidraw]
---
==⚠  Switch to EXCALIDRAW VIEW in the MORE OPTIONS menu of this document. ⚠==

# Excalidraw Data
## Text Elements
Fuel depot near the launch pad ^x1y2z3

%%
## Drawing
```compressed-json
N4IgLgngDgpiBcIYA2AA
```
%%
""",
}

CANVAS = {
    "nodes": [
        {"id": "g", "type": "group", "label": "Risks", "x": 0, "y": 400, "width": 600, "height": 300},
        {"id": "a", "type": "text", "text": "Engine test slipped; see [[Mission log]]", "x": 20, "y": 450},
        {"id": "b", "type": "file", "file": "1_Projects/Apollo/Apollo budget.md", "x": 700, "y": 0},
    ],
    "edges": [],
}


def make_vault(root: Path) -> Path:
    """Write the vault under ``root`` and return it."""
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ".obsidian").mkdir(parents=True, exist_ok=True)
    (root / ".obsidian" / "app.json").write_text("{}")
    (root / ".obsidian" / "templates.json").write_text(json.dumps({"folder": "Templates"}))
    (root / "Board.canvas").write_text(json.dumps(CANVAS, indent=2))
    return root
