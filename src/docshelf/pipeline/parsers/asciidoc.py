"""AsciiDoc (Asciidoctor, and git's AsciiDoc manuals) → blocks with heading paths and exact lines.

A line-based reader, as ``rst.py`` is: what a reader of the rendered page sees, cited at the
source lines that hold it.

- titles: ``= Title``, ``== Section`` … (``#`` too), and two-line titles whose underline
  (``=``, ``-``, ``~``, ``^``, ``+``) is as long as the title within two characters (git's manuals);
- ``----`` listing, ``....`` literal and fenced blocks → one code block each, with the language of
  ``[source,lang]`` (a blank line inside never splits them); an indented paragraph outside a
  list is literal text, so code too;
- ``====``, ``****``, ``____`` and ``--`` blocks read as their content; ``////`` comments and
  ``++++`` passthrough (raw HTML) are dropped; ``|===`` tables → a table block, cells joined by `` | ``;
- admonitions (``NOTE: …``, or ``[WARNING]`` above a block) → ``Warning: …``, as the other parsers write them;
- a list item keeps its description and ``+`` continuations in one block (a ``term::`` and what it means);
- attribute entries (``:name: value``) are dropped and ``{name}`` references replaced by their values;
- ``include::`` (from inside the indexed root; ``lines=`` and ``tag=``/``tags=``) is expanded in
  place and cited at the directive's line;
- inline macros read as their text: ``linkgit:git-log[1]`` → ``git-log(1)``, ``link:url[text]``,
  ``<<id,text>>``, ``xref:page.adoc[text]``, ``kbd:[Ctrl+C]``; ``*bold*`` and ``_emphasis_`` lose their marks.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...models import Block, BlockKind, ParseContext, ParsedDocument
from ._common import HeadingStack, Numbered, decode_text, dedent, fence
from .includes import MAX_DEPTH, IncludeRefused, Includes, parse_ranges, select_lines

_ATX = re.compile(r"^(?P<marks>={1,6}|#{1,6})\s+(?P<title>\S.*?)(?:\s+(?P=marks))?\s*$")
_UNDERLINE = re.compile(r"^([=\-~^+])\1+\s*$")
_SETEXT_LEVEL = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}
_DELIMITER = re.compile(r"^(?:(?P<run>-{4,}|\.{4,}|={4,}|\*{4,}|_{4,}|\+{4,}|/{4,})|(?P<open>--)|"
                        r"(?P<fence>```+)(?P<info>[\w+#.-]*)|(?P<table>[|,:!]={3,}))\s*$")
_ATTRIBUTE_ENTRY = re.compile(r"^:(?P<unset>!)?(?P<name>\w[\w-]*)(?P<unset2>!)?:(?:\s+(?P<value>.*?))?\s*$")
_BLOCK_ATTRIBUTES = re.compile(r"^\[(?P<attrs>[^\[\]]*|\[[^\]]*\])\]\s*$")
_BLOCK_TITLE = re.compile(r"^\.(?P<title>[^\s.].*)$")
_BLOCK_MACRO = re.compile(r"^(?P<name>[a-z][\w-]*)::(?P<target>\S*?)\[(?P<attrs>.*)\]\s*$")
_COMMENT = re.compile(r"^//(?!//)")  # a comment line, also inside a paragraph
_CONDITIONAL = re.compile(r"^(?:ifdef|ifndef|ifeval|endif)::")
_INCLUDE = re.compile(r"^include::(?P<target>[^\[]+)\[(?P<attrs>.*)\]\s*$")
_TAG_MARKER = re.compile(r"\b(?:tag|end)::(?P<name>[\w-]+)\[\]")
_ADMONITION = re.compile(r"^(?P<label>NOTE|TIP|IMPORTANT|WARNING|CAUTION):\s+(?P<text>.*)$")
_LIST_ITEM = re.compile(r"^(?:\*{1,5}|-|\.{1,5}|\d+\.|[a-z]\.)\s+\S")
_BARE_TERM = re.compile(r"^\S.*?(?::{2,4}|;;)$")
_LABELED = re.compile(r"^(?P<term>\S.*?)(?::{2,4}|;;)(?:\s+(?P<text>.*))?$")
_ATTRIBUTE_REF = re.compile(r"\{(?P<name>\w[\w-]*)\}")
_INLINE = (
    (re.compile(r"linkgit:(?P<page>[\w.-]+)\[(?P<section>\w+)\]"), r"\g<page>(\g<section>)"),
    (re.compile(r"<<(?P<id>[^,>]+),\s*(?P<text>[^>]+)>>"), r"\g<text>"),
    (re.compile(r"<<(?P<id>[^,>]+)>>"), r"\g<id>"),
    (re.compile(r"\b(?:xref|link|mailto|(?:https?|ftp|file):/)[:/]?(?P<target>[^\s\[]*)\[(?P<text>[^\]]*)\]"), None),
    # an image's or icon's text is its alt text (the first attribute, unless it is name=value), else its name
    (re.compile(r"\b(?:icon|image):(?P<target>[^\s\[]*)\[(?P<text>[^\],=]*)(?:,[^\]]*)?\]"), None),
    (re.compile(r"\b(?:icon|image):(?P<target>[^\s\[]*)\[(?P<text>)[^\]]*\]"), None),
    (re.compile(r"\b(?:kbd|btn|pass|footnote|menu|indexterm2?|anchor|stem|latexmath|asciimath):(?P<target>[^\s\[]*)"
                r"\[(?P<text>[^\]]*)\]"), None),
    (re.compile(r"\(\(\((?P<hidden>[^)]*)\)\)\)"), ""),
    (re.compile(r"\(\((?P<text>[^)]*)\)\)"), r"\g<text>"),
    (re.compile(r"\*\*(?P<text>[^*]+?)\*\*"), r"\g<text>"),
    (re.compile(r"(?<![\w*])\*(?P<text>[^\s*](?:[^*]*?[^\s*])?)\*(?![\w*])"), r"\g<text>"),
    (re.compile(r"(?<![\w_])_(?P<text>[^\s_](?:[^_]*?[^\s_])?)_(?![\w_])"), r"\g<text>"),
    (re.compile(r"(?<![\w#])(?:\[[^\]\s]*\])?#(?P<text>[^\s#](?:[^#]*?[^\s#])?)#(?![\w#])"), r"\g<text>"),  # highlight
)
_LABELS = {"NOTE": "Note", "TIP": "Tip", "IMPORTANT": "Important", "WARNING": "Warning", "CAUTION": "Caution"}
_SOURCE_KINDS = {"source", "listing", "literal"}
_MARKERS = (
    re.compile(r"linkgit:[\w.-]+\[\w+\]"),
    re.compile(r"^include::\S+\[.*\]\s*$", re.M),
    re.compile(r"^\[(?:verse|source(?:,[^\]]*)?|listing|literal|NOTE|TIP|WARNING|IMPORTANT|CAUTION|quote(?:,[^\]]*)?)\]\s*$",
               re.M),
    re.compile(r"^(?:ifdef|ifndef|endif)::", re.M),
    re.compile(r"<<[\w-]+(?:,[^>\n]+)?>>"),
    re.compile(r"^(?:NOTE|TIP|WARNING|IMPORTANT|CAUTION): \S", re.M),
    re.compile(r"^\[\[[\w-]+\]\]\s*$", re.M),
    re.compile(r"^:[\w-]+:(?: .*)?$", re.M),
    re.compile(r"^\S.*::\n(?:\n|\s)", re.M),
)
_DECISIVE = (_MARKERS[0], _MARKERS[3])  # linkgit:…[n]; ifdef::/ifndef::/endif::
_TITLE_ANCHOR = re.compile(r"\[\[[A-Za-z_:][\w:.-]*(?:,[^\]]*)?\]\]")  # [[id]] / [[id,reftext]] on a title


def looks_like_asciidoc(text: str) -> bool:
    """Two kinds of AsciiDoc-only markup (``linkgit:``, ``include::…[]``, ``[source,…]``,
    ``<<id>>``…): an AsciiDoc source named ``.txt``, as git's manuals are. ``linkgit:page[n]``
    and ``ifdef::…[]`` count as two: no other format writes them, and git's shortest pages
    and fragments (gitignore(5), rev-list-description.txt) hold nothing else."""
    head = text[:200_000]
    return sum(2 if marker in _DECISIVE else 1 for marker in _MARKERS if marker.search(head)) >= 2


def inline_text(text: str, attributes: dict[str, str]) -> str:
    """A line as the rendered page shows it: attribute references replaced, macros read as their text."""
    text = _ATTRIBUTE_REF.sub(lambda m: attributes.get(m.group("name"), m.group(0)), text)
    for pattern, replacement in _INLINE:
        if replacement is None:
            text = pattern.sub(lambda m: m.group("text") or m.group("target"), text)
        else:
            text = pattern.sub(replacement, text)
    return text


class AsciidocParser:
    """Parses ``.adoc`` / ``.asciidoc`` (and AsciiDoc sources named ``.txt``); see the module docstring."""

    name = "asciidoc"
    suffixes = (".adoc", ".asciidoc")

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        text = decode_text(path, data)
        includes = Includes(context, path)
        numbered = [(line.expandtabs(8), i + 1) for i, line in enumerate(text.split("\n"))]
        attributes = _attributes(numbered)
        numbered = _expand_includes(numbered, includes, path, attributes, 0)
        reader = _Reader(attributes)
        blocks = reader.body(numbered)
        title = next((b.heading_path[-1] for b in blocks if b.kind == "heading"), "") or path.stem
        meta: dict[str, object] = {"format": "asciidoc"}
        meta.update(includes.metadata())
        return ParsedDocument(title, tuple(blocks), "asciidoc", meta)


def _attributes(lines: Numbered) -> dict[str, str]:
    """Attribute entries (``:name: value``) of the whole file; a later entry wins."""
    out: dict[str, str] = {}
    for text, _ in lines:
        match = _ATTRIBUTE_ENTRY.match(text)
        if match and not (match.group("unset") or match.group("unset2")):
            out[match.group("name")] = match.group("value") or ""
    return out


def _expand_includes(lines: Numbered, includes: Includes, path: Path, attributes: dict[str, str], depth: int) -> Numbered:
    out: Numbered = []
    for text, number in lines:
        match = _INCLUDE.match(text)
        if not match:
            out.append((text, number))
            continue
        target = _ATTRIBUTE_REF.sub(lambda m: attributes.get(m.group("name"), m.group(0)), match.group("target"))
        try:
            if depth >= MAX_DEPTH:
                raise IncludeRefused(f"includes nested more than {MAX_DEPTH} deep")
            found, content = includes.read(target, path.parent)
            if found == path.resolve():
                raise IncludeRefused("a page cannot include itself")
            selected = _select(content.split("\n"), match.group("attrs"))
        except (IncludeRefused, ValueError) as exc:
            includes.refuse(target, number, str(exc))
            continue
        nested = _expand_includes([(line.expandtabs(8), number) for line in selected], includes, found, attributes,
                                  depth + 1)
        out.extend(nested)
    return out


def _select(lines: list[str], attrs: str) -> list[str]:
    """The lines an include's ``lines=`` or ``tag=``/``tags=`` names; tag markers never show."""
    options = dict(part.split("=", 1) for part in re.split(r",(?=\s*\w+=)", attrs) if "=" in part)
    spec = options.get("lines", "").strip().strip('"')
    if spec:
        lines = select_lines(lines, parse_ranges(spec.replace(";", ",").replace("..-1", ".."), sep=".."))
    names = {t for t in re.split(r"[;,]", options.get("tag", "") + ";" + options.get("tags", "")) if t.strip()}
    if names:
        kept: list[str] = []
        inside: set[str] = set()
        for line in lines:
            marker = _TAG_MARKER.search(line)
            if marker:
                name = marker.group("name")
                (inside.add if "tag::" in marker.group(0) else inside.discard)(name)
                continue
            if inside & names:
                kept.append(line)
        return kept
    return [line for line in lines if not _TAG_MARKER.search(line)]


