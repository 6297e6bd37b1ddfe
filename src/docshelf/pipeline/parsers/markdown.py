"""Markdown (and Obsidian) notes → blocks that cite exact file lines.

markdown-it-py gives each block token a ``map`` (0-based line range) into the text it
parsed; each of those lines carries its line number in the file (frontmatter blanked,
includes expanded at their directive's line, site markup rewritten line for line), so
every block cites the file's own lines.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ...dates import FRONTMATTER_DATE_KEYS, document_day
from ...models import Block, BlockKind, ParseContext, ParsedDocument
from ._common import HeadingStack, as_str_list, decode_text, split_tags, unique
from .includes import Includes
from .inline_html import strip_html, terminal_text
from .mdx import mdx_markdown_it, normalize_mdx, reads_as_mdx
from .sitemarkup import normalize_markup, strip_heading_attrs
from .snippets import Numbered, expand_includes
from .wikilinks import WIKILINK, WikiLink, find_wikilinks, link_targets, render_wikilinks

_FRONTMATTER_CLOSE = ("---", "...")
# Obsidian tag: '#' at start or after whitespace/punctuation, at least one non-digit.
_INLINE_TAG = re.compile(r"(?<![^\s(\[,;])#([\w/-]*[^\W\d][\w/-]*)")
_BLOCK_KINDS: dict[str, BlockKind] = {
    "paragraph_open": "paragraph",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "quote",
    "fence": "code",
    "code_block": "code",
    "html_block": "paragraph",
}


def split_frontmatter(text: str) -> tuple[str | None, int]:
    """Return (raw YAML, number of lines it occupies including both fences) or (None, 0)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in _FRONTMATTER_CLOSE:
            return "\n".join(lines[1:i]), i + 1
    return None, 0


