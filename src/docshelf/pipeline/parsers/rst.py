"""reStructuredText (Sphinx) → blocks with heading paths and exact line ranges.

A line-based reader, not docutils: docutils needs every Sphinx role and directive
registered (unknown ones become error nodes), and its node line numbers are not reliable
enough to cite. What it reads, as a reader of the rendered page sees it:

- sections from underline (and overline) adornments, nested by the order in which each
  adornment style first appears in the file (as docutils does);
- ``.. code-block::``/``.. code::``/``.. sourcecode::``, ``::`` literal blocks, doctest blocks,
  ``.. literalinclude::`` (from inside the indexed root) → fenced code blocks;
- admonitions (``.. note::``, ``.. warning::``, ``.. versionadded::``…) → ``Note: …`` text;
  API descriptions (``.. function:: name(args)``, ``.. class::``…) → signature, then body;
- ``.. include::`` (inside the indexed root) expanded in place, cited at the directive line;
- ``.. toctree::``, ``.. automodule::``, ``.. index::``, images, targets and comments dropped;
- inline roles and links read as their text (:mod:`.rst_inline`).
"""

from __future__ import annotations

import re
from pathlib import Path

from ...models import Block, BlockKind, ParseContext, ParsedDocument
from ._common import HeadingStack, Numbered, decode_text, dedent, fence, split_tags
from .includes import MAX_DEPTH, IncludeRefused, Includes, parse_ranges, select_lines
from .rst_inline import inline_text
from .text import LANGUAGES

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^\.\.\s+(?P<name>[\w:.+-]+?)::(?:\s+(?P<arg>.*?))?\s*$")
_SUBST_DEF = re.compile(r"^\.\.\s+\|(?P<sub>[^|]+)\|\s+(?P<name>[\w:.+-]+)::\s*(?P<arg>.*?)\s*$")
_FOOTNOTE = re.compile(r"^\.\.\s+\[(?:\d+|#[\w-]*|\*|[A-Za-z][\w.-]*)\]\s*(?P<text>.*)$")
_TARGET = re.compile(r"^\.\.\s+_(?P<label>[^:`]+|`[^`]+`):\s*$")
_OPTION = re.compile(r"^:(?P<name>[\w-]+):(?:\s+(?P<value>.*))?$")
_BULLET = re.compile(r"^(?P<marker>[-*+•‣⁃])(?:\s+|$)")
_ENUM = re.compile(r"^(?P<marker>(?:\d+|[A-Za-z]|#|[ivxlcdmIVXLCDM]+)[.)]|\((?:\d+|[A-Za-z]|#)\))(?:\s+|$)")
_FIELD = re.compile(r"^:(?P<name>[^:\s][^:]*):(?:\s+|$)")
_GRID_BORDER = re.compile(r"^\+[-=+]+\+\s*$")
_SIMPLE_BORDER = re.compile(r"^=+(?:\s+=+)+\s*$|^=+\s*$")
_INCLUDE = re.compile(r"^(?P<indent>\s*)\.\.\s+(?P<name>include|literalinclude)::\s*(?P<arg>.+?)\s*$")
_DROP_FIELDS = {"orphan", "nocomments", "nosearch", "tocdepth", "hide-toc", "og:description"}

CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "parsed-literal", "doctest", "testcode",
                   "testoutput", "ipython", "jupyter-execute", "code-tab", "prompt", "console"}
ADMONITIONS = {"note": "Note", "warning": "Warning", "tip": "Tip", "important": "Important",
               "caution": "Caution", "danger": "Danger", "attention": "Attention", "error": "Error",
               "hint": "Hint", "seealso": "See also", "todo": "Todo", "versionadded": "New in version",
               "versionchanged": "Changed in version", "deprecated": "Deprecated since version",
               "versionremoved": "Removed in version"}
