"""Property test of the HTTP API against its own OpenAPI schema (schemathesis): no 500s.

Hypothesis generates requests for every operation in ``/openapi.json`` (bounded number of
examples per operation, to keep CI short) and sends them to the real server, with the
ingest token so the write paths are exercised too.
"""

from __future__ import annotations

import pytest
import schemathesis
from api_harness import INGEST_TOKEN, api_server, write_corpus
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

pytestmark = pytest.mark.timeout(600)
EXAMPLES = 15


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    docs = tmp_path_factory.mktemp("schema-docs")
    write_corpus(docs)
    tmp = tmp_path_factory.mktemp("schema-api")
    with api_server(tmp, "--ingest-token", INGEST_TOKEN, docs=docs, documents=3) as url:
        yield url


def test_no_server_errors(base):
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {f"{op.method.upper()} {op.path}" for op in operations} >= {
        "GET /health", "POST /search", "GET /documents", "GET /documents/{ref}", "GET /collections",
        "GET /status", "POST /ingest/upsert", "POST /ingest/lookup", "POST /ingest/delete", "POST /ingest/reset",
    }
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        def check(case):
            response = case.call(headers={"Authorization": f"Bearer {INGEST_TOKEN}"}, timeout=60)
            case.validate_response(response, checks=[not_a_server_error])
            content_type = {k.lower(): v for k, v in response.headers.items()}["content-type"][0]
            assert content_type.startswith("application/json"), response.text[:200]  # every answer, errors too

        check()