def _scalar(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return document_day(value)
    return value


MAX_FRONTMATTER_CHARS = 64_000
MAX_YAML_ALIASES = 20  # sum-bounded: 20 aliases expand to at most ~1,500 nodes
MAX_YAML_DEPTH = 50


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` (plain data only, no Python objects) that refuses YAML bombs.

    A "billion laughs" document nests aliases so that a few hundred bytes expand to
    billions of nodes as soon as anything walks them; deep nesting exhausts the stack.
    Both are cut off while composing, before any expansion.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases (a YAML bomb?)")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.YAMLError(f"nested more than {MAX_YAML_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_timestamp(self, node: Any) -> Any:
        """A date-looking value that is no real day (``2024-13-45``) stays the text written:
        PyYAML raises ValueError there, which would fail the whole note."""
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError:
            return self.construct_scalar(node)


_BoundedLoader.add_constructor("tag:yaml.org,2002:timestamp", _BoundedLoader.construct_yaml_timestamp)


def load_yaml(raw: str) -> Any:
    """Plain data from untrusted YAML: safe tags only, bounded size, aliases and depth."""
    if len(raw) > MAX_FRONTMATTER_CHARS:
        raise yaml.YAMLError(f"longer than {MAX_FRONTMATTER_CHARS} characters")
    loader = _BoundedLoader(raw)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def frontmatter_metadata(raw: str) -> dict[str, Any]:
    """Parse YAML frontmatter into normalised metadata; errors become ``frontmatter_error``."""
    try:
        data = load_yaml(raw)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc) or type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""  # +1 fence, +1 base
        return {"frontmatter_error": f"invalid YAML frontmatter{where}: {problem}"}
    if data is None:
        return {}
    if not isinstance(data, dict):
        return {"frontmatter_error": f"frontmatter is a {type(data).__name__}, not a mapping"}
    meta: dict[str, Any] = {}
    for key, value in data.items():
        key = str(key)
        if key in ("tags", "tag"):
            meta["tags"] = unique([*meta.get("tags", []), *split_tags(value)])
        elif key == "aliases" or key == "alias":
            meta["aliases"] = as_str_list(value)
        elif key == "date":
            continue  # the note's date, read below with the other date keys
        elif key in ("title", "type"):
            if value is not None:
                meta[key] = str(value).strip()
        elif isinstance(value, (str, int, float, bool, dt.date)) or value is None:
            meta[key] = _scalar(value)
        elif isinstance(value, list) and all(
            isinstance(v, (str, int, float, bool, dt.date)) for v in value
        ):
            meta[key] = [_scalar(v) for v in value]
    meta.update(_frontmatter_date(data))
    return meta


def _frontmatter_date(data: dict[Any, Any]) -> dict[str, str]:
    """The note's ``date`` from the first date key present (``FRONTMATTER_DATE_KEYS``: ``date``,
    then the last change, then ``created``), or ``date_raw`` when that value cannot be read. Keys
    are matched as people write them: ``Created``, ``Last Modified``, ``last-modified`` and
    Obsidian templates' ``date modified`` / ``date created`` all count."""
    keys: dict[str, Any] = {}
    for raw_key, raw_value in data.items():
        key = "_".join(str(raw_key).lower().replace("-", " ").split())
        key = {"date_modified": "modified", "date_created": "created", "date_updated": "updated"}.get(key, key)
        keys.setdefault(key, raw_value)  # two spellings of one key: the first written wins
    for key in FRONTMATTER_DATE_KEYS:
        value = keys.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            continue  # an empty key (a template's ``date:``) is no date
        iso = document_day(value)
        return {"date": iso} if iso else {"date_raw": str(value)}
    return {}


def _inline_text(token: Token) -> str:
    """Plain text of an inline token: markup dropped, inline code kept."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return " ".join("".join(parts).split())


def _prose_tags(tokens: list[Token]) -> list[str]:
    """Obsidian ``#tags`` from prose only: text children of paragraphs, lists, quotes and
    tables (never headings, code spans, fences, or link targets)."""
    found: list[str] = []
    for i, token in enumerate(tokens):
        if token.type != "inline" or (i and tokens[i - 1].type == "heading_open"):
            continue
        run: list[str] = []
        for child in [*(token.children or []), None]:
            if child is not None and child.type == "text":
                run.append(child.content)
                continue
            # "[[#Heading]]" links inside the note are not tags
            found.extend(_INLINE_TAG.findall(WIKILINK.sub(" ", "".join(run))))
            run = []
    return found


# Obsidian hides "%%" comment blocks in reading view; Excalidraw drawings keep their JSON in one.
# Only the block form (a line that is just "%%") is read as a comment, and never inside a code
# fence: inline "%%" is too common in real documentation (printf formats, MATLAB cells).
_EXCALIDRAW_BANNER = re.compile(r"^==⚠.*EXCALIDRAW VIEW.*⚠==[ \t]*$", re.M)
_BLOCK_ID = re.compile(r"[ \t]\^[A-Za-z0-9-]+[ \t]*$", re.M)  # "text ^a1b2c3": a block reference target
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_ATX_CLOSING = re.compile(r"[ \t]+#+[ \t]*$")  # CommonMark: after a space, to the end


def _hide_obsidian_comments(text: str) -> str:
    """Blank comment blocks, block ids and the Excalidraw banner, keeping line breaks so citations hold."""
    if "^" in text:
        text = _BLOCK_ID.sub("", text)
    if "EXCALIDRAW VIEW" in text:
        text = _EXCALIDRAW_BANNER.sub("", text)
    if "%%" not in text:
        return text
    lines = text.split("\n")
    fence: str | None = None
    hiding = False
    for i, line in enumerate(lines):
        if hiding:
            hiding = line.strip() != "%%"
            lines[i] = ""
            continue
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)[0]
        elif fence is not None and opened and opened.group(1)[0] == fence:
            fence = None
        elif fence is None and line.strip() == "%%":
            hiding = True
            lines[i] = ""
    return "\n".join(lines)


def _frontmatter_links(meta: dict[str, Any]) -> list[WikiLink]:
    """Obsidian properties may link too (``related: "[[Apollo]]"``)."""
    found: list[WikiLink] = []
    for value in meta.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                found.extend(find_wikilinks(item))
    return found


@dataclass
class MarkdownBlocks:
    """What :func:`read_markdown` found: blocks, prose tags, wikilinks and the first level-1 heading."""

    blocks: list[Block]
    tags: list[str]
    links: list[WikiLink]
    first_h1: str | None


def read_markdown(md: MarkdownIt, numbered: Numbered, headings: HeadingStack) -> MarkdownBlocks:
    """Blocks of Markdown lines, each line tagged with its line number in the file.

    ``headings`` carries the heading path in and out, so a notebook's markdown cells nest
    under the headings of the cells before them. Wikilinks are collected and rendered as
    their readable text outside code.
    """
    lines = [line for line, _ in numbered]
    numbers = [number for _, number in numbered]
    tokens = md.parse("\n".join(lines))
    blocks: list[Block] = []
    links: list[WikiLink] = []
    first_h1: str | None = None
    for i, token in enumerate(tokens):
        if token.level != 0 or token.nesting == -1 or token.map is None:
            continue
        first, last = token.map[0], token.map[1]
        while last > first and not lines[last - 1].strip():
            last -= 1
        if last <= first:
            continue
        source = "\n".join(lines[first:last])
        start, end = min(numbers[first:last]), max(numbers[first:last])
        if token.type == "heading_open":
            level = int(token.tag[1])
            title = render_wikilinks(strip_heading_attrs(_inline_text(tokens[i + 1])))
            if level == 1 and first_h1 is None and title:
                first_h1 = title
            if token.markup in ("=", "-"):  # setext: the title line carries the attributes
                source = "\n".join([strip_heading_attrs(lines[first]), *lines[first + 1 : last]])
            else:  # ATX: "### Dependencies ###" ends in an optional closing sequence no reader sees
                source = _ATX_CLOSING.sub("", source)
            links.extend(find_wikilinks(source))
            source = render_wikilinks(strip_html(source))
            blocks.append(Block("heading", source, headings.push(level, title), None, start, end, level))
        elif token.type in _BLOCK_KINDS and source.strip():
            kind = _BLOCK_KINDS[token.type]
            if kind != "code":
                links.extend(find_wikilinks(source))
                source = render_wikilinks(strip_html(source))
                if not source.strip():  # only tags: <div class="termy">, </details>, <!-- a comment -->
                    continue
            elif "</" in source:
                source = terminal_text(source)
            blocks.append(Block(kind, source, headings.path, None, start, end))
    return MarkdownBlocks(blocks, _prose_tags(tokens), links, first_h1)


def new_markdown_it() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


class MarkdownParser:
    """Parses ``.md``, ``.markdown`` and ``.mdx``: YAML frontmatter, Obsidian tags and links, site markup.

    Before parsing, include directives are expanded (:mod:`.snippets`, files inside the
    context's root only) and site-generator markup is rewritten as a reader sees it
    (:mod:`.sitemarkup`). Every line remembers its number in the file, so each block cites
    the file's lines; text pulled in by an include cites the directive's line.
    """

    name = "markdown"
    suffixes = (".md", ".markdown", ".mdx")

    def __init__(self) -> None:
        self._md = new_markdown_it()
        self._mdx = mdx_markdown_it()

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        text = _hide_obsidian_comments(decode_text(path, data))
        raw, fm_lines = split_frontmatter(text)
        meta: dict[str, Any] = {"format": "markdown"}
        if raw is not None:
            meta.update(frontmatter_metadata(raw))
        # Frontmatter lines are blanked, not removed, so every line keeps its number.
        numbered = [("" if i < fm_lines else line, i + 1) for i, line in enumerate(text.split("\n"))]
        includes = Includes(context, path)
        numbered = expand_includes(numbered, includes, path)
        mdx = path.suffix.lower() == ".mdx" or reads_as_mdx(numbered)
        if mdx:
            numbered = normalize_mdx(numbered)
        numbered = normalize_markup(numbered)
        found = read_markdown(self._mdx if mdx else self._md, numbered, HeadingStack())
        links = [*_frontmatter_links(meta), *found.links]
        if links:
            meta["links"] = link_targets(links)
        tags = unique([*meta.get("tags", []), *found.tags])
        if tags:
            meta["tags"] = tags
        meta.update(includes.metadata())
        title = meta.get("title") or found.first_h1 or path.stem
        return ParsedDocument(title, tuple(found.blocks), "markdown", meta)