ADMONITIONS.update({f"version-{k[7:]}": v for k, v in ADMONITIONS.items() if k.startswith("version")})
ADMONITIONS["version-deprecated"] = ADMONITIONS["deprecated"]
# Directives whose argument is not text (a path, a toc, an index entry…): dropped whole.
DROP_DIRECTIVES = {"toctree", "index", "highlight", "currentmodule", "module", "program", "contents",
                   "sectnum", "section-numbering", "raw", "meta", "tabularcolumns", "image", "default-role",
                   "role", "title", "header", "footer", "target-notes", "graphviz", "digraph", "graph",
                   "inheritance-diagram", "testsetup", "testcleanup", "autosummary", "bibliography",
                   "footbibliography", "spelling:word-list", "mermaid", "uml", "plot", "jinja", "tags",
                   "py:module", "py:currentmodule", "c:namespace", "cpp:namespace", "js:module"}
_AUTODOC = re.compile(r"^auto\w*$")
_PY_OBJECTS = {"function", "class", "exception", "data", "decorator", "method", "attribute", "property",
               "classmethod", "staticmethod", "decoratormethod"}
_AUTODOC_PREFIX = {"class": "class ", "exception": "exception ", "decorator": "@", "module": "module "}
# Directives whose argument is a title above the content.
TITLED = {"admonition", "topic", "sidebar", "dropdown", "tab", "tab-item", "group-tab", "card",
          "grid-item-card", "rubric", "container", "only", "ifconfig", "tabs", "tab-set", "grid",
          "glossary", "hlist", "compound", "epigraph", "highlights", "pull-quote", "centered",
          "line-block", "figure", "table", "list-table", "csv-table", "math", "productionlist"}
_NO_TITLE = {"only", "ifconfig", "container", "tabs", "tab-set", "grid", "figure", "glossary", "hlist",
             "compound", "epigraph", "highlights", "pull-quote", "line-block", "list-table", "csv-table"}


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


class RstParser:
    """Parses ``.rst``/``.rest`` (reStructuredText, Sphinx flavour); see the module docstring."""

    name = "rst"
    suffixes = (".rst", ".rest")

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        text = decode_text(path, data)
        includes = Includes(context, path)
        numbered = _expand_includes([(line.expandtabs(8), i + 1) for i, line in enumerate(text.split("\n"))],
                                    includes, path, 0)
        reader = _Reader(path, _substitutions(numbered), _section_labels(numbered))
        blocks = reader.body(numbered, top=True)
        meta: dict[str, object] = {"format": "rst"}
        if reader.tags:
            meta["tags"] = reader.tags
        meta.update(includes.metadata())
        title = next((b.heading_path[-1] for b in blocks if b.kind == "heading"), "") or path.stem
        return ParsedDocument(title, tuple(blocks), "rst", meta)


def _substitutions(lines: Numbered) -> dict[str, str]:
    """``.. |name| replace:: text`` definitions (they may come after their use)."""
    out: dict[str, str] = {}
    for text, _ in lines:
        match = _SUBST_DEF.match(text.strip())
        if match and match.group("name") == "replace":
            out[match.group("sub")] = inline_text(match.group("arg"))
    return out


def _section_labels(lines: Numbered) -> dict[str, str]:
    """``.. _label:`` targets that stand right above a section title → that title (lower-case labels)."""
    out: dict[str, str] = {}
    pending: list[str] = []
    for i, (text, _) in enumerate(lines):
        target = _TARGET.match(text)
        if target:
            pending.append(target.group("label").strip().strip("`").lower())
            continue
        if not text.strip() or not pending:
            continue
        nxt = lines[i + 1][0] if i + 1 < len(lines) else ""
        after = lines[i + 2][0] if i + 2 < len(lines) else ""
        title = nxt.strip() if _ADORNMENT.match(text) and _ADORNMENT.match(after) else text.strip()
        if _ADORNMENT.match(nxt) or (_ADORNMENT.match(text) and _ADORNMENT.match(after)):
            out.update({label: inline_text(title).replace("`", "") for label in pending})
        pending = []
    return out


