"""Any sentence-transformers model (optional extra ``docshelf[sentence-transformers]``).

For users with internet or a local model folder; the default install never needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from ..errors import EmbedderUnavailable


class _STTokenizer:
    def __init__(self, tok, max_tokens: int) -> None:
        self._tok = tok
        self.max_tokens = max_tokens

    def count(self, text: str) -> int:
        return len(self._tok(text, add_special_tokens=True)["input_ids"])

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        enc = self._tok(text, add_special_tokens=False, return_offsets_mapping=True)
        return [tuple(o) for o in enc["offset_mapping"]]


class SentenceTransformerEmbedder:
    normalized = True

    def __init__(self, name: str, *, batch_size: int = 8) -> None:
        import sentence_transformers  # noqa: F401 - fail early if the extra is missing

        self.name = name
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()
        self.load()  # identity (dimensions, max tokens) needs the model config

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        with self._lock:
            if self._model is not None:
                return
            from sentence_transformers import SentenceTransformer

            try:
                self._model = SentenceTransformer(self.name, device="cpu")
            except Exception as exc:
                raise EmbedderUnavailable(f"could not load model {self.name!r}: {exc}") from exc
            self.dimensions = int(self._model.get_sentence_embedding_dimension())
            self.max_tokens = int(self._model.max_seq_length)
            self.model_id = f"sentence-transformers:{self.name}"
            self._tokenizer = _STTokenizer(self._model.tokenizer, self.max_tokens)

    @property
    def tokenizer(self) -> _STTokenizer:
        return self._tokenizer

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return self._model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]
