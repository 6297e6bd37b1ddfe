"""The wire formats of the hosted embedding services docshelf speaks.

- ``ollama:MODEL`` — Ollama's ``POST /api/embed`` (default URL ``http://127.0.0.1:11434``).
- ``openai:MODEL`` — any OpenAI-compatible ``POST /v1/embeddings``: OpenAI, vLLM, LM Studio,
  Infinity, TEI (default URL ``https://api.openai.com``; key from ``OPENAI_API_KEY``).
- ``gemini:MODEL`` — Google's ``batchEmbedContents`` (``gemini-embedding-001``), with the task
  types ``RETRIEVAL_DOCUMENT`` / ``RETRIEVAL_QUERY`` and a chosen output dimension (key from
  ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``).

Transport, batching and retries are in ``remote.py``.
"""

from __future__ import annotations

from typing import Any

from .remote import RemoteEmbedder


class OllamaEmbedder(RemoteEmbedder):
    provider = "ollama"
    default_url = "http://127.0.0.1:11434"
    key_variables: tuple[str, ...] = ()

    def _request(self, texts, task):
        body: dict[str, Any] = {"model": self.options.model, "input": texts, "truncate": True}
        if self.options.dimensions:
            body["dimensions"] = self.options.dimensions
        headers = {"Authorization": f"Bearer {self.options.api_key}"} if self.options.api_key else {}
        return "/api/embed", body, headers

    def _vectors(self, data):
        return data["embeddings"]


class OpenAIEmbedder(RemoteEmbedder):
    provider = "openai"
    default_url = "https://api.openai.com"
    key_variables = ("OPENAI_API_KEY",)

    def _request(self, texts, task):
        body: dict[str, Any] = {"model": self.options.model, "input": texts, "encoding_format": "float"}
        if self.options.dimensions:
            body["dimensions"] = self.options.dimensions
        headers = {"Authorization": f"Bearer {self.options.api_key}"} if self.options.api_key else {}
        # ``embed_url`` may be the server root or already end in /v1 (as vLLM and LM Studio print it).
        path = "/embeddings" if self.options.url.rstrip("/").endswith("/v1") else "/v1/embeddings"
        return path, body, headers

    def _vectors(self, data):
        rows = sorted(data["data"], key=lambda row: row.get("index", 0))
        return [row["embedding"] for row in rows]


class GeminiEmbedder(RemoteEmbedder):
    provider = "gemini"
    default_url = "https://generativelanguage.googleapis.com"
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    default_tasks = ("RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT")
    max_batch = 100  # batchEmbedContents takes at most 100 requests

    def _request(self, texts, task):
        model = self.options.model if self.options.model.startswith("models/") else f"models/{self.options.model}"
        requests = []
        for text in texts:
            one: dict[str, Any] = {"model": model, "content": {"parts": [{"text": text}]}}
            if task:
                one["taskType"] = task
            if self.options.dimensions:
                one["outputDimensionality"] = self.options.dimensions
            requests.append(one)
        headers = {"x-goog-api-key": self.options.api_key} if self.options.api_key else {}
        return f"/v1beta/{model}:batchEmbedContents", {"requests": requests}, headers

    def _vectors(self, data):
        return [e["values"] for e in data["embeddings"]]


PROVIDERS: dict[str, type[RemoteEmbedder]] = {
    "ollama": OllamaEmbedder,
    "openai": OpenAIEmbedder,
    "gemini": GeminiEmbedder,
}
