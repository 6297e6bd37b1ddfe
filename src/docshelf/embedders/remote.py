"""What every hosted or remote embedding model shares: batching, concurrency, retries, errors.

A provider (``ollama``, ``openai``, ``gemini``) only says how one batch becomes a request and
how a response becomes vectors. This module sends the batches (a few at a time), retries
429 and 5xx answers with exponential backoff that honours ``Retry-After``, and turns every
failure into an ``EmbedderUnavailable`` whose message names the URL, the model and what to
check — never the API key, which is kept out of messages, reprs and logs.

Chunk sizes are counted with the packaged WordPiece tokenizer: remote models do not expose
theirs, and a WordPiece count is close enough for sizing while ``max_tokens`` stays well under
the provider's own limit.
"""

from __future__ import annotations

import email.utils
import logging
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import EmbedderUnavailable

log = logging.getLogger(__name__)

RETRY_STATUS = {408, 425, 429, 500, 502, 503, 504}


@dataclass(frozen=True)
class RemoteOptions:
    """How to reach a remote model and how hard to push it (from ``Settings``)."""

    model: str
    url: str
    api_key: str | None = field(default=None, repr=False)
    dimensions: int | None = None
    max_tokens: int = 512
    batch_size: int = 64
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 5
    backoff: float = 0.5
    max_backoff: float = 30.0
    query_prefix: str = ""
    document_prefix: str = ""
    query_task: str | None = None
    document_task: str | None = None


