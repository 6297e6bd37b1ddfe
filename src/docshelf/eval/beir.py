"""BEIR folders → a cached docshelf index built through the real pipeline.

Each corpus record (``title`` + ``text``) becomes one Markdown file (``# title`` then the
text) and is indexed like any user document: parsed, chunked, embedded, stored. The files
and the index live under a cache folder keyed by the corpus hash, the embedder's model id,
the chunker settings and the pipeline code (``pipeline_fingerprint``: a parser or chunker
change is another cache entry, never a stale index), so a second ``docshelf eval`` on the same data and model reuses
the embedded corpus; an interrupted build resumes (indexing is incremental).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from .metrics import load_qrels

log = logging.getLogger(__name__)

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")
CACHE_VERSION = 1


@dataclass(frozen=True)
class BeirDataset:
    name: str
    root: Path
    corpus_path: Path
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    split: str

    @property
    def judged_queries(self) -> list[tuple[str, str]]:
        """(id, text) of every query with at least one relevant document, in qrels order."""
        return [
            (q, self.queries[q]) for q, j in self.qrels.items() if q in self.queries and any(g > 0 for g in j.values())
        ]


def load_dataset(root: Path, split: str = "test") -> BeirDataset:
    root = Path(root).expanduser().resolve()
    corpus, queries, qrels = root / "corpus.jsonl", root / "queries.jsonl", root / "qrels" / f"{split}.tsv"
    for p in (corpus, queries, qrels):
        if not p.is_file():
            raise ConfigError(
                f"{p} not found: a BEIR folder holds corpus.jsonl, queries.jsonl and qrels/{split}.tsv"
            )
    texts = {str(row["_id"]): str(row.get("text") or "") for row in json_lines(queries)}
    dataset = BeirDataset(root.name, root, corpus, texts, load_qrels(qrels), split)
    if not dataset.judged_queries:
        raise ConfigError(
            f"nothing to evaluate: no query of {qrels.name} ({len(dataset.qrels)} judged) is in queries.jsonl "
            f"({len(texts)} queries) with a relevant document (score > 0)")
    return dataset


def json_lines(path: Path):  # noqa: ANN201 - a generator of dicts
    """The JSON objects of a BEIR ``.jsonl`` file; a line that is not one with an ``_id`` is an
    error naming the file and line (it was a traceback)."""
    try:
        f = path.open(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read: {exc.strerror or exc}") from None
    with f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ConfigError(f"{path.name} line {number} is not JSON ({exc}); each line holds one object "
                                  'such as {"_id": "d1", "text": "..."}') from None
            if not isinstance(row, dict) or "_id" not in row:
                raise ConfigError(f'{path.name} line {number} has no "_id"; each line holds one object '
                                  'such as {"_id": "d1", "text": "..."}')
            yield row


def check_judged(dataset: BeirDataset, corpus_ids: set[str]) -> None:
    """The judged documents are in the corpus: none is an error (every score would be 0), some
    missing a warning (those judgements can never be met)."""
    judged = {d for q, _ in dataset.judged_queries for d, g in dataset.qrels[q].items() if g > 0}
    missing = sorted(judged - corpus_ids)
    if missing and len(missing) == len(judged):
        raise ConfigError(f"no relevant document of qrels/{dataset.split}.tsv is in corpus.jsonl "
                          f"(e.g. {', '.join(missing[:3])}): the ids must be the corpus records' \"_id\"")
    if missing:
        log.warning("%d relevant documents of qrels/%s.tsv are not in corpus.jsonl (e.g. %s); those queries "
                    "cannot score fully", len(missing), dataset.split, ", ".join(missing[:3]))


def file_name(doc_id: str) -> str:
    """A file name for a corpus id; ids with odd characters get a hash suffix to stay unique."""
    safe = _SAFE.sub("_", doc_id)
    if safe != doc_id:
        safe += "-" + hashlib.sha1(doc_id.encode()).hexdigest()[:8]
    return safe + ".md"


def corpus_hash(path: Path) -> str:
    h = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def _as_markdown(title: str, text: str) -> str:
    title = " ".join((title or "").split())
    return (f"# {title}\n\n" if title else "") + (text or "").strip() + "\n"


def materialize(dataset: BeirDataset, docs_dir: Path) -> dict[str, str]:
    """Write the corpus as one Markdown file per record; return file name → corpus id."""
    docs_dir.mkdir(parents=True, exist_ok=True)
    names: dict[str, str] = {}
    for row in json_lines(dataset.corpus_path):
        doc_id = str(row["_id"])
        name = file_name(doc_id)
        names[name] = doc_id
        path = docs_dir / name
        body = _as_markdown(str(row.get("title") or ""), str(row.get("text") or ""))
        if not path.exists() or path.read_text(encoding="utf-8") != body:
            path.write_text(body, encoding="utf-8")
    return names


PIPELINE_CODE = ("pipeline/parsers", "pipeline/chunk.py", "pipeline/discover.py", "analysis.py")
"""The code that decides what an index holds for a file: how it is found, parsed, chunked and tokenised."""


def pipeline_fingerprint(package: Path | None = None) -> str:
    """A short hash of the source of ``PIPELINE_CODE`` (in ``package``, default: docshelf's own),
    so that editing a parser or the chunker invalidates every cached eval index."""
    base = package or Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for part in PIPELINE_CODE:
        path = base / part
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            h.update(file.relative_to(base).as_posix().encode() + b"\0" + file.read_bytes() + b"\0")
    return h.hexdigest()[:10]


def cache_key(dataset: BeirDataset, model_id: str, chunk_tokens: int, overlap: int) -> str:
    from ..service import SCHEMA_VERSION  # an index of another schema is refused, so it is another cache entry

    model = _SAFE.sub("_", model_id)
    return (
        f"{dataset.name}-{corpus_hash(dataset.corpus_path)}/"
        f"{model}-c{chunk_tokens}o{overlap}-v{CACHE_VERSION}s{SCHEMA_VERSION}p{pipeline_fingerprint()}"
    )


def default_cache_dir() -> Path:
    import os

    import platformdirs

    env = os.environ.get("DOCSHELF_EVAL_CACHE")
    return Path(env) if env else Path(platformdirs.user_cache_dir("docshelf", appauthor=False)) / "eval"
