"""Query and passage prefixes for asymmetric local models (e5's ``query: ``/``passage: ``, bge).

The document prefix changes every stored vector, so it is part of the model's identity in the
index manifest; the query prefix is not (it can change without re-indexing). The chunk limit
shrinks by the prefix's own tokens so a prefixed chunk still fits the model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..protocols import Embedder


class PrefixedEmbedder:
    def __init__(self, inner: Embedder, query_prefix: str = "", document_prefix: str = "") -> None:
        self.inner = inner
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.dimensions = inner.dimensions
        self.normalized = inner.normalized
        longest = max(query_prefix, document_prefix, key=len)
        # count() includes the special tokens, which the chunk's own count already pays for.
        extra = inner.tokenizer.count(longest) - inner.tokenizer.count("") if longest else 0
        self.max_tokens = inner.max_tokens - max(0, extra)

    @property
    def model_id(self) -> str:
        base = self.inner.model_id
        return f"{base}+prefix={self.document_prefix!r}" if self.document_prefix else base

    @property
    def tokenizer(self):
        return self.inner.tokenizer

    @property
    def loaded(self) -> bool:
        return self.inner.loaded

    def load(self) -> None:
        self.inner.load()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents([self.document_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(self.query_prefix + text)
