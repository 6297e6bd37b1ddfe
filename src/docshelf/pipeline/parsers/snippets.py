"""Markdown snippet includes, expanded as the site shows them, cited at the including line.

Three syntaxes, each on a line of its own:

- pymdownx.snippets: ``--8<-- "file.md"``, with lines (``"file.py:10:20"``, ``"f:3"`` = 3 to
  the end, ``"f:1:3,7:9"``) or a named section (``"f.py:name"`` between ``--8<-- [start:name]``
  and ``--8<-- [end:name]`` markers), and the block form: ``--8<--`` / one file a line /
  ``--8<--``. A ``;`` before the marker escapes it.
- ``{* path ln[1:5] hl[2] *}`` (FastAPI's docs, markdown-include-variants): the file as a code
  block, its newest variant (``tutorial001_an_py310.py`` for ``tutorial001.py``) when there is
  one; ``ln[...]`` selects lines (``ln[0]``: the whole file, shown as a collapsed preview),
  ``hl[...]`` (highlighting) is ignored.
- ``{! path !}`` and ``{!> path !}`` (mdx_include / markdown-include): the file's text as it is; also
  ``ln[...]``, mdx_include's ``{! path[ln:1-18,21-22] !}`` and markdown-include's
  ``{!path!lines=1 3-5}``.

Section markers (``--8<-- [start:name]``) never show, whichever syntax included the file.
Every produced line is tagged with the line number of the directive, so citations point at
the page that shows the text. A code file included outside a fence is wrapped in one (with
its language), so its ``#`` comments never become headings. Files are read through
:class:`~.includes.Includes`: inside the indexed root only.
"""

from __future__ import annotations

import re
from pathlib import Path

from ._common import Numbered
from .includes import MAX_DEPTH, IncludeRefused, Includes, parse_ranges, select_lines
from .text import LANGUAGES

_SNIPPET = re.compile(r"""^(?P<indent>[ \t]*)(?P<esc>;*)-+8<-+[ \t]+(?P<q>["'])(?P<target>.+?)(?P=q)\s*$""")
_SNIPPET_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<esc>;*)-+8<-+\s*$")
_SECTION_MARK = re.compile(r"-+8<-+\s*\[(?:start|end):[\w-]+\]")
_CURLY = re.compile(r"^(?P<indent>[ \t]*)\{\*\s*(?P<body>.+?)\s*\*\}\s*$")
_BANG = re.compile(r"^(?P<indent>[ \t]*)\{!>?\s*(?P<body>[^!]+?)\s*!(?:\s*lines=(?P<lines>[\d\s-]+))?\}\s*$")
_MDX_LINES = re.compile(r"\[ln:(?P<spec>[\d\s,-]+)\]$")
_OPTION = re.compile(r"\s+(?P<name>ln|hl)\[(?P<spec>[^\]]*)\]")
# a fence may open a list item ("- ```"): its content and closing fence sit at the item's column
_FENCE_OPEN = re.compile(r"^(?P<lead>\s*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?)(?P<fence>`{3,}|~{3,})")
_MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdx", ".txt", ".text"}


class FenceTracker:
    """Follows ``` / ~~~ fences line by line (any indentation: admonition bodies are indented).

    As in CommonMark, a closing fence is indented at most three spaces more than its opener,
    so an indented fence shown inside a fenced example does not close the example. A fence
    that opens a list item (a fence after ``- ``) counts from the item's content column, so its
    indented closing line closes it rather than opening a fence of its own.
    """

    def __init__(self) -> None:
        self.marker: str | None = None
        self.indent = 0

    def feed(self, line: str) -> bool:
        """True when ``line`` is inside a fence or is one of its delimiters."""
        stripped = line.lstrip()
        if self.marker is None:
            match = _FENCE_OPEN.match(line)
            fence = match.group("fence") if match else ""
            if match and not (fence[0] == "`" and "`" in line[match.end() :]):
                self.marker = fence
                self.indent = len(match.group("lead"))
                return True
            return False
        if (stripped.startswith(self.marker) and not stripped.strip().strip(self.marker[0])
                and len(line) - len(stripped) <= self.indent + 3):
            self.marker = None
        return True


