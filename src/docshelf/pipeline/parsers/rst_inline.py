"""reStructuredText inline markup → the text a reader sees on the rendered page.

``:func:`x``` reads ``x``, ``:class:`~a.b.C``` reads ``C``, ``:ref:`Title <label>``` reads
``Title``, ``:doc:`/patterns/index``` reads ``patterns``, ```text <url>`_`` reads ``text``, ````literal```` reads ```literal```, ``|name|``
is replaced by its ``replace::`` definition, footnote references vanish.
"""

from __future__ import annotations

import re

_ROLE = re.compile(r"(?<![\w`])(?::(?P<role>[\w.+:-]+):)`(?P<body>(?:[^`\\]|\\.){1,300})`(?!`)")
_SUFFIX_ROLE = re.compile(r"(?<![\w`])`(?P<body>(?:[^`\\]|\\.){1,300})`:(?P<role>[\w.+:-]+):")
_LITERAL = re.compile(r"``(?P<body>[^`]+(?:`[^`]+)*)``")
_LINK = re.compile(r"(?<![\w`])`(?P<body>(?:[^`\\]|\\.){1,300})`__?(?![\w])")
_INTERPRETED = re.compile(r"(?<![\w`:])`(?P<body>(?:[^`\\]|\\.){1,300})`(?![\w`_:])")
TITLE_TARGET = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
_FOOTNOTE_REF = re.compile(r"\s?\[(?:\d+|#[\w-]*|\*|[A-Za-z][\w.-]*)\]_(?![\w])")
_SUBSTITUTION = re.compile(r"\|(?P<name>[^|\s](?:[^|]*[^|\s])?)\|(?:__?)?(?![\w])")
_ESCAPE = re.compile(r"\\(.)")
_TITLED_ROLES = {"pep": "PEP {}", "rfc": "RFC {}"}


def role_text(role: str, body: str, refs: dict[str, str] | None = None) -> str:
    body = body.replace("\\`", "`")
    base = role.rsplit(":", 1)[-1]
    match = TITLE_TARGET.match(body)
    if match and match.group("title"):
        return match.group("title")
    if base == "ref" and refs and body.strip().lower() in refs:  # a label above a section: its title
        return refs[body.strip().lower()]
    if base == "doc":  # the page's title is in another file: its name reads better than its path
        parts = [part for part in body.strip().strip("/").split("/") if part not in ("", ".", "..")]
        if len(parts) > 1 and parts[-1] == "index":
            parts.pop()
        return (parts[-1] if parts else body).replace("_", " ").replace("-", " ")
    if base in _TITLED_ROLES:
        return _TITLED_ROLES[base].format(body)
    if base in ("math", "kbd", "guilabel", "menuselection", "file", "samp", "command", "program",
                "abbr", "dfn", "term", "envvar", "option", "token", "keyword", "regexp", "mimetype"):
        return body.replace("-->", "→") if base == "menuselection" else body
    if body.startswith("!"):
        body = body[1:]
    if body.startswith("~"):
        body = body[1:].rsplit(".", 1)[-1]
    return body


def inline_text(text: str, substitutions: dict[str, str] | None = None, refs: dict[str, str] | None = None) -> str:
    """``text`` with inline reST markup resolved as it renders (see the module docstring).

    ``refs`` maps lower-case target labels to the section titles they stand above, so a
    ``:ref:`label``` to a section of the same page reads as that section's title.
    """
    if not any(c in text for c in "`|_\\"):
        return text
    literals: list[str] = []

    def keep_literal(match: re.Match[str]) -> str:
        literals.append("`" + match.group("body") + "`")
        return f"\x00{len(literals) - 1}\x00"

    text = _LITERAL.sub(keep_literal, text)
    text = _ROLE.sub(lambda m: role_text(m.group("role"), m.group("body"), refs), text)
    text = _SUFFIX_ROLE.sub(lambda m: role_text(m.group("role"), m.group("body")), text)
    text = _LINK.sub(lambda m: _link_text(m.group("body")), text)
    text = _INTERPRETED.sub(lambda m: role_text("any", m.group("body")), text)
    text = _FOOTNOTE_REF.sub("", text)
    subs = substitutions or {}
    text = _SUBSTITUTION.sub(lambda m: subs.get(m.group("name"), m.group("name")), text)
    text = text.replace("\\ ", "")
    text = _ESCAPE.sub(r"\1", text)
    return re.sub(r"\x00(\d+)\x00", lambda m: literals[int(m.group(1))], text)


def _link_text(body: str) -> str:
    match = TITLE_TARGET.match(body)
    if match:
        return match.group("title") or match.group("target")
    return body
