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


def corrections(shelf, query):
    from docshelf.analysis import query_text
    from docshelf.search.typos import correct

    searcher = shelf.searcher
    candidates = [c for c, _ in searcher.store.text_search(query_text(query), 100, None)]
    return correct(query, searcher.store, candidates, searcher.options.typos)


def test_only_misspelt_words_close_to_an_indexed_word_are_corrected(shelf):
    assert corrections(shelf, "cokie respnse") == {"cokie": "cookie", "respnse": "response"}
    assert corrections(shelf, "how to sett a cokie")["cokie"] == "cookie"  # 'sett': 'set' or 'sent', who knows
    assert corrections(shelf, "set a cookie on the response") == {}
    # Unknown words that are no slip of the keyboard: English words absent from the docs
    # (a paraphrase: 'dying', 'spikes', 'bread' is one edit from 'break'...), and words near no indexed word.
    assert corrections(shelf, "my app keeps dying when usage spikes") == {}
    assert corrections(shelf, "recipe for banana bread") == {}
    assert corrections(shelf, "xyzzy plugh frobnicate") == {}
    # Words typed with a capital inside are names (acronyms, identifiers), not slips:
    # 'COKIE' or 'CoKie' would otherwise become 'cookie', as 'PDPN' became 'ptpn'.
    assert corrections(shelf, "COKIE respnse") == {"respnse": "response"}
    assert corrections(shelf, "CoKie RespnsE") == {}
    assert corrections(shelf, "Cokie respnse") == {"cokie": "cookie", "respnse": "response"}  # a sentence's first word


@pytest.mark.parametrize(
    "query, page, section",
    [
        ("cokie respnse", "responses.md", "Setting cookies"),
        ("how to sett a cokie", "responses.md", "Setting cookies"),
        ("uplaoded files with a filname", "topics/uploads.md", "Uploads"),
    ],
)
def test_typo_query_finds_the_page_at_rank_1_in_the_default_mode(shelf, query, page, section):
    result = shelf.search(query, k=3)
    hits = result.hits
    assert hits[0].path == page, [(h.path, h.heading_path, h.score) for h in hits]
    assert hits[0].heading_path[-1] == section
    assert result.note.startswith("corrected "), result.note


def test_the_correction_is_told_and_scored_as_meant(shelf):
    typo, meant = shelf.search("cokie respnse", k=1), shelf.search("cookie response", k=1)
    assert typo.note == "corrected cokie → cookie, respnse → response"
    assert meant.note == ""
    assert typo.hits[0].chunk_id == meant.hits[0].chunk_id
    assert typo.confidence == meant.confidence != "none"


@pytest.mark.parametrize("typed", ["cokie respnse", "how to sett a cokie", "uplaoded files with a filname"])
def test_a_corrected_query_ranks_and_scores_as_the_query_typed_right(shelf, typed):
    # a corrected term counts as much as a typed one: the slip costs the reader nothing but the
    # note (at 0.8 of a typed term, the hits scored lower than the same words typed right)
    from docshelf.search.typos import corrected_query

    meant = corrected_query(typed, corrections(shelf, typed))
    assert meant != typed
    slip, right = shelf.search(typed, k=5), shelf.search(meant, k=5)
    assert [(h.chunk_id, h.score) for h in slip.hits] == [(h.chunk_id, h.score) for h in right.hits]


def test_a_query_without_unknown_words_costs_no_extra_lookup(shelf, monkeypatch):
    from docshelf.search.typos import ProbeMemo

    store = shelf.searcher.store
    calls = []
    original, original_probes = store.text_search, store.probe_texts

    def counting(query, k, filters=None, fuzziness=0):
        calls.append(fuzziness)
        return original(query, k, filters, fuzziness)

    def counting_probes(probes, k):
        calls.extend(f for _, f in probes)
        return original_probes(probes, k)

    monkeypatch.setattr(store, "text_search", counting)
    monkeypatch.setattr(store, "probe_texts", counting_probes)
    monkeypatch.setattr(shelf.searcher, "_probes", ProbeMemo())  # earlier tests' answers forgotten
    assert shelf.search("set a cookie on the response", k=3).hits[0].path == "responses.md"
    assert [f for f in calls if f != 0] == []  # no probe: every word was found among the candidates
    calls.clear()
    shelf.search("cokie respnse", k=3)
    assert [f for f in calls if f != 0] == [1, 2]  # one edit-distance probe per unknown word
    calls.clear()
    assert shelf.search("respnse about a cokie", k=3).note == "corrected respnse → response, cokie → cookie"
    assert [f for f in calls if f != 0] == []  # the index has not changed: the answers are remembered
