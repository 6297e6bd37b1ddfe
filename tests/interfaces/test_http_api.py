"""The HTTP API through the real server (``docshelf api`` on uvicorn) and a real HTTP client."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import httpx
import pytest
from api_harness import INGEST_TOKEN, READ_TOKEN, api_server, write_corpus
from mcp_harness import docshelf_argv

from docshelf.embedders.fake import FakeEmbedder

pytestmark = pytest.mark.timeout(180)
AUTH = {"Authorization": f"Bearer {INGEST_TOKEN}"}
KB = "https://help.example.com/kb/42"


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs")
    write_corpus(root)
    return root


@pytest.fixture(scope="module")
def api_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("api")


@pytest.fixture(scope="module")
def api(api_dir, docs) -> str:
    with api_server(api_dir, "--ingest-token", INGEST_TOKEN, "--max-body-mb", "1", docs=docs, documents=3) as base:
        yield base


@pytest.fixture
def client(api):
    """A client; whatever a test pushed is reset afterwards, so tests do not see each other's records."""
    with httpx.Client(base_url=api, timeout=30) as c:
        yield c
        assert c.post("/ingest/reset", json={}, headers=AUTH).status_code == 200


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def search(client, query: str, **params) -> dict:
    r = client.post("/search", json={"query": query, **params})
    assert r.status_code == 200, r.text
    return r.json()


def test_health_and_status(client):
    health = client.get("/health").json()
    assert (health["status"], health["model"], health["documents"]) == ("ok", "fake-64", 3)
    status = client.get("/status").json()
    assert (status["role"], status["documents"], status["ingest_enabled"], status["failed"]) == ("writer", 3, True, [])


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "keyword", "fuzzy"])
def test_every_search_says_how_confident_it_is(client, mode):
    from docshelf.search.calibrate import confidence

    found = search(client, "upgrade the widgetron with pip", mode=mode)
    assert found["hits"] and found["confidence"] == confidence(found["hits"][0]["score"])
    nothing = search(client, "zzqqxv", mode="keyword")
    assert (nothing["hits"], nothing["confidence"]) == ([], "none")


def test_ingest_round_trip_without_embeddings(client):
    records = [
        {"id": "kb42#0", "content": "Rotate the ingest token every ninety days.",
         "metadata": {"source": KB, "title": "Token rotation", "heading_path": ["Security", "Tokens"],
                      "collection": "helpdesk", "doc_type": "faq", "tags": ["ops"], "date": "2024-05-31"}},
        {"id": "kb42#1", "content": "Old tokens keep working for a grace period of one day.",
         "metadata": {"source": KB, "title": "Token rotation", "collection": "helpdesk", "doc_type": "faq"}},
    ]
    r = client.post("/ingest/upsert", json={"records": records}, headers=AUTH)
    assert r.json() == {"upserted": 2, "embedded": 2, "sources": [KB], "cut": []}

    hit = search(client, "rotate ingest token", mode="keyword", collections=["helpdesk"], doc_types=["faq"])["hits"][0]
    assert {k: hit[k] for k in ("chunk_id", "path", "root", "url", "title", "heading_path", "citation", "date", "tags")} == {
        "chunk_id": "push:kb42#0", "path": KB, "root": "push:", "url": KB, "title": "Token rotation",
        "heading_path": ["Security", "Tokens"], "citation": f"{KB} › Security › Tokens", "date": "2024-05-31",
        "tags": ["ops"],
    }
    assert hit["text"][hit["highlights"][0][0]:hit["highlights"][0][1]].lower() == "rotate"

    doc = client.get(f"/documents/{hit['doc_id']}").json()
    assert doc["path"] == KB and "grace period" in doc["text"] and doc["total_chunks"] == 2

    lookup = client.post("/ingest/lookup", json={"sources": [KB], "ids": ["nope"]}, headers=AUTH).json()
    assert lookup == {"records": [{"id": "kb42#0", "source": KB, "sha256": sha(records[0]["content"])},
                                  {"id": "kb42#1", "source": KB, "sha256": sha(records[1]["content"])}],
                      "missing": ["nope"]}

    gone = client.post("/ingest/delete", json={"ids": ["kb42#0"]}, headers=AUTH).json()
    assert gone == {"deleted": 1, "sources": [KB]}
    assert [h["chunk_id"] for h in search(client, "ninety", mode="keyword")["hits"]] == []
    assert search(client, "ninety", mode="keyword")["empty_reason"] == "no_match"
    assert [h["chunk_id"] for h in search(client, "grace period", mode="keyword")["hits"]] == ["push:kb42#1"]
    gone = client.post("/ingest/delete", json={"sources": [KB]}, headers=AUTH).json()
    assert gone == {"deleted": 1, "sources": [KB]}
    assert client.post("/ingest/lookup", json={"sources": [KB]}, headers=AUTH).json() == {"records": [], "missing": [KB]}
    assert client.get(f"/documents/{doc['doc_id']}").status_code == 404


