"""The request models: one place for every rule an interface's input must follow."""

from __future__ import annotations

import pytest

from docshelf.errors import InvalidQuery, InvalidRequest
from docshelf.models import SearchFilters
from docshelf.requests import (
    DocumentListRequest,
    DocumentRequest,
    SearchRequest,
    decode_cursor,
    encode_cursor,
    parse_lines,
)

DATE_ERROR = "expected an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]), got {!r}"


@pytest.mark.parametrize("given, day", [
    ("2024-01-05", "2024-01-05"),
    ("2024-01-05T23:30:00+01:00", "2024-01-05"),
    ("2024-01-05T10:00Z", "2024-01-05"),
    ("2024-01-05 10:00:00.123", "2024-01-05"),
    ("2024-01-05T10:00:00-0700", "2024-01-05"),
])
def test_iso_dates_and_date_times_become_their_day(given, day):
    assert SearchRequest(query="x", date_from=given, date_to=given).filters() == SearchFilters(
        date_from=day, date_to=day)


@pytest.mark.parametrize("given", ["2024-1-5", "yesterday", "2024-02-30", "05/01/2024", "20240105", "2024-01-05x"])
def test_anything_else_is_an_error_naming_the_field_and_the_format(given):
    with pytest.raises(InvalidRequest) as exc:
        SearchRequest(query="x", date_from=given)
    assert (exc.value.field, str(exc.value)) == ("date_from", "date_from: " + DATE_ERROR.format(given))
    assert isinstance(exc.value, InvalidQuery)  # callers that catch InvalidQuery keep working


@pytest.mark.parametrize("fields, field, message", [
    ({"query": "x", "k": 0}, "k", "must be between 1 and 100, got 0"),
    ({"query": "x", "k": 101}, "k", "must be between 1 and 100, got 101"),
    ({"query": "\n \t"}, "query", "is empty; pass some words to search for"),
    ({"query": "x", "mode": "magic"}, "mode", "unknown mode 'magic'; use one of hybrid, semantic, keyword, fuzzy"),
    ({"query": "x", "fields": ["status"]}, "fields", "use KEY=VALUE, got 'status'"),
    ({"query": "x", "fields": ["a b=c"]}, "fields", "field name 'a b' may hold only letters, digits, '_', '.' and '-'"),
    ({"query": "x", "max_per_doc": -1}, "max_per_doc", "must be at least 0, got -1"),
    ({"query": "x", "colour": "red"}, "colour", "is not a known field"),
    ({"query": "x", "date_from": "2024-02-01", "date_to": "2024-01-01"}, "date_to",
     "2024-01-01 is before date_from 2024-02-01"),
])
def test_search_request_errors_name_the_field(fields, field, message):
    with pytest.raises(InvalidRequest) as exc:
        SearchRequest(**fields)
    assert (exc.value.field, exc.value.reason) == (field, message)


def test_search_request_normalises_once():
    request = SearchRequest(query="  rotate keys ", tags_any="ops", doc_types=[], fields={"status": "final"},
                            path_prefix=" ", collections=["api"])
    assert (request.query, request.tags_any, request.doc_types, request.fields, request.path_prefix) == (
        "rotate keys", ("ops",), None, (("status", "final"),), None)
    assert SearchRequest(query="x", fields=["status = final"]).fields == (("status", "final"),)
    # doc_types=None means "the configured default scope"; an explicit list wins.
    assert request.filters(["doc", "note"]) == SearchFilters(collections=("api",), doc_types=("doc", "note"),
                                                             fields=(("status", "final"),), tags_any=("ops",))
    assert SearchRequest(query="x", doc_types=["minutes"]).filters(["doc"]).doc_types == ("minutes",)
    assert SearchRequest.build("x", SearchFilters(tags_all=("a",)), k=3, mode=None).model_dump(
        include={"k", "mode", "tags_all"}) == {"k": 3, "mode": None, "tags_all": ("a",)}


def test_one_line_range_syntax():
    assert parse_lines("12") == parse_lines("12-12") == parse_lines(" 12 - 12 ") == (12, 12)
    assert parse_lines("10-40") == (10, 40) and parse_lines((3, 4)) == (3, 4) and parse_lines(None) is None
    assert DocumentRequest(path="a.md", lines="12").lines == "12-12"
    assert DocumentRequest(path="a.md", lines=(3, 9)).line_range == (3, 9)
    # Characters of one long line, as a hit inside a minified file cites them.
    chars = DocumentRequest(path="a.json", lines=" 1 : 2001 - 4000 ")
    assert (chars.lines, chars.line_range, chars.columns) == ("1:2001-4000", (1, 1), (2001, 4000))
    assert DocumentRequest(path="a.md", lines="3-4").columns is None
    for bad, why in (("1:40-12", "use LINE:FIRST-LAST with 1-based characters and FIRST <= LAST, got '1:40-12'"),
                     ("0:1-2", "use LINE:FIRST-LAST with 1-based characters and FIRST <= LAST, got '0:1-2'"),
                     ("abc", "use START-END or one line number, e.g. '10-40' or '12', got 'abc'"),
                     ("12-", "use START-END or one line number, e.g. '10-40' or '12', got '12-'"),
                     ("40-12", "use a 1-based range with START <= END, got '40-12'"),
                     ("0-3", "use a 1-based range with START <= END, got '0-3'")):
        with pytest.raises(InvalidRequest) as exc:
            DocumentRequest(path="a.md", lines=bad)
        assert (exc.value.field, exc.value.reason) == ("lines", why)


def test_document_request_needs_a_path_or_an_id_and_bounds_pages_and_sizes():
    with pytest.raises(InvalidRequest, match="^path: pass path or doc_id$"):
        DocumentRequest(section="Intro")
    with pytest.raises(InvalidRequest, match="^page: must be at least 1, got 0$"):
        DocumentRequest(path="a.md", page=0)
    with pytest.raises(InvalidRequest, match="^max_chars: must be between 100 and 500000, got 10$"):
        DocumentRequest(path="a.md", max_chars=10)
    assert DocumentRequest(doc_id="abc").doc_id == "abc"


def test_list_request_cursor_names_root_and_path_and_rejects_anything_else():
    cursor = encode_cursor("/docs/one", "README.md")
    assert decode_cursor(cursor) == ("README.md", "/docs/one")
    assert DocumentListRequest(cursor=cursor).after == ("README.md", "/docs/one")
    assert DocumentListRequest().after is None
    with pytest.raises(InvalidRequest, match=r"^cursor: not a cursor returned by list_documents \(next_cursor\), got 'README.md'$"):
        DocumentListRequest(cursor="README.md")
    with pytest.raises(InvalidRequest, match="^limit: must be between 1 and 500, got 501$"):
        DocumentListRequest(limit=501)


def test_descriptions_are_there_for_every_interface_to_reuse():
    for model in (SearchRequest, DocumentRequest, DocumentListRequest):
        assert all(model.describe(name) for name in model.model_fields), model
    assert "ISO 8601" in SearchRequest.describe("date_from")


def test_document_request_reads_a_document_uri_as_its_path():
    """Hits and listings carry both ``path`` and ``uri``; an agent passing the uri was told there
    was no such document."""
    assert DocumentRequest(path="docshelf://doc/guides/Setup%20notes.md").path == "guides/Setup notes.md"
    assert DocumentRequest(path="docshelf://doc/https%3A//help.example.com/a").path == "https://help.example.com/a"
    assert DocumentRequest(path="guides/a.md").path == "guides/a.md"
    with pytest.raises(InvalidRequest, match="pass path or doc_id"):
        DocumentRequest(path="docshelf://doc/")
