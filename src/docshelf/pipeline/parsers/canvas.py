"""Obsidian canvases (``.canvas``, JSON Canvas): the text cards, read as Markdown.

A canvas is a board of cards. Text cards hold Markdown and are what a person reads; file and
link cards only point elsewhere (the file itself is indexed on its own), and the geometry is
noise. Each text card becomes a section headed by its group's label, if any, and its lines
are cited as the card's lines in the canvas file when the JSON is pretty-printed.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...errors import ParseError
from ...models import Block, ParseContext, ParsedDocument
from ._common import decode_text
from .wikilinks import find_wikilinks, link_targets, render_wikilinks


class CanvasParser:
    name = "canvas"
    suffixes = (".canvas",)

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        text = decode_text(path, data)
        try:
            board = json.loads(text)
        except ValueError as exc:
            raise ParseError(str(path), f"not a JSON Canvas file: {exc}") from exc
        nodes = board.get("nodes") if isinstance(board, dict) else None
        if not isinstance(nodes, list):
            raise ParseError(str(path), "not a JSON Canvas file: no 'nodes' list")
        nodes = [n for n in nodes if isinstance(n, dict)]
        groups = [n for n in nodes if n.get("type") == "group" and n.get("label")]
        lines = text.split("\n")
        blocks: list[Block] = []
        links = []
        # Reading order: top to bottom, then left to right, as a person scans a board.
        cards = sorted((n for n in nodes if n.get("type") == "text" and str(n.get("text", "")).strip()),
                       key=lambda n: (_num(n.get("y")), _num(n.get("x"))))
        for card in cards:
            body = str(card["text"])
            links += find_wikilinks(body)
            group = _group_of(card, groups)
            heading = (str(group["label"]),) if group else ()
            line = _line_of(lines, card.get("id"))
            blocks.append(Block("paragraph", render_wikilinks(body).strip(), heading, None, line, line))
        meta = {"format": "canvas"}
        if links:
            meta["links"] = link_targets(links)
        return ParsedDocument(path.stem, tuple(blocks), "canvas", meta)


def _num(value) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _group_of(card: dict, groups: list[dict]) -> dict | None:
    """The smallest group whose box holds the card's top-left corner."""
    x, y = _num(card.get("x")), _num(card.get("y"))
    inside = [g for g in groups
              if _num(g.get("x")) <= x <= _num(g.get("x")) + _num(g.get("width"))
              and _num(g.get("y")) <= y <= _num(g.get("y")) + _num(g.get("height"))]
    return min(inside, key=lambda g: _num(g.get("width")) * _num(g.get("height")), default=None)


def _line_of(lines: list[str], node_id) -> int | None:
    if not node_id:
        return None
    needle = json.dumps(str(node_id))
    for i, line in enumerate(lines, 1):
        if needle in line:
            return i
    return None
