"""Re-index speed (issue 11, target 3): an unchanged tree of 10k files, then one edited file.

Writes N small Markdown files in nested folders (with ``.gitignore`` files at a few depths,
so ignore matching is exercised), dated a day back (as a real tree is: nothing was edited
in the last seconds). The first build uses a stand-in embedder: the shipped fake embedder
(``docshelf.embedders.fake``) at the packaged model's identity (model id, 384 dimensions,
max tokens), so the index is the one the real model would leave apart from the vector
values — embedding 10k chunks with the real model would take ~15 minutes here and tells
nothing about re-indexing. Everything timed afterwards runs the product's own path with the
real packaged model:

- ``library``: ``Docshelf(Settings(index_dir=...)).index([tree])`` in this process (the
  service is built before the clock starts; the model is never loaded when nothing changed);
- ``cli``: ``docshelf index TREE`` as a subprocess, wall time (imports and store opening included);
- ``edit``: one file gains a sentence, then ``index`` (library), with the time the real model
  needs to embed that file's chunks (model load included) reported beside it.

    python benchmarks/reindex.py --files 10000 --repeat 5 [--json]

``measure(files, repeat)`` returns the same dict for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

WORDS = (
    "index search query vector chunk token model embed store table folder file render parse "
    "document section heading config server client request response cache latency memory "
    "thread batch commit record manifest ignore pattern root path update delete rename"
).split()
DAY_NS = 86_400 * 1_000_000_000


def make_tree(folder: Path, n: int) -> list[Path]:
    """``n`` Markdown files, 100 per folder two levels deep, plus ignored files beside them."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text("*.tmp\nbuild/\n")
    files = []
    for i in range(n):
        sub = folder / f"part{i // 1000:02d}" / f"sec{(i // 100) % 10:02d}"
        if not sub.exists():
            sub.mkdir(parents=True)
            (sub / ".gitignore").write_text("drafts/\n!keep.tmp\n")
            (sub / "scratch.tmp").write_text("ignored")
        words = " ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(60))
        path = sub / f"note{i:05d}.md"
        path.write_text(f"# Note {i}\n\nThe {WORDS[i % len(WORDS)]} of item {i}: {words}.\n")
        files.append(path)
    old = time.time_ns() - DAY_NS
    for path in folder.rglob("*"):
        os.utime(path, ns=(old, old))
    return files


def stand_in_embedder():
    """The fake embedder wearing the packaged model's identity (build only; see the docstring)."""
    from docshelf.embedders.fake import FakeEmbedder
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    fake = FakeEmbedder(dimensions=OnnxMiniLM.dimensions)
    fake.model_id, fake.max_tokens, fake.normalized = OnnxMiniLM.model_id, OnnxMiniLM.max_tokens, OnnxMiniLM.normalized
    return fake


def build(tree: Path, index_dir: Path) -> dict:
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    t0 = time.perf_counter()
    report = Docshelf(Settings(index_dir=index_dir), embedder=stand_in_embedder()).index([tree])
    return {"build_s": time.perf_counter() - t0, "files": len(report.added), "failed": len(report.failed)}


def time_library(tree: Path, index_dir: Path) -> tuple[float, object]:
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index_dir))
    t0 = time.perf_counter()
    report = shelf.index([tree])
    return time.perf_counter() - t0, report


def _docshelf_command() -> str:
    """The installed ``docshelf`` script beside this interpreter (what a shell runs)."""
    script = Path(sys.executable).with_name("docshelf")
    return str(script) if script.exists() else shutil.which("docshelf") or "docshelf"


def time_cli(tree: Path, index_dir: Path) -> float:
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(index_dir)}
    t0 = time.perf_counter()
    subprocess.run([_docshelf_command(), "index", str(tree), "--json"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def embed_cost(path: Path) -> float:
    """Seconds the real model needs for this file's chunks, model load included (a fresh embedder)."""
    from docshelf.config import Settings
    from docshelf.embedders import embedder_from_settings
    from docshelf.pipeline.chunk import Chunker
    from docshelf.pipeline.parsers import default_registry

    embedder = embedder_from_settings(Settings())
    doc = default_registry().parse(path, path.read_bytes())
    texts = [c.embed_text for c in Chunker(embedder.tokenizer, embedder.max_tokens, Settings().chunk_overlap).chunk(doc)]
    t0 = time.perf_counter()
    embedder.load()
    embedder.embed_documents(texts)
    return time.perf_counter() - t0


def measure(files: int = 10_000, repeat: int = 5, keep: Path | None = None) -> dict:
    """Build once, then time ``repeat`` unchanged re-indexes (library, CLI) and ``repeat`` one-file edits."""
    scratch = Path(tempfile.mkdtemp(prefix="docshelf-reindex-", dir=keep))
    try:
        tree, index_dir = scratch / "tree", scratch / "index"
        paths = make_tree(tree, files)
        out: dict = {"files": files, "repeat": repeat, **build(tree, index_dir)}
        lib, cli, edit = [], [], []
        for _ in range(repeat):
            seconds, report = time_library(tree, index_dir)
            assert not (report.added or report.updated or report.removed), "the tree did not change"
            lib.append(seconds)
            cli.append(time_cli(tree, index_dir))
        for i in range(repeat):
            path = paths[(i * 997) % len(paths)]
            path.write_text(path.read_text() + f"\nAn added sentence, edit {i}.\n")
            seconds, report = time_library(tree, index_dir)
            assert report.updated == [path.relative_to(tree).as_posix()], report.updated
            edit.append(seconds)
        out.update({
            "unchanged_library_s": statistics.median(lib), "unchanged_cli_s": statistics.median(cli),
            "edit_one_library_s": statistics.median(edit), "edit_one_embed_s": embed_cost(paths[0]),
            "runs": {"unchanged_library": lib, "unchanged_cli": cli, "edit_one_library": edit},
        })
        out["edit_one_minus_embed_s"] = out["edit_one_library_s"] - out["edit_one_embed_s"]
        return out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    result = measure(args.files, args.repeat)
    if args.json:
        print(json.dumps(result))
        return
    print(f"| files | build (stand-in) | unchanged, library | unchanged, CLI | one edit, library | its embedding |")
    print("|---:|---:|---:|---:|---:|---:|")
    print(f"| {result['files']} | {result['build_s']:.1f} s | {result['unchanged_library_s']:.2f} s | "
          f"{result['unchanged_cli_s']:.2f} s | {result['edit_one_library_s']:.2f} s | {result['edit_one_embed_s']:.2f} s |")


if __name__ == "__main__":
    main()
