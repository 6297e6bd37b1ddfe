"""Tool profiles: the tool names, arguments and result fields of the servers docshelf replaces.

An agent whose prompts were written for another documentation server keeps working when that
server is swapped for ``docshelf serve --profile NAME``: the profile adds (or, for a shared
name such as ``search_docs``, replaces) tools shaped like the old ones, answered by docshelf's
own search. The translation of each old argument into a ``SearchRequest`` lives here, so the
MCP server only registers the tools.

- ``vault`` (an Obsidian-vault server): ``search_vault(query, limit, para_folder, note_type)``,
  ``search_glossary(query, limit)``, ``get_note(path)``.
- ``docs`` (a vendor-docs server on ChromaDB): ``search_docs(query, category, n_results ≤ 20)``,
  ``list_collections()``, ``get_document(source)`` returning the whole document; results are
  ``{text, source, score, category, page, section}``.
- ``builder`` (a documentation service fed by a builder): ``search_docs(query, k, mode =
  "embedding" | "keyword", doc_type as a comma-separated list with the default scope,
  date_from, date_to)``; its ``keyword`` mode was fuzzy, so it maps to docshelf's ``fuzzy``.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field

from .models import Hit
from .pipeline.obsidian import para_folder as para_folder_of
from .requests import SearchRequest

PROFILES = ("vault", "docs", "builder")
DOCS_MAX_RESULTS = 20
BUILDER_MODES = {"embedding": "semantic", "keyword": "fuzzy"}


class VaultHit(BaseModel):
    path: str = Field(description="The note's path in the vault; pass it to get_note.")
    title: str
    note_type: str = Field(description="The note's frontmatter `type` (or its configured doc type).")
    para_folder: Optional[str] = Field(None, description="Top-level PARA folder (1_Projects, 3_Resources…).")
    heading: str = Field(description="The section the passage sits under (headings joined with ' > ').")
    tags: list[str] = []
    score: float = Field(description="Relevance in [0, 1].")
    text: str


class VaultResults(BaseModel):
    query: str
    results: list[VaultHit]
    note: str = ""


class DocsHit(BaseModel):
    text: str
    source: str = Field(description="The document's path; pass it to get_document.")
    score: float = Field(description="Relevance in [0, 1].")
    category: str = Field(description="The collection the document belongs to.")
    page: Optional[int] = None
    section: str = Field(description="The heading path of the passage, joined with ' > '.")


class DocsResults(BaseModel):
    query: str
    results: list[DocsHit]
    note: str = ""


class BuilderHit(BaseModel):
    id: str = Field(description="The chunk id.")
    content: str
    score: float = Field(description="Relevance in [0, 1].")
    source: str = Field(description="Path or URL of the document.")
    title: str
    doc_type: str
    date: Optional[str] = None
    heading_path: list[str] = []
    page: Optional[int] = None
    start_line: Optional[int] = None
    end_line: Optional[int] = None


class BuilderResults(BaseModel):
    query: str
    mode: str
    results: list[BuilderHit]
    note: str = ""


def _section(hit: Hit) -> str:
    return " > ".join(hit.heading_path)


def check(profile: str) -> str:
    if profile not in PROFILES:
        from .errors import ConfigError

        raise ConfigError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return profile


def glossary_scope(settings: Any) -> dict[str, Any]:
    """The filters of the configured glossary preset (the vault profile's ``search_glossary``)."""
    preset = next((p for p in settings.presets if p.name in ("glossary", "search_glossary")), None)
    if preset is None:
        return {"doc_types": ("glossary", "definition")}
    return {"collections": tuple(preset.collections), "doc_types": tuple(preset.doc_types) or None,
            "path_prefix": preset.path_prefix, "tags_any": tuple(preset.tags)}


def vault_request(query: str, limit: int = 5, para_folder: str | None = None,
                  note_type: str | None = None, *, para_folders: list[str] | None = None,
                  **options: Any) -> SearchRequest:
    """``para_folders``: the vault's PARA folders (``Docshelf.para_folders``). With them, a folder
    named by its category (``Projects`` for ``1_Projects``) is found, and one the vault does not
    have is refused naming those it has, not answered with no hits."""
    if para_folder and para_folders is not None:
        from .errors import InvalidRequest
        from .pipeline.obsidian import match_para_folder

        found = match_para_folder(para_folder, para_folders)
        if found is None:
            have = ", ".join(repr(f) for f in para_folders) or "none (no top folder is Projects, Areas, Resources or Archive)"
            raise InvalidRequest("para_folder", f"the vault has no PARA folder {para_folder!r}; its PARA folders: {have}")
        para_folder = found
    fields = (("para_folder", para_folder),) if para_folder else ()
    return SearchRequest(query=query, k=limit, fields=fields,
                         doc_types=(note_type.strip().lower(),) if note_type else None, **options)


def vault_hit(hit: Hit) -> VaultHit:
    return VaultHit(path=hit.path, title=hit.title, note_type=hit.doc_type, para_folder=para_folder_of(hit.path),
                    heading=_section(hit), tags=list(hit.tags), score=hit.score, text=hit.text)


def docs_request(query: str, category: str | None = None, n_results: int = 5, **options: Any) -> SearchRequest:
    return SearchRequest(query=query, k=min(n_results, DOCS_MAX_RESULTS), collections=(category,) if category else (),
                         **options)


def docs_hit(hit: Hit) -> DocsHit:
    return DocsHit(text=hit.text, source=hit.path, score=hit.score, category=hit.collection, page=hit.page,
                   section=_section(hit))


def builder_request(query: str, k: int = 5, mode: str = "embedding", doc_type: str | None = None,
                    date_from: str | None = None, date_to: str | None = None, **options: Any) -> SearchRequest:
    from .errors import InvalidRequest

    if mode not in BUILDER_MODES:
        raise InvalidRequest("mode", f"use 'embedding' or 'keyword', got {mode!r}")
    types = tuple(t.strip().lower() for t in (doc_type or "").split(",") if t.strip()) or None
    return SearchRequest(query=query, k=k, mode=BUILDER_MODES[mode], doc_types=types,
                         date_from=date_from, date_to=date_to, **options)


def builder_hit(hit: Hit) -> BuilderHit:
    return BuilderHit(id=hit.chunk_id, content=hit.text, score=hit.score, source=hit.path, title=hit.title,
                      doc_type=hit.doc_type, date=hit.date, heading_path=list(hit.heading_path), page=hit.page,
                      start_line=hit.start_line, end_line=hit.end_line)
