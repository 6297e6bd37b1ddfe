"""Big benchmark indexes (10k, 100k, 1M chunks) built through docshelf's own write path, cached.

Why synthetic: embedding 1M chunks with the real model takes days on a laptop CPU, but search
speed depends on the shape of the data, not on who computed the vectors. So:

* text is real: each chunk is a real SciFact chunk (from a pool of a few thousand) with a third of its sentences dropped and
  one sentence of a neighbouring chunk added, so BM25 sees real vocabulary and statistics;
* vectors are realistic: the real model's embedding of those two chunks, mixed 3:1 and
  jittered (N(0, 0.02) per dimension), so neighbourhoods and score distributions look like
  the model's; the real SciFact queries, embedded by the real model, find real neighbours;
* every document (10 chunks) is a real Markdown file on disk whose size, mtime and sha256
  are what the index records, so ``docshelf index`` / ``serve`` see an unchanged tree;
* collections ``c0``..``c9`` (10% each) and dates over 2020-2025 (one year ≈ 1/6) for filters.

The pool of real chunks and vectors comes from ``docshelf eval``'s cached SciFact index
(``~/.cache/docshelf/eval`` or ``$DOCSHELF_EVAL_CACHE``); without one, SciFact sentences are
embedded once here (slow on a busy machine) and cached.

Indexes are written with ``Store.replace_documents`` in batches of 500 documents (2,000 past
200k chunks; nothing holds N chunks in memory) and finished with one ``Store.optimize`` (BM25
index, scalar indexes, and the vector index past the store's threshold, built once over all
rows). They are cached under ``$DOCSHELF_BENCH_CACHE`` (default
``/tmp/docshelf-bench``), keyed by (chunks, seed, code version: this builder, the schema
and the store module), so every benchmark and helper reuses them. Treat a cached index as
read-only; build a private one (``build_index(n, folder=...)``) to write to it.

    python benchmarks/corpus.py 100000          # build (or find) the cached 100k index, print its folder
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
# ../shared beside the checkout (or beside any folder above it, e.g. from a git worktree)
SHARED_EVAL = next((d / "shared" / "eval" for d in HERE.parents if (d / "shared" / "eval" / "scifact").is_dir()),
                   HERE.parent.parent / "shared" / "eval")
SCIFACT = SHARED_EVAL / "scifact"
HAVE_SCIFACT = (SCIFACT / "corpus.jsonl").is_file()  # CI has no ../shared: smoke runs use this repo's docs
REPO = HERE.parent
CACHE = Path(os.environ.get("DOCSHELF_BENCH_CACHE", "/tmp/docshelf-bench"))
BUILD_VERSION = 1  # bump when what a built index contains changes
COLLECTIONS = [f"c{i}" for i in range(10)]
CHUNKS_PER_DOC = 10
BATCH_DOCS = 500
# Past 200k chunks: 20k chunks a commit. Each ``merge_insert`` joins its batch against the whole
# table, so 2,000 commits of 500 would make a 1M build quadratic; 50 of 20k keep it linear at
# ~1.6 GB peak RSS (benchmarks/README.md, "1M chunks").
BIG_BATCH_DOCS = 2000
BIG_CORPUS = 200_000
POOL_SENTENCES = 1500  # the fallback pool, when no eval index is cached


def p(values, q: float) -> float:
    return float(np.percentile(list(values), q)) if len(values) else float("nan")


# -- real text and queries ----------------------------------------------------------------------
def sentences(limit: int) -> list[str]:
    """The first ``limit`` sentences (over five words) of SciFact abstracts."""
    out: list[str] = []
    with (SCIFACT / "corpus.jsonl").open() as f:
        for line in f:
            doc = json.loads(line)
            out.extend(s.strip() + "." for s in doc["text"].split(". ") if len(s.split()) > 5)
            if len(out) >= limit:
                break
    return out[:limit]


FALLBACK_QUESTIONS = [
    "how do I deploy the service", "authentication with an API token", "install the MCP server in a client",
    "search with a date filter", "what is a collection", "re-index after editing a file",
    "configure ignore rules for a folder", "which embedding model is used", "hybrid search scoring",
    "how are documents split into chunks",
]


def repo_documents(limit: int = 60) -> list[Path]:
    """Markdown files of this repository: the text source when SciFact is absent (CI)."""
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "examples").rglob("*.md")),
             *sorted((REPO / "benchmarks" / "docsets").rglob("*.md"))]
    return [f for f in files if f.is_file()][:limit]


def questions(n: int, seed: int = 7) -> list[str]:
    """``n`` real SciFact questions in a fixed shuffled order."""
    if not HAVE_SCIFACT:
        return (FALLBACK_QUESTIONS * (n // len(FALLBACK_QUESTIONS) + 1))[:n]
    qs = [json.loads(line)["text"] for line in (SCIFACT / "queries.jsonl").open()]
    random.Random(seed).shuffle(qs)
    return qs[:n]


def _embedder():
    from docshelf.embedders.onnx_minilm import OnnxMiniLM

    return OnnxMiniLM()


def query_set(n: int = 100, seed: int = 7) -> tuple[list[str], np.ndarray]:
    """Real SciFact questions and their real query vectors (cached: embedding is slow here)."""
    qs = questions(n, seed)
    path = CACHE / f"queries-{n}-{seed}-{_model_id()}{'' if HAVE_SCIFACT else '-repo'}.npy"
    if path.exists():
        return qs, np.load(path)
    vecs = np.stack([_embedder().embed_query(q) for q in qs]).astype(np.float32)
    _save_atomic(path, lambda f: np.save(f, vecs))
    return qs, vecs


def _model_id() -> str:
    return "minilm-int8"  # the packaged default; the pool and query vectors are its embeddings


# -- the pool of real chunks with real vectors ----------------------------------------------------
@dataclass(frozen=True)
class Pool:
    texts: list[str]
    titles: list[str]
    vectors: np.ndarray  # (len(texts), 384), unit length
    source: str


def _eval_index_dirs() -> list[Path]:
    base = Path(os.environ.get("DOCSHELF_EVAL_CACHE", Path.home() / ".cache" / "docshelf" / "eval"))
    return sorted(base.glob("scifact-*/*MiniLM-L6-v2*c256*/index"), key=lambda p: p.stat().st_mtime)


def _pool_from_eval_index(index_dir: Path) -> Pool | None:
    import lancedb

    try:
        table = lancedb.connect(str(index_dir)).open_table("chunks")
        rows = table.to_arrow().select(["text", "title", "vector"]).to_pydict()
    except Exception:  # noqa: BLE001 - an index being written or of another schema: try another
        return None
    if len(rows["text"]) < 2000:  # too few topics for a realistic corpus
        return None
    vecs = np.asarray(rows["vector"], dtype=np.float32)
    return Pool(rows["text"], rows["title"], vecs, f"eval index {index_dir}")


def pool() -> Pool:
    """Real SciFact chunks and their real embeddings, cached as one file under ``CACHE``."""
    path = CACHE / f"pool-v{BUILD_VERSION}-{_model_id()}{'' if HAVE_SCIFACT else '-repo'}.npz"
    if path.exists():
        data = np.load(path, allow_pickle=False)
        return Pool(list(data["texts"]), list(data["titles"]), data["vectors"], str(data["source"]))
    candidates = [p for p in map(_pool_from_eval_index, _eval_index_dirs()) if p] if HAVE_SCIFACT else []
    found = max(candidates, key=lambda p: len(p.texts), default=None)
    if found is None and not HAVE_SCIFACT:  # paragraphs of this repository's Markdown, embedded here
        paras = [(f.stem, para.strip()) for f in repo_documents() for para in f.read_text().split("\n\n")
                 if len(para.split()) > 12][:200]
        texts = [t for _, t in paras]
        found = Pool(texts, [t for t, _ in paras], _embedder().embed_documents(texts).astype(np.float32),
                     f"{len(texts)} paragraphs of this repository's Markdown")
    if found is None:  # embed sentences ourselves: each "chunk" is three consecutive sentences
        sents = sentences(POOL_SENTENCES)
        texts = [" ".join(sents[i : i + 3]) for i in range(0, len(sents) - 2, 3)]
        found = Pool(texts, [t.split(" ")[0] for t in texts], _embedder().embed_documents(texts).astype(np.float32),
                     f"{len(texts)} SciFact sentence triples embedded here")
    _save_atomic(path, lambda f: np.savez(f, texts=np.array(found.texts), titles=np.array(found.titles),
                                          vectors=found.vectors, source=np.array(found.source)))
    return found


def _save_atomic(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=path.suffix)
    with os.fdopen(fd, "wb") as f:
        write(f)
    os.replace(tmp, path)


# -- synthetic documents ------------------------------------------------------------------------
@dataclass(frozen=True)
class SyntheticDoc:
    number: int
    path: str  # relative to the docs root: ``c3/d0000123.md``
    collection: str
    date: str
    title: str
    texts: list[str]
    vectors: np.ndarray = field(repr=False)

    def markdown(self) -> str:
        body = "\n\n".join(self.texts)
        return f"---\ndate: {self.date}\n---\n# {self.title}\n\n{body}\n"


def _split(text: str) -> list[str]:
    return [s.strip() for s in text.replace("\n", " ").split(". ") if s.strip()]


def make_doc(number: int, source: Pool, seed: int = 1, chunks: int = CHUNKS_PER_DOC) -> SyntheticDoc:
    """Document ``number``: deterministic in (number, seed, pool); its chunks share one topic."""
    rng = np.random.default_rng([seed, number])
    size = len(source.texts)
    anchor = int(rng.integers(size))
    texts, vecs = [], []
    for _ in range(chunks):
        a = min(size - 1, max(0, anchor + int(rng.integers(-3, 4))))
        b = min(size - 1, max(0, anchor + int(rng.integers(-3, 4))))
        sents = _split(source.texts[a])
        keep = [s for s in sents if rng.random() < 0.67] or sents[:2]
        extra = _split(source.texts[b])
        if extra:
            keep.append(extra[int(rng.integers(len(extra)))])
        texts.append(". ".join(s.rstrip(".") for s in keep) + ".")
        v = 0.75 * source.vectors[a] + 0.25 * source.vectors[b] + rng.normal(0, 0.02, source.vectors.shape[1])
        vecs.append(v / np.linalg.norm(v))
    year = 2020 + int(rng.integers(6))
    date = f"{year}-{1 + int(rng.integers(12)):02d}-{1 + int(rng.integers(28)):02d}"
    collection = COLLECTIONS[number % len(COLLECTIONS)]
    title = (source.titles[anchor] or "Untitled")[:120]
    return SyntheticDoc(number, f"{collection}/d{number:07d}.md", collection, date, title, texts,
                        np.asarray(vecs, dtype=np.float32))


def iter_docs(n_chunks: int, seed: int = 1, source: Pool | None = None) -> Iterator[SyntheticDoc]:
    """The documents of an ``n_chunks`` corpus, one at a time (the same ones every call)."""
    source = source or pool()
    for number in range((n_chunks + CHUNKS_PER_DOC - 1) // CHUNKS_PER_DOC):
        yield make_doc(number, source, seed, min(CHUNKS_PER_DOC, n_chunks - number * CHUNKS_PER_DOC))


def synthetic(n_chunks: int, seed: int = 1) -> tuple[list[str], np.ndarray, list[str], list[str]]:
    """The whole corpus in memory as (texts, vectors, collections, dates): for small N only."""
    texts, vecs, cats, dates = [], [], [], []
    for doc in iter_docs(n_chunks, seed):
        texts += doc.texts
        vecs.append(doc.vectors)
        cats += [doc.collection] * len(doc.texts)
        dates += [doc.date] * len(doc.texts)
    return texts, np.concatenate(vecs), cats, dates


def doc_items(doc: SyntheticDoc, root: Path, write: bool = True):
    """Write ``doc`` under ``root`` (unless ``write`` is false) and return its (record, chunks,
    vectors) for ``replace_documents``."""
    from docshelf.models import Chunk, DocumentRecord
    from docshelf.pipeline.chunk import chunk_id

    data = doc.markdown().encode()
    size, mtime_ns = len(data), 0
    if write:
        file = root / doc.path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        st = file.stat()
        size, mtime_ns = st.st_size, st.st_mtime_ns
    root_s = str(root)
    chunks = []
    for i, text in enumerate(doc.texts):
        embed_text = f"{doc.title}\n{text}"
        chunks.append(Chunk(id=chunk_id(root_s, doc.path, i, embed_text), root=root_s, path=doc.path,
                            collection=doc.collection, doc_type="doc", title=doc.title, heading_path=(doc.title,),
                            chunk_index=i, text=text, embed_text=embed_text, date=doc.date,
                            start_line=5 + 2 * i, end_line=5 + 2 * i))
    record = DocumentRecord(root=root_s, path=doc.path, sha256=hashlib.sha256(data).hexdigest(), size=size,
                            mtime_ns=mtime_ns, status="indexed", collection=doc.collection, doc_type="doc",
                            title=doc.title, chunk_count=len(chunks), indexed_at=time.time(), format="markdown",
                            date=doc.date)
    return record, chunks, doc.vectors


# -- built indexes ------------------------------------------------------------------------------
@dataclass(frozen=True)
class BuiltIndex:
    folder: Path
    chunks: int
    seed: int
    build_seconds: float

    @property
    def index_dir(self) -> Path:
        return self.folder / "index"

    @property
    def docs_dir(self) -> Path:
        return self.folder / "docs"

    def facts(self) -> dict:
        """What the build recorded in ``built.json`` (write/optimize seconds, size, indexes)."""
        try:
            return json.loads((self.folder / "built.json").read_text())
        except (OSError, ValueError):
            return {}

    def env(self) -> dict[str, str]:
        """Environment for a ``docshelf`` subprocess on this index."""
        return {"DOCSHELF_INDEX_DIR": str(self.index_dir)}

    def open(self, **settings):
        """A ``Docshelf`` on this index with the packaged model (query embedding is real)."""
        from docshelf.config import Settings
        from docshelf.service import Docshelf

        return Docshelf(Settings(index_dir=self.index_dir, **settings), create=False)


def batch_docs_for(n_chunks: int) -> int:
    return BIG_BATCH_DOCS if n_chunks > BIG_CORPUS else BATCH_DOCS


def build_index(n_chunks: int, folder: Path, seed: int = 1, batch_docs: int | None = None,
                progress: bool = False, key: str = "") -> BuiltIndex:
    """Write the corpus into ``folder`` (docs/ and index/) through the product's write path:
    ``replace_documents`` per batch, then one ``optimize`` (what ``docshelf index`` does)."""
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    batch_docs = batch_docs or batch_docs_for(n_chunks)
    folder.mkdir(parents=True, exist_ok=True)
    docs = (folder / "docs").resolve()
    docs.mkdir(exist_ok=True)
    shelf = Docshelf(Settings(index_dir=folder / "index"))
    store = shelf.store
    t0 = time.perf_counter()
    items, written = [], 0
    for doc in iter_docs(n_chunks, seed):
        items.append(doc_items(doc, docs))
        if len(items) == batch_docs:
            store.replace_documents(items)
            written += sum(len(chunks) for _, chunks, _ in items)
            items = []
            if progress:
                _progress(written, n_chunks, time.perf_counter() - t0)
    store.replace_documents(items)
    t_write = time.perf_counter()
    if progress:
        print(f"  wrote {n_chunks} chunks in {t_write - t0:.0f} s; optimize()…", file=sys.stderr, flush=True)
    store.optimize()
    store.write_manifest({**shelf._identity(), "created_at": time.time(), "roots": [str(docs)]})
    seconds = time.perf_counter() - t0
    built = BuiltIndex(folder, store.count_chunks(), seed, seconds)
    facts = {"chunks": built.chunks, "seed": seed, "build_seconds": seconds, "key": key,
             "write_seconds": t_write - t0, "optimize_seconds": seconds - (t_write - t0), "batch_docs": batch_docs,
             "index_bytes": folder_bytes(folder / "index"), "peak_rss_mb": peak_rss_mb(),
             "indexes": index_facts(store)}
    (folder / "built.json").write_text(json.dumps(facts))
    if progress:
        print(f"  built in {seconds:.0f} s: {json.dumps(facts)}", file=sys.stderr, flush=True)
    return built


def _progress(written: int, total: int, elapsed: float) -> None:
    eta = elapsed / written * (total - written) if written else float("nan")
    print(f"  {written:>9} chunks  {elapsed:6.0f} s  (~{eta:.0f} s to go before optimize)  "
          f"peak RSS {peak_rss_mb():.0f} MB", file=sys.stderr, flush=True)


def folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def index_facts(store) -> list[dict]:
    """The store's indexes as built (type, columns; the vector index's statistics). The
    partition count is in the store's log line ("building the vector index … partitions")."""
    out = []
    try:
        for i in store._chunks.list_indices():
            fact = {"name": i.name, "type": str(i.index_type), "columns": list(i.columns)}
            if i.columns == ["vector"]:
                try:
                    stats = store._chunks.index_stats(i.name)
                    fact["stats"] = str(stats)[:400]
                except Exception as exc:  # noqa: BLE001 - facts for the report, not the index
                    fact["stats"] = f"unavailable: {exc}"
            out.append(fact)
    except Exception as exc:  # noqa: BLE001
        out.append({"error": str(exc)})
    return out