class RemoteEmbedder:
    """Base class: subclasses set ``provider`` and implement ``_request`` and ``_vectors``."""

    provider = "remote"
    normalized = True
    max_batch = 2048  # the most texts the service takes in one request

    def __init__(self, options: RemoteOptions, *, transport: Any = None) -> None:
        import httpx

        self.options = options
        self.max_tokens = options.max_tokens
        self.batch_size = max(1, min(options.batch_size, self.max_batch))
        self._client = httpx.Client(timeout=options.timeout, transport=transport)
        self._tokenizer = None
        self._dimensions = options.dimensions
        self._lock = threading.Lock()
        self.requests_sent = 0  # for tests and logs: how many HTTP requests this embedder made

    # -- identity ---------------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        """Provider, model and what changes document vectors (task type or passage prefix)."""
        parts = [f"{self.provider}:{self.options.model}"]
        if self.options.document_task:
            parts.append(f"task={self.options.document_task}")
        if self.options.document_prefix:
            parts.append(f"prefix={self.options.document_prefix!r}")
        return "+".join(parts)

    @property
    def dimensions(self) -> int:
        """The configured output dimension, or the one the model returns for a probe text."""
        if self._dimensions is None:
            with self._lock:
                if self._dimensions is None:
                    self._dimensions = int(self._embed_batch(["dimension probe"], query=False).shape[1])
        return self._dimensions

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from .onnx_minilm import DATA_DIR
            from .hf_tokenizer import HFTokenizerAdapter

            self._tokenizer = HFTokenizerAdapter(DATA_DIR / "tokenizer.json", self.max_tokens)
        return self._tokenizer

    @property
    def loaded(self) -> bool:
        return True  # nothing to load: the model lives behind the URL

    def load(self) -> None:
        pass

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.options.model!r}, url={self.options.url!r})"

    # -- embedding --------------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        batches = [list(texts[i : i + self.batch_size]) for i in range(0, len(texts), self.batch_size)]
        workers = max(1, min(self.options.concurrency, len(batches)))
        if workers == 1:
            parts = [self._embed_batch(b, query=False) for b in batches]
        else:
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="docshelf-embed") as pool:
                parts = list(pool.map(lambda b: self._embed_batch(b, query=False), batches))
        return np.concatenate(parts).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed_batch([text], query=True)[0]

    def _embed_batch(self, texts: list[str], *, query: bool) -> np.ndarray:
        prefix = self.options.query_prefix if query else self.options.document_prefix
        task = self.options.query_task if query else self.options.document_task
        path, body, headers = self._request([prefix + t for t in texts], task)
        data = self._post(path, body, headers)
        try:
            vectors = np.asarray(self._vectors(data), dtype=np.float32)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise EmbedderUnavailable(
                f"{self.provider} at {self.options.url} answered without embeddings for model "
                f"{self.options.model!r} ({type(exc).__name__}: {exc}); check the URL and the model name"
            ) from exc
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise EmbedderUnavailable(
                f"{self.provider} returned {vectors.shape[0] if vectors.ndim else 0} vectors for "
                f"{len(texts)} texts (model {self.options.model!r})"
            )
        if self._dimensions is not None and vectors.shape[1] != self._dimensions:
            raise EmbedderUnavailable(
                f"{self.provider} model {self.options.model!r} returned {vectors.shape[1]}-d vectors, "
                f"but {self._dimensions} dimensions are configured (embed_dimensions)"
            )
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.clip(norms, 1e-12, None)

    def _post(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
        import httpx

        url = self.options.url.rstrip("/") + path
        attempt = 0
        while True:
            attempt += 1
            self.requests_sent += 1
            try:
                response = self._client.post(url, json=body, headers=headers)
            except httpx.TimeoutException as exc:
                if attempt <= self.options.retries:
                    self._sleep(attempt, None)
                    continue
                raise EmbedderUnavailable(
                    f"{self.provider} at {self.options.url} did not answer within {self.options.timeout:g} s "
                    f"after {attempt} tries (embed_timeout)"
                ) from exc
            except httpx.HTTPError as exc:
                raise EmbedderUnavailable(
                    f"cannot reach {self.provider} at {self.options.url}: {type(exc).__name__}; "
                    "check embed_url and that the service is running"
                ) from exc
            if response.status_code in RETRY_STATUS and attempt <= self.options.retries:
                log.warning("%s answered %d; retry %d of %d", self.provider, response.status_code,
                            attempt, self.options.retries)
                self._sleep(attempt, response.headers.get("retry-after"))
                continue
            if response.status_code >= 400:
                raise EmbedderUnavailable(self._error_message(response))
            try:
                return response.json()
            except ValueError as exc:
                raise EmbedderUnavailable(
                    f"{self.provider} at {self.options.url} answered with something that is not JSON; "
                    "check embed_url"
                ) from exc

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        delay = min(self.options.backoff * 2 ** (attempt - 1), self.options.max_backoff)
        wait = _retry_after_seconds(retry_after)
        if wait is not None:
            delay = min(max(delay, wait), self.options.max_backoff)
        time.sleep(delay)

    def _error_message(self, response: Any) -> str:
        detail = _error_detail(response)
        what = f"{self.provider} at {self.options.url} refused model {self.options.model!r} (HTTP {response.status_code}"
        what += f": {detail})" if detail else ")"
        hint = {
            401: "check the API key (embed_api_key or the provider's key variable)",
            403: "check the API key and that it may use this model",
            404: "check the model name and embed_url",
        }.get(response.status_code, "check embed_url, the model name and the key")
        return f"{what}; {hint}"

    # -- provider hooks ---------------------------------------------------------------------
    def _request(self, texts: list[str], task: str | None) -> tuple[str, dict[str, Any], dict[str, str]]:
        raise NotImplementedError

    def _vectors(self, data: Any) -> list[list[float]]:
        raise NotImplementedError


def _retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` is seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_detail(response: Any) -> str:
    """The provider's own words: ``{"error": "..."}`` or ``{"error": {"message": "..."}}``."""
    try:
        data = response.json()
    except ValueError:
        return response.text[:200].strip()
    error = data.get("error") if isinstance(data, dict) else None
    if isinstance(error, dict):
        return str(error.get("message") or error.get("status") or "")[:300]
    if error:
        return str(error)[:300]
    return ""
