"""Obsidian ``[[wikilinks]]``: read them as a person reads the note, and remember where they point.

``[[Apollo budget|the budget]]`` reads "the budget", ``[[Apollo budget]]`` reads "Apollo
budget", ``[[Apollo budget#Q3]]`` reads "Apollo budget > Q3" and ``![[diagram.png]]`` reads
"diagram.png". The targets (``Apollo budget``, ``folder/note``) are kept, unresolved, as the
note's outgoing links: which note a name means depends on the whole vault, so resolution
happens when the vault is read (``docshelf.notes``), not when one file is parsed.

Inline code spans are left alone: a wikilink inside backticks is code, not a link.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# [[target#heading|alias]] with an optional leading ! (an embed); no nesting, no newlines.
WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n|#^]*)((?:[#^][^\[\]\n|]*)?)(?:\|([^\[\]\n]*))?\]\]")
_CODE_SPAN = re.compile(r"(`+)(?:.+?)\1", re.S)


@dataclass(frozen=True)
class WikiLink:
    target: str  # as written: a note name, a path, or empty for a link inside the same note
    heading: str  # "Q3" for [[note#Q3]]; "^block" ids are kept with their caret
    alias: str
    embed: bool

    @property
    def readable(self) -> str:
        if self.alias:
            return self.alias
        label = self.target.rsplit("/", 1)[-1]
        if label.lower().endswith(".md"):
            label = label[:-3]
        if self.heading:
            return f"{label} > {self.heading}" if label else self.heading
        return label


def _parse(match: re.Match[str]) -> WikiLink:
    anchor = match.group(3) or ""
    heading = anchor[1:] if anchor.startswith("#") else anchor
    return WikiLink(
        target=match.group(2).strip(),
        heading=heading.strip(),
        alias=(match.group(4) or "").strip(),
        embed=bool(match.group(1)),
    )


def _outside_code(text: str, fn) -> str:
    """Apply ``fn`` to the parts of ``text`` that are not inline code spans."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(text):
        out.append(fn(text[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(fn(text[last:]))
    return "".join(out)


def render_wikilinks(text: str) -> str:
    """``text`` with each wikilink replaced by what Obsidian shows for it (same line breaks)."""
    if "[[" not in text:
        return text
    return _outside_code(text, lambda part: WIKILINK.sub(lambda m: _parse(m).readable, part))


def find_wikilinks(text: str) -> list[WikiLink]:
    """Every wikilink in ``text`` outside inline code, in order."""
    if "[[" not in text:
        return []
    found: list[WikiLink] = []

    def collect(part: str) -> str:
        found.extend(_parse(m) for m in WIKILINK.finditer(part))
        return part

    _outside_code(text, collect)
    return found


def link_targets(links: list[WikiLink]) -> list[str]:
    """The distinct notes linked to, in first-seen order (links within the note left out)."""
    seen: dict[str, None] = {}
    for link in links:
        if link.target:
            seen.setdefault(link.target, None)
    return list(seen)