class _Reader:
    def __init__(self, path: Path, substitutions: dict[str, str], refs: dict[str, str]) -> None:
        self.path = path
        self.subs = substitutions
        self.refs = refs
        self.styles: list[tuple[str, bool]] = []
        self.headings = HeadingStack()
        self.language = ""
        self.tags: list[str] = []
        self.module = ""  # from ``.. module::``/``.. currentmodule::``: qualifies autodoc names
        self.objects = 0  # depth of object descriptions (class, autoclass…) around the current line

    # -- structure ---------------------------------------------------------------------
    def body(self, lines: Numbered, *, top: bool = False) -> list[Block]:
        """Blocks of a run of lines at one indentation (the file, or a directive's content)."""
        out: list[Block] = []
        i = 0
        while i < len(lines):
            text, number = lines[i]
            if not text.strip():
                i += 1
                continue
            if _indent(text) > 0:  # a block quote: indented relative to its context
                end = self._extent(lines, i, 0)
                out.extend(self.body(dedent(lines[i:end])))
                i = end
                continue
            title = self._title(lines, i) if top else None
            if title is not None:
                name, style, used = title
                level = self._level(style)
                path = self.headings.push(level, name)
                out.append(Block("heading", name, path, None, number, lines[i + used - 1][1], level))
                i += used
                continue
            i = self._element(lines, i, out)
        return out

    def _extent(self, lines: Numbered, start: int, indent: int) -> int:
        """Index after the lines from ``start`` that are blank or indented beyond ``indent``."""
        end = start + 1
        last = start
        while end < len(lines):
            text = lines[end][0]
            if text.strip():
                if _indent(text) <= indent:
                    break
                last = end
            end += 1
        return last + 1

    def _title(self, lines: Numbered, i: int) -> tuple[str, tuple[str, bool], int] | None:
        """(title, adornment style, lines used) when a section title starts at ``i``."""
        first = lines[i][0]
        nxt = lines[i + 1][0] if i + 1 < len(lines) else ""
        if i > 0 and lines[i - 1][0].strip():
            return None
        over = _ADORNMENT.match(first)
        if over and i + 2 < len(lines):
            under = _ADORNMENT.match(lines[i + 2][0])
            name = nxt.strip()
            if under and under.group(1) == over.group(1) and name and not _ADORNMENT.match(nxt):
                return inline_text(name, self.subs), (over.group(1), True), 3
        if over:
            return None
        under = _ADORNMENT.match(nxt)
        if under and (len(nxt.strip()) >= len(first.strip()) or len(nxt.strip()) >= 4):
            return inline_text(first.strip(), self.subs), (under.group(1), False), 2
        return None

    def _level(self, style: tuple[str, bool]) -> int:
        if style not in self.styles:
            self.styles.append(style)
        return self.styles.index(style) + 1

    def _element(self, lines: Numbered, i: int, out: list[Block]) -> int:
        """Read the element starting at ``i`` (not indented, not a title) into ``out``."""
        text, number = lines[i]
        stripped = text.strip()
        if stripped.startswith("..") and (stripped == ".." or stripped.startswith(".. ")):
            end = self._extent(lines, i, 0)
            self._explicit(lines[i:end], out)
            return end
        if stripped.startswith(">>>"):
            end = self._until_blank(lines, i)
            out.append(self._block("code", fence([t for t, _ in lines[i:end]], "pycon"), lines[i:end]))
            return end
        if _GRID_BORDER.match(stripped):
            end = self._until_blank(lines, i)
            rows = [t.strip() for t, _ in lines[i:end] if not _GRID_BORDER.match(t.strip())]
            out.append(self._block("table", self._inline("\n".join(rows)), lines[i:end]))
            return end
        if _SIMPLE_BORDER.match(stripped) and " " in stripped.strip():
            end = self._simple_table(lines, i)
            rows = [t.rstrip() for t, _ in lines[i:end] if t.strip() and not _SIMPLE_BORDER.match(t.strip())]
            out.append(self._block("table", self._inline("\n".join(rows)), lines[i:end]))
            return end
        if _ADORNMENT.match(stripped) and len(stripped) >= 4:  # a transition
            return i + 1
        if _BULLET.match(text) or (_ENUM.match(text) and _enumerated_item(lines, i)):
            return self._list(lines, i, out)
        if _FIELD.match(text):
            return self._field(lines, i, out)
        if stripped.startswith("| ") or stripped == "|":
            end = self._until_blank(lines, i)
            body = "\n".join(t.strip()[2:] for t, _ in lines[i:end])
            out.append(self._block("paragraph", self._inline(body), lines[i:end]))
            return end
        return self._paragraph(lines, i, out)

    def _until_blank(self, lines: Numbered, i: int) -> int:
        end = i
        while end < len(lines) and lines[end][0].strip():
            end += 1
        return end

    def _simple_table(self, lines: Numbered, i: int) -> int:
        end = i + 1
        while end < len(lines):
            if _SIMPLE_BORDER.match(lines[end][0].strip()) and (
                end + 1 >= len(lines) or not lines[end + 1][0].strip()
            ):
                return end + 1
            end += 1
        return end

    def _paragraph(self, lines: Numbered, i: int, out: list[Block]) -> int:
        end = i
        while end < len(lines) and lines[end][0].strip() and _indent(lines[end][0]) == 0:
            end += 1
        if end == i + 1 and end < len(lines) and lines[end][0].strip() and not lines[i][0].rstrip().endswith("::"):
            # a definition list item: a term, its definition indented right below
            stop = self._extent(lines, i, 0)
            term = self._block("paragraph", self._inline(lines[i][0].strip()), lines[i : i + 1])
            self._labelled(term.text, lines[i : i + 1], self.body(dedent(lines[end:stop])), out)
            return stop
        para = [t for t, _ in lines[i:end]]
        literal = para[-1].rstrip().endswith("::")
        if literal:  # "Text::" reads "Text:", "Text ::" reads "Text", a lone "::" vanishes
            last = para[-1].rstrip()
            para[-1] = last[:-2].rstrip() if last == "::" or last[-3] in " \t" else last[:-1]
        joined = "\n".join(para).strip()
        if joined:
            out.append(self._block("paragraph", self._inline(joined), lines[i:end]))
        if literal:
            nxt = end
            while nxt < len(lines) and not lines[nxt][0].strip():
                nxt += 1
            if nxt < len(lines) and _indent(lines[nxt][0]) > 0:
                stop = self._extent(lines, nxt, 0)
                code = [t for t, _ in dedent(lines[nxt:stop])]
                out.append(self._block("code", fence(code, self.language), lines[nxt:stop]))
                return stop
        return end

    def _list(self, lines: Numbered, i: int, out: list[Block]) -> int:
        """Consecutive list items; simple ones (paragraphs only) form one ``list`` block."""
        simple: Numbered = []
        style = _list_style(lines[i][0])
        previous = ""  # the last item's enumerator as shown, for an auto-numbered "#." after it
        while i < len(lines):
            text = lines[i][0]
            match = _BULLET.match(text) or _ENUM.match(text)
            if not match or not _same_style(_list_style(text), style) or (
                    not _BULLET.match(text) and not _enumerated_item(lines, i)):
                break
            width = len(match.group(0)) if text[len(match.group(0)) :].strip() else len(match.group("marker")) + 1
            end = self._extent(lines, i, 0)
            item = [(text[width:], lines[i][1])]
            item += [(t[min(width, _indent(t)) :] if t.strip() else "", n) for t, n in lines[i + 1 : end]]
            inner = self.body(dedent(item)) if any(t.strip() for t, _ in item) else []
            marker = "-" if _BULLET.match(text) else _auto_number(match.group("marker"), previous)
            previous = marker
            if len(inner) == 1 and inner[0].kind in ("paragraph", "list"):
                simple.append((f"{marker} {inner[0].text}", lines[i][1]))
                simple.append(("", inner[0].end_line or lines[i][1]))  # the item's last line
            else:
                self._flush_list(simple, out)
                simple = []
                self._labelled(marker, lines[i : i + 1], inner, out, kind="list")
            i = end
            while i < len(lines) and not lines[i][0].strip():
                i += 1
        self._flush_list(simple, out)
        return i

    def _flush_list(self, simple: Numbered, out: list[Block]) -> None:
        """One ``list`` block of the simple items (each an item's text and first line, then its last
        line), with the source line of each text line: the blank lines between items are dropped."""
        items = [(t, n, simple[k + 1][1]) for k, (t, n) in enumerate(simple) if t]
        if items:
            text = "\n".join(t for t, _, _ in items)
            line_map = tuple(min(first + j, last) for t, first, last in items for j in range(t.count("\n") + 1))
            out.append(Block("list", text, self.headings.path, None, items[0][1], max(n for _, n in simple),
                             line_map=line_map))

    def _field(self, lines: Numbered, i: int, out: list[Block]) -> int:
        """A field list (``:param x: …``); document-wide fields such as ``:orphan:`` are dropped."""
        end = self._extent(lines, i, 0)
        while end < len(lines) and _FIELD.match(lines[end][0]):
            end = self._extent(lines, end, 0)
        fields = [m.group("name").strip().lower() for t, _ in lines[i:end] if (m := _FIELD.match(t))]
        if all(name in _DROP_FIELDS for name in fields):
            return end
        simple: Numbered = []  # fields whose body is prose: one ``list`` block of their lines
        j = i
        while j < end:
            match = _FIELD.match(lines[j][0])
            stop = self._extent(lines, j, 0)
            first = lines[j][0][match.end() :].strip() if match else lines[j][0].strip()
            body = [(first, lines[j][1])] if first else []
            inner = self.body(body + dedent(lines[j + 1 : stop]))
            if match is None or all(b.kind in ("paragraph", "list") for b in inner):
                simple += [(t, n) for t, n in lines[j:stop] if t.strip()]
            else:  # a code block, directive or table in the body: its blocks, the label first
                self._flush_field(simple, out)
                simple = []
                self._labelled(self._inline(lines[j][0][: match.end()].strip()), lines[j : j + 1], inner, out,
                               kind="list")
            j = stop
            while j < end and not lines[j][0].strip():
                j += 1
        self._flush_field(simple, out)
        return end

    def _flush_field(self, simple: Numbered, out: list[Block]) -> None:
        if simple:
            body = "\n".join(t.strip() for t, _ in simple)
            out.append(self._block("list", self._inline(body), simple))

    # -- explicit markup: directives, comments, targets, footnotes ---------------------------
    def _explicit(self, lines: Numbered, out: list[Block]) -> None:
        first = lines[0][0].strip()
        match = _DIRECTIVE.match(first)
        if match is None:
            note = _FOOTNOTE.match(first)
            if note:  # footnote text is content; targets (``.. _x:``) and comments are not
                body = [(note.group("text"), lines[0][1]), *dedent(lines[1:])]
                out.extend(self.body(body))
            return
        name = match.group("name").lower()
        base = name.split(":")[-1] if name.split(":")[0] in ("py", "rst", "std", "c", "cpp", "js") else name
        arg_lines, options, content = _split_directive(match.group("arg") or "", lines)
        arg = " ".join(arg_lines).strip()
        if base == "highlight":
            self.language = arg.split()[0] if arg else self.language
        if base == "tags" or name == "tags":
            self.tags.extend(t for t in split_tags(arg) if t not in self.tags)
        if base in ("module", "currentmodule") and arg:
            self.module = "" if arg.split()[0] == "None" else arg.split()[0]
        if base in DROP_DIRECTIVES or name in DROP_DIRECTIVES:
            return
        if _AUTODOC.match(base):
            self._autodoc(base, arg_lines, options, lines, content, out)
            return
        if base in CODE_DIRECTIVES:
            language = arg.split()[0] if arg and base != "parsed-literal" else self.language
            if base in ("doctest", "testoutput"):
                language = "pycon"
            code = [t for t, _ in content]
            while code and not code[-1].strip():
                code.pop()
            if code:
                if options.get("caption"):  # its own block, so the code block stays one fence
                    at = next((k for k, (t, _) in enumerate(lines) if ":caption:" in t), 0)
                    out.append(self._block("paragraph", self._inline(options["caption"]) + ":", lines[: at + 1]))
                out.append(self._block("code", fence(code, language if base != "console" else "console"), lines))
            return
        python_object = base in _PY_OBJECTS and name.split(":")[0] in (base, "py")
        self.objects += python_object
        try:
            inner = self.body(content)
        finally:
            self.objects -= python_object
        if base in ADMONITIONS:
            label = ADMONITIONS[base]
            if base.startswith(("version", "deprecated")):  # the version, then an optional explanation
                version, _, arg = arg.partition(" ")
                label = f"{label} {version}".strip()
            if arg:  # cited over every line it takes: ``.. note::`` + text on the next lines is common
                taken = 1 + len(arg_lines) - (1 if match.group("arg") else 0)
                inner = [self._block("paragraph", self._inline(arg), lines[:taken]), *inner]
            self._labelled(label + ":", lines[:1], inner, out)
            return
        if base in TITLED:
            title = "" if base in _NO_TITLE else self._inline(arg)
            if title:
                self._labelled(title if base == "rubric" else title + ":", lines[:1], inner, out)
            else:
                out.extend(inner)
            return
        # Anything else (function, class, method, option, envvar, confval, custom objects):
        # its argument is a signature or a name, shown above its content.
        signatures = [self._qualified(base, line.strip()) if python_object else line.strip()
                      for line in arg_lines if line.strip()]
        if signatures:
            out.append(self._block("paragraph", "\n".join(signatures), lines[: 1 + max(0, len(arg_lines) - 1)]))
        out.extend(inner)

    def _qualified(self, kind: str, name: str) -> str:
        """``name`` as Sphinx heads a Python object: module-qualified at the top level
        (``.. module:: flask`` + ``Flask`` → ``class flask.Flask``), as written when nested."""
        dotted = "." in name.split("(")[0]  # an explicit module path wins (``pytest.Approx``)
        if self.module and not self.objects and kind != "module" and not dotted:
            name = f"{self.module}.{name}"
        return f"{_AUTODOC_PREFIX.get(kind, '')}{name}"

    def _autodoc(self, base: str, arg_lines: list[str], options: dict[str, str], lines: Numbered,
                 content: Numbered, out: list[Block]) -> None:
        """``.. autoclass:: Flask`` shows the docstring of ``flask.Flask``, which a source tree of
        documentation does not hold: keep the qualified name as Sphinx heads it (``class
        flask.Flask``), the members it names, and the hand-written content below."""
        names = [line.strip() for line in arg_lines if line.strip()]
        if not names:
            out.extend(self.body(content))
            return
        text = "\n".join(self._qualified(base[4:], name) for name in names)
        members = " ".join(options.get("members", "").replace(",", " ").split())
        if members:
            text += "\nMembers: " + ", ".join(members.split())
        out.append(self._block("paragraph", text, lines[: len(names)]))
        self.objects += 1
        try:
            out.extend(self.body(content))
        finally:
            self.objects -= 1

    def _labelled(self, label: str, where: Numbered, inner: list[Block], out: list[Block],
                  kind: BlockKind = "paragraph") -> None:
        """``label`` before the first inner block when that is prose, else as a block of its own."""
        if inner and inner[0].kind in ("paragraph", "list"):
            head = inner[0]
            sep = "\n" if kind == "paragraph" and not label.endswith(":") else " "
            out.append(Block(kind if kind == "list" else head.kind, f"{label}{sep}{head.text}", head.heading_path,
                             None, where[0][1], head.end_line))
            out.extend(inner[1:])
            return
        if label.strip():
            out.append(self._block(kind, label, where))
        out.extend(inner)

    # -- helpers ---------------------------------------------------------------------------
    def _inline(self, text: str) -> str:
        return inline_text(text, self.subs, self.refs)

    def _block(self, kind: BlockKind, text: str, lines: Numbered) -> Block:
        numbers = [n for t, n in lines if t.strip()] or [n for _, n in lines]
        return Block(kind, text, self.headings.path, None, min(numbers), max(numbers))


