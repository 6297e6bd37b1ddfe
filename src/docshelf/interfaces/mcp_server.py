"""The MCP server: docshelf's search and reading tools for AI agents (mcp SDK 2.x ``MCPServer``).

``build_server(runtime)`` registers the tools on a server that answers ``initialize``
at once: the index is opened, the model loaded and the roots reconciled and watched in
the background (see ``docshelf.live.runtime``). Tools are plain ``def`` functions, which
the SDK runs in worker threads, so no search or read blocks the event loop. A
``DocshelfError`` becomes a ``ToolError``: the client gets an error result whose text
says what went wrong and what to do next.
"""

import asyncio
import collections
import difflib
import functools
import inspect
import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import Annotated, Any, Callable, Literal, Optional, TypeVar, Union
from urllib.parse import quote

from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from ..config import SearchPreset, Settings
from ..errors import DocshelfError
from ..live.runtime import ServerRuntime
from ..models import Hit, doc_id
from ..requests import (
    DOC_URI_PREFIX, MAX_TEXT_CHARS, DocumentListRequest, DocumentRequest, SearchRequest, invalid_request,
)
from .mcp_models import (
    CollectionOut,
    CollectionsOut,
    DocumentInfoOut,
    DocumentOut,
    DocumentsPageOut,
    FailedFileOut,
    NeighborChunkOut,
    NeighborsOut,
    LinkOut,
    NoteOut,
    SearchHitOut,
    SearchOut,
    StatusOut,
)
from .output import citation

log = logging.getLogger(__name__)

DEFAULT_RESPONSE_CHARS = 20_000
START_FALLBACK_S = 1.0
URI_PREFIX = DOC_URI_PREFIX
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)
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


tool_errors = _tool_errors  # for the profile tools (mcp_profiles.py)