def test_upsert_names_records_longer_than_the_model_reads(client):
    page = "Install the agent. " + "Configure the pipeline stage carefully. " * 120 + "Rotate the vault key."
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "long", "content": page, "metadata": {"source": KB}},
        {"id": "short", "content": "A short answer.", "metadata": {"source": KB}}]})
    assert r.status_code == 200, r.text
    assert (r.json()["embedded"], r.json()["cut"]) == (2, ["long"])


def test_ingest_with_embeddings_uses_the_vector_sent(client):
    # The vector is of other words than the content: a semantic search for those words finds
    # the record only if the server stored the vector it was sent.
    vector = FakeEmbedder().embed_query("aardvark lullaby").tolist()
    r = client.post("/ingest/upsert", headers=AUTH, json={"model": "fake-64", "records": [
        {"id": "vec-1", "content": "zebra stripes pattern", "embedding": vector, "metadata": {"source": "wiki/zebra"}}]})
    assert r.json() == {"upserted": 1, "embedded": 0, "sources": ["wiki/zebra"], "cut": []}
    hits = search(client, "aardvark lullaby", mode="semantic", k=1)["hits"]
    assert [(h["chunk_id"], h["path"], h["url"]) for h in hits] == [("push:vec-1", "wiki/zebra", None)]
    client.post("/ingest/delete", json={"ids": ["vec-1"]}, headers=AUTH)


def test_model_and_dimension_mismatch_are_refused(client):
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "m", "content": "x", "embedding": [0.1] * 64, "model": "text-embedding-3-small"}]})
    assert r.status_code == 409
    assert r.json()["error"]["type"] == "EmbedderMismatch"
    assert "but this index holds fake-64 (64-d) vectors" in r.json()["error"]["message"]
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "m", "content": "x", "embedding": [0.1] * 384, "model": "fake-64"}]})
    assert (r.status_code, r.json()["error"]["message"]) == (
        409, "records[0].embedding: has 384 dimensions, but this index's model fake-64 has 64")
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [{"id": "m", "content": "x", "embedding": [0.1] * 64}]})
    assert r.status_code == 422 and "names no model" in r.json()["error"]["message"]


def test_every_ingest_error_names_a_record_field_one_way(client):
    """Validation named a record's field `records.0.metadata`, the model checks `records[0]`
    (and gave no `field` at all, nor did a repeated id): one spelling, always in `field`."""
    ok = {"id": "a", "content": "x"}
    cases = [
        ({"records": [ok, {"id": "b"}]}, 422, "records[1].content"),
        ({"records": [{**ok, "metadata": {"date": "yesterday"}}]}, 422, "records[0].metadata"),
        ({"records": [ok, ok]}, 422, "records[1].id"),
        ({"records": [{**ok, "embedding": [0.1] * 64}]}, 422, "records[0].model"),
        ({"records": [{**ok, "embedding": [0.1] * 64, "model": "other/model"}]}, 409, "records[0].model"),
        ({"records": [{**ok, "embedding": [0.1] * 3, "model": "fake-64"}]}, 409, "records[0].embedding"),
    ]
    for body, status, field in cases:
        r = client.post("/ingest/upsert", headers=AUTH, json=body)
        error = r.json()["error"]
        assert (r.status_code, error.get("field")) == (status, field), r.text
        assert error["message"].startswith(f"{field}: "), error


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer wrong"}, {"Authorization": INGEST_TOKEN}, {"Authorization": "Bearer tökén".encode()},
], ids=["missing", "wrong", "no-scheme", "non-ascii"])
def test_ingest_needs_the_token(client, headers):
    r = client.post("/ingest/upsert", headers=headers, json={"records": [{"id": "a", "content": "b"}]})
    assert (r.status_code, r.json()["error"]["type"], r.headers["www-authenticate"]) == (
        401, "Unauthorized", 'Bearer realm="docshelf"')
    assert client.post("/ingest/lookup", json={}, headers=AUTH).json()["records"] == []


