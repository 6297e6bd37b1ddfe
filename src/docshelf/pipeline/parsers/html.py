"""HTML pages → the readable content as blocks, without menus, scripts and footers.

Documentation sites wrap every page in the same navigation, header and footer;
indexing those would make every page match every query, so they are dropped
before any text is read. The content is the element a site builder marks as the page's
own (``role="main"``, ``<main>``, one ``<article>``, Sphinx's ``div.body``, MkDocs'
``div.md-content``), or else the column a theme names as its content (``#main-content``); a
dialog (a search box, a cookie notice) is never content. Inside it, a builder's permalink
marks (``¶``), ``[source]`` links, "edit this page" and "view source" buttons and tables of
contents (a Sphinx ``toctree``, as the reST parser drops it) are dropped; an API entry (a
Sphinx ``dl.py.method`` and the like) becomes a heading named by its object, so a hit on one
method cites that method; and a page built by Sphinx or MkDocs is titled without the site's
suffix ("… — Project 6.2 documentation"). DocBook XSL output (PostgreSQL's manual) loses its
"Prev Up Home Next" tables and tables of contents, and its admonitions' titles
(``<h3 class="title">Note</h3>``) are read as labels, not as sections.
"""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from bs4.element import Declaration, Doctype, ProcessingInstruction

from ...dates import document_day
from ...errors import ParseError
from ...models import Block, BlockKind, ParseContext, ParsedDocument
from ._common import HeadingStack, collapse, list_number, split_tags

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
DROP_ROLES = ("navigation", "banner", "contentinfo", "search", "dialog", "alertdialog")
DROP_SELECTORS = (
    "a.headerlink",  # Sphinx/MkDocs permalink marks (¶) in headings and API entries
    ".viewcode-link",  # Sphinx "[source]" beside an API entry
    ".md-content__button",  # MkDocs Material "edit this page"
    ".rst-footer-buttons", ".prev-next-area", ".related-pages", ".md-footer",  # Next/Previous
    ".sphinxsidebar", "div.related",  # classic Sphinx themes
    ".toctree-wrapper", ".topic.contents",  # a toctree / local contents: links to other pages' sections
    # DocBook XSL (PostgreSQL's, GNOME's manuals): the "Prev Up Home Next" tables above and below
    # every page, and a chapter's or section's table of contents and lists of its tables/figures.
    "div.navheader", "div.navfooter", "div.toc",
    "div.list-of-tables", "div.list-of-figures", "div.list-of-examples", "div.list-of-equations",
)
# DocBook XSL titles an admonition with a heading (``<div class="note"><h3 class="title">Note</h3>``):
# it is the note's label, not a section, and the text after the note is still its section's.
ADMONITIONS = frozenset({"note", "tip", "warning", "caution", "important"})
# The page's own content: what the page marks as main first, then one <article>, then the
# element a site builder wraps its content in.
MAIN_SELECTORS = ("[role=main]", "main")
BUILDER_CONTENT_SELECTORS = ("div.body", "div.md-content", "div.rst-content")
# A theme with no landmark (a project's own MkDocs or Bootstrap theme) still names its content
# column, by the ids and classes that "skip to content" links conventionally target. Taken only
# when it holds the page's first heading, so a column that is not the text never hides it.
THEME_CONTENT_SELECTORS = ("#main-content", "#maincontent", ".main-content", "#main", "#content")
_API_DL = frozenset({  # Sphinx object types (the dl's class; Sphinx 4+ also marks the dt "sig")
    "class", "function", "method", "attribute", "exception", "data", "property", "classmethod",
    "staticmethod", "decorator", "module", "type", "macro", "member", "var", "enum", "struct",
    "option", "envvar", "confval", "describe",
})
_QUALIFIED = re.compile(r"^[A-Za-z_][\w.]*$")
# A link to a file of the project's repository (GitHub/GitLab "…/blob/…", "…/tree/…", "…/edit/…").
_REPOSITORY_FILE = re.compile(r"/(?:blob|tree|edit)/")
# Where a link is part of the text: inside these it stays, outside them it is a theme's button.
_PROSE = ("p", "li", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
          "pre", "figcaption", "caption", "summary")
_GENERATOR = re.compile(r"^(sphinx|mkdocs)", re.I)
_STRUCTURE = ["ul", "ol", "pre", "table", "dl"]
"""What makes a ``dd`` or ``blockquote`` more than a paragraph: walked block by block, not joined."""
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_PARAGRAPHS = {"p", "dt", "dd", "figcaption", "caption", "summary", "address"}
_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "dd", "details", "div", "dl", "dt",
    "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
    "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tr", "ul", "br",
}
_SKIP_STRINGS = (Comment, Doctype, Declaration, ProcessingInstruction)
MAX_LIST_DEPTH = 20  # nested lists below this are read as their text


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


_OL_TYPES = {"a": "lowerLetter", "A": "upperLetter", "i": "lowerRoman", "I": "upperRoman"}


def _attr_int(node: Tag, name: str) -> int | None:
    try:
        return int(str(node.get(name)).strip()) if node.has_attr(name) else None
    except ValueError:
        return None


