"""The web page: search with filters at ``/``, a document view at ``/view`` (server-rendered Jinja2).

No script is needed: filters are a GET form, a result links to the document view with
``#cited``, so the browser scrolls to the cited passage, which is marked. Nothing is
fetched from elsewhere; the page is plain HTML with a small inline stylesheet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlencode

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup, escape

from ..errors import DocshelfError
from ..search.highlight import highlight_spans

TEMPLATES = Path(__file__).with_name("templates")
MODES = ("hybrid", "semantic", "keyword", "fuzzy")


def marked(text: str, spans: Any) -> Markup:
    """``text`` HTML-escaped, with each ``(start, end)`` span wrapped in ``<mark>``."""
    out, at = [], 0
    for start, end in sorted(spans):
        if start < at:
            continue
        out.append(escape(text[at:start]))
        out.append(Markup("<mark>") + escape(text[start:end]) + Markup("</mark>"))
        at = end
    out.append(escape(text[at:]))
    return Markup("").join(out)


def _environment() -> Any:
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=select_autoescape(["html"]))
    env.filters["marked"] = marked
    return env


def add_pages(app: FastAPI, runtime: Any, reader: Any) -> None:
    """Register ``/`` and ``/view`` on ``app``; ``reader(request)`` enforces the read token."""
    env = _environment()

    def render(name: str, code: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**context), status_code=code)

    def strip(request: Request) -> dict[str, Any]:
        """The status strip: counts, model, last index time, failures with reasons."""
        from .http_api import status_out

        try:
            return {"status": status_out(runtime, False), "status_error": ""}
        except DocshelfError as exc:
            return {"status": None, "status_error": str(exc)}

    def allowed(request: Request) -> bool:
        from .http_api import ApiError

        try:
            reader(request)
            return True
        except ApiError:
            return False

    def login_page(wrong: bool = False) -> HTMLResponse:
        return render("login.html", code=401, wrong=wrong, status=None, status_error="this server needs its read token")

    @app.post("/login", include_in_schema=False)
    async def login(request: Request) -> Any:
        """The page's token form: keep the read token in an HttpOnly cookie, then go to the search."""
        from urllib.parse import parse_qs

        from fastapi.responses import RedirectResponse

        token = parse_qs((await request.body()).decode("utf-8", "replace")).get("token", [""])[0].strip()
        response = RedirectResponse("/", status_code=303)
        response.set_cookie("docshelf_token", token, httponly=True, samesite="strict")
        return response

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page(
        request: Request,
        q: str = "",
        mode: str = "hybrid",
        collection: Optional[str] = None,
        doc_type: Optional[str] = None,
        date_from: Optional[str] = None,
        date_to: Optional[str] = None,
        tags: Optional[str] = None,
        k: str = "10",  # checked by SearchRequest, so 'k=abc' is the page's error, not a JSON 422
    ) -> HTMLResponse:
        if not allowed(request):
            return login_page(wrong="docshelf_token" in request.cookies)
        from ..requests import SearchRequest

        form = {"q": q, "mode": mode, "collection": collection or "", "doc_type": doc_type or "",
                "date_from": date_from or "", "date_to": date_to or "", "tags": tags or "", "k": k}
        context: dict[str, Any] = {"form": form, "modes": MODES, "hits": [], "note": "", "error": "", "searched": False}
        context.update(strip(request))
        try:
            service = runtime.service()
            context["collections"] = service.collections()
            if q.strip():
                request_ = SearchRequest(
                    query=q, k=k.strip() or 10, mode=mode or None, collections=[collection] if collection else [],
                    doc_types=[doc_type] if doc_type else None, date_from=date_from or None, date_to=date_to or None,
                    tags_any=[t.strip() for t in (tags or "").replace(",", " ").split() if t.strip()],
                )
                result = runtime.search(request_)
                urls = service.hit_urls(result.hits)
                context.update(searched=True, note=result.note, took_ms=round(result.took_ms),
                               confidence=result.confidence, hits=[
                    {"hit": h, "url": urls.get(h.chunk_id), "view": "/view?" + urlencode(
                        {"doc_id": h.doc_id, "chunk": h.chunk_id, "q": q}) + "#cited"}
                    for h in result.hits
                ])
        except DocshelfError as exc:
            context.setdefault("collections", [])
            context["error"] = str(exc)
            return render("search.html", code=422 if getattr(exc, "field", None) else 400, **context)
        return render("search.html", **context)

    @app.get("/view", response_class=HTMLResponse, include_in_schema=False)
    def view(request: Request, doc_id: str, chunk: Optional[str] = None, q: str = "") -> HTMLResponse:
        if not allowed(request):
            return login_page(wrong="docshelf_token" in request.cookies)
        from ..requests import DocumentRequest

        try:
            service = runtime.service()
            doc = service.get_document(DocumentRequest(doc_id=doc_id, max_chars=500_000))
            chunks = service.neighbors(doc.chunk_ids[0], 0, 1_000_000) if doc.chunk_ids else []
        except DocshelfError as exc:
            return render("view.html", code=404, doc=None, error=str(exc), q=q, **strip(request))
        sections = []
        previous = None
        for c in chunks:
            body = c.text[c.overlap:] if c.overlap and previous is not None else c.text
            heading = c.heading_path[-1] if c.heading_path and (previous is None or c.heading_path != previous.heading_path) else ""
            sections.append({"chunk": c, "heading": heading, "level": min(len(c.heading_path) + 1, 6),
                             "body": marked(body, highlight_spans(body, q) if q and c.id == chunk else ()),
                             "cited": c.id == chunk})
            previous = c
        url = doc.path if doc.path.startswith(("http://", "https://")) else _meta_url(chunks[0]) if chunks else None
        return render("view.html", doc=doc, sections=sections, q=q, url=url, error="", **strip(request))


def _meta_url(chunk: Any) -> Optional[str]:
    import json

    try:
        url = json.loads(chunk.metadata_json or "{}").get("url")
    except ValueError:
        return None
    return url if isinstance(url, str) and url.startswith(("http://", "https://")) else None


__all__ = ["add_pages", "marked"]
