"""The MCP server: docshelf's search and reading tools for AI agents (mcp SDK 2.x ``MCPServer``).

``build_server(runtime)`` registers the tools on a server that answers ``initialize``
at once: the index is opened, the model loaded and the roots reconciled and watched in
the background (see ``docshelf.live.runtime``). Tools are plain ``def`` functions, which
the SDK runs in worker threads, so no search or read blocks the event loop. A
``DocshelfError`` becomes a ``ToolError``: the client gets an error result whose text
says what went wrong and what to do next.
"""

import functools
import hashlib
import inspect
import json
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import Annotated, Any, Callable, Literal, Optional, TypeVar
from urllib.parse import quote

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from ..config import SearchPreset, Settings
from ..errors import DocshelfError, InvalidQuery, NotFound
from ..live.runtime import ServerRuntime
from ..models import Hit, SearchFilters
from .mcp_models import (
    CollectionOut,
    CollectionsOut,
    DocumentInfoOut,
    DocumentOut,
    DocumentsPageOut,
    FailedFileOut,
    NeighborChunkOut,
    NeighborsOut,
    NoteOut,
    SearchHitOut,
    SearchOut,
    StatusOut,
)
from .output import citation

log = logging.getLogger(__name__)

DEFAULT_RESPONSE_CHARS = 20_000
START_FALLBACK_S = 1.0
MAX_K = 50
URI_PREFIX = "docshelf://doc/"
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
DEFAULT_PRESETS = [
    SearchPreset(
        name="glossary",
        description="Look up a term's definition: searches only documents whose doc type is 'glossary'.",
        doc_types=["glossary"],
    )
]

Mode = Literal["hybrid", "semantic", "keyword", "fuzzy"]
_F = TypeVar("_F", bound=Callable[..., Any])

INSTRUCTIONS = """docshelf searches the user's local documentation (notes, manuals, PDFs, web pages).
Use search_docs first; every hit carries a citation (path, headings, page or lines) to quote.
Read more with read_neighbors (the text around a hit) or get_document (a whole document or a
range). list_collections and index_status describe what is indexed. Results come from the
user's own files, which stay on this machine."""


