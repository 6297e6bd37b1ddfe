"""HTML pages → the readable content as blocks, without menus, scripts and footers.

Documentation sites wrap every page in the same navigation, header and footer;
indexing those would make every page match every query, so they are dropped
before any text is read. ``<main>``/``<article>`` is preferred when present.
"""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import Declaration, Doctype, ProcessingInstruction

from ...errors import ParseError
from ...models import Block, BlockKind, ParseContext, ParsedDocument
from ._common import HeadingStack, collapse, normalize_date, split_tags

class _DammitToDebug(logging.Filter):
    """bs4 logs a WARNING for every undecodable byte run; that would reach the terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        logger.debug("bs4: %s", record.getMessage())
        return False


logger = logging.getLogger(__name__)
logging.getLogger("bs4.dammit").addFilter(_DammitToDebug())

MAX_DEPTH = 400
"""Deepest element nesting read. Real pages stay far below; a deeper one would make the
tree walk recurse past Python's stack, after seconds of parsing."""
_TAG = re.compile(rb"<(/?)([A-Za-z][A-Za-z0-9:-]*)[^>]*?(/?)>")
# Void elements never hold children (html.parser nests everything else, even an unclosed <p>).
_VOID = frozenset({
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"param",
    b"source", b"track", b"wbr", b"!doctype",
})

DROP_TAGS = ("script", "style", "noscript", "nav", "footer", "aside", "form", "svg",
             "iframe", "template", "button")
DROP_ROLES = ("navigation", "banner", "contentinfo", "search")
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_PARAGRAPHS = {"p", "dt", "dd", "figcaption", "caption", "summary", "address"}
_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt",
    "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
    "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tr", "ul", "br",
}
_SKIP_STRINGS = (Comment, Doctype, Declaration, ProcessingInstruction)


def nesting_depth(data: bytes, limit: int = MAX_DEPTH) -> int:
    """How deep elements nest, from the tags alone (a linear scan, no tree); stops past ``limit``."""
    depth = deepest = 0
    for match in _TAG.finditer(data):
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3)
        if name in _VOID or self_closing:
            continue
        depth = max(0, depth - 1) if closing else depth + 1
        deepest = max(deepest, depth)
        if deepest > limit:
            break
    return deepest


def _text(node: Tag | NavigableString, lines: list[str] | None = None) -> list[str]:
    """Text of a node as lines: block-level children start new lines, inline ones do not."""
    out = lines if lines is not None else [""]
    if isinstance(node, NavigableString):
        if not isinstance(node, _SKIP_STRINGS):
            out[-1] += str(node)
        return out
    for child in node.children:
        is_block = isinstance(child, Tag) and child.name in _BLOCK_TAGS
        if is_block:
            out.append("")
        _text(child, out)
        if is_block:
            out.append("")
    return out


def _lines(node: Tag) -> list[str]:
    return [c for c in (collapse(line) for line in _text(node)) if c]


def _span(node: Tag) -> tuple[int | None, int | None]:
    """Approximate source lines: bs4's ``sourceline`` plus the newlines the element holds."""
    start = getattr(node, "sourceline", None)
    if start is None:
        return None, None
    return start, start + str(node).count("\n")


