"""The eval cache is keyed on the pipeline code: a parser or chunker change is another cache entry."""

from __future__ import annotations

import shutil
from pathlib import Path

import docshelf
from docshelf.eval.beir import PIPELINE_CODE, BeirDataset, cache_key, pipeline_fingerprint
from docshelf.eval.docset import DocSet, docset_cache_key

PACKAGE = Path(docshelf.__file__).resolve().parent


def copy_pipeline(to: Path) -> Path:
    for part in PIPELINE_CODE:
        source = PACKAGE / part
        if source.is_dir():
            shutil.copytree(source, to / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (to / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, to / part)
    return to


def test_editing_a_parser_or_the_chunker_changes_the_fingerprint(tmp_path):
    copy = copy_pipeline(tmp_path / "pkg")
    assert pipeline_fingerprint(copy) == pipeline_fingerprint()
    markdown = copy / "pipeline" / "parsers" / "markdown.py"
    markdown.write_text(markdown.read_text() + "\n# a change\n")
    assert pipeline_fingerprint(copy) != pipeline_fingerprint()
    other = copy_pipeline(tmp_path / "pkg2")
    chunk = other / "pipeline" / "chunk.py"
    chunk.write_text(chunk.read_text().replace("\n", "\n\n", 1))
    assert len({pipeline_fingerprint(), pipeline_fingerprint(copy), pipeline_fingerprint(other)}) == 3


def test_both_cache_keys_carry_the_fingerprint(tmp_path, monkeypatch):
    (tmp_path / "corpus.jsonl").write_text('{"_id": "1", "title": "t", "text": "x"}\n')
    beir = BeirDataset(name="tiny", root=tmp_path, corpus_path=tmp_path / "corpus.jsonl", queries={}, qrels={}, split="test")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n")
    docs = DocSet(name="tiny", root=tmp_path, docs_dir=tmp_path / "docs", questions=())
    before = cache_key(beir, "m", 256, 32), docset_cache_key(docs, "m", 256, 32)
    assert all(key.endswith("p" + pipeline_fingerprint()) for key in before)
    monkeypatch.setattr("docshelf.eval.beir.pipeline_fingerprint", lambda: "0123456789")
    monkeypatch.setattr("docshelf.eval.docset.pipeline_fingerprint", lambda: "0123456789")
    after = cache_key(beir, "m", 256, 32), docset_cache_key(docs, "m", 256, 32)
    assert after[0] != before[0] and after[1] != before[1] and all(k.endswith("p0123456789") for k in after)