def _block(kind: BlockKind, lines: Numbered, path: tuple[str, ...], level: int = 0, text: str | None = None) -> Block:
    numbers = [n for _, n in lines]
    start, end = numbers[0], numbers[-1]
    consecutive = numbers == list(range(start, start + len(numbers)))
    body = "\n".join(t for t, _ in lines) if text is None else text
    return Block(kind, body, path, None, start, end, level, () if consecutive else tuple(numbers))


class _Reader:
    def __init__(self, attributes: dict[str, str]) -> None:
        self.attributes = attributes
        self.headings = HeadingStack()

    def inline(self, lines: Numbered) -> Numbered:
        return [(inline_text(t, self.attributes), n) for t, n in lines]

    def body(self, lines: Numbered, nested: bool = False) -> list[Block]:
        out: list[Block] = []
        attrs = ""  # the block attribute line above the next block ([source,python], [NOTE])
        title: Numbered = []  # a block title (.Title) above the next block
        item: int | None = None  # index in ``out`` of the list item that a description or ``+`` extends
        attach = False  # after a ``+`` line: the next paragraph belongs to that item
        term = False  # that item is a ``term::`` still waiting for its description
        i, n = 0, len(lines)
        while i < n:
            text, number = lines[i]
            stripped = text.strip()
            if not stripped or (stripped.startswith("//") and not stripped.startswith("////")) \
                    or _CONDITIONAL.match(stripped) or (not nested and _ATTRIBUTE_ENTRY.match(text)) \
                    or (stripped.startswith("[[") and stripped.endswith("]]")):
                i += 1  # blank lines, comments, ifdef::, attribute entries and anchors show nothing
                continue
            if stripped == "+":  # a list continuation (shown as nothing, also where no item is open)
                attach, i = item is not None, i + 1
                continue
            if (m := _BLOCK_ATTRIBUTES.match(text)) is not None:
                attrs, i = m.group("attrs"), i + 1
                continue
            if (m := _BLOCK_TITLE.match(text)) is not None and not _DELIMITER.match(stripped):
                title, i = [(m.group("title"), number)], i + 1
                continue
            heading = None if nested else self._heading(lines, i)
            if heading is not None:
                level, name, used = heading
                name = _TITLE_ANCHOR.sub("", name).strip() or name  # an anchor is no text: OPTIONS[[OPTIONS]]
                path = self.headings.push(level, inline_text(name, self.attributes))
                out.append(_block("heading", lines[i : i + used], path, level, text=path[-1]))
                i, item = i + used, None
            elif (d := _DELIMITER.match(stripped)) is not None:
                close = d.group("fence") or stripped
                end = next((j for j in range(i + 1, n) if lines[j][0].strip() == close), n)
                out.extend(self._delimited(d, lines[i : end + 1], lines[i + 1 : end], attrs, title))
                i, item = end + 1, None  # later text would land before this block if it joined the item
            elif _BLOCK_MACRO.match(stripped):
                i += 1  # image::, toc::, video:: and other block macros show no text
            else:
                end = i + 1
                while end < n and (line := lines[end][0].strip()) and line != "+" and not _DELIMITER.match(line) \
                        and not _LIST_ITEM.match(line):
                    end += 1
                para = [(t, k) for t, k in lines[i:end] if not _COMMENT.match(t)] or lines[i:i + 1]
                i = end
                # a description: indented under an item, or the first paragraph after a bare ``term::``
                # (an indented `` * item`` is the next item, not a description: git-merge(1)'s bullets)
                described = item is not None and (term or (text[:1].isspace() and not _LIST_ITEM.match(stripped)))
                if item is not None and (attach or described):
                    out[item] = self._extend(out[item], [(t.strip(), n) for t, n in self.inline(para)])
                    term = False
                else:
                    block = self._paragraph(para, attrs, title)
                    item = len(out) if block.kind == "list" else None
                    term = item is not None and bool(_BARE_TERM.match(para[-1][0].strip()))
                    out.append(block)
            attach, attrs, title = False, "", []
        return out

    def _heading(self, lines: Numbered, i: int) -> tuple[int, str, int] | None:
        text = lines[i][0]
        if (m := _ATX.match(text)) is not None:
            return len(m.group("marks")), m.group("title"), 1
        if i + 1 < len(lines) and not text[:1].isspace() and text.strip()[:1] not in ".[/:+*-|" \
                and (u := _UNDERLINE.match(lines[i + 1][0].strip())) is not None \
                and abs(len(lines[i + 1][0].strip()) - len(text.strip())) <= 2 and len(text.strip()) >= 2:
            return _SETEXT_LEVEL[u.group(1)], text.strip(), 2
        return None

    def _paragraph(self, para: Numbered, attrs: str, title: Numbered) -> Block:
        style = attrs.split(",")[0].strip()
        indented = para[0][0][:1].isspace() and not _LIST_ITEM.match(para[0][0].strip())  # " * item" is a list
        if style in _SOURCE_KINDS or (indented and style != "verse"):
            return self._code(dedent(para), attrs, title, para[0][1], para[-1][1])
        lines = self.inline(para)
        first, number = lines[0]
        label = _LABELS.get(style)
        if (m := _ADMONITION.match(first)) is not None:
            lines[0] = (f"{_LABELS[m.group('label')]}: {m.group('text')}", number)
        elif label:
            lines[0] = (f"{label}: {first}", number)
        if _LIST_ITEM.match(first.strip()) or _LABELED.match(first):  # an item's lines, without their indentation
            return _block("list", self.inline(title) + [(t.strip(), n) for t, n in lines], self.headings.path)
        return _block("paragraph", self.inline(title) + lines, self.headings.path)

    def _code(self, code: Numbered, attrs: str, title: Numbered, opened: int, closed: int) -> Block:
        parts = [p.strip() for p in attrs.split(",")]
        language = parts[1] if len(parts) > 1 and parts[0] in ("source", "") else ""
        body = fence([t for t, _ in code], language)
        numbers = [opened, *(n for _, n in code), closed]
        lines = list(zip(body.split("\n"), numbers))
        return _block("code", self.inline(title) + lines, self.headings.path)

    def _delimited(self, d: re.Match[str], whole: Numbered, inner: Numbered, attrs: str, title: Numbered) -> list[Block]:
        run = d.group("run") or ""
        if d.group("fence") or (run and run[0] in "-."):
            language = d.group("info") or ""
            if language and not attrs:
                attrs = f"source,{language}"
            return [self._code(inner, attrs, title, whole[0][1], whole[-1][1])]
        if (run and run[0] in "/+") or not inner:
            return []  # a comment block, or raw passthrough (HTML a browser would render)
        if d.group("table"):
            sep = d.group("table")[0]
            cells = re.compile(r"(?<!\\)" + re.escape(sep))
            rows = []
            for t, n in inner:
                row = t.strip()
                if sep != "|" or row.startswith("|"):  # a row's cells; else a cell's continued text
                    row = " | ".join(c.strip() for c in cells.split(row) if c.strip())
                if row:
                    rows.append((row, n))
            return [_block("table", self.inline(title) + self.inline(rows), self.headings.path)] if rows else []
        blocks = self.body(inner, nested=True)
        label = _LABELS.get(attrs.split(",")[0].strip())
        if blocks and (label or title):
            head = f"{label}: " if label else ""
            caption = inline_text(title[0][0], self.attributes) + "\n" if title else ""
            first = blocks[0]
            lines = first.text.split("\n")
            numbers = list(first.line_map) or list(range(first.start_line or 0, (first.start_line or 0) + len(lines)))
            if title:
                lines, numbers = [caption.rstrip("\n"), *lines], [title[0][1], *numbers]
            lines[1 if title else 0] = head + lines[1 if title else 0]
            blocks[0] = _block(first.kind, list(zip(lines, numbers)), first.heading_path)
        return blocks

    @staticmethod
    def _extend(block: Block, more: Numbered) -> Block:
        lines = block.text.split("\n")
        numbers = list(block.line_map) or list(range(block.start_line or 0, (block.start_line or 0) + len(lines)))
        return _block(block.kind if block.kind != "paragraph" else "list", list(zip(lines, numbers)) + more,
                      block.heading_path)