def code_version() -> str:
    """What a cached index's contents depend on: this builder, the index schema, and the store
    code that writes rows and builds indexes (not its read path: a faster search reuses them)."""
    import inspect

    from docshelf.service import SCHEMA_VERSION
    from docshelf.stores import lancedb_store as m
    from docshelf.stores import vector_index

    parts = [str(BUILD_VERSION), str(SCHEMA_VERSION), str(m.LanceStore.vector_index_min_rows), repr(m._DOC_SCHEMA)]
    for name in ("_chunk_rows", "replace_documents", "_ensure_fts", "_build_vector_index", "optimize"):
        obj = getattr(m.LanceStore, name, None)
        try:
            parts.append(inspect.getsource(obj))
        except (OSError, TypeError):
            parts.append(repr(obj))
    parts.append(inspect.getsource(m._chunk_schema))
    # the vector index's kind and partitions by size (not the query side's settings)
    parts += [inspect.getsource(vector_index.VectorIndex), inspect.getsource(vector_index.index_for),
              repr((vector_index.KIND, vector_index.ROWS_PER_PARTITION, vector_index.HNSW_KIND,
                    vector_index.HNSW_ROWS_PER_PARTITION, vector_index.FLAT_FROM_ROWS))]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:10]


def cache_key(n_chunks: int, seed: int = 1, variant: str = "") -> str:
    source = "" if HAVE_SCIFACT else "-repo"
    return f"n{n_chunks}-s{seed}-{code_version()}{source}{'-' + variant if variant else ''}"