def test_a_push_without_the_token_is_refused_before_its_body_is_read(client):
    """The token was checked by a route dependency, which FastAPI runs once it has read and
    parsed the whole body: anyone who could reach the port had the server read and parse up to
    the body limit (64 MiB by default) per request, and a body that was not JSON got 422 (with
    its parse error) before a missing token got 401."""
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        r = client.post("/ingest/upsert", content=b'{"records": [', headers={"Content-Type": "application/json", **headers})
        assert (r.status_code, r.json()["error"]["type"]) == (401, "Unauthorized"), r.text
        assert r.headers["www-authenticate"] == 'Bearer realm="docshelf"'


@pytest.mark.parametrize(("body", "field", "message"), [
    ({"query": "x", "k": 0}, "k", "k: must be between 1 and"),
    ({"query": "x", "date_from": "yesterday"}, "date_from", "date_from: "),
    ({"query": "x", "mode": "psychic"}, "mode", "mode: "),
    ({"query": "x", "colour": 1}, "colour", "colour: is not a known field"),
    ({}, "query", "query: is required"),
])
def test_search_validation_names_the_field(client, body, field, message):
    r = client.post("/search", json=body)
    error = r.json()["error"]
    assert (r.status_code, error["field"]) == (422, field)
    assert error["message"].startswith(message)


def test_a_body_that_is_not_json_is_named_as_the_body(client):
    """Not ``0: …`` (pydantic's location of the bad character): the field is the body itself."""
    r = client.post("/search", content=b"not json", headers={"Content-Type": "application/json"})
    error = r.json()["error"]
    assert (r.status_code, error["field"]) == (422, "body")
    assert error["message"] == "body: not valid JSON (Expecting value at character 0)"


def test_a_json_body_sent_without_its_content_type_is_explained(client):
    """``curl -d '{…}'`` sends a form content type: say which header is missing, not 'valid dictionary'."""
    r = client.post("/search", content=b'{"query": "pip"}', headers={"Content-Type": "application/x-www-form-urlencoded"})
    error = r.json()["error"]
    assert (r.status_code, error["field"]) == (422, "body")
    assert error["message"] == "body: send a JSON object with the header Content-Type: application/json"


@pytest.mark.parametrize(("body", "got"), [
    (b"[1, 2]", "an array"), (b"3", "a number"), (b"null", "null"), (b'"how do I rotate a token"', "a string")])
def test_a_json_body_that_is_not_an_object_is_named_as_the_body(client, body, got):
    """Not pydantic's 'Input should be a valid dictionary…' without a field; a JSON string sent
    as JSON is not told to add the Content-Type header it has."""
    for route in ("/search", "/ingest/upsert"):
        r = client.post(route, content=body, headers={"Content-Type": "application/json", **AUTH})
        error = r.json()["error"]
        assert (r.status_code, error.get("field")) == (422, "body"), r.text
        assert error["message"] == f"body: send a JSON object {{…}}, got {got}"


def test_a_wrong_method_or_route_says_what_is_served(client):
    r = client.get("/search", params={"query": "pip"})
    assert (r.status_code, r.json()["error"]["message"], r.headers["allow"]) == (
        405, "GET /search is not served: /search takes POST (see the OpenAPI description at /docs)", "POST")
    r = client.get("/serch")
    assert (r.status_code, r.json()["error"]["message"]) == (404, "no route GET /serch (the routes are described at /docs)")