def _marker(li: Tag) -> str:
    """The marker a browser shows before ``li``: ``-`` in a ``ul``; in an ``ol`` its number as
    ``start``, ``reversed``, ``type`` (``a``, ``I``…) and an item's ``value`` make it."""
    parent = li.parent
    if not (isinstance(parent, Tag) and parent.name == "ol"):
        return "-"
    items = [c for c in parent.children if isinstance(c, Tag) and c.name == "li"]
    down = parent.has_attr("reversed")
    number = _attr_int(parent, "start")
    number = (len(items) if down else 1) if number is None else number
    for item in items:
        if (value := _attr_int(item, "value")) is not None:
            number = value
        if item is li:
            break
        number += -1 if down else 1
    style = _OL_TYPES.get(str(li.get("type") or parent.get("type") or "1"), "decimal")
    return f"{list_number(number, style)}."


def _item_lines(li: Tag, indent: str = "", depth: int = 0) -> list[str]:
    """A list item as lines: its marker and text, then its nested lists' items, indented and
    numbered as shown ("1. Open the housing.", "  a. Undo the screws.")."""
    own: list[str] = [""]
    nested: list[str] = []
    for child in li.children:
        if isinstance(child, Tag) and child.name in ("ul", "ol") and depth < MAX_LIST_DEPTH:
            for item in child.find_all("li", recursive=False):
                nested.extend(_item_lines(item, indent + "  ", depth + 1))
            continue
        block = isinstance(child, Tag) and child.name in _BLOCK_TAGS
        if block:
            own.append("")
        _text(child, own)
        if block:
            own.append("")
    lines = [c for c in (collapse(line) for line in own) if c]
    if not lines:
        return nested
    return [f"{indent}{_marker(li)} {lines[0]}", *(f"{indent}  {line}" for line in lines[1:]), *nested]


def _span(node: Tag) -> tuple[int | None, int | None]:
    """Approximate source lines: bs4's ``sourceline`` plus the newlines the element holds."""
    start = getattr(node, "sourceline", None)
    if start is None:
        return None, None
    return start, start + str(node).count("\n")


def _strip_boilerplate(soup: BeautifulSoup) -> None:
    for tag in soup.find_all(DROP_TAGS):
        tag.decompose()
    for tag in soup.select(", ".join(DROP_SELECTORS)):
        if not tag.decomposed:
            parent = tag.parent  # a "[source]" span's link goes with it
            tag.decompose()
            if isinstance(parent, Tag) and parent.name == "a" and not parent.get_text(strip=True):
                parent.decompose()
    # A theme's "view source" / "edit this page" button (Django REST framework's label naming the
    # module, "Edit on GitHub"): a link to the repository standing outside any text. A link to a
    # file written into a sentence stays.
    for link in soup.find_all("a", href=_REPOSITORY_FILE):
        if not link.decomposed and link.find_parent(_PROSE) is None:
            link.decompose()
    for tag in soup.find_all(attrs={"role": True}):
        if not tag.decomposed and str(tag.get("role", "")).lower() in DROP_ROLES:
            tag.decompose()
    # Page-level headers are site chrome; a header inside <article>/<main> holds the title.
    for tag in soup.find_all("header"):
        if not tag.decomposed and tag.find_parent(["article", "main"]) is None:
            tag.decompose()


def _content_root(soup: BeautifulSoup) -> Tag:
    for selector in MAIN_SELECTORS:
        found = soup.select_one(selector)
        if isinstance(found, Tag):
            return found
    articles = soup.find_all("article")
    if len(articles) == 1:
        return articles[0]
    for selector in BUILDER_CONTENT_SELECTORS:
        found = soup.select_one(selector)
        if isinstance(found, Tag):
            return found
    first = soup.find(sorted(_HEADINGS))
    for selector in THEME_CONTENT_SELECTORS if isinstance(first, Tag) else ():
        found = soup.select_one(selector)
        if isinstance(found, Tag) and any(parent is found for parent in first.parents):
            return found
    body = soup.find("body")
    return body if isinstance(body, Tag) else soup


def built_by(soup: BeautifulSoup) -> str | None:
    """``"sphinx"`` or ``"mkdocs"`` when the page says a site builder made it, else None."""
    for tag in soup.find_all("meta", attrs={"name": "generator"}):
        found = _GENERATOR.match(str(tag.get("content") or ""))
        if found:
            return found.group(1).lower()
    for tag in soup.find_all("script", src=True):
        src = str(tag["src"])
        if src.endswith("documentation_options.js"):
            return "sphinx"
        if src.endswith("search/main.js"):  # MkDocs' search plugin (themes without their own search)
            return "mkdocs"
    return None


def site_title(title: str, first_h1: str | None) -> str:
    """A built page's title without the site's suffix ("Page — Project 6.2 documentation",
    "Page - Site"): the page's own heading when the title starts with it, else the part before
    the last dash."""
    if first_h1 and title.startswith(first_h1):
        return first_h1
    for dash in (" \u2014 ", " \u2013 ", " - ", " | "):
        if dash in title:
            return title.rsplit(dash, 1)[0].strip()
    return title