def cached_index(n_chunks: int, seed: int = 1, progress: bool = True, variant: str = "") -> BuiltIndex:
    """The cached index of ``n_chunks`` chunks, built once (one builder at a time, others wait).

    ``variant`` names a separate copy (e.g. "rw" for a benchmark that writes to its index)."""
    folder = CACHE / cache_key(n_chunks, seed, variant)
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{folder.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (folder / "built.json").exists() and not (folder / "docs").exists():
            # An upgraded build shares its older build's docs/ through a link (its index records
            # that folder as the root); with the older build deleted, the link dangles and a
            # re-index would see a missing root: build again.
            print(f"{folder}/docs is gone (its older build was deleted); rebuilding", file=sys.stderr, flush=True)
            (folder / "built.json").unlink()
        if not (folder / "built.json").exists():
            older = _older_build(n_chunks, seed, variant)
            if older is not None and _upgrade(older, folder, progress):
                pass
            else:
                if n_chunks > 200_000:
                    _check_memory()
                shutil.rmtree(folder, ignore_errors=True)
                if progress:
                    print(f"building {folder} ({n_chunks} chunks)…", file=sys.stderr, flush=True)
                    _log_store_to_stderr()
                build_index(n_chunks, folder, seed, progress=progress, key=folder.name)
    meta = json.loads((folder / "built.json").read_text())
    return BuiltIndex(folder.resolve(), meta["chunks"], seed, meta["build_seconds"])  # roots are recorded resolved


def _log_store_to_stderr() -> None:
    """The store's own INFO lines (e.g. the vector index's partition count) in the build log."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("  %(asctime)s %(name)s: %(message)s"))
    logger = logging.getLogger("docshelf.stores")
    logger.setLevel(logging.INFO)
    logger.addHandler(handler)


def _older_build(n_chunks: int, seed: int, variant: str) -> Path | None:
    """A finished build of the same corpus by an older store version (same schema), if any."""
    tail = f"-{variant}" if variant else ""
    source = "" if HAVE_SCIFACT else "-repo"
    for f in sorted(CACHE.glob(f"n{n_chunks}-s{seed}-*"), key=lambda p: p.stat().st_mtime, reverse=True):
        name = f.name[len(f"n{n_chunks}-s{seed}-"):]
        if f.is_symlink() or not (f / "built.json").exists() or name != name.split("-")[0] + source + tail:
            continue
        return f
    return None


def _upgrade(older: Path, folder: Path, progress: bool) -> bool:
    """Bring an older build up to this store's indexes with its own ``optimize`` (what a user's
    index goes through after an upgrade), instead of writing every chunk again (half an hour
    at 100k chunks on a busy 2-core machine). It works on a copy of the older ``index/`` (other
    runs may be reading the older build); ``docs/`` is shared through a link (never written), so
    deleting the older build invalidates this one (``cached_index`` then builds it again)."""
    from docshelf.config import Settings
    from docshelf.service import Docshelf

    if progress:
        print(f"reusing {older}: a copy of its index, optimize() with this store's code…", file=sys.stderr, flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    try:
        t0 = time.perf_counter()
        folder.mkdir(parents=True)
        (folder / "docs").symlink_to((older / "docs").resolve())
        shutil.copytree(older / "index", folder / "index", symlinks=True)
        t_copy = time.perf_counter()
        if progress:
            _log_store_to_stderr()  # the vector index's build line
        store = Docshelf(Settings(index_dir=folder / "index")).store
        store.optimize()
    except Exception as exc:  # noqa: BLE001 - rebuild instead
        print(f"could not reuse {older} ({exc}); rebuilding", file=sys.stderr)
        shutil.rmtree(folder, ignore_errors=True)
        return False
    facts = json.loads((older / "built.json").read_text())
    facts.update(key=folder.name, upgraded_from=older.resolve().name, upgrade_copy_seconds=t_copy - t0,
                 upgrade_optimize_seconds=time.perf_counter() - t_copy, index_bytes=folder_bytes(folder / "index"),
                 upgrade_peak_rss_mb=peak_rss_mb(), indexes=index_facts(store))
    (folder / "built.json").write_text(json.dumps(facts))
    if progress:
        print(f"  upgraded: {json.dumps(facts)}", file=sys.stderr, flush=True)
    return True


def _check_memory(need_gib: float = 4.0) -> None:
    try:
        avail = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemAvailable"))
    except (OSError, StopIteration):
        return
    if avail / 2**20 < need_gib:
        raise SystemExit(f"only {avail / 2**20:.1f} GiB available; a 1M-chunk build wants {need_gib} GiB")


# -- helpers for measuring ----------------------------------------------------------------------
class VectorEmbedder:
    """Stands in for the model: each query text maps to a prepared vector (the search path is the product's)."""

    model_id = "synthetic-384"
    dimensions = 384
    max_tokens = 256
    normalized = True
    loaded = True

    def __init__(self, vectors: dict[str, np.ndarray] | None = None) -> None:
        self.vectors: dict[str, np.ndarray] = dict(vectors or {})

    def load(self) -> None:
        pass

    def embed_query(self, text: str) -> np.ndarray:
        if text not in self.vectors:  # e.g. the searcher's own calibration queries
            v = np.random.default_rng(abs(hash(text)) % 2**32).standard_normal(self.dimensions).astype(np.float32)
            self.vectors[text] = v / np.linalg.norm(v)
        return self.vectors[text]

    def embed_documents(self, texts) -> np.ndarray:
        return np.stack([self.embed_query(t) for t in texts])


def exact_top_ids(store, vector: np.ndarray, k: int = 10) -> list[str]:
    """The true top-k chunk ids by cosine from a LanceDB store, bypassing any approximate index."""
    return exact_top_ids_of(store._chunks, vector, k)


def exact_top_ids_of(table, vector: np.ndarray, k: int = 10) -> list[str]:
    q = table.search(vector, vector_column_name="vector").distance_type("cosine").bypass_vector_index()
    # _distance selected: a vector query that leaves it out makes LanceDB warn on stderr
    return [r["id"] for r in q.select(["id", "_distance"]).limit(k).to_list()]


def vector_recall(store, vectors: np.ndarray, k: int = 10) -> float:
    """Mean recall@k of ``store.vector_search`` (whatever index it built) against exact search."""
    hits = []
    for v in vectors:
        got = {c.id for c, _ in store.vector_search(v, k)}
        hits.append(len(got & set(exact_top_ids(store, v, k))) / k)
    return float(np.mean(hits))


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("chunks", type=int, nargs="+")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for n in args.chunks:
        built = cached_index(n, args.seed)
        print(json.dumps({"chunks": built.chunks, "folder": str(built.folder), "build_seconds": built.build_seconds}))


if __name__ == "__main__":
    main()
