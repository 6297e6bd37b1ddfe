"""Re-index speed (issue 11, target 3): an unchanged tree of 10k files, then one edited file.

Writes N small Markdown files in nested folders (with ``.gitignore`` files at a few depths,
so ignore matching is exercised), dated a day back (as a real tree is: nothing was edited
in the last seconds). The first build uses a stand-in embedder: the shipped fake embedder
(``docshelf.embedders.fake``) at the packaged model's identity (model id, 384 dimensions,
max tokens), so the index is the one the real model would leave apart from the vector
values — embedding 10k chunks with the real model would take ~15 minutes here and tells
nothing about re-indexing. Everything timed afterwards runs the product's own path with the
real packaged model:

Each timed run is a fresh process with the code under test on PYTHONPATH, so ``--baseline``
(another checkout's ``src``) is timed interleaved with this one, run by run, on the same index:

- ``unchanged, library``: ``Docshelf(Settings(index_dir=...)).index([tree])``, the call alone
  (the service is built before the clock starts; the model is never loaded when nothing changed);
- ``unchanged, CLI``: ``docshelf index TREE`` as a subprocess (imports and store opening included);
- ``one edit, library``: one file gains a sentence, then the ``index`` call; the real model loads
  and embeds that file's chunks, and the time for that alone (a fresh embedder: load + embed) is
  reported beside it.

Wall and CPU (user + system) seconds, medians: the shared machine is noisy, and CPU time shows
the work done when the wall clock mostly shows the neighbours.

    python benchmarks/reindex.py --files 10000 --repeat 5 [--baseline ../main/src] [--json]

``measure(files, repeat, baseline)`` returns the same dict for ``benchmarks/run.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def child(index_dir: Path, tree: Path, edit: Path | None) -> None:
    """In a fresh process (the code under test on PYTHONPATH): build the service, then time one
    ``index`` call, after appending a sentence to ``edit`` when given. Prints wall and CPU seconds."""
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    shelf = Docshelf(Settings(index_dir=index_dir))
    if edit is not None:
        edit.write_text(edit.read_text() + f"\nAn added sentence at {time.time()}.\n")
    wall, cpu = time.perf_counter(), time.process_time()
    report = shelf.index([tree])
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    changed = report.added + report.updated + report.removed
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "changed": changed}))


def _run(args: list[str], src: str | None, index_dir: Path) -> tuple[float, float, str]:
    """Run ``args``; wall seconds, CPU seconds (user + system, the child's) and stdout."""
    env = {**os.environ, "DOCSHELF_INDEX_DIR": str(index_dir)}
    if src:
        env["PYTHONPATH"] = src
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(args, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, done.stdout


def time_library(tree: Path, index_dir: Path, src: str | None, edit: Path | None = None) -> dict:
    args = [sys.executable, __file__, "--child", str(index_dir), str(tree)] + (["--edit", str(edit)] if edit else [])
    return json.loads(_run(args, src, index_dir)[2])


def _docshelf_command() -> str:
    """The installed ``docshelf`` script beside this interpreter (what a shell runs)."""
    script = Path(sys.executable).with_name("docshelf")
    return str(script) if script.exists() else shutil.which("docshelf") or "docshelf"


def time_cli(tree: Path, index_dir: Path, src: str | None) -> dict:
    wall, cpu, _ = _run([_docshelf_command(), "index", str(tree), "--json"], src, index_dir)
    return {"wall_s": wall, "cpu_s": cpu}


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


def _medians(runs: list[dict]) -> dict:
    return {"wall_s": statistics.median(r["wall_s"] for r in runs), "cpu_s": statistics.median(r["cpu_s"] for r in runs)}


def measure(files: int = 10_000, repeat: int = 5, baseline: str | None = None, keep: Path | None = None) -> dict:
    """Build once, then time ``repeat`` unchanged re-indexes (library, CLI) and ``repeat`` one-file
    edits, for this checkout and, interleaved run by run, for ``baseline`` (another ``src`` folder)."""
    scratch = Path(tempfile.mkdtemp(prefix="docshelf-reindex-", dir=keep))
    here = str(Path(__file__).resolve().parent.parent / "src")
    variants = {"this": here, **({"baseline": baseline} if baseline else {})}
    try:
        tree, index_dir = scratch / "tree", scratch / "index"
        paths = make_tree(tree, files)
        out: dict = {"files": files, "repeat": repeat, **build(tree, index_dir), "variants": {}}
        runs = {name: {"unchanged_library": [], "unchanged_cli": [], "edit_one_library": []} for name in variants}
        for _ in range(repeat):
            for name, src in variants.items():
                result = time_library(tree, index_dir, src)
                assert not result["changed"], f"the tree did not change: {result['changed']}"
                runs[name]["unchanged_library"].append(result)
                runs[name]["unchanged_cli"].append(time_cli(tree, index_dir, src))
        for i in range(repeat):
            for j, (name, src) in enumerate(variants.items()):
                path = paths[(i * 997 + j * 13) % len(paths)]
                result = time_library(tree, index_dir, src, edit=path)
                assert result["changed"] == [path.relative_to(tree).as_posix()], result["changed"]
                runs[name]["edit_one_library"].append(result)
        embed_s = embed_cost(paths[0])
        for name, kinds in runs.items():
            out["variants"][name] = {
                "src": variants[name], **{kind: _medians(r) for kind, r in kinds.items()}, "runs": kinds,
            }
        out["edit_one_embed_s"] = embed_s
        return out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", help="another checkout's src folder, timed side by side (e.g. before a change)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--child", nargs=2, type=Path, metavar=("INDEX_DIR", "TREE"), help=argparse.SUPPRESS)
    parser.add_argument("--edit", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child, args.edit)
        return
    result = measure(args.files, args.repeat, args.baseline)
    if args.json:
        print(json.dumps(result))
        return
    print(f"{result['files']} files, built in {result['build_s']:.0f} s (stand-in embedder); medians of "
          f"{result['repeat']}, wall / CPU seconds; one file's embedding alone (model load included): "
          f"{result['edit_one_embed_s']:.2f} s")
    print("| code | unchanged, library | unchanged, CLI | one edit, library |")
    print("|---|---:|---:|---:|")
    for name, v in result["variants"].items():
        cells = [f"{v[k]['wall_s']:.2f} / {v[k]['cpu_s']:.2f}" for k in ("unchanged_library", "unchanged_cli", "edit_one_library")]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
