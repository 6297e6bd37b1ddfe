"""Parsers, one module per format, and the registry that picks one for a file.

The registry chooses by suffix first and sniffs content only for unknown suffixes,
so a PDF saved as ``report.bin`` or without an extension is still read. Every
failure leaves here as a ParseError carrying the path and a readable reason.

The parsers built on large libraries (markdown-it and PyYAML, BeautifulSoup, pypdf,
python-docx) are imported on the first file of their format: discovery needs only their
suffixes, and a re-index of an unchanged tree parses nothing.
"""

from __future__ import annotations

import importlib
import inspect
import io
import re
import threading
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...errors import ParseError
from ...models import ParseContext, ParsedDocument
from ...protocols import Parser
from .asciidoc import AsciidocParser
from .canvas import CanvasParser
from .rst import RstParser
from .text import CodeParser, TextParser

__all__ = [
    "AsciidocParser",
    "CodeParser",
    "DocxParser",
    "HtmlParser",
    "MarkdownParser",
    "NotebookParser",
    "ParserRegistry",
    "PdfParser",
    "RstParser",
    "SNIFF_BYTES",
    "TextParser",
    "default_registry",
]

SNIFF_BYTES = 512
# Plain-text documents a project names without a suffix: read as text (a README is documentation)
TEXT_NAMES = frozenset({"README", "CHANGELOG", "CHANGES", "HISTORY", "NEWS", "INSTALL", "CONTRIBUTING",
                        "FAQ", "TODO", "NOTES", "UPGRADING", "RELEASE_NOTES"})

_DEFERRED = {  # class name -> (module, parser name, suffixes); tests/unit/test_parsers.py checks them
    "MarkdownParser": (".markdown", "markdown", (".md", ".markdown", ".mdx")),
    "HtmlParser": (".html", "html", (".html", ".htm")),
    "PdfParser": (".pdf", "pdf", (".pdf",)),
    "DocxParser": (".docx", "docx", (".docx",)),
    "NotebookParser": (".notebook", "notebook", (".ipynb",)),
}


def __getattr__(name: str) -> Any:
    """``from docshelf.pipeline.parsers import PdfParser`` still works, importing it then."""
    if name in _DEFERRED:
        return getattr(importlib.import_module(_DEFERRED[name][0], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Deferred:
    """A built-in parser known by name and suffixes, its module imported on the first parse."""

    def __init__(self, class_name: str) -> None:
        self.class_name = class_name
        _, self.name, self.suffixes = _DEFERRED[class_name]
        self._parser: Parser | None = None
        self._lock = threading.Lock()

    def load(self) -> Parser:
        if self._parser is None:
            with self._lock:
                if self._parser is None:
                    self._parser = __getattr__(self.class_name)()
        return self._parser

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        parser = self.load()
        if context is not None and "context" in inspect.signature(parser.parse).parameters:
            return parser.parse(path, data, context)
        return parser.parse(path, data)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # not the parser's (and no recursion before __init__, e.g. unpickling)
            raise AttributeError(attr)
        return getattr(self.load(), attr)
_HTML_START = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html[\s>])", re.I | re.S)


def _is_docx_zip(head: bytes, source: Path | bytes | None) -> bool:
    """A zip whose members include ``word/document.xml`` (reads the central directory)."""
    if not head.startswith(b"PK\x03\x04"):
        return False
    try:
        handle = io.BytesIO(source) if isinstance(source, bytes) else source
        if handle is None:
            raise OSError("no file to open")
        with zipfile.ZipFile(handle) as archive:
            return "word/document.xml" in archive.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return b"word/document.xml" in head


class ParserRegistry:
    """Maps suffixes to parsers; later registrations win for a shared suffix."""

    def __init__(self, parsers: Iterable[Parser] = ()) -> None:
        self._by_suffix: dict[str, Parser] = {}
        self._by_name: dict[str, Parser] = {}
        self._takes_context: dict[str, bool] = {}
        for parser in parsers:
            self.register(parser)

    def register(self, parser: Parser) -> None:
        self._by_name[parser.name] = parser
        # A parser written before ParseContext existed takes (path, data) only.
        self._takes_context[parser.name] = "context" in inspect.signature(parser.parse).parameters
        for suffix in parser.suffixes:
            self._by_suffix[suffix.lower()] = parser

    @property
    def suffixes(self) -> tuple[str, ...]:
        return tuple(sorted(self._by_suffix))

    def get(self, name: str) -> Parser | None:
        """The parser registered under ``name`` ("pdf", "markdown"…), if any."""
        return self._by_name.get(name)

    def for_file(self, path: Path, head: bytes = b"") -> Parser | None:
        """The parser for ``path``: by suffix, else by sniffing ``head`` (the first bytes).

        Returns None when the suffix is unknown and the content is not recognised.
        """
        return self._choose(path, head, path)

    def _choose(self, path: Path, head: bytes, source: Path | bytes | None) -> Parser | None:
        parser = self._by_suffix.get(path.suffix.lower())
        if parser is not None:
            return parser
        if b"%PDF-" in head[:SNIFF_BYTES]:
            return self._by_name.get("pdf")
        if not path.suffix and path.name.upper() in TEXT_NAMES and b"\x00" not in head[:SNIFF_BYTES]:
            return self._by_name.get("text")
        if _is_docx_zip(head, source):
            return self._by_name.get("docx")
        if _HTML_START.match(head.lstrip(b"\xef\xbb\xbf")[:SNIFF_BYTES]):
            return self._by_name.get("html")
        return None

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        """Parse ``data`` (the bytes of ``path``); raises ParseError on any failure.

        ``context`` (the indexed root) lets formats with includes read files inside it.
        """
        parser = self._choose(path, data[:SNIFF_BYTES], data)
        if parser is None:
            suffix = path.suffix.lower() or "(no suffix)"
            raise ParseError(str(path), f"unsupported format {suffix} (no parser for the "
                             "suffix, and the content is not PDF, DOCX or HTML)")
        try:
            if context is not None and self._takes_context.get(parser.name, False):
                return parser.parse(path, data, context)
            return parser.parse(path, data)
        except ParseError:
            raise
        except RecursionError as exc:
            raise ParseError(str(path), f"{parser.name} parser gave up: nested too deeply") from exc
        except Exception as exc:  # noqa: BLE001 - the boundary: third-party errors become ours
            reason = f"{parser.name} parser failed ({type(exc).__name__}: {exc})"
            raise ParseError(str(path), reason) from exc


def default_registry() -> ParserRegistry:
    """A registry holding every built-in parser."""
    return ParserRegistry(
        [_Deferred("MarkdownParser"), _Deferred("HtmlParser"), _Deferred("PdfParser"), _Deferred("DocxParser"),
         TextParser(), CodeParser(), CanvasParser(), RstParser(), AsciidocParser(), _Deferred("NotebookParser")]
    )