def test_ingest_validation_names_the_field(client):
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "x", "content": "t", "metadata": {"owners": {"a": 1}}}]})
    error = r.json()["error"]
    assert (r.status_code, error["field"]) == (422, "records[0].metadata")
    assert error["message"] == ("records[0].metadata: owners: only scalar values (string, number, boolean, null) "
                                "are allowed, got an object")
    r = client.post("/ingest/upsert", headers=AUTH, content=b"{not json", )
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidRequest"


def test_a_refused_long_value_is_quoted_short_not_echoed_whole(client):
    """An over-long record content (under the body limit) or query was echoed whole in the error."""
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "big", "content": "x " * 300_000, "metadata": {"source": "kb/big"}}]})
    assert r.status_code == 422 and len(r.content) < 500, len(r.content)
    assert r.json()["error"]["message"] == ("records[0].content: string should have at most 200000 characters, "
                                            "got 'x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x '… "
                                            "(600,000 characters)")
    r = client.post("/search", json={"query": "word " * 5000})
    assert r.status_code == 422 and len(r.content) < 500, len(r.content)
    assert r.json()["error"]["message"].endswith("'… (24,999 characters)")


def test_the_page_shows_a_bad_parameter_as_its_own_error(client):
    """'k=abc' in the page's URL answered a JSON 422 instead of the page with the message."""
    r = client.get("/", params={"q": "frobnicator", "k": "abc"})
    assert r.status_code == 422 and r.headers["content-type"].startswith("text/html")
    assert ('<p class="error" role="alert">k: input should be a valid integer, unable to parse string as an '
            "integer, got &#39;abc&#39;</p>") in r.text
    assert client.get("/", params={"q": "frobnicator", "k": "3"}).status_code == 200


def test_document_ranges_and_errors(client):
    whole = client.get("/documents/guides/configure.md").json()
    assert "Line one" in whole["text"] and "Line three" in whole["text"]
    part = client.get("/documents/guides/configure.md", params={"lines": "7-8"}).json()
    assert (part["start_line"], part["end_line"], part["note"]) == (7, 8, "")  # exactly lines 7-8 of the file
    assert part["text"] == "Line one of the settings.\nLine two: the port."
    r = client.get("/documents/guides/configure.md", params={"lines": "500-600"})
    assert (r.status_code, r.json()["error"]["type"]) == (404, "NotFound")
    section = client.get("/documents/guides/install.md", params={"section": "Upgrade"}).json()
    assert "pip install -U" in section["text"] and "with pip." not in section["text"]
    r = client.get("/documents/guides/install.md", params={"lines": "abc"})
    assert (r.status_code, r.json()["error"]["field"]) == (422, "lines")
    r = client.get("/documents/missing.md")
    assert (r.status_code, r.json()["error"]["type"]) == (404, "NotFound")
    assert client.get("/no/such/route").json()["error"]["type"] == "HTTPError"


def test_paging_covers_files_and_pushed_sources_once(client):
    client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": f"p{i}", "content": f"pushed page {i}", "metadata": {"source": f"https://w.example/{i}"}} for i in range(3)]})
    seen, cursor = [], None
    while True:
        page = client.get("/documents", params={"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
        assert page["total"] == 6 and len(page["documents"]) <= 2
        seen += [(d["root"], d["path"]) for d in page["documents"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == 6
    assert sorted(p for r, p in seen if r == "push:") == [f"https://w.example/{i}" for i in range(3)]
    names = {c["name"] for c in client.get("/collections").json()["collections"]}
    assert names == {"default"}
    client.post("/ingest/reset", json={}, headers=AUTH)
    assert client.get("/documents").json()["total"] == 3


def test_pushed_records_survive_file_changes_and_reset_spares_files(client, docs):
    client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "keep", "content": "quokka habitat notes", "metadata": {"source": "wiki/quokka"}}]})
    (docs / "notes" / "new.md").write_text("# New\n\nA fresh note about wombats.\n")
    deadline = time.monotonic() + 20
    while not search(client, "wombats", mode="keyword")["hits"]:  # the watcher indexes the new file
        assert time.monotonic() < deadline, "the new file was never indexed"
        time.sleep(0.2)
    assert [h["chunk_id"] for h in search(client, "quokka", mode="keyword")["hits"]] == ["push:keep"]
    reset = client.post("/ingest/reset", json={}, headers=AUTH).json()
    assert reset == {"deleted": 1, "sources": ["wiki/quokka"]}
    assert search(client, "quokka", mode="keyword")["hits"] == []
    assert search(client, "wombats", mode="keyword")["hits"][0]["path"] == "notes/new.md"
    (docs / "notes" / "new.md").unlink()


