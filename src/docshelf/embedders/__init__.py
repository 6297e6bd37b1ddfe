"""Embedding providers. ``embedder_from_settings`` picks one from the configured model name.

- ``all-MiniLM-L6-v2`` (default): the packaged int8 ONNX model, fully offline.
- ``fake``: deterministic hashed vectors for fast tests of non-search logic.
- ``ollama:MODEL``, ``openai:MODEL``, ``gemini:MODEL``: a hosted or remote model over HTTP.
- anything else: a sentence-transformers model id or local path (optional extra).

Query and document prefixes (asymmetric models such as e5 or bge) apply to every provider.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import ConfigError
from ..protocols import Embedder

if TYPE_CHECKING:
    from ..config import Settings

DEFAULT_MODEL = "all-MiniLM-L6-v2"
REMOTE_PREFIXES = ("ollama:", "openai:", "gemini:")
LOCAL_BATCH, REMOTE_BATCH = 8, 64


def make_embedder(name: str = DEFAULT_MODEL, *, batch_size: int = 8, threads: int = 0, device: str = "cpu",
                  query_int8: bool = False) -> Embedder:
    """Build a local embedder for ``name`` without loading its weights (that happens lazily).

    ``device`` (cpu / cuda / auto) and ``query_int8`` apply to the packaged ONNX model; see
    ``devices.py`` and ``OnnxMiniLM``.
    """
    if name.startswith(REMOTE_PREFIXES):
        from ..config import Settings

        return embedder_from_settings(Settings(model=name, embed_batch_size=batch_size))
    if name in (DEFAULT_MODEL, "sentence-transformers/all-MiniLM-L6-v2"):
        from .onnx_minilm import OnnxMiniLM

        return OnnxMiniLM(batch_size=batch_size, threads=threads, device=device, query_int8=query_int8)
    if name == "fake" or name.startswith("fake-"):
        from .fake import FakeEmbedder

        dims = int(name.split("-", 1)[1]) if "-" in name else 64
        return FakeEmbedder(dimensions=dims)
    try:
        from .sentence_transformers import SentenceTransformerEmbedder
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise ConfigError(
            f"model {name!r} needs the optional extra: pip install 'docshelf[sentence-transformers]' "
            f"(or use the packaged default {DEFAULT_MODEL!r})"
        ) from exc
    return SentenceTransformerEmbedder(name, batch_size=batch_size)


def embedder_from_settings(settings: Settings, *, transport=None) -> Embedder:
    """The embedder the settings describe: provider, URL, key, dimension, prefixes, task types."""
    name = settings.model
    if not name.startswith(REMOTE_PREFIXES):
        embedder = make_embedder(
            name, batch_size=settings.embed_batch_size, threads=settings.embed_threads, device=settings.device,
            query_int8=settings.query_int8,
        )
        if settings.query_prefix or settings.document_prefix:
            from .prefixed import PrefixedEmbedder

            embedder = PrefixedEmbedder(embedder, settings.query_prefix, settings.document_prefix)
        return embedder

    from .hosted import PROVIDERS
    from .remote import RemoteOptions

    provider, _, model = name.partition(":")
    if not model:
        raise ConfigError(f"model {name!r} names no model after {provider!r}: e.g. 'ollama:nomic-embed-text'")
    cls = PROVIDERS[provider]
    key = settings.embed_api_key.get_secret_value() if settings.embed_api_key else None
    for variable in cls.key_variables:
        key = key or os.environ.get(variable) or None
    query_task, document_task = settings.query_task, settings.document_task
    if provider == "gemini":
        query_task = query_task or "RETRIEVAL_QUERY"
        document_task = document_task or "RETRIEVAL_DOCUMENT"
    options = RemoteOptions(
        model=model,
        url=settings.embed_url or cls.default_url,
        api_key=key,
        dimensions=settings.embed_dimensions,
        max_tokens=settings.embed_max_tokens or 512,
        # The local default batch (8) suits a CPU model; a service takes bigger requests.
        batch_size=REMOTE_BATCH if settings.embed_batch_size == LOCAL_BATCH else max(1, settings.embed_batch_size),
        concurrency=max(1, settings.embed_concurrency),
        timeout=settings.embed_timeout,
        retries=max(0, settings.embed_retries),
        query_prefix=settings.query_prefix,
        document_prefix=settings.document_prefix,
        query_task=query_task,
        document_task=document_task,
    )
    return cls(options, transport=transport)


__all__ = ["DEFAULT_MODEL", "embedder_from_settings", "make_embedder"]
