"""Which entries of a built documentation site are the builder's machinery, not pages.

A site builder's output (Sphinx ``make html``, MkDocs ``site/``) holds, beside the pages a
reader sees, copies and indexes of them: Sphinx's ``_sources/`` (every page again as raw
reST), ``_modules/`` (highlighted source code), ``searchindex.js``, ``genindex.html``;
MkDocs' ``search/search_index.json``, ``assets/``, ``404.html``; DocBook XSL's back-of-book
index ``bookindex.html`` (PostgreSQL's manual: every indexed term with its links, 450 kB).
Indexed, they put every answer in the results twice and bury the page under an index of
names. They are skipped only in a folder that is recognisably a builder's output root (its
own marker files beside ``.html`` pages, or for DocBook, which writes none, an ``index.html``
whose generator is DocBook XSL), so a user's source tree with a ``_static/`` or ``search/``
folder is indexed as before; each skip is reported with its reason, never silent.

A docs source tree often holds its own build beside the sources (Sphinx's ``_build/`` next to
``conf.py``, or ``build/`` next to ``source/conf.py``; MkDocs' ``site/`` next to ``mkdocs.yml``):
the same pages again as HTML, so every answer twice. That folder is skipped too, when the
builder's configuration sits beside it; the sources are what is indexed.

A Docusaurus site's sources (the folder holding ``docusaurus.config.js``/``.ts``/``.mjs``/``.cjs``,
and every folder below it) hold, beside the Markdown pages, the site's own settings in files of
formats docshelf indexes: ``_category_.json``/``.yml`` (a sidebar category's label and
position), ``sidebars.js``/``.ts`` beside the config, the blog's ``authors.yml`` and the
``tags.yml`` lists. Indexed, each is a "document" of labels and URLs that answers nothing; they
are skipped only inside such a site (its config in the folder or a folder above it, also above
the indexed root), so a ``tags.yml`` of any other project is indexed as before.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

_SPHINX_MARKERS = frozenset({"searchindex.js", ".buildinfo", "objects.inv"})
_SPHINX = {
    "_sources": "raw copies of the pages' sources",
    "_static": "theme files and scripts",
    "_modules": "highlighted source code pages",
    "_images": "images",
    "_downloads": "downloadable copies of files",
    "searchindex.js": "the search page's index",
    "objects.inv": "the object inventory for intersphinx",
    ".buildinfo": "build settings",
    "genindex.html": "the general index",
    "search.html": "the search page",
    "py-modindex.html": "the module index",
    "404.html": "the not-found page of sphinx-notfound-page",
}
_SPHINX_PATTERN = re.compile(r"^(?:genindex-[^/]+|[a-z]+-modindex)\.html$")
_MKDOCS = {
    "search": "the search page's index",
    "assets": "theme files and scripts",
    "css": "theme files",
    "js": "theme scripts",
    "webfonts": "theme fonts",
    "fonts": "theme fonts",
    "404.html": "the not-found page",
    "sitemap.xml": "the sitemap",
    "sitemap.xml.gz": "the sitemap",
    "objects.inv": "mkdocstrings' object inventory",
}
_DOCUSAURUS_CONFIGS = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts", "cts"))
_DOCUSAURUS_ANYWHERE = {  # in any folder of the site
    **dict.fromkeys(("_category_.json", "_category_.yml", "_category_.yaml"),
                    "a sidebar category's label and position"),
    **dict.fromkeys(("authors.yml", "authors.yaml", "authors.json"), "the blog's list of authors"),
    **dict.fromkeys(("tags.yml", "tags.yaml"), "the list of tags"),
}
_DOCUSAURUS_AT_ROOT = {  # beside the config
    name: "the sidebar definition" for name in (f"sidebars.{ext}" for ext in ("js", "ts", "mjs", "cjs", "json"))
}
_MKDOCS_GENERATOR = re.compile(rb"<meta[^>]+name=[\"']generator[\"'][^>]+content=[\"']mkdocs", re.I)
_DOCBOOK = {
    "bookindex.html": "the book's index of terms",
    "setindex.html": "the set's index of terms",
}
_DOCBOOK_PATTERN = re.compile(r"^ix\d+\.html$")  # the index's name when it has no id
_DOCBOOK_GENERATOR = re.compile(rb"<meta[^>]+name=[\"']generator[\"'][^>]+content=[\"']DocBook XSL", re.I)
HEAD_BYTES = 4096


def builder(folder: Path, names: Iterable[str]) -> str | None:
    """``"Sphinx"`` or ``"MkDocs"`` when ``folder`` (holding ``names``) is the root of that
    builder's HTML output, else None. Markers must sit beside at least one ``.html`` page."""
    names = set(names)
    if not any(n.endswith(".html") for n in names):
        return None
    # MkDocs first: mkdocstrings writes an objects.inv too.
    if "search" in names and os.path.isfile(folder / "search" / "search_index.json"):
        return "MkDocs"
    if "index.html" in names:
        try:
            with open(folder / "index.html", "rb") as handle:
                head = handle.read(HEAD_BYTES)
            if _MKDOCS_GENERATOR.search(head):
                return "MkDocs"
            if _DOCBOOK_GENERATOR.search(head):  # no marker files: the pages say who made them
                return "DocBook"
        except OSError:
            pass
    return "Sphinx" if names & _SPHINX_MARKERS else None


