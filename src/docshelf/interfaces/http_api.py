"""The HTTP API (FastAPI): search, documents and status for scripts and people, push ingest for builders.

``create_app(runtime, ...)`` builds the app on a ``ServerRuntime`` (the same one the MCP
server uses, so ``docshelf serve --http --api`` runs both on one service). Routes only
translate: bodies are the service's own request models (``docshelf.requests``,
``docshelf.ingest``), results are mapped to ``http_models``, and every ``DocshelfError``
becomes a JSON ``{"error": {"type", "message", "field"}}`` in one handler.

Access: ``/health`` is open; reads need the read token when one is set; ``/ingest/*``
needs the ingest token (no ingest token configured → 403, ingest disabled). Tokens are
compared in constant time by ``docshelf.access``. Writes go to this process's writer
thread (``ServerRuntime.write``), so several API processes on one index share one writer.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import Annotated, Any, Optional

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..access import AccessPolicy
from ..errors import (
    ConfigError,
    DocshelfError,
    EmbedderMismatch,
    EmbedderUnavailable,
    IndexLocked,
    InvalidQuery,
    NotFound,
)
from ..ingest import PUSH_ROOT, ResetRequest, SelectRequest, UpsertRequest
from ..live.runtime import ServerRuntime
from ..models import Hit
from ..requests import DocumentListRequest, DocumentRequest, SearchRequest, shown
from .http_models import (
    CollectionOut,
    CollectionsOut,
    DeleteOut,
    DocumentInfoOut,
    DocumentOut,
    DocumentsPageOut,
    ErrorOut,
    FailedOut,
    HealthOut,
    HitOut,
    LookupOut,
    LookupRecordOut,
    SearchOut,
    StatusOut,
    UpsertOut,
)
from .output import citation

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
DEFAULT_DOCUMENT_CHARS = 200_000
_STATUS = [  # most specific first
    (NotFound, 404), (InvalidQuery, 422), (EmbedderMismatch, 409), (IndexLocked, 503),
    (EmbedderUnavailable, 503), (ConfigError, 500),
]
_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorOut, "description": why}
    for code, why in [(401, "Missing or wrong bearer token."), (403, "Ingest is disabled (no ingest token)."),
                      (404, "No such document."), (409, "Embedding model or dimension differs from the index's."),
                      (413, "Request body too large."), (422, "Invalid request; the message names the field."),
                      (503, "Starting up, or another process writes this index.")]
}


class ApiError(Exception):
    """An HTTP-level refusal (auth, size) with docshelf's JSON error body."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status, self.kind, self.message = status, kind, message


def error_response(status: int, kind: str, message: str, field: Optional[str] = None,
                   headers: Optional[dict[str, str]] = None) -> JSONResponse:
    body: dict[str, Any] = {"type": kind, "message": message}
    if field:
        body["field"] = field
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def api_error_response(exc: ApiError) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Bearer realm="docshelf"'} if exc.status == 401 else None
    return error_response(exc.status, exc.kind, exc.message, headers=headers)


def _iso(ts: Optional[float]) -> Optional[str]:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="seconds") if ts else None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("docshelf")
    except PackageNotFoundError:  # pragma: no cover
        return "0"


def field_path(loc: Sequence[Any]) -> str:
    """A validation error's location as every HTTP error names a field: ``records[0].metadata``
    (as the ingest checks write it), not pydantic's ``records.0.metadata``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def validation_message(errors: list[dict[str, Any]], json_sent: bool = False) -> tuple[str, str]:
    """``(field, message)`` for the first problem of a request that failed validation;
    ``json_sent``: the request said its body is JSON (a bare string is then JSON, not a form)."""
    error = errors[0]
    kind = error.get("type", "")
    loc = [p for p in error.get("loc", ()) if p not in ("body", "query", "path")]
    if kind == "json_invalid":  # its location is the offending character, not a field
        at = f" at character {loc[-1]}" if loc and isinstance(loc[-1], int) else ""
        return "body", f"body: not valid JSON ({(error.get('ctx') or {}).get('error', error.get('msg'))}{at})"
    field = field_path(loc)
    cause = (error.get("ctx") or {}).get("error")
    if getattr(cause, "field", None):
        field = f"{field}.{cause.field}" if field and not field.endswith(cause.field) else cause.field
        return field, f"{field}: {cause.message}"
    msg = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    if kind == "missing":
        msg = "is required"
    elif kind == "extra_forbidden":
        msg = "is not a known field"
    elif not field and isinstance(error.get("input"), bytes | str) and not json_sent:
        # The body arrived unparsed: sent without the JSON content type (``curl -d`` sends a form's).
        return "body", "body: send a JSON object with the header Content-Type: application/json"
    elif not field and kind in ("model_attributes_type", "dict_type"):  # JSON, but not an object
        got = {list: "an array", bool: "a boolean", type(None): "null", str: "a string"}.get(
            type(error.get("input")), "a number")
        return "body", f"body: send a JSON object {{…}}, got {got}"
    elif kind != "value_error" and "input" in error and not isinstance(error["input"], dict | list):
        msg = f"{msg[:1].lower()}{msg[1:]}, got {shown(error['input'])}"
    return field, f"{field}: {msg}" if field else msg


class BodyLimit:
    """ASGI: refuse request bodies over ``limit`` bytes (413, JSON) before they are read whole."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_big = f"the request body is over the limit of {self.limit} bytes; send smaller batches"
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.limit:
                await error_response(413, "PayloadTooLarge", too_big)(scope, receive, send)
                return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise ApiError(413, "PayloadTooLarge", too_big)
            return message

        await self.app(scope, limited, send)