def _image_text(node: Tag) -> str:
    """A heading that is only a logo (Sphinx's ``<h1><img alt="Project"></h1>``) reads as its alt text."""
    return collapse(" ".join(str(img.get("alt") or "") for img in node.find_all("img")))


def _admonition_title(heading: Tag) -> bool:
    """A DocBook admonition's label: the heading that opens ``div.note`` (``tip``, ``warning``…)."""
    parent = heading.parent
    if not (isinstance(parent, Tag) and parent.name == "div" and ADMONITIONS & set(parent.get("class") or ())):
        return False
    first = next((c for c in parent.children if isinstance(c, Tag) or str(c).strip()), None)
    return first is heading


def _api_entry(dl: Tag) -> bool:
    """A Sphinx object description: ``<dl class="py method">`` with ``<dt class="sig …">``."""
    classes = set(dl.get("class") or ())
    if not classes & _API_DL:
        return False
    return any(isinstance(dt, Tag) and (dt.get("id") or "sig" in (dt.get("class") or ()))
               for dt in dl.find_all("dt", recursive=False))


def _anchored_entries(dl: Tag) -> bool:
    """A DocBook parameter reference: a ``variablelist`` most of whose terms carry an id
    (``<dt id="GUC-MAX-CONNECTIONS">``, the anchor other pages link to). Its entries are read
    as sections of their own, as a Sphinx ``confval`` is, so a hit on ``max_connections`` cites
    that entry, not the section of dozens that holds it. A list whose terms have no anchors (an
    SQL command's parameters, a short list of modes) stays term/definition paragraphs."""
    parent = dl.parent
    if not ("variablelist" in (dl.get("class") or ())
            or isinstance(parent, Tag) and "variablelist" in (parent.get("class") or ())):
        return False
    terms = dl.find_all("dt", recursive=False)
    return 2 * sum(1 for dt in terms if dt.get("id")) > len(terms)


def _term(dt: Tag) -> str:
    """A DocBook entry's title: its term as written (``max_connections (integer)``)."""
    return " ".join(_lines(dt))


def _entry_name(dt: Tag) -> str:
    """What an API entry is called: its qualified id (``pkg.mod.Class.method``) when it has one,
    else the signature's name (``Class.method``), else the signature itself."""
    name = "".join(t.get_text() for t in dt.select(".sig-prename, .sig-name, .descclassname, .descname"))
    name = collapse(name)
    ident = str(dt.get("id") or "")
    if _QUALIFIED.match(ident) and (not name or ident.endswith(name)):
        return ident
    return name or " ".join(_lines(dt))


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
            iso = document_day(content)
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
            if name in _HEADINGS and _admonition_title(child):
                self.add("paragraph", " ".join(_lines(child)), child)
            elif name in _HEADINGS:
                title = " ".join(_lines(child)) or _image_text(child)
                if title:
                    level = int(name[1])
                    if level == 1 and self.first_h1 is None:
                        self.first_h1 = title
                    self.add("heading", title, child, level, self.headings.push(level, title))
            elif name == "dd" and child.find(_STRUCTURE, recursive=False) is not None:
                self.walk(child)  # a definition holding a list, code or a table (Sphinx's "Parameters"): each kept
            elif name == "blockquote" and child.find(_STRUCTURE) is not None:
                self.walk(child)  # Sphinx's indented block (a list, a code example): its lines and markers kept
            elif name in _PARAGRAPHS:
                self.add("paragraph", " ".join(_lines(child)), child)
            elif name == "li" and child.find("pre") is not None:
                self.walk(child)  # an item holding a code block: its paragraphs and the code, each kept whole
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
            elif name == "dl" and _api_entry(child):
                self._api(child, _entry_name)
            elif name == "dl" and _anchored_entries(child):
                self._api(child, _term)
            else:
                self.walk(child)
        self.flush()

    def _api(self, dl: Tag, name: Callable[[Tag], str]) -> None:
        """Each ``dt`` signature becomes a heading (titled by ``name``) one level below the
        enclosing one, its ``dd`` the section under it; the enclosing heading path is back once
        the entry ends. The ``dt`` stays a paragraph too: the entry's cited lines hold its name."""
        mark, level = self.headings.mark(), self.headings.level + 1
        previous = None
        for child in dl.children:
            if not isinstance(child, Tag):
                continue
            if child.name == "dt":
                title = name(child)
                if title and previous != "dt":  # further dt's in a row: overloads of the same entry
                    self.headings.restore(mark)
                    self.add("heading", title, child, level, self.headings.push(level, title))
                self.add("paragraph", " ".join(_lines(child)), child)
            elif child.name == "dd":
                self.walk(child)
            previous = child.name
        self.headings.restore(mark)

    @staticmethod
    def _list_item(li: Tag) -> str:
        return "\n".join(_item_lines(li))


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
        built = built_by(soup)  # before the scripts that may say so are dropped
        _strip_boilerplate(soup)
        collector = _Collector()
        collector.walk(_content_root(soup))
        if title and built:
            title = site_title(title, collector.first_h1)
        title = title or collector.first_h1 or path.stem
        return ParsedDocument(title, tuple(collector.blocks), "html", meta)