def _enumerated_item(lines: Numbered, i: int) -> bool:
    """docutils' rule: ``1. text`` starts an item only when the next line is blank, indented
    or another item; otherwise it is the first line of a paragraph (``1. e.g.`` + wrapped text)."""
    if i + 1 >= len(lines):
        return True
    nxt = lines[i + 1][0]
    return not nxt.strip() or _indent(nxt) > 0 or bool(_ENUM.match(nxt))


def _auto_number(marker: str, previous: str) -> str:
    """An auto-enumerated item (``#.``, ``#)``, ``(#)``) as docutils numbers it: one after the item
    before (``3.`` then ``#.`` is ``4.``, ``a.`` then ``#.`` is ``b.``), else 1."""
    if "#" not in marker:
        return marker
    before = previous.strip("().")
    if before.isdigit():
        value = str(int(before) + 1)
    elif len(before) == 1 and before.isalpha() and before.lower() != "z":
        value = chr(ord(before) + 1)
    else:
        value = "1"
    return marker.replace("#", value)


def _list_style(text: str) -> str:
    """Items of one list share a style: the bullet character, or the enumerator's shape."""
    bullet = _BULLET.match(text)
    if bullet:
        return bullet.group("marker")
    marker = _ENUM.match(text).group("marker")
    return re.sub(r"\d+|[A-Za-z]+", lambda m: "1" if m.group(0).isdigit() else "a", marker)