def _tool_errors(fn: _F) -> _F:
    """Turn DocshelfError into ToolError so the model reads our message (not a generic crash)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except DocshelfError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def doc_id(root: str, path: str) -> str:
    return hashlib.sha1(f"{root}\x00{path}".encode()).hexdigest()[:16]


def doc_uri(path: str) -> str:
    return URI_PREFIX + quote(path, safe="/")


def _iso(ts: Optional[float]) -> Optional[str]:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds") if ts else None


def _scope_text(settings: Settings, collections: Optional[list[tuple[str, tuple[str, ...]]]] = None) -> str:
    """'Collections: a, b. Doc types: x, y.' from the index when open, else from the config."""
    if collections:
        names = [c for c, _ in collections]
        types = sorted({t for _, ts in collections for t in ts})
    else:
        names = [settings.default_collection] + [c.name for c in settings.collections]
        types = sorted(
            {settings.default_doc_type}
            | {r.doc_type for r in settings.doc_types}
            | {c.doc_type for c in settings.collections if c.doc_type}
        )
    return f"Collections: {', '.join(dict.fromkeys(names))}. Doc types: {', '.join(types)}."


def fit_hits(hits: list[SearchHitOut], budget: int) -> tuple[list[SearchHitOut], bool]:
    """Shorten hit texts (longest first, evenly) so the serialized hits fit in ``budget`` chars."""
    overhead = sum(len(h.model_copy(update={"text": ""}).model_dump_json()) for h in hits)
    room = max(budget - overhead - 200, 200 * len(hits))
    lengths = [len(h.text) for h in hits]
    if sum(lengths) <= room:
        return hits, False
    # Water-filling: find the cap c such that sum(min(len, c)) == room.
    cap, remaining, left = 0, room, len(lengths)
    for n in sorted(lengths):
        share = remaining // left
        if n <= share:
            remaining -= n
            left -= 1
        else:
            cap = share
            break
    out = []
    for h in hits:
        if len(h.text) > cap:
            text = h.text[: max(cap - 2, 0)].rstrip() + " …"
            out.append(h.model_copy(update={"text": text, "text_truncated": True}))
        else:
            out.append(h)
    return out, True


def _parse_lines(lines: Optional[str]) -> Optional[tuple[int, int]]:
    if not lines:
        return None
    try:
        a, _, b = lines.partition("-")
        start, end = int(a), int(b or a)
    except ValueError:
        raise InvalidQuery(f"lines must look like '10-40' or '12', got {lines!r}") from None
    if start < 1 or end < start:
        raise InvalidQuery(f"lines must be a 1-based range with start <= end, got {lines!r}")
    return start, end


def build_server(runtime: ServerRuntime, *, response_chars: int = DEFAULT_RESPONSE_CHARS) -> MCPServer:
    """An MCPServer whose tools read from ``runtime``'s service (opened in the background)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("docshelf")
    except PackageNotFoundError:  # pragma: no cover
        ver = "0"
    settings = runtime.settings

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[ServerRuntime]:
        # The transport is up (under stdio, stdout is already claimed for the protocol). The
        # heavy start-up begins once `initialize` is answered (see start_after_handshake),
        # or after START_FALLBACK_S for a client that goes quiet after the handshake.
        timer = threading.Timer(START_FALLBACK_S, runtime.start)
        timer.daemon = True
        timer.start()
        try:
            yield runtime
        finally:
            timer.cancel()

    async def start_after_handshake(ctx: Any, call_next: Any) -> Any:
        # Importing LanceDB and onnxruntime competes for the GIL; keep it off the handshake.
        result = await call_next(ctx)
        if ctx.method != "initialize":
            runtime.start()
        return result

    server: MCPServer = MCPServer(name="docshelf", version=ver, instructions=INSTRUCTIONS, lifespan=lifespan,
                                  middleware=[start_after_handshake])
    svc = runtime.service

    def hit_out(rank: int, hit: Hit) -> SearchHitOut:
        return SearchHitOut(
            rank=rank, score=round(hit.score, 4), path=hit.path, title=hit.title, heading_path=list(hit.heading_path),
            citation=citation(hit), page=hit.page, start_line=hit.start_line, end_line=hit.end_line,
            collection=hit.collection, doc_type=hit.doc_type, tags=list(hit.tags), date=hit.date,
            chunk_id=hit.chunk_id, doc_id=doc_id(hit.root, hit.path), uri=doc_uri(hit.path), text=hit.text,
        )

    def run_search(query: str, k: int, mode: Optional[str], filters: SearchFilters) -> SearchOut:
        result = svc().search(query, k=k, mode=mode, filters=filters)  # type: ignore[arg-type]
        hits, cut = fit_hits([hit_out(i, h) for i, h in enumerate(result.hits, 1)], response_chars)
        notes = [result.note] if result.note else []
        if cut:
            notes.append(
                f"hit texts were shortened to keep this response under {response_chars} characters; "
                "use read_neighbors(chunk_id) or get_document(path) for the full text"
            )
        state = runtime.state()
        if state["state"] in ("opening", "indexing"):
            notes.append("the index is still being built; results may be incomplete (see index_status)")
        return SearchOut(query=result.query, mode=result.mode, hits=hits, note="; ".join(notes),
                         took_ms=round(result.took_ms, 1))

    # -- search ---------------------------------------------------------------------------
    @_tool_errors
    def search_docs(
        query: Annotated[str, Field(description="What to find: a natural-language question or exact terms, names, error codes.")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="Number of hits to return (1-50).")] = 5,
        mode: Annotated[Optional[Mode], Field(description=(
            "hybrid (default: meaning + exact words), semantic (meaning only), keyword (BM25 exact words), "
            "fuzzy (tolerates typos and partial names)."))] = None,
        collection: Annotated[Optional[list[str]], Field(description="Only these collections.")] = None,
        doc_type: Annotated[Optional[list[str]], Field(description="Only these document types.")] = None,
        date_from: Annotated[Optional[str], Field(description="Only documents dated on or after this day (YYYY-MM-DD).")] = None,
        date_to: Annotated[Optional[str], Field(description="Only documents dated on or before this day (YYYY-MM-DD).")] = None,
        path_prefix: Annotated[Optional[str], Field(description="Only documents whose path starts with this, e.g. 'guides/'.")] = None,
        tags: Annotated[Optional[list[str]], Field(description="Only documents carrying at least one of these tags.")] = None,
    ) -> SearchOut:
        """Search the user's indexed documentation and return the best-matching passages, ranked.

        Each hit has the passage text, a score in [0, 1], and citation fields (path, title,
        heading_path, page, start_line/end_line) to quote the source. Use read_neighbors with a
        hit's chunk_id for surrounding text, or get_document with its path for the whole document.
        Texts are shortened when the response would exceed the server's size budget (the note
        says so). While the embedding model is still loading, semantic and hybrid searches return
        keyword results with a note.
        """
        filters = SearchFilters(
            collections=tuple(collection or ()), doc_types=tuple(doc_type) if doc_type else None,
            date_from=date_from, date_to=date_to, path_prefix=path_prefix, tags_any=tuple(tags or ()),
        )
        return run_search(query, k, mode, filters)

    scope = _scope_text(settings)
    search_desc = inspect.cleandoc(search_docs.__doc__ or "")
    server.add_tool(search_docs, description=f"{search_desc}\n\n{scope}", annotations=READ_ONLY,
                    title="Search documentation")

    for preset in settings.presets or DEFAULT_PRESETS:
        name = preset.name if preset.name.startswith("search_") else f"search_{preset.name}"
        server.add_tool(_preset_tool(preset, run_search), name=name, description=_preset_description(preset),
                        annotations=READ_ONLY, title=f"Search ({preset.name})")

    # -- reading --------------------------------------------------------------------------
    def read_document(path: Optional[str], doc_id_: Optional[str], lines: Optional[str], page: Optional[int],
                      section: Optional[str], max_chars: int) -> DocumentOut:
        service = svc()
        root = None
        if doc_id_:
            record = next((r for r in service.store.records() if doc_id(r.root, r.path) == doc_id_), None)
            if record is None:
                raise NotFound(f"no document with doc_id {doc_id_!r}; doc ids come from search_docs or list_documents")
            path, root = record.path, record.root
        if not path:
            raise InvalidQuery("pass path or doc_id")
        doc = service.get_document(path, root=root, lines=_parse_lines(lines), page=page, section=section,
                                   max_chars=max_chars)
        return DocumentOut(
            path=doc.path, title=doc.title, collection=doc.collection, doc_type=doc.doc_type,
            doc_id=doc_id(doc.root, doc.path), uri=doc_uri(doc.path), text=doc.text, start_line=doc.start_line,
            end_line=doc.end_line, pages=list(doc.pages), truncated=doc.truncated, total_chunks=doc.total_chunks,
            chunks_returned=len(doc.chunk_ids),
        )

    @_tool_errors
    def get_document(
        path: Annotated[Optional[str], Field(description="Document path as given in search hits or list_documents.")] = None,
        doc_id: Annotated[Optional[str], Field(description="Alternative to path: the doc_id of a hit or listed document.")] = None,
        lines: Annotated[Optional[str], Field(description="Only this line range, e.g. '10-40' (text formats).")] = None,
        page: Annotated[Optional[int], Field(ge=1, description="Only this page (PDF, 1-based).")] = None,
        section: Annotated[Optional[str], Field(description="Only the section under this heading (case-insensitive).")] = None,
        max_chars: Annotated[int, Field(ge=100, le=500_000, description="Cut the text after this many characters.")] = response_chars,
    ) -> DocumentOut:
        """Read a whole indexed document, or one range of it (lines, page or section), as plain text.

        The text is reassembled from the indexed chunks in reading order. Pass path or doc_id.
        When truncated is true, request a narrower range (lines/page/section) to read the rest.
        """
        return read_document(path, doc_id, lines, page, section, max_chars)

    server.add_tool(get_document, description=inspect.cleandoc(get_document.__doc__ or ""), annotations=READ_ONLY, title="Read a document")

    @_tool_errors
    def read_neighbors(
        chunk_id: Annotated[str, Field(description="The chunk_id of a search hit.")],
        before: Annotated[int, Field(ge=0, le=20, description="Chunks to include before it.")] = 1,
        after: Annotated[int, Field(ge=0, le=20, description="Chunks to include after it.")] = 1,
    ) -> NeighborsOut:
        """Return a search hit's chunk together with the chunks just before and after it, in order.

        Use it to read the context around a hit without fetching the whole document.
        """
        chunks = svc().neighbors(chunk_id, before, after)
        first = chunks[0]
        budget, out = response_chars, []
        for c in chunks:
            text = c.text if len(c.text) <= budget else c.text[: max(budget, 0)] + " …"
            budget -= len(text)
            out.append(NeighborChunkOut(
                chunk_id=c.id, chunk_index=c.chunk_index, is_anchor=c.id == chunk_id, heading_path=list(c.heading_path),
                page=c.page, start_line=c.start_line, end_line=c.end_line, text=text,
            ))
        return NeighborsOut(path=first.path, title=first.title, chunks=out)

    server.add_tool(read_neighbors, description=inspect.cleandoc(read_neighbors.__doc__ or ""), annotations=READ_ONLY, title="Read around a hit")

    @_tool_errors
    def get_note(
        path: Annotated[str, Field(description=(
            "The note: its path ('Projects/Alpha.md'), its file name without folder or extension ('Alpha'), "
            "a wiki link ('[[Alpha]]'), its title or one of its frontmatter aliases."))],
        max_chars: Annotated[int, Field(ge=100, le=500_000, description="Cut the text after this many characters.")] = response_chars,
    ) -> NoteOut:
        """Read one note from a notes vault (Obsidian-style Markdown) by path, name, wiki link, title or alias.

        Returns the note's text and its frontmatter (tags, date, type, aliases).
        """
        service = svc()
        record = _resolve_note(service.store.records(), path)
        doc = service.get_document(record.path, root=record.root, max_chars=max_chars)
        chunks = service.store.document_chunks(record.root, record.path)
        meta: dict[str, Any] = json.loads(chunks[0].metadata_json or "{}") if chunks else {}
        aliases = meta.get("aliases") or []
        return NoteOut(
            path=record.path, title=record.title, doc_type=record.doc_type, tags=list(record.tags), date=record.date,
            aliases=[str(a) for a in (aliases if isinstance(aliases, list) else [aliases])], metadata=meta,
            text=doc.text, truncated=doc.truncated, uri=doc_uri(record.path),
        )

    server.add_tool(get_note, description=inspect.cleandoc(get_note.__doc__ or ""), annotations=READ_ONLY, title="Read a note")

    # -- listing and status -------------------------------------------------------------
    @_tool_errors
    def list_collections() -> CollectionsOut:
        """List the collections in the index with their document and chunk counts, plus totals, the
        embedding model and whether the index and model are ready."""
        service = svc()
        cols = service.collections()
        state = runtime.state()
        records = service.store.records()
        return CollectionsOut(
            collections=[CollectionOut(name=c.name, documents=c.documents, chunks=c.chunks, doc_types=list(c.doc_types))
                         for c in cols],
            total_documents=sum(c.documents for c in cols), total_chunks=sum(c.chunks for c in cols),
            failed_documents=sum(1 for r in records if r.status == "failed"), model=service.embedder.model_id,
            model_state=state["model"], index_state=state["state"],
        )

    server.add_tool(list_collections, description=inspect.cleandoc(list_collections.__doc__ or ""), annotations=READ_ONLY, title="List collections")

    @_tool_errors
    def list_documents(
        collection: Annotated[Optional[str], Field(description="Only this collection.")] = None,
        path_prefix: Annotated[Optional[str], Field(description="Only paths starting with this, e.g. 'guides/'.")] = None,
        limit: Annotated[int, Field(ge=1, le=500, description="Page size.")] = 100,
        cursor: Annotated[Optional[str], Field(description="next_cursor from the previous page.")] = None,
    ) -> DocumentsPageOut:
        """List indexed documents sorted by path, with title, collection, type, tags and status, one page at a time."""
        docs, nxt = svc().list_documents(collection=collection, path_prefix=path_prefix, limit=limit, cursor=cursor)
        return DocumentsPageOut(
            documents=[
                DocumentInfoOut(
                    path=d.path, title=d.title, collection=d.collection, doc_type=d.doc_type, status=d.status,
                    error=d.error, chunks=d.chunk_count, format=d.format, tags=list(d.tags), date=d.date,
                    page_count=d.page_count, doc_id=doc_id(d.root, d.path), uri=doc_uri(d.path),
                )
                for d in docs
            ],
            next_cursor=nxt,
        )

    server.add_tool(list_documents, description=inspect.cleandoc(list_documents.__doc__ or ""), annotations=READ_ONLY, title="List documents")

    @_tool_errors
    def index_status() -> StatusOut:
        """Report the index's health: indexed document and chunk counts, files still pending, files that
        failed with the reason, when the index last changed, the file watcher's state and this server's role."""
        service = svc()
        st = service.status()
        state = runtime.state()
        failed = {**st.failed, **state["failed"]}
        return StatusOut(
            state=state["state"], role=state["role"], watcher=state["watcher"], model=st.model,
            model_state=state["model"], index_dir=st.index_dir, roots=list(st.roots),
            missing_roots=state["missing_roots"], documents=st.documents, chunks=st.chunks, pending=state["pending"],
            failed=[FailedFileOut(path=p, reason=r) for p, r in sorted(failed.items())],
            skipped=[FailedFileOut(path=p, reason=r) for p, r in sorted(st.skipped.items())],
            last_update=_iso(state["last_update"] or st.last_indexed_at), last_error=state["last_error"] or state["error"],
            started_at=_iso(state["started_at"]) or "",
        )

    server.add_tool(index_status, description=inspect.cleandoc(index_status.__doc__ or ""), annotations=READ_ONLY, title="Index status")

    # -- resources ------------------------------------------------------------------------
    @server.resource(f"{URI_PREFIX}{{+path}}", name="document", mime_type="text/plain",
                     description="An indexed document's text, reassembled in reading order.")
    def document_resource(path: str) -> str:
        try:
            return svc().get_document(path, max_chars=500_000).text
        except DocshelfError as exc:
            from mcp.server.mcpserver.exceptions import ResourceError

            raise ResourceError(str(exc)) from exc

    def describe_index(service: Any) -> None:
        """Once the index is open, list its real collections and types in the search descriptions."""
        try:
            cols = [(c.name, c.doc_types) for c in service.collections()]
        except Exception:  # noqa: BLE001 - descriptions keep the configured scope
            return
        if cols:
            tool = server._tool_manager.get_tool("search_docs")
            if tool is not None:
                tool.description = f"{search_desc}\n\n{_scope_text(settings, cols)}"

    runtime.on_ready.append(describe_index)
    return server


