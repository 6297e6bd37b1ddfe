"""Documentation-site markup on top of Markdown, turned into what a reader sees.

MkDocs (Material, pymdownx), Docusaurus/MDX, VitePress and Hugo extend Markdown with
syntax that a plain CommonMark parser misreads: an admonition's indented body becomes a
code block, ``{ #id }`` stays in a heading's title, ``import`` lines of MDX become prose.
This module rewrites such lines before the Markdown parser runs, line for line (a
dropped line becomes blank), so every line keeps its number and citations stay exact:

- heading attributes ``## Title { #id .class key=val }`` (attr_list) → ``## Title``; the
  same lists after links/images and on lines of their own are dropped, and so are
  abbreviation definitions ``*[PyPI]: Python Package Index`` (a tooltip, no text);
- admonitions ``!!! note "Title"``, ``??? tip``, ``???+ warning`` → ``Title:`` / ``Tip:``,
  with their indented bodies dedented; content tabs ``=== "Tab"`` → ``Tab:`` likewise;
- pymdownx.blocks ``/// note | Title`` … ``///`` (nested with more slashes) → ``Note: Title``,
  ``/// tab | Python 3.10+`` and ``/// details | Summary`` → ``Python 3.10+:``/``Summary:``, the
  structural ``/// html | div`` and ``/// caption`` → blank; option lines (``    type: warning``)
  and the closing fences → blank;
- ``:::tip Title`` … ``:::`` (Docusaurus, VitePress) → ``Tip: Title`` and a blank line;
  GitHub's ``> [!NOTE]`` → ``> Note:``;
- Material icon shortcodes ``:material-check:``, ``:octicons-file-code-24:{ .x }`` → dropped
  (outside code spans; a link left without text goes too); Gemoji ``:smile:`` is kept;
- MyST roles read as reST's do (:mod:`.rst_inline`): ``{func}`~pkg.connect``` → ``connect``,
  ``{ref}`the guide <label>``` → ``the guide``; ``(label)=`` target lines (spaces allowed) → blank;
  MyST definition lists ``Term`` / ``: definition`` → ``Term:`` / ``definition``;
- MDX ``import``/``export`` statements (also multi-line) → blank;
- Hugo shortcode delimiters ``{{< name >}}``/``{{% name %}}`` → dropped, the text between
  them kept; ``{{< highlight go >}}`` … ``{{< /highlight >}}`` becomes a fenced block.

Nothing inside a code fence is touched.
"""

from __future__ import annotations

import re

from .inline_html import outside_code_spans
from .rst import ADMONITIONS, CODE_DIRECTIVES, DROP_DIRECTIVES
from .rst_inline import role_text
from .snippets import FenceTracker, Numbered

_ATTR = r"""(?:[#.][\w:-]+|[\w:-]+=(?:"[^"]*"|'[^']*'|[^\s}]+))"""
ATTR_LIST = rf"\{{:?\s*{_ATTR}(?:\s+{_ATTR})*\s*\}}"
_HEADING_ATTRS = re.compile(rf"\s*{ATTR_LIST}\s*$")
_INLINE_ATTRS = re.compile(rf"(?<=[)\]`*]){ATTR_LIST}")
_ATTR_LINE = re.compile(rf"^\s*{ATTR_LIST}\s*$")
_ABBREVIATION = re.compile(r"^ {0,3}\*\[[^\]]+\]:")  # "*[PyPI]: Python Package Index" (abbr extension)
_ATX = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_ADMONITION = re.compile(r'^(?P<indent>\s*)(?:!!!|\?\?\?\+?)\s*(?P<kind>[\w-]+)(?:\s+[\w-]+)*\s*(?:"(?P<title>[^"]*)")?\s*$')
_TAB = re.compile(r'^(?P<indent>\s*)===[!+]?\s+"(?P<title>[^"]*)"\s*$')
_COLON_OPEN = re.compile(r"^(?P<indent>\s*)(?P<colons>:{3,})\s*(?P<kind>[A-Za-z][\w-]*)\s*(?:\[(?P<bracket>[^\]]*)\]|(?P<title>.*?))\s*$")
_COLON_CLOSE = re.compile(r"^\s*:{3,}\s*$")
_GITHUB_ALERT = re.compile(r"^(?P<lead>\s*>\s*)\[!(?P<kind>[A-Za-z]+)\]\s*$")
_IMPORT_ONE = re.compile(r"""^import\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?(["'])[^"']+\1\s*;?\s*$""")
_IMPORT_OPEN = re.compile(r"^import\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{[^}]*$")
_EXPORT = re.compile(r"^export\s+(?:default\s|const\s|let\s|var\s|function\s|class\s|async\s+function\s|\{)")
_ICON = re.compile(rf"(?P<pre>[ \t]*)(?<![\w`:]):(?:material|fontawesome|octicons|simple|lucide|twemoji|mdi)-[\w-]+:(?![\w`])"
                   rf"(?:{ATTR_LIST})?(?P<post>[ \t]*)")