def expand_includes(lines: Numbered, includes: Includes, path: Path, depth: int = 0) -> Numbered:
    """``lines`` with every include directive replaced by what it includes (or by nothing)."""
    out: Numbered = []
    fences = FenceTracker()
    i = 0
    while i < len(lines):
        text, number = lines[i]
        in_fence = fences.feed(text)
        block = _SNIPPET_FENCE.match(text)
        if block and not block.group("esc"):
            end = next((j for j in range(i + 1, len(lines)) if _SNIPPET_FENCE.match(lines[j][0])), None)
            if end is not None:
                for target, line_number in lines[i + 1 : end]:
                    target = target.strip()
                    if target and not target.startswith(";"):
                        out.extend(_snippet(target, block.group("indent"), line_number, in_fence, includes,
                                            path, depth))
                i = end + 1
                continue
        produced = _directive(text, number, in_fence, includes, path, depth)
        if produced is None:
            out.append((_unescape(text), number))
        else:
            out.extend(produced)
        i += 1
    return out


def _unescape(text: str) -> str:
    """``;--8<--`` shows as ``--8<--`` (pymdownx's escape)."""
    match = _SNIPPET.match(text) or _SNIPPET_FENCE.match(text)
    if match and match.group("esc"):
        return text.replace(";", "", 1)
    return text


def _directive(text: str, number: int, in_fence: bool, includes: Includes, path: Path,
               depth: int) -> Numbered | None:
    """What one line expands to, or None when it is no include directive."""
    match = _SNIPPET.match(text)
    if match:
        if match.group("esc"):
            return None
        return _snippet(match.group("target"), match.group("indent"), number, in_fence, includes, path, depth)
    match = _CURLY.match(text)
    if match:
        return _file(match.group("body"), None, match.group("indent"), number, in_fence, includes, path,
                     depth, as_code=True)
    match = _BANG.match(text)
    if match:
        return _file(match.group("body"), match.group("lines"), match.group("indent"), number, in_fence,
                     includes, path, depth, as_code=False)
    return None


def _snippet(target: str, indent: str, number: int, in_fence: bool, includes: Includes, path: Path,
             depth: int) -> Numbered:
    name, spec = _split_target(target)
    try:
        found, content = _read(includes, name, path, depth)
        lines = content.split("\n")
        if spec and re.fullmatch(r"[\d:,]+", spec):
            lines = select_lines(lines, parse_ranges(spec, sep=":", single_to_end=True))
        elif spec:
            lines = _section(lines, spec)
        lines = [line for line in lines if not _SECTION_MARK.search(line)]
    except (IncludeRefused, ValueError) as exc:
        includes.refuse(target, number, str(exc))
        return []
    return _place(lines, found, indent, number, in_fence, includes, depth, as_code=False)


def _file(body: str, lines_spec: str | None, indent: str, number: int, in_fence: bool, includes: Includes,
          path: Path, depth: int, *, as_code: bool) -> Numbered:
    """``{* … *}`` and ``{! … !}``: a path, then optional ``ln[...]``/``hl[...]`` options."""
    options = {m.group("name"): m.group("spec") for m in _OPTION.finditer(" " + body)}
    target = _OPTION.sub("", " " + body).strip().strip("\"'")
    bracket = _MDX_LINES.search(target)  # mdx_include: {! file[ln:1-18,21-22] !}
    if bracket:
        target, lines_spec = target[: bracket.start()].rstrip(), bracket.group("spec")
    try:
        found, content = _read(includes, _preferred_variant(includes, target, path) if as_code else target,
                               path, depth)
        lines = content.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if options.get("ln") and options["ln"].strip() != "0":  # ln[0]: only the full-file preview
            lines = select_lines(lines, parse_ranges(options["ln"].replace("-", ":"), sep=":"))
        if lines_spec:
            lines = select_lines(lines, parse_ranges(lines_spec, sep="-"))
        lines = [line for line in lines if not _SECTION_MARK.search(line)]
    except (IncludeRefused, ValueError) as exc:
        includes.refuse(target, number, str(exc))
        return []
    return _place(lines, found, indent, number, in_fence, includes, depth, as_code=as_code)


