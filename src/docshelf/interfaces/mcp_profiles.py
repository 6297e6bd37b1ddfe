"""MCP tools shaped like other documentation servers' (``docshelf serve --profile NAME``).

The argument translation and result shapes live in ``docshelf.profiles``; this module only
registers the tools. A profile tool with the name of a docshelf tool (``search_docs``,
``get_document``, ``list_collections``, ``search_glossary``) replaces it.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Literal, Optional

from pydantic import BaseModel, Field

from .. import profiles
from ..requests import DocumentRequest, SearchRequest
from .mcp_server import READ_ONLY, tool_errors


class CollectionCount(BaseModel):
    name: str
    documents: int
    chunks: int


class CollectionList(BaseModel):
    collections: list[CollectionCount]


class WholeDocument(BaseModel):
    source: str
    title: str
    category: str
    text: str = Field(description="The whole document (shortened only past the server's size budget).")
    truncated: bool


def add_profile(server: Any, name: str, search: Callable[[SearchRequest], Any], svc: Callable[[], Any],
                glossary_scope: dict[str, Any], response_chars: int) -> None:
    """Register profile ``name``'s tools on ``server``; ``search`` runs a request like search_docs does."""
    profiles.check(name)

    def replace(fn: Callable[..., Any], tool: str, description: str) -> None:
        try:
            server.remove_tool(tool)
        except Exception:  # noqa: BLE001 - not registered (e.g. no glossary preset): just add it
            pass
        server.add_tool(fn, name=tool, description=description, annotations=READ_ONLY)

    if name == "vault":
        @tool_errors
        def search_vault(
            query: Annotated[str, Field(description="What to find in the vault: a question, a term or a name.")],
            limit: Annotated[int, Field(ge=1, le=50, description="Number of results (1-50).")] = 5,
            para_folder: Annotated[Optional[str], Field(description=(
                "Only notes in this top-level PARA folder, e.g. '1_Projects' or '3_Resources', or by its "
                "category ('Projects'); a folder the vault lacks is an error naming those it has."))] = None,
            note_type: Annotated[Optional[str], Field(description="Only notes whose frontmatter type is this.")] = None,
        ) -> profiles.VaultResults:
            known = svc().para_folders() if para_folder else None
            result = search(profiles.vault_request(query, limit, para_folder, note_type, para_folders=known,
                                                   max_chars=response_chars))
            return profiles.VaultResults(query=query, results=[profiles.vault_hit(h) for h in result.hits],
                                         note=result.note)

        @tool_errors
        def search_glossary(
            query: Annotated[str, Field(description="The term to define.")],
            limit: Annotated[int, Field(ge=1, le=50, description="Number of results (1-50).")] = 5,
        ) -> profiles.VaultResults:
            request = SearchRequest(query=query, k=limit, max_chars=response_chars, **glossary_scope)
            result = search(request)
            return profiles.VaultResults(query=query, results=[profiles.vault_hit(h) for h in result.hits],
                                         note=result.note)

        replace(search_vault, "search_vault",
                "Search the Obsidian vault's notes; filter by PARA folder or note type. Returns the best passages "
                "with their note path, heading and score in [0, 1]; read a whole note with get_note(path).")
        replace(search_glossary, "search_glossary",
                "Look up a term in the vault's glossary (definition notes). Returns the best definitions.")
        # get_note(path) is docshelf's own tool: the same name and argument, with links and backlinks.

    elif name == "docs":
        @tool_errors
        def search_docs(
            query: Annotated[str, Field(description="What to find in the documentation.")],
            category: Annotated[Optional[str], Field(description="Only this category (a collection name).")] = None,
            n_results: Annotated[int, Field(ge=1, le=profiles.DOCS_MAX_RESULTS,
                                            description="Number of results (1-20).")] = 5,
        ) -> profiles.DocsResults:
            result = search(profiles.docs_request(query, category, n_results, max_chars=response_chars))
            return profiles.DocsResults(query=query, results=[profiles.docs_hit(h) for h in result.hits],
                                        note=result.note)

        @tool_errors
        def list_collections() -> CollectionList:
            return CollectionList(collections=[CollectionCount(name=c.name, documents=c.documents, chunks=c.chunks)
                                               for c in svc().collections()])

        @tool_errors
        def get_document(
            source: Annotated[str, Field(description="The document's source path, as search_docs returns it.")],
        ) -> WholeDocument:
            doc = svc().get_document(DocumentRequest(path=source, max_chars=response_chars))
            return WholeDocument(source=doc.path, title=doc.title, category=doc.collection, text=doc.text,
                                 truncated=doc.truncated)

        replace(search_docs, "search_docs",
                "Search the documentation. Returns passages as {text, source, score, category, page, section}; "
                "score is relevance in [0, 1]. Read a whole document with get_document(source).")
        replace(list_collections, "list_collections", "List the documentation categories (collections).")
        replace(get_document, "get_document", "Read a whole document by its source path.")

    elif name == "builder":
        @tool_errors
        def search_docs(
            query: Annotated[str, Field(description="What to find.")],
            k: Annotated[int, Field(ge=1, le=50, description="Number of results (1-50).")] = 5,
            mode: Annotated[Literal["embedding", "keyword"], Field(description=(
                "embedding (by meaning) or keyword (exact and fuzzy word matches)."))] = "embedding",
            doc_type: Annotated[Optional[str], Field(description=(
                "Comma-separated document types, e.g. 'article,faq' (default: the configured scope)."))] = None,
            date_from: Annotated[Optional[str], Field(description="Only documents dated on or after (YYYY-MM-DD).")] = None,
            date_to: Annotated[Optional[str], Field(description="Only documents dated on or before (YYYY-MM-DD).")] = None,
        ) -> profiles.BuilderResults:
            request = profiles.builder_request(query, k, mode, doc_type, date_from, date_to, max_chars=response_chars)
            result = search(request)
            return profiles.BuilderResults(query=query, mode=mode, results=[profiles.builder_hit(h) for h in result.hits],
                                           note=result.note)

        replace(search_docs, "search_docs",
                "Search the documentation by meaning (mode 'embedding') or by words (mode 'keyword'), optionally "
                "filtered by document types and dates. Results carry content, source, score in [0, 1] and citation fields.")
