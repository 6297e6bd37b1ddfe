"""Hosted embedding models, each against a real local HTTP server that speaks its wire format.

The real services cannot be reached here, so ``WireServer`` answers as Ollama, an
OpenAI-compatible endpoint or Gemini would: same paths, bodies, headers and error shapes.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from docshelf.config import Settings
from docshelf.embedders import embedder_from_settings
from docshelf.embedders.fake import FakeEmbedder
from docshelf.embedders.prefixed import PrefixedEmbedder
from docshelf.errors import EmbedderMismatch, EmbedderUnavailable
from docshelf.service import Docshelf

KEY = "sk-test-secret-123456"


def hashed_vector(text: str, dims: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dims).tolist()


class WireServer:
    """A loopback server in one provider's wire format; ``script`` holds canned failures."""

    def __init__(self, provider: str, dims: int = 32, embed=None) -> None:
        self.provider, self.dims = provider, dims
        self.embed = embed or (lambda texts, dims: [hashed_vector(t, dims) for t in texts])
        self.requests: list[dict] = []
        self.script: list[tuple[int, dict, dict]] = []  # (status, headers, body) served first
        self.delay = 0.0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if outer.delay:
                    time.sleep(outer.delay)
                if outer.script:
                    status, headers, payload = outer.script.pop(0)
                else:
                    status, headers, payload = outer.answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, path: str, body: dict):
        if self.provider == "ollama":
            assert path == "/api/embed"
            return 200, {}, {"model": body["model"], "embeddings": self.embed(body["input"], body.get("dimensions", self.dims))}
        if self.provider == "openai":
            assert path == "/v1/embeddings"
            vecs = self.embed(body["input"], body.get("dimensions", self.dims))
            # Real servers may return rows out of order; the index field says where each goes.
            rows = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vecs)][::-1]
            return 200, {}, {"object": "list", "data": rows, "model": body["model"]}
        assert path.endswith(":batchEmbedContents")
        texts = [r["content"]["parts"][0]["text"] for r in body["requests"]]
        dims = body["requests"][0].get("outputDimensionality", self.dims)
        return 200, {}, {"embeddings": [{"values": v} for v in self.embed(texts, dims)]}

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def wire():
    servers: list[WireServer] = []

    def start(provider: str, **kw) -> WireServer:
        servers.append(WireServer(provider, **kw))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def settings_for(server: WireServer, model: str, tmp_path, **kw) -> Settings:
    kw.setdefault("embed_api_key", KEY)
    return Settings(index_dir=tmp_path / "index", model=model, embed_url=server.url, **kw)


@pytest.mark.parametrize("provider,model", [("ollama", "nomic-embed-text"), ("openai", "text-embedding-3-small"),
                                            ("gemini", "gemini-embedding-001")])
def test_batches_keep_order_and_vectors_are_normalised(wire, tmp_path, provider, model):
    server = wire(provider)
    emb = embedder_from_settings(settings_for(server, f"{provider}:{model}", tmp_path, embed_batch_size=40))
    texts = [f"text number {i}" for i in range(100)]
    vecs = emb.embed_documents(texts)
    assert vecs.shape == (100, 32)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    for i in (0, 57, 99):  # each vector belongs to its own text, whatever the batch or row order
        want = np.array(hashed_vector(texts[i], 32))
        assert np.allclose(vecs[i], want / np.linalg.norm(want), atol=1e-5)
    assert len(server.requests) == 3 and sorted(len(r["body"].get("input") or r["body"]["requests"])
                                                 for r in server.requests) == [20, 40, 40]
    assert emb.model_id.startswith(f"{provider}:{model}") and emb.dimensions == 32


