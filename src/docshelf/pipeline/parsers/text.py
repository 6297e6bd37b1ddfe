"""Plain text and source code → blank-line separated blocks with exact line ranges.

No structure is guessed beyond what the format states (reST underlines, Org
stars), so line citations always match the file. A ``.txt`` file that is reST or AsciiDoc
source (Django's, git's manuals) goes to that format's parser.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...models import Block, BlockKind, ParseContext, ParsedDocument
from ._common import HeadingStack, decode_text
from .asciidoc import AsciidocParser, looks_like_asciidoc

LANGUAGES: dict[str, str] = {
    ".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".jsx": "jsx",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp",
    ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby", ".php": "php", ".sh": "bash",
    ".bash": "bash", ".zsh": "zsh", ".sql": "sql", ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml", ".json": "json", ".ini": "ini", ".cfg": "ini", ".kt": "kotlin",
    ".swift": "swift", ".scala": "scala", ".lua": "lua", ".r": "r", ".m": "objective-c",
    ".pl": "perl", ".ex": "elixir", ".exs": "elixir", ".hs": "haskell",
}
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+:._])\1{2,}\s*$")
_RST_HINTS = re.compile(r"^\.\. (?:[\w:-]+::|_[^:\n]+:\s*$)|:(?:ref|func|class|meth|mod|doc|attr|term|setting):`",
                        re.M)
_ORG_HEADING = re.compile(r"^(\*+)\s+(.+)$")
_ADOC_HEADING = re.compile(r"^(=+)\s+(.+)$")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
# Markdown link reference definitions ("[PEP 508]: https://…") and abbreviations ("*[PyPI]: …").
_DEFINITION = re.compile(r"^ {0,3}(?:\*\[[^\]]+\]:.*|\[[^\]^][^\]]*\]:\s*\S+.*)$")


def definitions_only(lines: list[str]) -> bool:
    """Every non-blank line defines a link target or an abbreviation: a snippet file a site
    appends to its pages (pymdownx.snippets ``auto_append``), no text a reader sees."""
    filled = [line for line in lines if line.strip()]
    return bool(filled) and all(_DEFINITION.match(line) for line in filled)


def looks_like_rst(text: str) -> bool:
    """Two or more reST directives, targets or Sphinx roles: a reST source, whatever its suffix."""
    return len(_RST_HINTS.findall(text, 0, 200_000)) >= 2


def line_blocks(lines: list[str]) -> list[tuple[int, int]]:
    """1-based inclusive (start, end) ranges of runs of non-blank lines."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for number, line in enumerate(lines, start=1):
        if line.strip():
            start = start or number
        elif start is not None:
            spans.append((start, number - 1))
            start = None
    if start is not None:
        spans.append((start, len(lines)))
    return spans


def _heading(lines: list[str], start: int, end: int, suffix: str) -> tuple[int, str, int] | None:
    """(level, title, lines used) when the block at ``start`` opens with a heading."""
    first = lines[start - 1].strip()
    if suffix in (".rst", ".txt", ".text"):
        rst_lines = lines[start - 1 : end]
        if len(rst_lines) >= 3 and _RST_UNDERLINE.match(rst_lines[0]) and _RST_UNDERLINE.match(
            rst_lines[2]
        ):
            return 1, rst_lines[1].strip(), 3
        if len(rst_lines) >= 2 and _RST_UNDERLINE.match(rst_lines[1]) and len(
            rst_lines[1].strip()
        ) >= len(first):
            return {"=": 1, "-": 2, "~": 3}.get(rst_lines[1].strip()[0], 4), first, 2
        return None
    pattern = {".org": _ORG_HEADING}.get(suffix)
    match = pattern.match(first) if pattern else None
    if match:
        return len(match.group(1)), match.group(2).strip(), 1
    return None


def _title_line(lines: list[str]) -> str:
    """First heading-like line: markup markers and rule lines stripped."""
    for line in lines:
        text = line.strip()
        if not text or _RST_UNDERLINE.match(text) or text.startswith(("#+", ":")):
            continue
        for pattern in (_MD_HEADING, _ADOC_HEADING, _ORG_HEADING):
            match = pattern.match(text)
            if match:
                return match.group(2).strip()
        return text if len(text) <= 120 else ""
    return ""


class TextParser:
    """Parses prose text files: ``.txt``, ``.text``, ``.org`` (reST and AsciiDoc have their own parsers)."""

    name = "text"
    suffixes = (".txt", ".text", ".org")

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        text = decode_text(path, data)
        suffix = path.suffix.lower()
        if suffix in (".txt", ".text") and looks_like_rst(text):  # Sphinx sources named .txt (Django's)
            from .rst import RstParser

            return RstParser().parse(path, data, context)
        if suffix in (".txt", ".text") and looks_like_asciidoc(text):  # git's manuals
            return AsciidocParser().parse(path, data, context)
        lines = text.split("\n")
        if suffix in (".txt", ".text") and definitions_only(lines):
            return ParsedDocument(path.stem, (), "text", {"format": "text"})
        blocks: list[Block] = []
        headings = HeadingStack()
        for start, end in line_blocks(lines):
            found = _heading(lines, start, end, suffix)
            if found:
                level, title, used = found
                stop = start + used - 1
                text = "\n".join(lines[start - 1 : stop])
                blocks.append(Block("heading", text, headings.push(level, title), None,
                                    start, stop, level))
                start = stop + 1
                if start > end:
                    continue
            kind: BlockKind = "paragraph"
            blocks.append(Block(kind, "\n".join(lines[start - 1 : end]), headings.path, None,
                                start, end))
        first_heading = next((b.heading_path[-1] for b in blocks if b.kind == "heading"), "")
        title = first_heading or _title_line(lines) or path.stem
        return ParsedDocument(title, tuple(blocks), "text", {"format": "text"})


class CodeParser:
    """Parses source and config files by suffix; blocks are blank-line separated runs."""

    name = "code"
    suffixes = tuple(LANGUAGES)

    def parse(self, path: Path, data: bytes, context: ParseContext | None = None) -> ParsedDocument:
        lines = decode_text(path, data).split("\n")
        blocks = tuple(
            Block("code", "\n".join(lines[start - 1 : end]), (), None, start, end)
            for start, end in line_blocks(lines)
        )
        language = LANGUAGES.get(path.suffix.lower(), "text")
        meta = {"format": "code", "language": language}
        return ParsedDocument(path.name, blocks, "code", meta)