def argument_problem(server: MCPServer, name: Any, arguments: Any) -> Optional[str]:
    """Why a tools/call's arguments cannot be used, in the request models' words; None when they can.

    The SDK ignores an argument the tool does not have, so a misspelt filter (``collections``
    for ``collection``) would search unfiltered and the agent would trust it; and its type
    errors are pydantic dumps. Unknown tools and non-object arguments are left to the SDK.
    """
    tool = server._tool_manager.get_tool(name) if isinstance(name, str) else None
    if tool is None or not isinstance(arguments, dict):
        return None
    known = list((tool.parameters or {}).get("properties", {}))
    unknown = [a for a in arguments if a not in known]
    if unknown:
        parts = []
        for a in unknown:
            close = difflib.get_close_matches(str(a), known, n=1, cutoff=0.6)
            parts.append(f"'{a}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
        takes = f"its arguments are: {', '.join(known)}" if known else f"{tool.name} takes no arguments"
        return f"unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(parts)}; {takes}"
    meta = tool.fn_metadata
    try:
        meta.arg_model.model_validate(meta.pre_parse_json(arguments))
    except ValidationError as exc:
        return str(invalid_request(exc, meta.arg_model))
    return None


_SCHEMA_BOUNDS = {"ge": "minimum", "le": "maximum", "min_length": "minLength", "max_length": "maxLength"}


def arg(model: Any, name: str, type_: Any) -> Any:
    """``Annotated[type_, Field(…)]`` with request field ``name``'s description, and its bounds in the schema.

    The bounds are shown to the agent but not checked here: the request model checks
    them, so a rejected value gets the same message from MCP as from the CLI.
    """
    info = model.model_fields[name]
    bounds = {key: getattr(m, attr) for m in info.metadata for attr, key in _SCHEMA_BOUNDS.items() if hasattr(m, attr)}
    return Annotated[type_, Field(description=info.description, json_schema_extra=bounds or None)]


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
        # Tools are listed before the index opens: the configuration does not know the types
        # that documents set in their frontmatter, so say where the index's own list is.
        return (f"Collections: {', '.join(dict.fromkeys(names))}. Doc types: {', '.join(types)} (as configured; "
                "documents may set others in their frontmatter: list_collections lists the index's own).")
    return f"Collections: {', '.join(dict.fromkeys(names))}. Doc types: {', '.join(types)}."


class ToolListNotifier:
    """Tells connected clients that the tool list changed (a description now names the index's scope).

    Clients list tools once, right after the handshake, before the index is open; without
    ``notifications/tools/list_changed`` they would keep the configured scope for good.
    Handshake-era clients get it on their connection (tracked from their
    ``notifications/initialized``); 2026-07-28 clients get it on their
    ``subscriptions/listen`` stream through the server's bus. Called from worker threads.
    """

    MAX_CONNECTIONS = 256  # the latest ones; an older HTTP session lists tools afresh when it returns

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._sessions: collections.deque[tuple[Any, asyncio.AbstractEventLoop]] = collections.deque(
            maxlen=self.MAX_CONNECTIONS)
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._lock = threading.Lock()

    def track(self, ctx: Any) -> None:
        """Remember the connection a handshake-era client just completed (on its event loop)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            self._loop = loop
            if ctx.method == "notifications/initialized" and ctx.session is not None:
                self._sessions.append((ctx.session, loop))

    def notify(self) -> None:
        with self._lock:
            sessions, loop = list(self._sessions), self._loop
        if loop is None:
            return  # nobody connected yet: the first tools/list reads the new descriptions
        for session, session_loop in sessions:
            self._send(session_loop, self._to_session(session))
        self._send(loop, self.bus.publish(ToolsListChanged()))

    async def _to_session(self, session: Any) -> None:
        try:
            await session.send_tool_list_changed()
        except Exception:  # noqa: BLE001 - a closed connection is forgotten
            log.debug("a connection did not take tools/list_changed; forgetting it", exc_info=True)
            with self._lock:
                self._sessions = collections.deque((s for s in self._sessions if s[0] is not session),
                                                   maxlen=self.MAX_CONNECTIONS)

    @staticmethod
    def _send(loop: asyncio.AbstractEventLoop, coro: Any) -> None:
        try:
            asyncio.run_coroutine_threadsafe(coro, loop)
        except RuntimeError:  # the loop is closed: the server is stopping
            coro.close()


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

    notifier = ToolListNotifier()

    async def track_connections(ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        notifier.track(ctx)
        return result

    async def check_arguments(ctx: Any, call_next: Any) -> Any:
        params = ctx.params if ctx.method == "tools/call" and isinstance(ctx.params, dict) else None
        try:
            problem = argument_problem(server, params.get("name"), params.get("arguments") or {}) if params else None
        except Exception:  # noqa: BLE001 - a check that fails must not fail the call: the SDK validates too
            log.exception("checking a tool call's arguments failed")
            problem = None
        if problem:
            return CallToolResult(content=[TextContent(type="text", text=f"Error executing tool {params['name']}: {problem}")],
                                  is_error=True)
        return await call_next(ctx)

    server: MCPServer = MCPServer(name="docshelf", version=ver, instructions=INSTRUCTIONS, lifespan=lifespan,
                                  subscriptions=notifier.bus,
                                  middleware=[track_connections, start_after_handshake, check_arguments])
    # Advertise tools.listChanged to handshake-era clients (the SDK's default says False); the
    # 2026-07-28 era derives it from subscriptions/listen, which the bus serves.
    server._lowlevel_server.create_initialization_options = functools.partial(  # type: ignore[method-assign]
        server._lowlevel_server.create_initialization_options, NotificationOptions(tools_changed=True))
    svc = runtime.service

    def hit_out(rank: int, hit: Hit) -> SearchHitOut:
        return SearchHitOut(
            rank=rank, score=round(hit.score, 4), path=hit.path, title=hit.title, heading_path=list(hit.heading_path),
            citation=citation(hit), page=hit.page, page_label=hit.page_label, start_line=hit.start_line,
            end_line=hit.end_line, start_col=hit.start_col, end_col=hit.end_col, collection=hit.collection, doc_type=hit.doc_type, tags=list(hit.tags), date=hit.date,
            chunk_id=hit.chunk_id, doc_id=hit.doc_id, uri=doc_uri(hit.path), text=hit.text,
            text_truncated=hit.text_truncated, note=hit.note,
        )

    def run_search(request: SearchRequest) -> SearchOut:
        result = runtime.search(request)
        return SearchOut(query=result.query, mode=result.mode, hits=[hit_out(i, h) for i, h in enumerate(result.hits, 1)],
                         confidence=result.confidence, note=result.note, took_ms=round(result.took_ms, 1),
                         empty_reason=result.empty_reason)

    # -- search ---------------------------------------------------------------------------
    @_tool_errors
    def search_docs(
        query: arg(SearchRequest, "query", str),
        k: arg(SearchRequest, "k", int) = 5,
        mode: arg(SearchRequest, "mode", Optional[Mode]) = None,
        # A list, or one string (the request model reads "ops" as ["ops"], as over HTTP).
        collection: arg(SearchRequest, "collections", Optional[list[str] | str]) = None,
        doc_type: arg(SearchRequest, "doc_types", Optional[list[str] | str]) = None,
        date_from: arg(SearchRequest, "date_from", Optional[str]) = None,
        date_to: arg(SearchRequest, "date_to", Optional[str]) = None,
        path_prefix: arg(SearchRequest, "path_prefix", Optional[str]) = None,
        tags: arg(SearchRequest, "tags_any", Optional[list[str] | str]) = None,
        linked_to: arg(SearchRequest, "linked_to", Optional[list[str] | str]) = None,
        min_score: arg(SearchRequest, "min_score", float) = 0.0,
    ) -> SearchOut:
        """Search the user's indexed documentation and return the best-matching passages, ranked.

        Each hit has the passage text, a score in [0, 1] (an estimate that it answers the query,
        comparable across queries), and citation fields (path, title, heading_path, page,
        start_line/end_line) to quote the source. The response's confidence says whether the
        documents answer the query at all: on 'high', answer from the hits; on 'medium', answer
        only what the passages actually say, and say so when they do not answer it; on 'low' or
        'none', tell the user the documentation does not seem to cover it instead of guessing
        (offer the closest passages at most). A question naming a term or identifier that no
        indexed document mentions is never 'high' (the note names it).
        min_score drops weak hits (0.3 keeps only those that may answer). Misspelt words are
        corrected against the documents' vocabulary (the note says which); a word no indexed document
        mentions is named in the note too: the documentation likely does not cover that part of the
        question, so say so rather than answering from a neighbouring topic. Use read_neighbors with a
        hit's chunk_id for surrounding text, or get_document with its path for the whole document.
        Texts are shortened when the response would exceed the server's size budget (the note
        says so). While the embedding model is still loading, semantic and hybrid searches return
        keyword results with a note.
        """
        return run_search(SearchRequest(
            query=query, k=k, mode=mode, collections=collection, doc_types=doc_type, date_from=date_from,
            date_to=date_to, path_prefix=path_prefix, tags_any=tags, linked_to=linked_to, min_score=min_score,
            max_chars=response_chars,
        ))

    scope = _scope_text(settings)
    search_desc = inspect.cleandoc(search_docs.__doc__ or "")
    server.add_tool(search_docs, description=f"{search_desc}\n\n{scope}", annotations=READ_ONLY,
                    title="Search documentation")

    for preset in settings.presets:
        name = preset.name if preset.name.startswith("search_") else f"search_{preset.name}"
        server.add_tool(_preset_tool(preset, run_search, response_chars, svc), name=name,
                        description=_preset_description(preset), annotations=READ_ONLY, title=f"Search ({preset.name})")

    # -- reading --------------------------------------------------------------------------
    @_tool_errors
    def get_document(
        path: arg(DocumentRequest, "path", Optional[str]) = None,
        doc_id: arg(DocumentRequest, "doc_id", Optional[str]) = None,
        lines: arg(DocumentRequest, "lines", Optional[str]) = None,
        page: arg(DocumentRequest, "page", Optional[Union[int, str]]) = None,
        section: arg(DocumentRequest, "section", Optional[str]) = None,
        max_chars: arg(DocumentRequest, "max_chars", int) = response_chars,
    ) -> DocumentOut:
        """Read a whole indexed document, or one range of it (lines, page or section), as plain text.

        The text is reassembled from the indexed chunks in reading order; a lines range is
        exactly those lines of the file (a note says when the file changed since indexing and
        the text is the indexed chunks instead). Pass path or doc_id.
        When truncated is true, request a narrower range (lines/page/section) to read the rest.
        """
        doc = svc().get_document(DocumentRequest(
            path=path, doc_id=doc_id, lines=lines, page=page, section=section, max_chars=max_chars))
        return DocumentOut(
            path=doc.path, title=doc.title, collection=doc.collection, doc_type=doc.doc_type,
            doc_id=doc.doc_id, uri=doc_uri(doc.path), text=doc.text, start_line=doc.start_line,
            end_line=doc.end_line, pages=list(doc.pages), truncated=doc.truncated, total_chunks=doc.total_chunks,
            chunks_returned=len(doc.chunk_ids), note=doc.note,
        )

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
        service = svc()
        chunks = service.neighbors(chunk_id, before, after, max_chars=response_chars)
        columns = service.chunk_columns(chunks)
        out = [
            NeighborChunkOut(
                chunk_id=c.id, chunk_index=c.chunk_index, is_anchor=c.id == chunk_id, heading_path=list(c.heading_path),
                page=c.page, start_line=c.start_line, end_line=c.end_line, text=c.text,
                start_col=columns.get(c.id, (None, None))[0], end_col=columns.get(c.id, (None, None))[1],
            )
            for c in chunks
        ]
        return NeighborsOut(path=chunks[0].path, title=chunks[0].title, chunks=out)

    server.add_tool(read_neighbors, description=inspect.cleandoc(read_neighbors.__doc__ or ""), annotations=READ_ONLY, title="Read around a hit")

    @_tool_errors
    def get_note(
        path: Annotated[str, Field(description=(
            "The note: its path ('Projects/Alpha.md'), its file name without folder or extension ('Alpha'), "
            "a wiki link ('[[Alpha]]'), its title or one of its frontmatter aliases."))],
        max_chars: arg(DocumentRequest, "max_chars", int) = response_chars,
    ) -> NoteOut:
        """Read one note from a notes vault (Obsidian-style Markdown) by path, name, wiki link, title or alias.

        Returns the note's text, its frontmatter (tags, date, type, aliases), the notes it links to
        (each [[link]] with the note it resolves to) and its backlinks (the notes linking to it).
        """
        note = svc().get_note(path, max_chars=max_chars)
        record = note.record
        return NoteOut(
            path=record.path, title=record.title, doc_type=record.doc_type, tags=list(record.tags), date=record.date,
            aliases=list(note.aliases), metadata=note.metadata, text=note.text, truncated=note.truncated,
            uri=doc_uri(record.path), links=[LinkOut(target=l.target, path=l.path) for l in note.links],
            backlinks=list(note.backlinks),
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
        collection: arg(DocumentListRequest, "collection", Optional[str]) = None,
        path_prefix: arg(DocumentListRequest, "path_prefix", Optional[str]) = None,
        limit: arg(DocumentListRequest, "limit", int) = 100,
        cursor: arg(DocumentListRequest, "cursor", Optional[str]) = None,
    ) -> DocumentsPageOut:
        """List indexed documents sorted by path, with title, collection, type, tags and status, one page at a time."""
        page = svc().list_documents(DocumentListRequest(
            collection=collection, path_prefix=path_prefix, limit=limit, cursor=cursor))
        return DocumentsPageOut(
            documents=[
                DocumentInfoOut(
                    path=d.path, title=d.title, collection=d.collection, doc_type=d.doc_type, status=d.status,
                    error=d.error, chunks=d.chunk_count, format=d.format, tags=list(d.tags), date=d.date,
                    page_count=d.page_count, doc_id=d.doc_id, uri=doc_uri(d.path),
                )
                for d in page.documents
            ],
            total=page.total, next_cursor=page.next_cursor,
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
            return svc().get_document(DocumentRequest(path=path, max_chars=MAX_TEXT_CHARS)).text
        except DocshelfError as exc:
            from mcp.server.mcpserver.exceptions import ResourceError

            raise ResourceError(str(exc)) from exc

    def describe_index(service: Any) -> None:
        """List the index's real collections and types in search_docs' description, and tell clients.

        Runs when the index opens and after each write that changed it (a first index, a new
        collection or doc type); clients are notified only when the description changed.
        """
        try:
            cols = [(c.name, c.doc_types) for c in service.collections()]
        except Exception:  # noqa: BLE001 - descriptions keep the configured scope
            return
        tool = server._tool_manager.get_tool("search_docs")
        if not cols or tool is None:
            return
        description = f"{search_desc}\n\n{_scope_text(settings, cols)}"
        if description != tool.description:
            tool.description = description
            notifier.notify()

    runtime.on_ready.append(describe_index)
    runtime.on_change.append(describe_index)
    return server


def _scope_words(preset: SearchPreset) -> str:
    scope = []
    if preset.collections:
        scope.append(f"collections {', '.join(preset.collections)}")
    if preset.doc_types:
        scope.append(f"doc types {', '.join(preset.doc_types)}")
    if preset.path_prefix:
        scope.append(f"paths under {preset.path_prefix}")
    if preset.tags:
        scope.append(f"tags {', '.join(preset.tags)}")
    return "; ".join(scope) or "the whole index"


def _preset_description(preset: SearchPreset) -> str:
    what = preset.description or f"Search the '{preset.name}' part of the documentation."
    return (f"{what}\n\nSearches only {_scope_words(preset)}. Returns ranked passages with citation fields, "
            "like search_docs; when no indexed document is in that scope the result's note says so.")


def _preset_tool(
    preset: SearchPreset, run_search: Callable[[SearchRequest], SearchOut], response_chars: int,
    svc: Callable[[], Any],
) -> Callable[..., SearchOut]:
    scope = {
        "collections": preset.collections, "doc_types": preset.doc_types or None, "path_prefix": preset.path_prefix,
        "tags_any": preset.tags,
    }

    @_tool_errors
    def preset_search(
        query: arg(SearchRequest, "query", str),
        k: arg(SearchRequest, "k", int) = 5,
        mode: arg(SearchRequest, "mode", Optional[Mode]) = None,
    ) -> SearchOut:
        request = SearchRequest(query=query, k=k, mode=mode, max_chars=response_chars, **scope)
        out = run_search(request)
        if not out.hits and svc().documents_in_scope(request) == 0:
            empty = (f"no indexed document is in this tool's scope ({_scope_words(preset)}), so it cannot find "
                     "anything yet; search_docs searches everything")
            out = out.model_copy(update={"note": "; ".join(n for n in (empty, out.note) if n)})
        return out

    return preset_search


__all__ = ["build_server", "doc_id", "doc_uri", "DEFAULT_RESPONSE_CHARS"]