def test_gemini_task_types_dimension_and_key_header(wire, tmp_path):
    server = wire("gemini")
    emb = embedder_from_settings(settings_for(server, "gemini:gemini-embedding-001", tmp_path, embed_dimensions=16))
    assert emb.embed_documents(["a passage"]).shape == (1, 16)
    assert emb.embed_query("a question").shape == (16,)
    doc_req, query_req = server.requests
    assert doc_req["path"] == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
    assert doc_req["headers"]["x-goog-api-key"] == KEY
    assert doc_req["body"]["requests"][0]["taskType"] == "RETRIEVAL_DOCUMENT"
    assert query_req["body"]["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    assert doc_req["body"]["requests"][0]["outputDimensionality"] == 16
    assert "task=RETRIEVAL_DOCUMENT" in emb.model_id  # the task type changes document vectors


def test_openai_sends_the_key_and_accepts_a_v1_url(wire, tmp_path):
    server = wire("openai")
    settings = Settings(index_dir=tmp_path / "i", model="openai:bge-small", embed_url=server.url + "/v1",
                        embed_api_key=KEY)
    embedder_from_settings(settings).embed_query("q")
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    assert server.requests[0]["path"] == "/v1/embeddings"


def test_key_from_the_provider_variable(wire, tmp_path, monkeypatch):
    server = wire("openai")
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    emb = embedder_from_settings(Settings(index_dir=tmp_path / "i", model="openai:m", embed_url=server.url))
    emb.embed_query("q")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer from-env"


def test_retries_429_and_5xx_honouring_retry_after(wire, tmp_path, caplog):
    server = wire("ollama")
    server.script = [(429, {"Retry-After": "0.3"}, {"error": "rate limited"}), (503, {}, {"error": "busy"})]
    emb = embedder_from_settings(settings_for(server, "ollama:m", tmp_path))
    emb.options = type(emb.options)(**{**emb.options.__dict__, "backoff": 0.01})
    start = time.monotonic()
    with caplog.at_level(logging.DEBUG):
        assert emb.embed_query("hello").shape == (32,)
    assert len(server.requests) == 3
    assert time.monotonic() - start >= 0.3  # waited as long as Retry-After asked
    assert KEY not in caplog.text and KEY not in repr(emb) and KEY not in repr(emb.options)


def test_gives_up_after_the_retries_with_a_clear_error(wire, tmp_path):
    server = wire("openai")
    server.script = [(500, {}, {"error": {"message": "internal"}})] * 3
    emb = embedder_from_settings(settings_for(server, "openai:m", tmp_path, embed_retries=2))
    emb.options = type(emb.options)(**{**emb.options.__dict__, "backoff": 0.01})
    with pytest.raises(EmbedderUnavailable, match=r"HTTP 500: internal"):
        emb.embed_query("x")
    assert len(server.requests) == 3


@pytest.mark.parametrize("provider,status,body,expect", [
    ("openai", 401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}, "check the API key"),
    ("ollama", 404, {"error": 'model "nomic" not found, try pulling it first'}, "check the model name"),
    ("gemini", 400, {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}, "API key not valid"),
])
def test_wrong_key_or_model_is_a_clear_error_without_the_key(wire, tmp_path, provider, status, body, expect):
    server = wire(provider)
    server.script = [(status, {}, body)]
    emb = embedder_from_settings(settings_for(server, f"{provider}:nomic", tmp_path))
    with pytest.raises(EmbedderUnavailable) as err:
        emb.embed_query("x")
    assert expect in str(err.value) and "nomic" in str(err.value) and KEY not in str(err.value)


def test_unreachable_url_and_timeout(wire, tmp_path):
    closed = Settings(index_dir=tmp_path / "i", model="ollama:m", embed_url="http://127.0.0.1:9", embed_retries=0)
    with pytest.raises(EmbedderUnavailable, match="cannot reach ollama at http://127.0.0.1:9"):
        embedder_from_settings(closed).embed_query("x")
    server = wire("ollama")
    server.delay = 0.5
    slow = settings_for(server, "ollama:m", tmp_path, embed_timeout=0.1, embed_retries=1)
    emb = embedder_from_settings(slow)
    emb.options = type(emb.options)(**{**emb.options.__dict__, "backoff": 0.01})
    with pytest.raises(EmbedderUnavailable, match="did not answer within 0.1 s after 2 tries"):
        emb.embed_query("x")


def test_a_hosted_model_indexes_and_searches_and_is_recorded_in_the_manifest(wire, tmp_path, write):
    """The local 'Ollama' embeds with the packaged model, so search quality is real."""
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    model = OnnxMiniLM()
    server = wire("ollama", embed=lambda texts, dims: model.embed_documents(texts).tolist())
    docs = tmp_path / "docs"
    write(docs, "backup.md", "# Backups\n\nSnapshots of the database are taken every night at 02:00.\n")
    write(docs, "tokens.md", "# Ingest tokens\n\nRotate the ingest token from the admin console.\n")
    shelf = Docshelf(settings_for(server, "ollama:all-minilm", tmp_path))
    shelf.index([docs])
    hits = shelf.search("when are database snapshots made?", k=2).hits
    assert hits[0].path == "backup.md"
    manifest = shelf.store.read_manifest()
    assert manifest["embedder"]["model_id"] == "ollama:all-minilm" and manifest["embedder"]["dimensions"] == 384
    with pytest.raises(EmbedderMismatch, match="ollama:all-minilm"):
        Docshelf(Settings(index_dir=tmp_path / "index"), embedder=FakeEmbedder(384))


def test_prefixes_for_local_models_change_identity_and_budget():
    inner = FakeEmbedder(16)
    seen: list[str] = []
    original = inner.embed_documents
    inner.embed_documents = lambda texts: (seen.extend(texts), original(texts))[1]
    emb = PrefixedEmbedder(inner, query_prefix="query: ", document_prefix="passage: ")
    emb.embed_documents(["alpha"])
    assert seen == ["passage: alpha"]
    assert np.allclose(emb.embed_query("beta"), inner.embed_query("query: beta"))
    assert emb.model_id == "fake-16+prefix='passage: '"
    assert emb.max_tokens < inner.max_tokens
    settings = Settings(index_dir="unused", model="fake-16", query_prefix="query: ", document_prefix="passage: ")
    assert embedder_from_settings(settings).model_id == "fake-16+prefix='passage: '"