class TokenFirst:
    """ASGI: a guarded route that takes a body has its token checked before the body is read.

    The routes' token dependencies run after FastAPI has read and parsed the whole body: anyone
    who could reach the port had the server read and parse up to the body limit per request, and
    a body that was not JSON was answered 422 before a missing token was answered 401.
    """

    def __init__(self, app: Any, check_for: Any) -> None:
        self.app, self.check_for = app, check_for

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        check = self.check_for(scope.get("path", "")) if scope["type"] == "http" else None
        if check is not None:
            try:
                check(Request(scope))
            except ApiError as exc:
                await api_error_response(exc)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def hit_out(rank: int, hit: Hit, urls: dict[str, str]) -> HitOut:
    return HitOut(
        rank=rank, score=round(hit.score, 4), path=hit.path, root=hit.root, url=urls.get(hit.chunk_id),
        title=hit.title, heading_path=list(hit.heading_path), citation=citation(hit), page=hit.page,
        page_label=hit.page_label, start_line=hit.start_line, end_line=hit.end_line, start_col=hit.start_col, end_col=hit.end_col,
        collection=hit.collection, doc_type=hit.doc_type,
        tags=list(hit.tags), date=hit.date, chunk_id=hit.chunk_id, doc_id=hit.doc_id, text=hit.text,
        text_truncated=hit.text_truncated, note=hit.note, highlights=[list(s) for s in hit.highlights],
    )


