"""Embedding throughput of the packaged model per batch size on an accelerator (issue 11, target 8).

One short prepared script for a machine with an NVIDIA GPU and the GPU build of onnxruntime
(``pip uninstall -y onnxruntime && pip install -e ".[gpu]"``). The texts are the chunks the
pipeline makes of the documentation sites in ``docsets/`` (its own parsers and chunker),
repeated to ``--texts``; for each batch size it times ``embed_documents`` (length-grouped
batches, as in indexing) ``--repeat`` times after a warm-up and prints the median chunks/s,
as JSON lines and a Markdown table. ``--device cpu`` runs the same measurement on the CPU
(for the ratio, or to check the script without a GPU).

    python benchmarks/gpu.py --device cuda --batch-sizes 1,8,32,64,128,256 --texts 4096
    python benchmarks/gpu.py --device cpu --batch-sizes 1,8 --texts 64 --repeat 1   # smoke

A lent GPU machine may lack docshelf's store and server dependencies: ``--save-texts FILE``
writes the texts here, and ``--texts-file FILE`` reads them there, so only the embedder
(numpy, tokenizers, onnxruntime-gpu, the model package) has to be installed on it.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def pipeline_texts(n: int) -> list[str]:
    """``n`` texts: the pipeline's chunks of the docsets/ sites, cycled."""
    from indexing import _pipeline_texts, write_docs_site

    from docshelf.config import Settings
    from docshelf.service import Docshelf

    with tempfile.TemporaryDirectory(prefix="docshelf-gpu-") as tmp:
        shelf = Docshelf(Settings(index_dir=Path(tmp) / "index", model="all-MiniLM-L6-v2", device="cpu"))
        texts = _pipeline_texts(shelf, write_docs_site(Path(tmp) / "docs"))
    return [texts[i % len(texts)] for i in range(n)]


def measure(device: str, batch_sizes: list[int], texts: list[str], repeat: int, threads: int) -> list[dict]:
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    model = OnnxMiniLM(device=device, threads=threads)
    t0 = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - t0
    provider = model.providers[0]
    rows = []
    for batch in batch_sizes:
        # Set after load: on CUDA, load raises the defaults to GPU-sized floors.
        model.batch_size, model.batch_tokens = batch, batch * model.max_tokens
        model.embed_documents(texts[: batch * 2])  # warm-up: kernels, allocator, this shape range
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            model.embed_documents(texts)
            times.append(time.perf_counter() - t0)
        row = {"device": device, "provider": provider, "batch": batch, "texts": len(texts),
               "chunks_per_s": round(len(texts) / statistics.median(times), 1),
               "seconds": [round(t, 3) for t in times], "load_s": round(load_s, 2)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda", choices=("cuda", "auto", "cpu"))
    ap.add_argument("--batch-sizes", default="1,8,32,64,128,256")
    ap.add_argument("--texts", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: the default, at most 2)")
    ap.add_argument("--texts-file", type=Path, help="read the texts (JSON list) instead of chunking docsets/")
    ap.add_argument("--save-texts", type=Path, help="write the texts as JSON to this file and stop")
    args = ap.parse_args()
    from docshelf.errors import EmbedderUnavailable

    if args.texts_file:
        texts = json.loads(args.texts_file.read_text(encoding="utf-8"))[: args.texts]
    else:
        texts = pipeline_texts(args.texts)
    if args.save_texts:
        args.save_texts.write_text(json.dumps(texts), encoding="utf-8")
        return
    try:
        rows = measure(args.device, [int(b) for b in args.batch_sizes.split(",")], texts, max(1, args.repeat),
                       args.threads)
    except EmbedderUnavailable as exc:
        sys.exit(f"gpu.py: {exc}")
    try:
        import onnxruntime

        ort = f"onnxruntime {onnxruntime.__version__}"
    except ImportError:  # pragma: no cover
        ort = "onnxruntime ?"
    print(f"\n{platform.node()} · {ort} · {rows[0]['provider']} · {len(texts)} texts, median of {args.repeat}\n")
    print("| batch | chunks/s |")
    print("|---|---|")
    for r in rows:
        print(f"| {r['batch']} | {r['chunks_per_s']} |")


if __name__ == "__main__":
    main()