_DEFINITION = re.compile(r"^(?P<indent> {0,3}):[ \t]+(?P<text>\S.*)$")
_NOT_TERM = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+[.)]\s|>|\||`{3,}|~{3,}|:{3,})")
_MYST_TARGET = re.compile(r"^\s*\([^()\s][^()]*\)=\s*$")  # "(label)=", "(SSL Certificate Verification)="
_MYST_ROLE_OPEN = re.compile(r"\{(?P<role>[\w.+:-]+)\}`(?P<body>[^`]{1,300})$")
_MYST_ROLE = re.compile(r"\{(?P<role>[\w.+:-]+)\}`(?P<body>[^`]{1,300})`")
_EMPTY_LINK = re.compile(r"(?<!!)\[\s*\](?:\([^()\s]*\)|\[[^\]]*\])")
_SHORTCODE = re.compile(r"\{\{[<%](?!/\*)\s*(?P<close>/)?\s*(?P<name>[\w./-]+)(?P<args>.*?)\s*[>%]\}\}")
_SHORTCODE_ESCAPED = re.compile(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}")


def strip_heading_attrs(text: str) -> str:
    """``Use CORS { #use-cors }`` → ``Use CORS`` (attr_list syntax at the end of a heading)."""
    return _HEADING_ATTRS.sub("", text)


def normalize_markup(lines: Numbered) -> Numbered:
    """The same lines, site markup rewritten as a reader sees it (see the module docstring)."""
    out: Numbered = []
    fences = FenceTracker()
    bodies: list[int] = []  # absolute indents of the open admonition/tab bodies
    skip_until: re.Pattern[str] | None = None
    depth = 0  # bracket depth of an open multi-line MDX statement
    myst = _Myst()
    blocks = _Blocks()
    definitions: set[int] = set()  # indices in ``out`` of definition lines
    lines = _join_split_roles(lines)
    for at, (text, number) in enumerate(lines):
        if myst.consumes(text, in_fence=fences.marker is not None, following=lines[at + 1 : at + 4]):
            if myst.code:  # "```{code-block} python" became "```python": a fence to follow
                fences.feed(myst.rewritten)
            out.append((myst.rewritten, number))
            continue
        if skip_until is not None or depth > 0:  # inside a multi-line MDX import/export
            if skip_until is not None and skip_until.search(text):
                skip_until = None
            depth = max(0, depth + _bracket_balance(text)) if depth > 0 else depth
            out.append(("", number))
            continue
        lead = len(text) - len(text.lstrip(" \t"))
        text = text[:lead].expandtabs(4) + text[lead:]
        if text.strip():
            indent = len(text) - len(text.lstrip(" "))
            while bodies and indent < bodies[-1]:
                bodies.pop()
            if bodies:
                text = text[bodies[-1] :]
        if fences.feed(text):
            out.append((text, number))
            continue
        if blocks.consumes(text):
            out.append((blocks.rewritten, number))
            continue
        rewritten = _rewrite(text, bodies)
        if isinstance(rewritten, tuple):
            rewritten, skip_until, depth = rewritten
        out.append((_definition(rewritten, out, definitions), number))
    return _hugo_highlight(out)


def _join_split_roles(lines: Numbered) -> Numbered:
    """A MyST role wrapped over two lines (``{ref}`direct`` / ``URL references <label>`)``) is
    moved whole onto its first line, so the line-by-line role rule reads it; the second line
    keeps what follows the role. Code fences and code spans are left alone."""
    out = list(lines)
    fences = FenceTracker()
    for i, (text, number) in enumerate(out[:-1]):
        if fences.feed(text) or "}`" not in text:
            continue
        match = _MYST_ROLE_OPEN.search(text)
        if match is None or text[: match.start()].count("`") % 2:  # inside a code span
            continue
        following, next_number = out[i + 1]
        close = following.find("`")
        if close < 0 or not following[:close].strip():
            continue
        body = f"{match.group('body').rstrip()} {following[:close].strip()}"
        out[i] = (f"{text[: match.start()]}{{{match.group('role')}}}`{body}`", number)
        lead = len(following) - len(following.lstrip())
        out[i + 1] = (following[:lead] + following[close + 1 :].lstrip(), next_number)
    return out


def _definition(text: str, out: Numbered, definitions: set[int]) -> str:
    """A MyST definition line ``: text`` under a one-line term → ``text``, the term → ``Term:``.

    Without this the ``:`` markers stay in the text and the term reads as a sentence of its
    own. A term is a lone line (blank or nothing above it) within one blank line of the first
    definition; further definitions of the same term just lose their marker.
    """
    match = _DEFINITION.match(text)
    if match is None:
        return text
    above = [k for k in range(len(out) - 1, max(-1, len(out) - 3), -1) if out[k][0].strip()]
    if not above:
        return text
    k = above[0]
    if k in definitions:
        definitions.add(len(out))
        return match.group("indent") + match.group("text")
    term = out[k][0]
    if k + 1 < len(out) - 1 and out[k + 1][0].strip():  # not within one blank line
        return text
    if (k > 0 and out[k - 1][0].strip()) or _NOT_TERM.match(term):
        return text
    out[k] = (term.rstrip() if term.rstrip().endswith(":") else term.rstrip() + ":", out[k][1])
    definitions.add(len(out))
    return match.group("indent") + match.group("text")


def _rewrite(text: str, bodies: list[int]):
    """One line outside fences; opening an admonition or tab pushes its body indent."""
    base = bodies[-1] if bodies else 0
    if ":" in text and _ICON.search(text):
        text = outside_code_spans(text, lambda part: _EMPTY_LINK.sub("", _ICON.sub(_drop_icon, part)))
    match = _ADMONITION.match(text)
    if match:
        bodies.append(base + len(match.group("indent")) + 4)
        title = match.group("title")
        label = match.group("kind").replace("-", " ").capitalize() if title is None else title.strip()
        return match.group("indent") + label + ":" if label else ""
    match = _TAB.match(text)
    if match:
        bodies.append(base + len(match.group("indent")) + 4)
        return match.group("indent") + match.group("title").strip() + ":"
    if _COLON_CLOSE.match(text):
        return ""
    match = _COLON_OPEN.match(text)
    if match:
        title = (match.group("bracket") or match.group("title") or "").strip()
        label = match.group("kind").replace("-", " ").capitalize() + ":"
        return match.group("indent") + (f"{label} {title}" if title else label)
    match = _GITHUB_ALERT.match(text)
    if match:
        return match.group("lead") + match.group("kind").capitalize() + ":"
    if not bodies:  # MDX statements live at the top level only
        if _IMPORT_ONE.match(text):
            return ""
        if _IMPORT_OPEN.match(text):
            return "", re.compile(r"""["']\s*;?\s*$"""), 0
        if _EXPORT.match(text):
            balance = _bracket_balance(text)
            return "", None, max(0, balance)
    if _ATTR_LINE.match(text) or _MYST_TARGET.match(text) or _ABBREVIATION.match(text):
        return ""
    if "}`" in text:
        text = _MYST_ROLE.sub(lambda m: role_text(m.group("role"), m.group("body")), text)
    if _ATX.match(text):
        text = strip_heading_attrs(text)
    text = _INLINE_ATTRS.sub("", text)
    if "{{" in text:
        text = _shortcodes(text)
    return text


class _Myst:
    """MyST directive fences (Sphinx + Markdown) and mkdocstrings' ``::: module`` lines.

    ````` ```{note} ````` … ````` ``` ````` (or ``:::{note}`` … ``:::``) reads ``Note:`` and its
    content; ``{admonition} Title`` reads ``Title:``; ``{code-block} python`` becomes a plain
    ``python`` fence; ``{toctree}``, ``{automodule}``, ``{eval-rst}`` and the like are dropped
    whole, as is ``::: package.module`` with its indented options (and ``::: mkdocs-click``,
    whose ``:module:`` lines name the CLI a build renders there). Directive options
    (``:class: tip``) right after an opener are dropped.
    """

    def __init__(self) -> None:
        self.open: list[str] = []  # closing markers of the open prose directives
        self.dropping: str | None = None  # closing marker of a dropped directive
        self.options = False  # just after an opener: ":key: value" lines are options
        self.skip_indent: int | None = None  # inside a mkdocstrings options block
        self.rewritten = ""
        self.code = False

    def consumes(self, text: str, *, in_fence: bool, following: Numbered = ()) -> bool:
        """True when ``text`` belongs to MyST markup; ``rewritten`` is then what replaces it."""
        self.rewritten, self.code = "", False
        stripped = text.strip()
        if in_fence:  # only a code directive's options can follow inside its fence
            self.options = self.options and bool(_MYST_OPTION.match(stripped))
            return self.options
        if self.skip_indent is not None:
            if not stripped or len(text) - len(text.lstrip()) > self.skip_indent:
                return True
            self.skip_indent = None
        if self.dropping is not None:
            if _closes(stripped, self.dropping):
                self.dropping = None
            return True
        if self.options and _MYST_OPTION.match(stripped):
            return True
        self.options = False
        if self.open and _closes(stripped, self.open[-1]):
            self.open.pop()
            return True
        match = _MYST_OPEN.match(text)
        if match:
            return self._opener(match, following)
        match = _MKDOCSTRINGS.match(text)
        if match and ("." in match.group("ident") or match.group("ident").lower() not in COLON_KINDS):
            self.skip_indent = len(match.group("indent"))
            return True
        return False

    def _opener(self, match: re.Match[str], following: Numbered = ()) -> bool:
        fence, name, arg = match.group("fence"), match.group("name").lower(), match.group("arg").strip()
        base = name.split(":")[-1]
        console = base not in _MYST_CODE and fence[0] != ":" and _console_session(base, following)
        if base in _MYST_CODE or console:
            if fence[0] == ":":
                return False
            self.rewritten = match.group("indent") + fence + ("console" if console else (arg.split() or [""])[0])
            self.options = self.code = True
            return True
        if base in _MYST_DROP or base.startswith("auto"):
            self.dropping = fence
            return True
        if base in ADMONITIONS:  # as Sphinx renders them: "New in version 6.0:", "See also:"
            label = ADMONITIONS[base]
            if base.startswith(("version", "deprecated")):  # the version, then an optional explanation
                version, _, arg = arg.partition(" ")
                label = f"{label} {version}".strip()
            # a directive without arguments reads text on its first line as content
            self.rewritten = match.group("indent") + label + ":" + (f" {arg.strip()}" if arg.strip() else "")
        else:
            label = arg if arg and base in _MYST_TITLED else base.replace("-", " ").capitalize()
            self.rewritten = match.group("indent") + label + ":" if label else ""
        self.open.append(fence)
        self.options = True
        return True


def _console_session(base: str, following: Numbered) -> bool:
    """A directive no table knows whose body opens with a prompt (pip's ``{pip-cli}``: ``$ pip
    install …``) is a console example a build-time extension renders, not a labelled note."""
    if base in ADMONITIONS or base in _MYST_TITLED or base in COLON_KINDS or base in _MYST_DROP:
        return False
    first = next((text.strip() for text, _ in following if text.strip()), "")
    return first.startswith(("$ ", ">>> "))


class _Blocks:
    """pymdownx.blocks: ``/// name | argument``, YAML option lines indented below it, ``///``.

    A block's fence closes the innermost open block with the same number of slashes
    (nesting uses a different number). A ``///`` line with no open block is prose.
    """

    def __init__(self) -> None:
        self.open: list[int] = []  # slash counts of the open blocks
        self.options: int | None = None  # right after a header: its indent (options are 4 deeper)
        self.rewritten = ""

    def consumes(self, text: str) -> bool:
        """True when ``text`` is block markup; ``rewritten`` is then what replaces it."""
        self.rewritten = ""
        if self.options is not None and _BLOCK_OPTION.match(text) and _indent(text) >= self.options + 4:
            return True
        self.options = None
        if "/" not in text:
            return False
        stripped = text.strip()
        if self.open and set(stripped) == {"/"} and len(stripped) in self.open:
            del self.open[len(self.open) - 1 - self.open[::-1].index(len(stripped)) :]
            return True
        match = _BLOCK_OPEN.match(text)
        if match is None:
            return False
        self.open.append(len(match.group("fence")))
        self.options = len(match.group("indent"))
        name = match.group("name").lower()
        title = " ".join((match.group("arg") or "").split())
        if name in _BLOCK_STRUCTURAL:
            return True
        label = name.replace("-", " ").replace("_", " ").capitalize()
        if name in _BLOCK_TITLED:
            label, title = title or label, ""
        self.rewritten = match.group("indent") + label + ":" + (f" {title}" if title else "")
        return True


_BLOCK_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>/{3,})\s*(?P<name>[A-Za-z][\w-]*)\s*(?:\|\s*(?P<arg>.*?))?\s*$")
_BLOCK_OPTION = re.compile(r"^\s+[\w-]+:(?:\s|$)")
_BLOCK_STRUCTURAL = {"html", "define", "caption", "figure-caption", "table-caption", "markdown", "div"}
_BLOCK_TITLED = {"tab", "details", "admonition"}


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _closes(stripped: str, fence: str) -> bool:
    return bool(stripped) and stripped[0] == fence[0] and set(stripped) == {fence[0]} and len(stripped) >= len(fence)


_MYST_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,}|:{3,})\{(?P<name>[\w:.-]+)\}(?P<arg>.*)$")
_MYST_OPTION = re.compile(r"^:[\w-]+:(?:\s.*)?$")
_MKDOCSTRINGS = re.compile(r"^(?P<indent>\s*):::\s+(?P<ident>\w[\w.-]*)\s*$")  # also ``::: mkdocs-click``
# the same directives as reST's (``{doctest}``, ``{console}`` are code; ``{testsetup}`` is dropped)
_MYST_CODE = {"code-block", "code", "sourcecode", "code-cell", "literalinclude"} | CODE_DIRECTIVES
_MYST_DROP = {"toctree", "eval-rst", "contents", "index", "image", "raw", "include", "mermaid", "graphviz",
              "glue", "bibliography", "currentmodule", "module", "tabularcolumns", "list-table"} | DROP_DIRECTIVES
_MYST_TITLED = {"admonition", "topic", "sidebar", "dropdown", "tab-item", "tab", "card", "grid-item-card", "rubric"}
COLON_KINDS = {"note", "tip", "info", "warning", "danger", "caution", "important", "success", "details",
               "seealso", "attention", "hint", "error", "example", "question", "quote", "abstract", "summary",
               "bug", "failure", "todo", "admonition", "dropdown", "tab-set", "tab-item", "card", "grid",
               "grid-item", "warn", "secondary", "tldr"}


def _drop_icon(match: re.Match[str]) -> str:
    """The icon and its spacing go; indentation before it and one space between words stay."""
    if not match.string[: match.start()].strip():
        return match.group("pre")
    return " " if match.group("pre") and match.group("post") and match.end() < len(match.string) else ""


def _bracket_balance(text: str) -> int:
    return sum(text.count(c) for c in "{[(") - sum(text.count(c) for c in "}])")


def _shortcodes(text: str) -> str:
    """Drop Hugo shortcode delimiters (keeping a highlight's language as a marker), unescape ``{{</* */>}}``."""

    def replace(match: re.Match[str]) -> str:
        if match.group("name") == "highlight":
            if match.group("close"):
                return "\x00/highlight\x00"
            language = (match.group("args").split() or [""])[0].strip("\"'")
            return f"\x00highlight {language}\x00"
        return ""

    text = _SHORTCODE.sub(replace, text)
    text = _SHORTCODE_ESCAPED.sub(lambda m: "{{" + m.group(1) + m.group(2) + m.group(3) + "}}", text)
    return text if text.strip() else ""


def _hugo_highlight(lines: Numbered) -> Numbered:
    """Turn the highlight markers left by :func:`_shortcodes` into fence lines."""
    out: Numbered = []
    for text, number in lines:
        if "\x00" not in text:
            out.append((text, number))
            continue
        marker = re.search(r"\x00(/?)highlight ?([^\x00]*)\x00", text)
        if marker and not text.replace(marker.group(0), "").strip():
            out.append(("```" + ("" if marker.group(1) else marker.group(2)), number))
        else:
            out.append((re.sub(r"\x00[^\x00]*\x00", "", text), number))
    return out
