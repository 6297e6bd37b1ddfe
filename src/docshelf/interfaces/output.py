"""Turning service results into JSON-ready dicts and text (shared by the CLI and servers).

Light on purpose (no models, pydantic or Rich at import): the thin ``docshelf search``
client (``cli_entry.py``) prints through ``json_text`` too.
"""

from __future__ import annotations

import json
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..models import Hit


def to_jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return {k: to_jsonable(v) for k, v in asdict(value).items()}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value


def plural(count: int, noun: str) -> str:
    """``1 chunk``, ``2 chunks``: a summary line that reads as a sentence."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def json_text(data: Any) -> str:
    """What ``--json`` prints: the same bytes whoever computed ``data`` (this process or a server)."""
    return json.dumps(to_jsonable(data), indent=2, ensure_ascii=False) + "\n"


def citation(hit: Hit) -> str:
    """``path › heading › sub (p. 3, lines 10-24)`` — what a reader needs to find the passage."""
    where = hit.path
    if hit.heading_path:
        where += " › " + " › ".join(hit.heading_path)
    extra = []
    if hit.page is not None:  # a notebook's "page" is its cell (see parsers/notebook.py)
        if hit.path.lower().endswith(".ipynb"):
            extra.append(f"cell {hit.page}")
        elif label := getattr(hit, "page_label", None):  # the page a reader sees, and where get --page finds it
            extra.append(f"p. {label}, PDF page {hit.page}")
        else:
            extra.append(f"p. {hit.page}")
    if hit.start_line is not None and getattr(hit, "start_col", None) is not None:
        # Inside one very long line: 'get --lines 3:2001-4000' reads exactly these characters.
        extra.append(f"line {hit.start_line}, chars {hit.start_col}-{hit.end_col}")
    elif hit.start_line is not None:
        extra.append(f"lines {hit.start_line}-{hit.end_line}")
    return where + (f" ({', '.join(extra)})" if extra else "")