def test_reset_takes_true_or_false_only(client):
    """A destructive switch is not coerced: "yes" (or 1) for include_indexed is refused, nothing dropped."""
    client.post("/ingest/upsert", headers=AUTH, json={"records": [
        {"id": "stay", "content": "okapi feeding notes", "metadata": {"source": "wiki/okapi"}}]})
    files = {d["path"] for d in client.get("/documents").json()["documents"]}
    for value in ("yes", 1, "true"):
        r = client.post("/ingest/reset", json={"include_indexed": value}, headers=AUTH)
        assert r.status_code == 422 and "include_indexed" in r.text, r.text
    assert {d["path"] for d in client.get("/documents").json()["documents"]} == files
    assert [h["chunk_id"] for h in search(client, "okapi", mode="keyword")["hits"]] == ["push:stay"]


def test_a_second_process_on_the_index_takes_pushes_through_the_writer(client, api_dir, tmp_path):
    """Two API processes on one index: the second is a reader; a push to it is written by the first."""
    env = {"DOCSHELF_INDEX_DIR": str(api_dir / "index")}
    with api_server(tmp_path, "--ingest-token", INGEST_TOKEN, env=env) as other, \
            httpx.Client(base_url=other, timeout=60) as reader:
        assert (reader.get("/status").json()["role"], client.get("/status").json()["role"]) == ("reader", "writer")
        r = reader.post("/ingest/upsert", headers=AUTH, json={"records": [
            {"id": "r1", "content": "capybara grooming schedule", "metadata": {"source": "wiki/capybara"}}]})
        assert r.json() == {"upserted": 1, "embedded": 1, "sources": ["wiki/capybara"], "cut": []}
        for c in (client, reader):
            assert [h["chunk_id"] for h in search(c, "capybara", mode="keyword")["hits"]] == ["push:r1"]
        r = reader.post("/ingest/upsert", headers=AUTH, json={"records": [
            {"id": "m", "content": "x", "embedding": [0.1] * 3, "model": "fake-64"}]})
        assert (r.status_code, r.json()["error"]["type"]) == (409, "EmbedderMismatch")  # the writer's error, relayed
        assert reader.post("/ingest/delete", headers=AUTH, json={"ids": ["r1"]}).json()["deleted"] == 1
        assert search(client, "capybara", mode="keyword")["hits"] == []


def test_body_limit(client):
    r = client.post("/ingest/upsert", headers=AUTH, json={"records": [{"id": "big", "content": "x" * 1_500_000}]})
    assert (r.status_code, r.json()["error"]["type"]) == (413, "PayloadTooLarge")


def test_a_hit_inside_a_long_line_cites_its_characters_over_http_and_on_the_page(tmp_path):
    """A minified file's chunks all cited 'lines 1-1'; each now names its characters, and those read back."""
    import json

    docs = tmp_path / "docs"
    docs.mkdir()
    line = json.dumps([{"id": i, "name": f"item{i}", "note": "a widget record"} for i in range(6000)])
    (docs / "data.json").write_text(line)
    (tmp_path / "srv").mkdir()
    with api_server(tmp_path / "srv", docs=docs, documents=1) as base, httpx.Client(base_url=base, timeout=30) as c:
        hit = search(c, "item4321", mode="keyword", k=1)["hits"][0]
        first, last = hit["start_col"], hit["end_col"]
        assert hit["citation"] == f"data.json (line 1, chars {first}-{last})"
        assert "item4321" in line[first - 1 : last] and line[first - 1 : last].split() == hit["text"].split()
        doc = c.get("/documents/data.json", params={"lines": f"1:{first}-{last}"}).json()
        assert (doc["text"], doc["start_line"], doc["end_line"]) == (line[first - 1 : last], 1, 1)
        assert f"line 1, chars {first}-{last}" in c.get("/", params={"q": "item4321", "mode": "keyword"}).text