def _same_style(item: str, listed: str) -> bool:
    """Whether an item of style ``item`` continues a list of style ``listed``: the same style, or an
    auto-enumerator (``#.``) after numbers or letters with the same punctuation (``3.`` then ``#.``)."""
    return item == listed or ("#" in item and any(item.replace("#", x) == listed for x in ("1", "a")))


def _split_directive(arg: str, lines: Numbered) -> tuple[list[str], dict[str, str], Numbered]:
    """(argument lines, options, content) of a directive whose first line is ``lines[0]``."""
    rest = dedent(lines[1:])
    arg_lines = [arg] if arg else []
    i = 0
    while i < len(rest) and rest[i][0].strip() and not _OPTION.match(rest[i][0]):
        arg_lines.append(rest[i][0].strip())
        i += 1
    options: dict[str, str] = {}
    while i < len(rest) and rest[i][0].strip():
        match = _OPTION.match(rest[i][0])
        if not match:
            break
        value = [(match.group("value") or "").strip()]
        i += 1
        while i < len(rest) and rest[i][0].strip() and _indent(rest[i][0]) > 0:  # a value on more lines
            value.append(rest[i][0].strip())
            i += 1
        options[match.group("name")] = " ".join(v for v in value if v)
    while i < len(rest) and not rest[i][0].strip():
        i += 1
    return arg_lines, options, dedent(rest[i:])


