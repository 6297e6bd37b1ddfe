"""A corpus of 60+ malformed files beside good ones, through the real CLI and the real MCP server.

Checks: the indexer exits 0 within a time bound (no hang), prints no traceback, stays within
a memory bound, records every bad file as failed or skipped with a reason that both
``docshelf status`` and the MCP ``index_status`` show, indexes the recoverable ones, and
keeps the good files beside them searchable. Unreadable files are made so by mode 000
with the child's file-mode override capabilities dropped (see ``cli_runner``), since the
tests run as root on CI. The fake embedder keeps it fast; parsing and chunking are real.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import anyio
import pytest
from bad_corpus import GOOD_WORDS, build
from cli_runner import cli_env, run_cli, run_cli_measured, unprivileged_argv

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "interfaces"))
from mcp_harness import call, connect, server_params  # noqa: E402

INDEX_SECONDS = 240  # far above a normal run; a parser that hangs on one file hits it
PEAK_RSS_MB = 1500  # a DOCX bomb inflated in memory, or a YAML bomb expanded, goes far past it


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    base = tmp_path_factory.mktemp("malformed")
    root, index = base / "root", base / "index"
    expect = build(root)
    env = cli_env(index, DOCSHELF_MODEL="fake")
    started = time.monotonic()
    rss_file = base / "peak-rss-kb"
    proc = run_cli_measured(env, rss_file, "index", str(root), timeout=INDEX_SECONDS)
    seconds = time.monotonic() - started
    peak_mb = int(rss_file.read_text()) / 1024
    status = run_cli(env, "status", "--json", timeout=120)
    yield root, index, expect, proc, status, seconds, peak_mb
    for locked in (root / "perm" / "secret.md", root / "perm" / "locked"):
        locked.chmod(0o700)
    shutil.rmtree(base, ignore_errors=True)


def test_corpus_is_big_enough(indexed):
    _, _, expect, *_ = indexed
    bad = [rel for rel, e in expect.items() if not rel.startswith("good/")]
    assert len(bad) >= 50, len(bad)
    assert {"failed", "skipped", "indexed"} == {e.outcome for rel, e in expect.items() if rel in bad}


def test_index_run_ends_cleanly(indexed):
    _, _, _, proc, _, seconds, peak_mb = indexed
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert "Traceback" not in proc.stdout
    assert seconds < INDEX_SECONDS
    assert peak_mb < PEAK_RSS_MB, f"peak RSS {peak_mb:.0f} MB"
    assert not (Path.cwd() / "PWNED").exists()  # the !!python/object frontmatter was not executed


def _outcomes(failed: dict[str, str], skipped: dict[str, str], indexed_paths: set[str]) -> dict[str, str]:
    out = {p: "failed" for p in failed} | {p: "skipped" for p in skipped}
    return out | {p: "indexed" for p in indexed_paths}


def _check(expect, failed: dict[str, str], skipped: dict[str, str], indexed_paths: set[str]) -> None:
    got = _outcomes(failed, skipped, indexed_paths)
    wrong = {rel: (e.outcome, got.get(rel, "missing")) for rel, e in expect.items() if got.get(rel) != e.outcome}
    assert not wrong, f"expected vs got: {wrong}"
    reasons = failed | skipped
    for rel, e in expect.items():
        if e.outcome != "indexed":
            assert reasons[rel].strip(), rel
            assert e.reason.lower() in reasons[rel].lower(), (rel, reasons[rel])
            assert "Traceback" not in reasons[rel]


def test_status_shows_every_bad_file_with_its_reason(indexed):
    root, _, expect, _, status, *_ = indexed
    assert status.returncode == 0, status.stderr
    st = json.loads(status.stdout)
    docs = run_cli(cli_env(indexed[1], DOCSHELF_MODEL="fake"), "documents", "--json", "--all")
    assert docs.returncode == 0, docs.stderr
    indexed_paths = {d["path"] for d in json.loads(docs.stdout)["documents"] if d["status"] == "indexed"}
    _check(expect, st["failed"], st["skipped"], indexed_paths)
    # The human view lists them too.
    text = run_cli(cli_env(indexed[1], DOCSHELF_MODEL="fake"), "status")
    assert "Traceback" not in text.stderr
    for rel in ("docx/bomb.docx", "big/huge.md", "perm/secret.md", "links/outside.md"):
        assert rel in text.stdout


def test_index_status_and_search_over_mcp(indexed):
    root, index, expect, *_ = indexed
    argv = unprivileged_argv("serve")
    params = server_params(index, env={"DOCSHELF_MODEL": "fake", **_pythonpath()})
    params = params.model_copy(update={"command": argv[0], "args": argv[1:]})

    async def scenario():
        async with connect(params, index.parent / "mcp-err.log") as session:
            with anyio.fail_after(120):
                while True:
                    st = await call(session, "index_status")
                    if st["state"] == "ready" and st["pending"] == 0 and st["model_state"] == "loaded":
                        break
                    await anyio.sleep(0.3)
            docs = await call(session, "list_documents", limit=500)
            hits = {}
            for word in GOOD_WORDS + ("gigantopithecus", "naïveté", "été", "crème"):
                result = await call(session, "search_docs", query=word, mode="keyword", k=5)
                hits[word] = [h["path"] for h in result["hits"]]
            return st, docs, hits

    st, docs, hits = anyio.run(scenario)
    indexed_paths = {d["path"] for d in docs["documents"] if d["status"] == "indexed"}
    failed = {f["path"]: f["reason"] for f in st["failed"]}
    skipped = {f["path"]: f["reason"] for f in st["skipped"]}
    _check(expect, failed, skipped, indexed_paths)
    for i, word in enumerate(GOOD_WORDS):
        assert hits[word][:1] == [f"good/note{i}.md"], (word, hits[word])
    assert hits["gigantopithecus"][:1] == ["good/report.pdf"]
    # Recoverable encodings are decoded, not mangled: latin-1 and damaged UTF-8 read as text.
    assert "enc/latin1.md" in hits["naïveté"] and "enc/latin1.md" in hits["crème"]
    assert "enc/invalid_utf8.md" in hits["été"]
    assert "Traceback" not in (index.parent / "mcp-err.log").read_text()


def _pythonpath() -> dict[str, str]:
    """The MCP client passes the server a minimal environment; keep a source checkout importable."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}


def test_file_deleted_between_listing_and_reading(shelf, tmp_path, monkeypatch):
    """A file that vanishes after discovery listed it is recorded as failed, and the run goes on."""
    import docshelf.pipeline.indexer as indexer_module

    root = tmp_path / "docs"
    root.mkdir()
    (root / "gone.md").write_text("# Gone\n\nSoon deleted.\n")
    (root / "kept.md").write_text("# Kept\n\nThe kestrel stays.\n")
    real_discover = indexer_module.discover

    def discover_then_delete(*args, **kwargs):
        found = real_discover(*args, **kwargs)
        os.unlink(root / "gone.md")  # the race: listed, then deleted before it is read
        return found

    monkeypatch.setattr(indexer_module, "discover", discover_then_delete)
    report = shelf.index([root])
    assert report.failed == {"gone.md": "could not read: No such file or directory"}
    assert report.added == ["kept.md"]
    assert shelf.status().failed == {"gone.md": "could not read: No such file or directory"}
    monkeypatch.setattr(indexer_module, "discover", real_discover)
    again = shelf.index([root])  # the next run forgets the vanished file
    assert again.removed == ["gone.md"] and shelf.status().failed == {}
    assert [h.path for h in shelf.search("kestrel", mode="keyword").hits] == ["kept.md"]
