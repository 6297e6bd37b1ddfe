"""A deterministic embedder for fast tests of logic that is not about search quality.

Vectors are hashed bags of lower-cased words, so texts sharing words are similar. It
uses the real MiniLM tokenizer for token counts, so chunk sizes stay realistic.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    normalized = True
    max_tokens = 256

    def __init__(self, dimensions: int = 64) -> None:
        self.dimensions = dimensions
        self.model_id = f"fake-{dimensions}"
        self._tokenizer = None
        self.calls = 0
        self.texts_embedded = 0

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            from .onnx_minilm import OnnxMiniLM

            self._tokenizer = OnnxMiniLM().tokenizer
        return self._tokenizer

    @property
    def loaded(self) -> bool:
        return True

    def load(self) -> None:
        pass

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dimensions, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
            v[h % self.dimensions] += 1.0 if (h >> 32) & 1 else -1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.texts_embedded += len(texts)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([self._vec(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)