def test_a_hit_on_a_labelled_pdf_page_cites_the_label_over_http_and_on_the_page(tmp_path):
    """The page a reader sees ('A-1'), and the PDF page that get --page takes."""
    import json

    from tests.unit.test_pdf_page_labels import labelled_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kiln.pdf").write_bytes(labelled_pdf())
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Firing log"]},
             {"cell_type": "markdown", "metadata": {}, "source": ["Cone six reached after nine hours."]}]
    (docs / "log.ipynb").write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    (tmp_path / "srv").mkdir()
    with api_server(tmp_path / "srv", docs=docs, documents=2) as base, httpx.Client(base_url=base, timeout=30) as c:
        hit = search(c, "cobalt oxide glaze", mode="keyword", k=1)["hits"][0]
        assert (hit["page"], hit["page_label"], hit["citation"]) == (5, "A-1", "kiln.pdf (p. A-1, PDF page 5)")
        assert "p. A-1, PDF page 5" in c.get("/", params={"q": "cobalt oxide glaze", "mode": "keyword"}).text
        cell = search(c, "cone six nine hours", mode="keyword", k=1)["hits"][0]  # a notebook's "page" is its cell
        assert f"cell {cell['page']}" in cell["citation"]
        assert f"cell {cell['page']}" in c.get("/", params={"q": "cone six nine hours", "mode": "keyword"}).text


@pytest.mark.parametrize("command", [["api"], ["serve", "--http"]])
def test_a_busy_port_is_one_error_before_anything_starts(tmp_path, command):
    """The server announced its address, then uvicorn logged 'address already in use'."""
    import socket
    import subprocess

    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp_path / "index"), "DOCSHELF_CONFIG": os.devnull,
           "DOCSHELF_MODEL": "fake", "DOCSHELF_LOG_FILE": str(tmp_path / "log")}
    try:
        done = subprocess.run(docshelf_argv(*command, "--port", str(port)), env=env, capture_output=True, text=True,
                              timeout=60)
    finally:
        held.close()
    assert (done.returncode, done.stdout, done.stderr.strip()) == (
        1, "", f"Error: port {port} on 127.0.0.1 is in use (another program, or another docshelf, listens there); "
               "choose another with --port")


def test_ingest_disabled_and_read_token(tmp_path):
    with api_server(tmp_path, "--token", READ_TOKEN) as base, httpx.Client(base_url=base, timeout=30) as c:
        r = c.post("/ingest/upsert", json={"records": [{"id": "a", "content": "b"}]},
                   headers={"Authorization": f"Bearer {READ_TOKEN}"})
        assert (r.status_code, r.json()["error"]["message"]) == (
            403, "ingest is disabled: start the server with --ingest-token (or DOCSHELF_INGEST_TOKEN) to accept pushed records")
        assert c.post("/search", json={"query": "x"}).status_code == 401
        bad = c.post("/search", content=b'{"query": ', headers={"Content-Type": "application/json"})
        assert bad.status_code == 401, bad.text  # the token before the body (it was 422, the body's parse error)
        page = c.get("/")
        assert page.status_code == 401 and 'name="token"' in page.text  # the page asks for the token
        c.post("/login", data={"token": "wrong"})
        assert "the one given was wrong" in c.get("/").text
        c.post("/login", data={"token": READ_TOKEN})  # kept in a cookie, as a browser would
        assert c.get("/", params={"q": "x"}).status_code == 200
        c.cookies.clear()
        ok = c.post("/search", json={"query": "x"}, headers={"Authorization": f"Bearer {READ_TOKEN}"})
        assert ok.status_code == 200
        assert c.get("/health").json()["status"] == "ok"


def test_non_loopback_bind_without_token_is_refused(tmp_path):
    import subprocess

    proc = subprocess.run(docshelf_argv("api", "--host", "0.0.0.0", "--port", "1"), capture_output=True, text=True,
                          env={**os.environ, "DOCSHELF_INDEX_DIR": str(tmp_path / "i"), "DOCSHELF_CONFIG": os.devnull},
                          timeout=60)
    assert proc.returncode == 1
    assert "refusing to serve on 0.0.0.0 without a token" in proc.stderr