def create_app(
    runtime: ServerRuntime,
    *,
    read_policy: Optional[AccessPolicy] = None,
    ingest_policy: Optional[AccessPolicy] = None,
    web: bool = True,
    extra_lifespan: Any = None,
) -> FastAPI:
    """The API (and, with ``web``, the page at ``/``) over ``runtime``'s service.

    ``read_policy``: its token guards reads (None or no token: open). ``ingest_policy``:
    its token guards ``/ingest/*`` (None or no token: ingest disabled, 403). The body limit
    and Host/Origin checks wrap the app (``wrap``).
    ``extra_lifespan``: another ASGI app whose lifespan runs with this one (the MCP app).
    """

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        runtime.start()
        if extra_lifespan is not None:
            async with extra_lifespan.router.lifespan_context(extra_lifespan):
                yield
        else:
            yield

    app = FastAPI(
        title="docshelf", version=_version(), lifespan=lifespan, responses=_ERRORS,
        description="Search a docshelf index, read its documents, and push records built elsewhere.",
    )
    app.state.runtime = runtime
    ingest_on = bool(ingest_policy and ingest_policy.token)

    def reader(request: Request) -> None:
        if read_policy is not None and read_policy.token:
            header = request.headers.get("authorization")
            cookie = request.cookies.get("docshelf_token")
            ok = read_policy.authorized(header) or (
                cookie is not None and read_policy.authorized(b"Bearer " + cookie.encode("latin-1", "replace"))
            )
            if not ok:
                raise ApiError(401, "Unauthorized", "missing or wrong bearer token (the read token)")

    def ingester(request: Request) -> None:
        if not ingest_on:
            raise ApiError(403, "Forbidden", "ingest is disabled: start the server with --ingest-token "
                                             "(or DOCSHELF_INGEST_TOKEN) to accept pushed records")
        raw = [v for k, v in request.scope.get("headers", []) if k == b"authorization"]
        if len(raw) != 1 or not ingest_policy.authorized(raw[0]):  # type: ignore[union-attr]
            raise ApiError(401, "Unauthorized", "missing or wrong bearer token (the ingest token)")

    def service() -> Any:
        return runtime.service()

    Read = [Depends(reader)]
    Ingest = [Depends(ingester)]

    # -- errors -------------------------------------------------------------------------
    def token_before_body(path: str) -> Any:
        """The check a route's body waits for: the routes' dependencies run only once FastAPI has
        read and parsed the body, so the routes that take one are checked before (``TokenFirst``)."""
        return ingester if path.startswith("/ingest/") else reader if path == "/search" else None

    app.add_middleware(TokenFirst, check_for=token_before_body)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return api_error_response(exc)

    @app.exception_handler(DocshelfError)
    async def _docshelf_error(_request: Request, exc: DocshelfError) -> JSONResponse:
        status = next((code for cls, code in _STATUS if isinstance(exc, cls)), 500)
        return error_response(status, type(exc).__name__, str(exc), getattr(exc, "field", None) or None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        json_sent = kind == "application/json" or kind.endswith("+json")
        field, message = validation_message(list(exc.errors()), json_sent)
        return error_response(422, "InvalidRequest", message, field or None)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        message, path = str(exc.detail), request.url.path
        allow = (exc.headers or {}).get("Allow") or (exc.headers or {}).get("allow")
        if exc.status_code == 405 and allow:
            message = f"{request.method} {path} is not served: {path} takes {allow} (see the OpenAPI description at /docs)"
        elif exc.status_code == 404 and message == "Not Found":
            message = f"no route {request.method} {path} (the routes are described at /docs)"
        return error_response(exc.status_code, "HTTPError", message, headers=exc.headers)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error in the HTTP API")
        return error_response(500, "InternalError", "internal error; the server log has the details")

    # -- open ---------------------------------------------------------------------------
    @app.get("/health", response_model=HealthOut, tags=["status"])
    def health() -> Any:
        """Liveness and readiness: never waits for the index; 503 when it could not be opened."""
        state = runtime.state()
        if not runtime.ready:
            status = "failed" if state["state"] == "failed" else "starting"
            body = HealthOut(status=status, version=_version(), index_state=state["state"])
            return JSONResponse(body.model_dump(), status_code=503 if status == "failed" else 200)
        svc = runtime.service()
        st = svc.status()
        return HealthOut(status="ok", version=_version(), model=st.model, index_state=state["state"],
                         documents=st.documents, chunks=st.chunks)

    # -- reading ------------------------------------------------------------------------
    @app.post("/search", response_model=SearchOut, dependencies=Read, tags=["search"])
    def search(request: SearchRequest) -> Any:
        """Search the index: the search request's fields (the MCP tool names collections, doc_types and tags_any collection, doc_type and tags); the same hit fields."""
        result = runtime.search(request)  # as the MCP tool: bounded waits, and a note on what is still going on
        urls = service().hit_urls(result.hits)
        return SearchOut(query=result.query, mode=result.mode, confidence=result.confidence, note=result.note,
                         took_ms=round(result.took_ms, 1),
                         hits=[hit_out(i, h, urls) for i, h in enumerate(result.hits, 1)], empty_reason=result.empty_reason)

    @app.get("/documents", response_model=DocumentsPageOut, dependencies=Read, tags=["documents"])
    def list_documents(
        collection: Annotated[Optional[str], Query(description=DocumentListRequest.describe("collection"))] = None,
        path_prefix: Annotated[Optional[str], Query(description=DocumentListRequest.describe("path_prefix"))] = None,
        limit: Annotated[int, Query(description=DocumentListRequest.describe("limit"))] = 100,
        cursor: Annotated[Optional[str], Query(description=DocumentListRequest.describe("cursor"))] = None,
    ) -> Any:
        """One page of the documents (indexed files and pushed sources), sorted by path."""
        page = service().list_documents(
            DocumentListRequest(collection=collection, path_prefix=path_prefix, limit=limit, cursor=cursor)
        )
        return DocumentsPageOut(
            documents=[
                DocumentInfoOut(
                    path=d.path, root=d.root, title=d.title, collection=d.collection, doc_type=d.doc_type,
                    status=d.status, error=d.error, chunks=d.chunk_count, format=d.format, tags=list(d.tags),
                    date=d.date, page_count=d.page_count, doc_id=d.doc_id,
                )
                for d in page.documents
            ],
            total=page.total, next_cursor=page.next_cursor,
        )

    @app.get("/documents/{ref:path}", response_model=DocumentOut, dependencies=Read, tags=["documents"])
    def get_document(
        ref: str,
        lines: Annotated[Optional[str], Query(description=DocumentRequest.describe("lines"))] = None,
        page: Annotated[Optional[str], Query(description=DocumentRequest.describe("page"))] = None,
        section: Annotated[Optional[str], Query(description=DocumentRequest.describe("section"))] = None,
        max_chars: Annotated[int, Query(description=DocumentRequest.describe("max_chars"))] = DEFAULT_DOCUMENT_CHARS,
    ) -> Any:
        """A document's text, whole or one range: ``ref`` is its path (a URL for some pushed
        records; percent-encode it) or its ``doc_id``."""
        svc = service()
        doc = svc.get_document(svc.document_request(ref, lines=lines, page=page, section=section, max_chars=max_chars))
        return DocumentOut(
            path=doc.path, root=doc.root, title=doc.title, collection=doc.collection, doc_type=doc.doc_type,
            doc_id=doc.doc_id, text=doc.text, start_line=doc.start_line, end_line=doc.end_line,
            pages=list(doc.pages), truncated=doc.truncated, total_chunks=doc.total_chunks,
            chunks_returned=len(doc.chunk_ids), note=doc.note,
        )

    @app.get("/collections", response_model=CollectionsOut, dependencies=Read, tags=["documents"])
    def collections() -> Any:
        """Collections with their document and chunk counts and document types."""
        return CollectionsOut(collections=[
            CollectionOut(name=c.name, documents=c.documents, chunks=c.chunks, doc_types=list(c.doc_types))
            for c in service().collections()
        ])

    @app.get("/status", response_model=StatusOut, dependencies=Read, tags=["status"])
    def status() -> Any:
        """Counts, model, last index time and the files that failed, with their reasons."""
        return status_out(runtime, ingest_on)

    # -- ingest -------------------------------------------------------------------------
    @app.post("/ingest/upsert", response_model=UpsertOut, dependencies=Ingest, tags=["ingest"])
    def ingest_upsert(request: UpsertRequest) -> Any:
        """Add or replace records. With an embedding, name its model (record or batch); model and
        dimension must match the index. Without one, docshelf embeds the content."""
        result = runtime.write("upsert", request)
        return UpsertOut(upserted=result.upserted, embedded=result.embedded, sources=list(result.sources),
                         cut=list(result.cut))

    @app.post("/ingest/lookup", response_model=LookupOut, dependencies=Ingest, tags=["ingest"])
    def ingest_lookup(request: SelectRequest) -> Any:
        """Which of these ids or sources are stored, with their content hashes (no ids or sources: all)."""
        result = service().ingest_lookup(request)
        return LookupOut(records=[LookupRecordOut(id=e.id, source=e.source, sha256=e.sha256) for e in result.records],
                         missing=list(result.missing))

    @app.post("/ingest/delete", response_model=DeleteOut, dependencies=Ingest, tags=["ingest"])
    def ingest_delete(request: SelectRequest) -> Any:
        """Delete pushed records by id, or whole sources."""
        result = runtime.write("delete", request)
        return DeleteOut(deleted=result.deleted, sources=list(result.sources))

    @app.post("/ingest/reset", response_model=DeleteOut, dependencies=Ingest, tags=["ingest"])
    def ingest_reset(request: ResetRequest) -> Any:
        """Drop every pushed record (indexed files stay unless include_indexed is true)."""
        result = runtime.write("reset", request)
        return DeleteOut(deleted=result.deleted, sources=list(result.sources))

    if web:
        from .web import add_pages

        add_pages(app, runtime, reader)
    return app


def status_out(runtime: ServerRuntime, ingest_on: bool) -> StatusOut:
    st = runtime.service().status()
    state = runtime.state()
    failed = {**st.failed, **state["failed"]}
    pushed = sum(1 for r in runtime.service().store.records() if r.root == PUSH_ROOT)
    return StatusOut(
        state=state["state"], role=state["role"], model=st.model, model_state=state["model"], dimensions=st.dimensions,
        index_dir=st.index_dir, roots=list(st.roots), documents=st.documents, chunks=st.chunks, pushed_documents=pushed,
        failed=[FailedOut(path=p, reason=r) for p, r in sorted(failed.items())],
        last_indexed_at=_iso(state["last_update"] or st.last_indexed_at), last_error=state["last_error"] or state["error"],
        ingest_enabled=ingest_on,
    )


def wrap(app: Any, *, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES, guard: Optional[AccessPolicy] = None) -> Any:
    """The ASGI app to serve: body limit, then (optionally) Host/Origin checks in front."""
    from ..access import AccessGuard

    asgi: Any = _ErrorsAsJson(BodyLimit(app, max_body_bytes))
    if guard is not None:
        asgi = AccessGuard(asgi, guard)
    return asgi


class _ErrorsAsJson:
    """Turns an ``ApiError`` raised below the app (the body limit while streaming) into JSON."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except ApiError as exc:
            await error_response(exc.status, exc.kind, exc.message)(scope, receive, send)


class PathDispatch:
    """ASGI: ``/mcp`` (and below) to the MCP app, everything else to the API (one process, one service)."""

    def __init__(self, api: Any, mcp: Any, prefix: str = "/mcp") -> None:
        self.api, self.mcp, self.prefix = api, mcp, prefix

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "")
        if scope["type"] != "lifespan" and (path == self.prefix or path.startswith(self.prefix + "/")):
            await self.mcp(scope, receive, send)
        else:
            await self.api(scope, receive, send)


__all__ = ["create_app", "wrap", "PathDispatch", "DEFAULT_MAX_BODY_BYTES", "validation_message"]