# -- include / literalinclude, expanded before reading ---------------------------------------------
def _expand_includes(lines: Numbered, includes: Includes, path: Path, depth: int) -> Numbered:
    out: Numbered = []
    i = 0
    while i < len(lines):
        text, number = lines[i]
        match = _INCLUDE.match(text)
        if not match:
            out.append((text, number))
            i += 1
            continue
        indent = match.group("indent")
        end = i + 1
        options: dict[str, str] = {}
        while end < len(lines) and (m := _OPTION.match(lines[end][0].strip())) and _indent(lines[end][0]) > len(indent):
            options[m.group("name")] = (m.group("value") or "").strip()
            end += 1
        i = end
        target = match.group("arg")
        if target.startswith("<") and target.endswith(">"):  # docutils' standard definition files
            continue
        try:
            if depth >= MAX_DEPTH:
                raise IncludeRefused(f"includes nested more than {MAX_DEPTH} deep")
            found, content = includes.read(target, path.parent, root_relative_slash=True)
            if found == path.resolve():
                raise IncludeRefused("a page cannot include itself")
            selected = _select(content.split("\n"), options, match.group("name") == "literalinclude")
        except (IncludeRefused, ValueError) as exc:
            includes.refuse(target, number, str(exc))
            continue
        as_code = match.group("name") == "literalinclude" or "literal" in options or "code" in options
        if as_code:
            language = options.get("language") or options.get("code") or LANGUAGES.get(found.suffix.lower(), "")
            out.append((f"{indent}.. code-block:: {language}".rstrip(), number))
            if options.get("caption"):
                out.append((f"{indent}   :caption: {options['caption']}", number))
            out.append(("", number))
            out.extend((f"{indent}   {line}" if line.strip() else "", number) for line in selected)
            out.append(("", number))
        else:
            nested = _expand_includes([(line.expandtabs(8), number) for line in selected], includes, found, depth + 1)
            out.extend((indent + t if t.strip() else "", n) for t, n in nested)
    return out


