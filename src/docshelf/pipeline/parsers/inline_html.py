"""HTML written inside Markdown → the text a reader sees on the rendered page.

Documentation sites mix raw HTML into Markdown: ``<abbr title="…">ASGI</abbr>``,
``<details><summary>Why?</summary>``, ``<div class="termy">`` wrappers around console
examples, ``<kbd>Ctrl</kbd>``, ``<!-- comments -->``. The browser shows only the text
between the tags, so that is what is indexed: known HTML elements lose their tags (their
attributes are never shown), ``<script>``/``<style>``/``<svg>`` lose their content too,
entities are decoded, and inline code spans are left exactly as written. A ``<Type>``
that is no HTML element (``List<String>``, ``<your-app>``) is kept: it is probably prose.

Terminal sessions drawn in HTML (```` ```console```` blocks whose output is coloured with
``<font color=…>``/``<span style=…>`` and escaped with ``&lt;``, as FastAPI-style sites
render them live) read as the terminal shows them too: :func:`terminal_text`.

Also here, because it is the same "outside code spans" rewrite: pymdownx.inlinehilite's
``#!python`` language prefix inside a code span is dropped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

# Elements whose tags vanish but whose text stays; those in _INLINE join the text around them.
_INLINE = frozenset(
    "a abbr acronym b bdi bdo big cite code data del dfn em font i ins kbd mark q s samp small span strike "
    "strong sub sup time tt u var".split()
)
_BLOCK = frozenset(
    "address article aside blockquote br caption center col colgroup dd details dialog div dl dt "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr img input label legend li main nav ol p "
    "picture pre section source summary table tbody td tfoot th thead tr ul video audio wbr iframe "
    "button select option track embed object param noscript".split()
)
_HIDDEN = ("script", "style", "svg", "template")
_TAG = re.compile(r"</?(?P<name>[A-Za-z][\w-]*)(?:\s(?:[^<>\"']|\"[^\"]*\"|'[^']*')*)?/?>")
_HIDDEN_ELEMENT = re.compile(rf"<(?P<name>{'|'.join(_HIDDEN)})\b[^>]*>.*?</(?P=name)\s*>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)  # unclosed: the page shows it as text (CommonMark)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_HILITE = re.compile(r"^(`+)\s*#!\w[\w+-]*\s+")
_ENTITY = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]{1,31});")


def outside_code_spans(text: str, change: Callable[[str], str]) -> str:
    """``text`` with ``change`` applied to everything but its inline code spans."""
    if "`" not in text:
        return change(text)
    out: list[str] = []
    at = 0
    for match in _CODE_SPAN.finditer(text):
        out.append(change(text[at : match.start()]))
        out.append(_HILITE.sub(r"\1", match.group(0)))
        at = match.end()
    out.append(change(text[at:]))
    return "".join(out)


def _strip(text: str) -> str:
    if "<" in text:
        text = _HIDDEN_ELEMENT.sub("", text)

        def tag(match: re.Match[str]) -> str:
            name = match.group("name").lower()
            if name in _INLINE:
                return ""
            return "\x01" if name in _BLOCK else match.group(0)  # a space, not indentation

        text = _TAG.sub(tag, text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    return text


def strip_html(text: str) -> str:
    """Markdown ``text`` with its raw HTML read as the page shows it (see the module docstring).

    Lines left empty by the stripping are dropped; the rest keep their Markdown.
    """
    if "<" not in text and "&" not in text and "#!" not in text:
        return text
    stripped = _COMMENT.sub("", text) if "<!--" in text else text  # a comment hides its code spans too
    stripped = outside_code_spans(stripped, _strip)
    if stripped == text:
        return text
    lines = []
    for line in stripped.split("\n"):
        body = line.replace("\x01", " ").strip()
        if body:
            lines.append(line[: len(line) - len(line.lstrip(" \t"))] + " ".join(body.split()))
    return "\n".join(lines)


_TERMINALS = frozenset({"console", "shell-session", "sh-session", "bash", "sh", "shell", "zsh", "text", "termy"})
_COLOUR_TAG = re.compile(r"</(?:font|span|b)>")


def terminal_text(fence: str) -> str:
    """A fenced terminal session without the colouring tags its output was drawn with.

    Only console-like fences that close a ``<font>``, ``<span>`` or ``<b>`` are touched: an
    ``html`` block, or a session that prints ``<b>`` once, keeps its text.
    """
    first, _, rest = fence.partition("\n")
    language = (first.lstrip(" `~").split() or [""])[0].lower()
    if language not in _TERMINALS or len(_COLOUR_TAG.findall(rest)) < 2:
        return fence
    return first + "\n" + _strip(rest).replace("\x01", " ")