def _preset_description(preset: SearchPreset) -> str:
    scope = []
    if preset.collections:
        scope.append(f"collections {', '.join(preset.collections)}")
    if preset.doc_types:
        scope.append(f"doc types {', '.join(preset.doc_types)}")
    if preset.path_prefix:
        scope.append(f"paths under {preset.path_prefix}")
    if preset.tags:
        scope.append(f"tags {', '.join(preset.tags)}")
    what = preset.description or f"Search the '{preset.name}' part of the documentation."
    return (f"{what}\n\nSearches only {'; '.join(scope) or 'the whole index'}. Returns ranked passages with "
            "citation fields, like search_docs.")


def _preset_tool(preset: SearchPreset, run_search: Callable[..., SearchOut]) -> Callable[..., SearchOut]:
    filters = SearchFilters(
        collections=tuple(preset.collections), doc_types=tuple(preset.doc_types) or None,
        path_prefix=preset.path_prefix, tags_any=tuple(preset.tags),
    )

    @_tool_errors
    def preset_search(
        query: Annotated[str, Field(description="What to find: a question, a term or a name.")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="Number of hits to return (1-50).")] = 5,
        mode: Annotated[Optional[Mode], Field(description="hybrid (default), semantic, keyword or fuzzy.")] = None,
    ) -> SearchOut:
        return run_search(query, k, mode, filters)

    return preset_search


def _resolve_note(records: list[Any], name: str) -> Any:
    want = name.strip()
    if want.startswith("[[") and want.endswith("]]"):
        want = want[2:-2].split("|", 1)[0].split("#", 1)[0].strip()
    want = want.lstrip("/")
    indexed = [r for r in records if r.status == "indexed"]
    lowered = want.lower()
    for test in (
        lambda r: r.path == want,
        lambda r: r.path == want + ".md",
        lambda r: r.path.lower() in (lowered, lowered + ".md"),
        lambda r: r.path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower() == lowered,
        lambda r: r.title.lower() == lowered,
        lambda r: any(a.lower() == lowered for a in getattr(r, "aliases", ())),
    ):
        found = [r for r in indexed if test(r)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            paths = ", ".join(sorted(r.path for r in found)[:10])
            raise NotFound(f"{name!r} matches several notes ({paths}); pass the full path")
    raise NotFound(f"no note named {name!r}; search_docs or list_documents shows the indexed paths")


__all__ = ["build_server", "fit_hits", "doc_id", "doc_uri", "DEFAULT_RESPONSE_CHARS"]