def build_output(folder: Path, names: Iterable[str]) -> dict[str, str]:
    """A source tree's own build folder in ``folder``, named only when the builder's
    configuration sits beside it (so a user's folder that is merely called ``site`` stays)."""
    names = set(names)
    found = {}
    if "_build" in names and "conf.py" in names:
        found["_build"] = "Sphinx"
    if "build" in names and "source" in names and os.path.isfile(folder / "source" / "conf.py"):
        found["build"] = "Sphinx"
    if "site" in names and names & {"mkdocs.yml", "mkdocs.yaml"}:
        found["site"] = "MkDocs"
    return {name: f"{kind} build output (the sources beside it, built again as HTML), not a page"
            for name, kind in found.items() if os.path.isdir(folder / name)}


def machinery(folder: Path, names: Iterable[str]) -> dict[str, str]:
    """The entries of ``folder`` (names, not paths) to skip, each with the reason to report."""
    names = list(names)
    kind = builder(folder, names)
    if kind is None:
        return build_output(folder, names)
    table = {"Sphinx": _SPHINX, "MkDocs": _MKDOCS, "DocBook": _DOCBOOK}[kind]
    pattern = {"Sphinx": _SPHINX_PATTERN, "DocBook": _DOCBOOK_PATTERN}.get(kind)
    out = {}
    for name in names:
        what = table.get(name)
        if what is None and pattern is not None and pattern.match(name):
            what = "an index page"
        if what is not None:
            out[name] = f"{kind} site machinery ({what}), not a page"
    return out


def docusaurus_files(names: Iterable[str], at_site_root: bool) -> dict[str, str]:
    """The Docusaurus settings files among ``names`` of a folder inside a Docusaurus site."""
    out = {}
    for name in names:
        what = _DOCUSAURUS_ANYWHERE.get(name) or (_DOCUSAURUS_AT_ROOT.get(name) if at_site_root else None)
        if what is not None:
            out[name] = f"Docusaurus site settings ({what}), not a page"
    return out


class BuiltSites:
    """``machinery`` per folder of one walk, each folder listed once."""

    def __init__(self) -> None:
        self._folders: dict[Path, dict[str, str]] = {}
        self._in_docusaurus: dict[Path, bool] = {}

    def in_folder(self, folder: Path, names: Iterable[str] | None = None) -> dict[str, str]:
        found = self._folders.get(folder)
        if found is None:
            if names is None:
                try:
                    names = os.listdir(folder)
                except OSError:
                    names = ()
            names = list(names)
            found = machinery(folder, names)
            at_root = any(n in _DOCUSAURUS_CONFIGS for n in names)
            inside = self._in_docusaurus[folder] = at_root or self.in_docusaurus(folder.parent)
            if inside:
                found = {**docusaurus_files(names, at_root), **found}
            self._folders[folder] = found
        return found

    def in_docusaurus(self, folder: Path) -> bool:
        """Whether ``folder`` is inside a Docusaurus site: its config here or in a folder above."""
        known = self._in_docusaurus.get(folder)
        if known is None:
            here = any(os.path.isfile(folder / name) for name in _DOCUSAURUS_CONFIGS)
            known = here or (folder.parent != folder and self.in_docusaurus(folder.parent))
            self._in_docusaurus[folder] = known
        return known

    def reason(self, root: Path, rel: str) -> str | None:
        """Why ``root/rel`` is skipped as machinery (it or a folder above it inside the root), or None."""
        parts = [p for p in rel.strip("/").split("/") if p not in ("", ".")]
        for i, name in enumerate(parts):
            why = self.in_folder(root.joinpath(*parts[:i])).get(name)
            if why is not None:
                return why
        return None