_VERSIONED = re.compile(r"_(?:an|py3\d+)$")
_NEWEST_FIRST = range(20, 7, -1)  # py320 … py38


def _preferred_variant(includes: Includes, target: str, path: Path) -> str:
    """The file markdown-include-variants shows for ``{* dir/tutorial001.py *}``: the newest
    ``tutorial001_an_py3NN.py`` (``Annotated``), else ``_an.py``, else the newest ``_py3NN.py``,
    else the file named. A name that already carries a variant is shown as named."""
    stem, dot, suffix = target.rpartition(".")
    if not dot or suffix != "py" or _VERSIONED.search(stem) or includes.context is None:
        return target
    names = [*(f"{stem}_an_py3{n}.py" for n in _NEWEST_FIRST), f"{stem}_an.py",
             *(f"{stem}_py3{n}.py" for n in _NEWEST_FIRST)]
    for name in names:
        try:
            includes.resolve(name, path.parent)
        except IncludeRefused:
            continue
        return name
    return target


def _read(includes: Includes, target: str, path: Path, depth: int) -> tuple[Path, str]:
    if depth >= MAX_DEPTH:
        raise IncludeRefused(f"includes nested more than {MAX_DEPTH} deep")
    found, content = includes.read(target, path.parent)
    if found == path.resolve():
        raise IncludeRefused("a page cannot include itself")
    return found, content


def _place(lines: list[str], found: Path, indent: str, number: int, in_fence: bool, includes: Includes,
           depth: int, *, as_code: bool) -> Numbered:
    """Included lines, indented like the directive; code outside a fence gets a fence of its own."""
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    suffix = found.suffix.lower()
    if in_fence:
        return [(indent + line if line else line, number) for line in lines]
    if as_code or suffix not in _MARKDOWN_SUFFIXES:
        ticks = "`" * max(3, 1 + max((len(m.group(0)) for line in lines for m in re.finditer(r"`+", line)),
                                     default=0))
        body = [indent + ticks + LANGUAGES.get(suffix, ""), *(indent + line if line else line for line in lines),
                indent + ticks]
        return [(line, number) for line in body]
    nested = expand_includes([(line, number) for line in lines], includes, found, depth + 1)
    return [(indent + text if text else text, n) for text, n in nested]


def _split_target(target: str) -> tuple[str, str | None]:
    """``"a.py:3:5"`` → ("a.py", "3:5"); ``"a.py:name"`` → ("a.py", "name"); Windows drives kept."""
    match = re.match(r"^(?P<file>.+?)(?::(?P<spec>[\d:,]+|[A-Za-z_][\w-]*))?$", target.strip())
    if match is None or re.fullmatch(r"[A-Za-z]", match.group("file")):
        return target.strip(), None
    return match.group("file"), match.group("spec")


def _section(lines: list[str], name: str) -> list[str]:
    """The lines between ``--8<-- [start:name]`` and ``--8<-- [end:name]``."""
    start = re.compile(rf"-+8<-+\s*\[start:{re.escape(name)}\]")
    end = re.compile(rf"-+8<-+\s*\[end:{re.escape(name)}\]")
    first = next((i for i, line in enumerate(lines) if start.search(line)), None)
    if first is None:
        raise IncludeRefused(f"no section named {name!r}")
    last = next((i for i in range(first + 1, len(lines)) if end.search(lines[i])), len(lines))
    return lines[first + 1 : last]