def _select(lines: list[str], options: dict[str, str], literal: bool) -> list[str]:
    """Apply include/literalinclude options: lines, start/end markers, pyobject, dedent."""
    if "start-line" in options or "end-line" in options:
        lines = lines[int(options.get("start-line") or 0) : int(options["end-line"]) if options.get("end-line") else None]
    if options.get("pyobject"):
        lines = _pyobject(lines, options["pyobject"])
    if options.get("lines"):
        lines = select_lines(lines, parse_ranges(options["lines"], sep="-"))
    for key, keep_marker, at_start in (("start-after", False, True), ("start-at", True, True),
                                       ("end-before", False, False), ("end-at", True, False)):
        marker = options.get(key)
        if not marker:
            continue
        hit = next((k for k, line in enumerate(lines) if marker in line), None)
        if hit is None:
            raise IncludeRefused(f"{key} text {marker!r} not found")
        if at_start:
            lines = lines[hit if keep_marker else hit + 1 :]
        else:
            lines = lines[: hit + 1 if keep_marker else hit]
    if literal and options.get("dedent"):
        width = int(options["dedent"])
        lines = [line[width:] if line[:width].isspace() else line.lstrip() for line in lines]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def _pyobject(lines: list[str], name: str) -> list[str]:
    """The lines of a top-level or nested (``Class.method``) Python definition."""
    start, indent = 0, -1
    for part in name.split("."):
        pattern = re.compile(rf"^(\s*)(?:async\s+def|def|class)\s+{re.escape(part)}\b")
        hit = next((k for k in range(start, len(lines)) if (m := pattern.match(lines[k])) and len(m.group(1)) > indent),
                   None)
        if hit is None:
            raise IncludeRefused(f"pyobject {name!r} not found")
        start, indent = hit, _indent(lines[hit])
    while start > 0 and lines[start - 1].strip().startswith("@"):
        start -= 1
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    return lines[start:end]
