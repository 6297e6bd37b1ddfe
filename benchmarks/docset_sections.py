"""List a docs-folder set's sections with their line extents, or fill gold lines in questions.

    python benchmarks/docset_sections.py benchmarks/docsets/starlette          # every section
    python benchmarks/docset_sections.py benchmarks/docsets/starlette --fill   # questions.jsonl

A section runs from its heading line through the line before the next heading (any level),
as the parsers see headings (so a ``#`` inside a code fence is no heading). ``--fill`` sets
``start_line``/``end_line`` of every answerable question from its ``path`` and ``heading``
(which must name exactly one section of that file) and rewrites questions.jsonl.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from docshelf.pipeline.parsers import default_registry


def sections(docs: Path) -> dict[str, list[tuple[str, int, int]]]:
    """path → [(heading text, start line, end line)] in reading order."""
    registry = default_registry()
    out: dict[str, list[tuple[str, int, int]]] = {}
    for file in sorted(p for p in docs.rglob("*") if p.is_file()):
        rel = file.relative_to(docs).as_posix()
        try:
            doc = registry.parse(file, file.read_bytes())
        except Exception:  # noqa: BLE001 - not a parseable document
            continue
        total = len(file.read_text(encoding="utf-8", errors="replace").splitlines())
        heads = [(b.text.lstrip("#").strip(), b.start_line) for b in doc.blocks if b.kind == "heading" and b.start_line]
        out[rel] = [(h, s, (heads[i + 1][1] - 1) if i + 1 < len(heads) else total) for i, (h, s) in enumerate(heads)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("docset", type=Path)
    ap.add_argument("--fill", action="store_true", help="fill gold lines in questions.jsonl from path + heading")
    args = ap.parse_args()
    table = sections(args.docset / "docs")
    if not args.fill:
        for rel, secs in table.items():
            for h, s, e in secs:
                print(f"{rel}:{s}-{e}\t{h}")
        return 0
    qfile = args.docset / "questions.jsonl"
    rows = [json.loads(line) for line in qfile.read_text().splitlines() if line.strip()]
    bad = 0
    for row in rows:
        if row.get("kind") == "unanswerable":
            continue
        found = [(s, e) for h, s, e in table.get(row["path"], []) if h == row["heading"]]
        if len(found) != 1:
            print(f"{row['query']!r}: {len(found)} sections named {row['heading']!r} in {row['path']}", file=sys.stderr)
            bad += 1
            continue
        row["start_line"], row["end_line"] = found[0]
    qfile.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
