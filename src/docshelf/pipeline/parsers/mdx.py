"""MDX (Docusaurus, Nextra, Storybook docs) read as the rendered page shows it.

An ``.mdx`` page is Markdown with JSX: ``<Tabs>``/``<TabItem label="macOS">`` around the
content, components such as ``<Highlight color="…">text</Highlight>`` or ``<DocCardList />``,
HTML tags whose attributes are JavaScript (``<button onClick={() => go()}>``) and comments
``{/* … */}`` (also a heading's id: ``## Setup {/* #setup */}``). None of that markup is on
the page, so none of it belongs in a chunk, a heading path or a citation: comments are
dropped, component tags lose their markup (a tab keeps its label, as content tabs do:
``macOS:``), and an HTML tag keeps only its name so the raw-HTML reading takes it from there.
Lines are rewritten in place (a dropped line becomes blank), so every line keeps its number.
Code fences and code spans are left alone. MDX 2 and later have no indented code blocks: the
parser of an ``.mdx`` page is told so (:func:`mdx_markdown_it`), and a tab's indented body is
prose. MDX 1 (Docusaurus 1 and 2 betas) had them, and its pages show examples so; an indented
block at the page's top level (outside every component, after a blank line that follows a
heading or paragraph, not a list item's continuation) is read as the code it is
(:func:`fence_indented_code`): nobody indents a top-level paragraph four spaces.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

from .inline_html import outside_code_spans
from .snippets import FenceTracker, Numbered

_EXPR = r"\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}"  # a JS expression, braces nested three deep
_ATTRS = rf"""(?:\s(?:[^<>"'{{}}]|"[^"]*"|'[^']*'|{_EXPR})*)?"""
_TAG = re.compile(rf"<(?P<close>/)?(?:(?P<name>[A-Za-z][\w.:-]*)(?P<attrs>{_ATTRS})\s*(?P<self>/)?)?>")
_TAG_OPEN = re.compile(rf"^\s*<(?P<name>[A-Z][\w.]*)(?P<attrs>{_ATTRS})$")  # attributes go on below
_COMMENT = re.compile(r"\{/\*.*?\*/\}")
_TAG_LINES = 20  # a component tag's attributes span at most this many lines (no blank line among them)
_LABEL = re.compile(r"""\blabel=(?:"(?P<d>[^"]*)"|'(?P<s>[^']*)'|\{["'`](?P<e>[^"'`]*)["'`]\})""")


_IMPORT = re.compile(r"""^import\s+(?:type\s+)?(?:[\w$]+|\{[^}]*\}?|\*\s+as\s+[\w$]+)(?:\s*,\s*\{[^}]*\}?)?\s+from\s+["'][^"']+["']""")
_IMPORT_SIDE = re.compile(r"""^import\s+["'][^"']+["']\s*;?\s*$""")


def reads_as_mdx(lines: Numbered) -> bool:
    """Docusaurus 3 reads ``.md`` files as MDX too: one whose top level imports a component
    (``import Tabs from '@theme/Tabs';``) is MDX whatever its suffix. CommonMark would show
    such a line as a sentence, so no plain Markdown page has one."""
    fences = FenceTracker()
    for text, _ in lines:
        if fences.feed(text):
            continue
        if text.startswith("import") and (_IMPORT.match(text) or _IMPORT_SIDE.match(text)):
            return True
    return False


def mdx_markdown_it() -> MarkdownIt:
    """CommonMark as MDX reads it: no indented code (a tab's indented body is prose)."""
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("code")


_INDENTED = re.compile(r"^(?: {4}|\t)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$)")


def fence_indented_code(lines: Numbered) -> Numbered:
    """The same lines with each top-level indented code block (MDX 1's) fenced: the blank line
    before it becomes the opening fence, the blank line after it (or the page's end) closes it,
    and its lines lose their four spaces, so every line keeps its number. A block with no blank
    line after it, inside a component (a tab's body) or continuing a list item stays as it is."""
    out = list(lines)
    fences = FenceTracker()
    depth = 0  # component tags open around this line
    previous = ""  # the last non-blank line before this one
    i, n = 0, len(lines)
    while i < n:
        text, number = lines[i]
        if fences.feed(text):
            previous = text
            i += 1
            continue
        if (not text.strip() and depth == 0 and i + 1 < n and _INDENTED.match(lines[i + 1][0])
                and lines[i + 1][0].strip() and not lines[i + 1][0].lstrip().startswith(("<", "```", "~~~"))
                and not _INDENTED.match(previous) and not previous.lstrip().startswith("<")
                and not _LIST_ITEM.match(previous)):
            last, j = i + 1, i + 1
            while j < n and (not lines[j][0].strip() or _INDENTED.match(lines[j][0])):
                if lines[j][0].strip():
                    last = j
                j += 1
            if last + 1 == n or not lines[last + 1][0].strip():
                out[i] = ("```", number)
                for k in range(i + 1, last + 1):
                    line, at = lines[k]
                    out[k] = (line[1:] if line.startswith("\t") else line[4:], at)
                if last + 1 < n:
                    out[last + 1] = ("```", lines[last + 1][1])
                previous = ""
                i = last + 2
                continue
        if "<" in text:
            depth = max(0, depth + _depth_change(text))
        if text.strip():
            previous = text
        i += 1
    return out


def _depth_change(text: str) -> int:
    """How many component tags ``text`` leaves open (``<Tabs>`` +1, ``</Tabs>`` -1, ``<X />`` 0)."""
    change = 0
    for match in _TAG.finditer(text):
        name = match.group("name") or ""
        if name[:1].isupper():
            change += -1 if match.group("close") else 0 if match.group("self") else 1
    if _TAG_OPEN.match(text) and not text.rstrip().endswith("/>"):  # attributes go on below
        change += 1
    return change


def normalize_mdx(lines: Numbered) -> Numbered:
    """The same lines with JSX markup and MDX comments read as the page shows them."""
    lines = fence_indented_code(lines)
    out: Numbered = []
    fences = FenceTracker()
    comment = False  # inside a multi-line {/* … */}
    tag: Numbered | None = None  # the lines of a component tag whose attributes span lines
    for text, number in lines:
        if tag is not None:
            tag.append((text, number))
            joined = " ".join(t for t, _ in tag)
            if _TAG.fullmatch(joined.strip()):
                out.extend(("", n) for _, n in tag[:-1])
                out.append((_rewrite(joined), number))
                tag = None
            elif not text.strip() or len(tag) > _TAG_LINES:  # no tag after all: the lines as written
                out.extend(tag)
                tag = None
            continue
        if comment:
            end = text.find("*/}")
            comment = end < 0
            out.append(("" if comment else text[end + 3 :], number))
            continue
        if fences.feed(text):
            out.append((text, number))
            continue
        if _TAG_OPEN.match(text):
            tag = [(text, number)]
            continue
        text = outside_code_spans(text, _rewrite)
        at = text.find("{/*")
        if at >= 0 and "`" not in text[at:]:  # a comment that goes on below this line
            comment = True
            text = text[:at]
        out.append((text if text.strip() else "", number))
    return out + (tag or [])  # a tag still open at the end was none


def _rewrite(text: str) -> str:
    if "{/*" in text:
        text = _COMMENT.sub("", text).rstrip()
    if "<" not in text:
        return text
    only_tag = _TAG.fullmatch(text.strip())
    if only_tag and not only_tag.group("close"):
        label = _LABEL.search(only_tag.group("attrs") or "")
        if label and (only_tag.group("name") or "").endswith(("Tab", "TabItem", "Tabs.Tab")):
            value = label.group("d") or label.group("s") or label.group("e") or ""
            return text[: len(text) - len(text.lstrip())] + value.strip() + ":"
    return _TAG.sub(_tag, text)


def _tag(match: re.Match[str]) -> str:
    name = match.group("name") or ""  # a fragment <> or </> has none
    if not name or name[0].isupper() or "." in name:  # a component: no markup on the page
        return ""
    if "{" not in (match.group("attrs") or ""):
        return match.group(0)  # plain HTML: the raw-HTML reading handles it
    return f"<{'/' if match.group('close') else ''}{name}{'/' if match.group('self') else ''}>"