def _strip_boilerplate(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(DROP_TAGS):
        tag.decompose()
    for tag in soup.find_all(attrs={"role": True}):
        if not tag.decomposed and str(tag.get("role", "")).lower() in DROP_ROLES:
            tag.decompose()
    # Page-level headers are site chrome; a header inside <article>/<main> holds the title.
    for tag in soup.find_all("header"):
        if not tag.decomposed and tag.find_parent(["article", "main"]) is None:
            tag.decompose()


def _content_root(soup: BeautifulSoup) -> Tag:
    main = soup.find("main")
    if isinstance(main, Tag):
        return main
    articles = soup.find_all("article")
    if len(articles) == 1:
        return articles[0]
    body = soup.find("body")
    return body if isinstance(body, Tag) else soup


def _meta(soup: BeautifulSoup) -> dict[str, Any]:
    meta: dict[str, Any] = {"format": "html"}
    for tag in soup.find_all("meta"):
        key = str(tag.get("name") or tag.get("property") or "").lower()
        content = str(tag.get("content") or "").strip()
        if not content:
            continue
        if key == "keywords":
            meta["tags"] = split_tags(content.replace(";", ","))
        elif key in ("description", "og:description") and "description" not in meta:
            meta["description"] = content
        elif key in ("date", "dc.date", "article:published_time") and "date" not in meta:
            iso = normalize_date(content)
            if iso:
                meta["date"] = iso
    html = soup.find("html")
    if isinstance(html, Tag) and html.get("lang"):
        meta["lang"] = str(html["lang"])
    return meta


class _Collector:
    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.headings = HeadingStack()
        self.first_h1: str | None = None
        self._loose: list[str] = []
        self._loose_line: int | None = None

    def add(self, kind: BlockKind, text: str, node: Tag, level: int = 0,
            heading_path: tuple[str, ...] | None = None) -> None:
        if text.strip():
            start, end = _span(node)
            path = self.headings.path if heading_path is None else heading_path
            self.blocks.append(Block(kind, text, path, None, start, end, level))

    def flush(self) -> None:
        text = collapse("".join(self._loose))
        if text:
            line = self._loose_line
            self.blocks.append(Block("paragraph", text, self.headings.path, None, line, line))
        self._loose, self._loose_line = [], None

    def walk(self, node: Tag) -> None:
        for child in node.children:
            if isinstance(child, NavigableString):
                if not isinstance(child, _SKIP_STRINGS) and child.strip():
                    self._loose.append(str(child))
                    self._loose_line = self._loose_line or getattr(node, "sourceline", None)
                continue
            if not isinstance(child, Tag):
                continue
            name = child.name
            if name not in _BLOCK_TAGS:
                self._loose.append(" ".join(_text(child)))  # raw: keeps "un<b>do</b>"
                self._loose_line = self._loose_line or getattr(child, "sourceline", None)
                continue
            self.flush()
            if name in _HEADINGS:
                title = " ".join(_lines(child))
                if title:
                    level = int(name[1])
                    if level == 1 and self.first_h1 is None:
                        self.first_h1 = title
                    self.add("heading", title, child, level, self.headings.push(level, title))
            elif name in _PARAGRAPHS:
                self.add("paragraph", " ".join(_lines(child)), child)
            elif name == "li":
                self.add("list", self._list_item(child), child)
            elif name == "pre":
                self.add("code", child.get_text().strip("\n"), child)
            elif name == "table":
                rows = [" | ".join(collapse(c.get_text(" ")) for c in tr.find_all(["th", "td"]))
                        for tr in child.find_all("tr")]
                self.add("table", "\n".join(r for r in rows if r.strip(" |")), child)
            elif name == "blockquote":
                self.add("quote", "\n".join(_lines(child)), child)
            else:
                self.walk(child)
        self.flush()

    @staticmethod
    def _list_item(li: Tag) -> str:
        parent = li.parent
        if isinstance(parent, Tag) and parent.name == "ol":
            index = [c for c in parent.children if isinstance(c, Tag) and c.name == "li"].index(li)
            marker = f"{index + 1}."
        else:
            marker = "-"
        return "\n".join(f"{marker} {line}" if i == 0 else f"  {line}"
                         for i, line in enumerate(_lines(li)))


class HtmlParser:
    """Parses ``.html``/``.htm`` with BeautifulSoup's built-in ``html.parser``."""

    name = "html"
    suffixes = (".html", ".htm")

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        if nesting_depth(data) > MAX_DEPTH:
            raise ParseError(str(path), f"HTML nested more than {MAX_DEPTH} elements deep (not read)")
        with warnings.catch_warnings():  # bs4 warns on stderr about undecodable bytes
            warnings.simplefilter("ignore")
            soup = BeautifulSoup(data, "html.parser")
        title_tag = soup.find("title")
        title = collapse(title_tag.get_text()) if isinstance(title_tag, Tag) else ""
        meta = _meta(soup)
        _strip_boilerplate(soup)
        collector = _Collector()
        collector.walk(_content_root(soup))
        title = title or collector.first_h1 or path.stem
        return ParsedDocument(title, tuple(collector.blocks), "html", meta)

