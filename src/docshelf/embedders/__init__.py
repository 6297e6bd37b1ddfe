"""Embedding providers. ``make_embedder(name)`` picks one from a model name.

- ``all-MiniLM-L6-v2`` (default): the packaged int8 ONNX model, fully offline.
- ``fake``: deterministic hashed vectors for fast tests of non-search logic.
- anything else: a sentence-transformers model id or local path (optional extra).
"""

from __future__ import annotations

from ..errors import ConfigError
from ..protocols import Embedder

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def make_embedder(name: str = DEFAULT_MODEL, *, batch_size: int = 8, threads: int = 0) -> Embedder:
    """Build the embedder for ``name`` without loading its weights (that happens lazily)."""
    if name in (DEFAULT_MODEL, "sentence-transformers/all-MiniLM-L6-v2"):
        from .onnx_minilm import OnnxMiniLM

        return OnnxMiniLM(batch_size=batch_size, threads=threads)
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


__all__ = ["DEFAULT_MODEL", "make_embedder"]
