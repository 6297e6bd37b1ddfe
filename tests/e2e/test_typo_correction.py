"""The default (hybrid) mode corrects words that occur nowhere in the index, with the real model."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e

PAGES = {
    "responses.md": """# Responses

## Setting cookies

Call `response.set_cookie(key, value, max_age=None, path="/", secure=False, httponly=False)`
to send a cookie with the response. Delete one with `response.delete_cookie(key)`.

## Streaming

A streaming response sends its body in chunks produced by an async iterator.
""",
    "requests.md": """# Requests

## Reading the body

`await request.body()` returns the raw bytes; `await request.json()` parses JSON.

## Headers and client

Request headers are a case-insensitive mapping; `request.client` holds the peer address.
""",
    "sessions.md": """# Sessions

The session middleware keeps signed data in the browser between visits, under a secret key.
Configure the maximum age, the same-site policy and whether it is sent over HTTPS only.
""",
    "templates.md": """# Templates

Render Jinja2 templates with `TemplateResponse(request, name, context)`. Templates can read
the request, the URL of a route and any value you put in the context.
""",
    "middleware.md": """# Middleware

Middleware wraps every request: add CORS headers, compress bodies with GZip, redirect to
HTTPS, or trust only some hosts. Order matters: the first added runs outermost.
""",
    "testing.md": """# Testing

The test client sends requests to the application in-process and returns responses whose
status, headers and JSON you can assert on.
""",
}

# More pages, so that term statistics look like a documentation site's, not a toy's.
TOPICS = [
    ("Routing", "Routes map a URL path and HTTP methods to an endpoint; path parameters are converted by type."),
    ("WebSockets", "A websocket endpoint accepts the connection, then sends and receives text or bytes until closed."),
    ("Background tasks", "Work that runs after the reply was sent, such as sending an email or writing a log line."),
    ("Static files", "Serve a directory of images, stylesheets and scripts, with checks for missing directories."),
    ("Configuration", "Read settings from environment variables or a .env file, cast to the right type."),
    ("Lifespan", "Startup and shutdown handlers open and close database pools and other shared resources."),
    ("Exceptions", "Handlers turn raised errors into error pages; a 404 handler renders a not-found page."),
    ("Authentication", "Backends attach a user and scopes to each connection; decorators require a scope."),
    ("Databases", "Use an async database driver and open connections in the lifespan handler."),
    ("Schemas", "Generate an OpenAPI description from the docstrings of endpoints."),
    ("Thread pool", "Synchronous functions run in a worker thread so they do not block the event loop."),
    ("Deployment", "Run the application under an ASGI server with several worker processes behind a proxy."),
    ("Logging", "Configure the log level and format of the server's access log and error log."),
    ("Release notes", "Version history with new features, deprecations and removed parameters for each release."),
    ("Server push", "HTTP/2 server push lets a server send resources before the browser asks for them."),
    ("Mounting", "Mount a sub-application or a static directory under a path prefix."),
    ("Host routing", "Route by the Host header to serve several domains from one application."),
    ("Uploads", "Multipart form data gives uploaded files with a filename, a content type and a spooled file."),
    ("Rate limits", "Limit how many calls a client makes per minute and answer 429 when it exceeds them."),
    ("Third-party packages", "A list of plugins for authentication, admin panels, metrics and serialization."),
]
PAGES |= {
    f"topics/{title.lower().replace(' ', '-')}.md": f"# {title}\n\n{text}\n" for title, text in TOPICS
}


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    root = tmp_path_factory.mktemp("docs")
    for name, text in PAGES.items():
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(text)
    shelf = Docshelf(Settings(index_dir=tmp_path_factory.mktemp("index")))
    assert shelf.index([root]).failed == {}
    return shelf


def test_unknown_words_are_only_the_misspelt_ones(shelf):
    searcher = shelf.searcher
    assert searcher.unknown_words("cokie respnse", []) == ["cokie", "respnse"]
    # Known words are recognised from the candidates without a store lookup, or by one.
    assert searcher.unknown_words("set a cookie on the response", []) == []


@pytest.mark.parametrize("query", ["cokie respnse", "how to sett a cokie"])
def test_typo_query_finds_the_page_at_rank_1_in_the_default_mode(shelf, query):
    hits = shelf.search(query, k=3).hits
    assert hits[0].path == "responses.md", [(h.path, h.heading_path, h.score) for h in hits]
    assert hits[0].heading_path[-1] == "Setting cookies"


def test_a_query_without_unknown_words_costs_no_extra_lookup(shelf, monkeypatch):
    store = shelf.searcher.store
    calls = []
    original = store.text_search

    def counting(query, k, filters=None, fuzziness=0):
        calls.append(fuzziness)
        return original(query, k, filters, fuzziness)

    monkeypatch.setattr(store, "text_search", counting)
    assert shelf.search("set a cookie on the response", k=3).hits[0].path == "responses.md"
    assert calls == [0]  # the keyword list only: every word was found among its candidates
    calls.clear()
    shelf.search("cokie respnse", k=3)
    assert calls.count(None) == 1  # the misspelt query adds one fuzzy search