def test_serve_http_api_one_process_for_agents_and_people(tmp_path, docs):
    """``serve --http --api``: a record pushed over the API is found by an MCP client on /mcp."""
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp_harness import call

    with api_server(tmp_path, env={"DOCSHELF_INGEST_TOKEN": INGEST_TOKEN}, docs=docs, documents=3,
                    command=("serve", "--http", "--api")) as base:
        r = httpx.post(f"{base}/ingest/upsert", headers=AUTH, json={"records": [
            {"id": "team-1", "content": "The on-call rota lives in the platypus channel.", "metadata": {"source": "wiki/oncall"}}]})
        assert r.status_code == 200, r.text

        async def main() -> None:
            async with streamable_http_client(f"{base}/mcp") as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                res = await call(s, "search_docs", query="platypus channel", mode="keyword", k=1)
                assert [(h["path"], h["chunk_id"]) for h in res["hits"]] == [("wiki/oncall", "push:team-1")]

        anyio.run(main)


def test_a_hit_from_a_file_that_now_fails_says_so_in_the_cli_mcp_and_http(tmp_path):
    """A page that indexed, then was saved broken, keeps its last good text searchable; every
    interface showed those hits as if they were the file's current text. Each hit now carries the
    service's note (when and why the file fails), in `docshelf search`, `search_docs` and /search."""
    import subprocess

    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp_harness import call

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "ok.md").write_text("# Rota\n\nThe wombat rota is on the wiki.\n")
    (docs / "broken.md").write_text("# Rota\n\nThe wombat rota changes weekly.\n")
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(tmp_path / "index"), "DOCSHELF_CONFIG": os.devnull,
           "DOCSHELF_MODEL": "fake", "DOCSHELF_LOG_FILE": str(tmp_path / "log.txt"), "DOCSHELF_QUERY_TIMEOUT": "0"}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(docshelf_argv(*args), env=env, capture_output=True, text=True, timeout=120)

    assert cli("index", str(docs)).returncode == 0
    (docs / "broken.md").write_bytes(b"# Rota\n\nThe wombat \xff\xfe\x00\x00 rota " + bytes(range(256)) * 40)
    assert cli("index", str(docs)).returncode == 0
    out = cli("search", "wombat rota", "--mode", "keyword").stdout
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "broken.md" in line)
    assert lines[at + 1].startswith("this is the last version that indexed; the file now fails to: ")
    assert "the file now fails" not in out.replace(lines[at + 1], "")  # ok.md's hit has no note
    hits = {h["path"]: h for h in json.loads(cli("search", "wombat rota", "--mode", "keyword", "--json").stdout)["hits"]}
    assert hits["ok.md"]["note"] == "" and hits["broken.md"]["note"] == lines[at + 1]

    # /health counts indexed documents, not failed ones: the server is ready at 1
    with api_server(tmp_path, env={"DOCSHELF_QUERY_TIMEOUT": "0"}, documents=1,
                    command=("serve", "--http", "--api")) as base:
        r = httpx.post(f"{base}/search", json={"query": "wombat rota", "mode": "keyword"})
        assert {h["path"]: h["note"] for h in r.json()["hits"]} == {"ok.md": "", "broken.md": lines[at + 1]}
        from markupsafe import escape

        page = httpx.get(f"{base}/", params={"q": "wombat rota", "mode": "keyword"}).text  # the web page
        assert page.count(str(escape(lines[at + 1]))) == 1
        doc_id = next(h["doc_id"] for h in r.json()["hits"] if h["path"] == "broken.md")
        assert str(escape(lines[at + 1])) in httpx.get(f"{base}/view", params={"doc_id": doc_id}).text

        async def main() -> None:
            async with streamable_http_client(f"{base}/mcp") as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                res = await call(s, "search_docs", query="wombat rota", mode="keyword")
                assert {h["path"]: h["note"] for h in res["hits"]} == {"ok.md": "", "broken.md": lines[at + 1]}

        anyio.run(main)
