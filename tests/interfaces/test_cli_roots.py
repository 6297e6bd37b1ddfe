"""`docshelf index`, `roots` and failures as a user meets them: deleted roots, `--force PATH`,
empty folders, a failed file reported once and the same way in every view, exit codes."""

from __future__ import annotations

import json

import pytest

from docshelf.interfaces.cli import main


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("DOCSHELF_MODEL", "fake")
    monkeypatch.setenv("DOCSHELF_CONFIG", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text("")
    monkeypatch.chdir(tmp_path)

    def invoke(*args: str) -> tuple[int, str, str]:
        code = 0
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code or 0
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


@pytest.fixture
def two_roots(run, tmp_path, write):
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, "alpha.md", "# Alpha\n\nthe alpha notes")
    write(b, "beta.md", "# Beta\n\nthe beta notes")
    code, _, err = run("index", str(a), str(b))
    assert code == 0, err
    return a, b


def found(run, query: str, *flags: str) -> list[str]:
    code, out, err = run("search", query, "--mode", "keyword", "--json", *flags)
    assert code == 0, err
    return sorted(h["path"] for h in json.loads(out)["hits"])


def warned(err: str) -> list[str]:
    """The warning lines on stderr (the progress bar draws there too)."""
    return [line for line in err.splitlines() if line.startswith("Warning:")]


def roots(run) -> list[dict]:
    code, out, err = run("roots", "--json")
    assert code == 0, err
    return json.loads(out)


def test_plain_index_warns_and_skips_a_deleted_root(run, two_roots, write):
    a, b = two_roots
    write(a, "more.md", "# More\n\nmore alpha")
    for f in b.iterdir():
        f.unlink()
    b.rmdir()
    code, out, err = run("index", "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == ["more.md"]
    assert warned(err) == [f"Warning: {b} no longer exists; skipped (`docshelf roots remove {b}` forgets it "
                           "and its documents)"]
    assert json.loads(out)["warnings"] == [warned(err)[0].removeprefix("Warning: ")]
    assert found(run, "beta") == ["beta.md"]  # kept until the user says otherwise


def test_roots_lists_documents_and_existence_and_remove_forgets_one(run, two_roots):
    a, b = two_roots
    assert roots(run) == [
        {"path": str(a), "exists": True, "documents": 1, "failed": 0, "configured": False},
        {"path": str(b), "exists": True, "documents": 1, "failed": 0, "configured": False},
    ]
    code, out, _ = run("roots")
    assert (code, out) == (0, f"{a}  1 documents, 0 failed\n{b}  1 documents, 0 failed\n")
    code, out, err = run("roots", "remove", str(b))
    assert (code, out) == (0, f"Removed {b} and its 1 documents from the index.\n"), err
    assert [r["path"] for r in roots(run)] == [str(a)]
    assert found(run, "beta") == [] and found(run, "alpha") == ["alpha.md"]
    assert b.is_dir()  # the files themselves are never touched
    code, out, err = run("roots", "remove", str(b))
    assert (code, out) == (1, "")
    assert err.strip() == f"Error: {b} is not a known root (known: {a}); `docshelf roots` lists them"


def test_remove_works_for_a_root_that_is_gone(run, two_roots):
    _, b = two_roots
    for f in b.iterdir():
        f.unlink()
    b.rmdir()
    assert [r["exists"] for r in roots(run)] == [True, False]
    assert run("roots", "remove", str(b))[0] == 0
    code, _, err = run("index")
    assert (code, warned(err)) == (0, [])


def test_force_on_one_path_keeps_the_other_roots(run, two_roots):
    a, b = two_roots
    code, out, err = run("index", "--force", str(a), "--json")
    assert code == 0, err
    assert (json.loads(out)["added"], json.loads(out)["chunks_embedded"]) == (["alpha.md"], 1)  # only that path
    assert [r["path"] for r in roots(run)] == [str(a), str(b)]
    assert found(run, "beta") == ["beta.md"]


def test_force_on_one_path_after_a_model_change_reindexes_every_root(run, two_roots):
    a, b = two_roots
    code, out, err = run("--model", "fake-32", "index", "--force", str(a), "--json")
    assert code == 0, err
    assert sorted(json.loads(out)["added"]) == ["alpha.md", "beta.md"]
    assert warned(err) == [f"Warning: the index is rebuilt for fake-32, so the other known roots are re-indexed too: {b}"]
    assert found(run, "beta", "--model", "fake-32") == ["beta.md"]
    code, out, _ = run("--model", "fake-32", "roots", "--json")
    assert [(r["path"], r["documents"]) for r in json.loads(out)] == [(str(a), 1), (str(b), 1)]


def test_an_empty_folder_warns_and_is_not_remembered(run, tmp_path, write):
    (tmp_path / "empty").mkdir()
    code, out, err = run("index", str(tmp_path / "empty"))
    assert code == 0
    assert out.startswith("Indexed 0 new, 0 changed, 0 unchanged, 0 removed; 0 chunks")
    assert warned(err) == [f"Warning: nothing to index in {tmp_path / 'empty'}: it is empty; it was not added to the known roots"]
    assert roots(run) == []
    (tmp_path / "pics" / "logo.png").parent.mkdir()
    (tmp_path / "pics" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    code, _, err = run("index", str(tmp_path / "pics"))
    assert warned(err) == [f"Warning: nothing to index in {tmp_path / 'pics'}: no file in it is in a supported format "
                           "or passes the ignore rules (`--dry-run` lists why each was skipped); it was not added "
                           "to the known roots"]
    assert roots(run) == []
    code, _, err = run("index")
    assert code == 1 and "no folders to index" in err


def test_a_failed_file_is_reported_once_and_the_same_in_every_view(run, tmp_path, write):
    write(tmp_path / "docs", "ok.md", "# OK\n\nfine")
    (tmp_path / "docs" / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    code, out, err = run("-v", "index", str(tmp_path / "docs"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Indexed 1 new, 0 changed, 0 unchanged, 0 removed, 1 failed (bad.pdf); 1 chunk ")
    reason = "not a valid PDF (truncated: the end-of-file marker is missing; Stream has ended unexpectedly)"
    assert lines[1:] == [f"failed bad.pdf: {reason}"]
    assert "bad.pdf" not in err  # not a second time as a log line
    code, out, _ = run("index", "--json")  # a re-run: the file is unchanged, and still failed
    rerun = json.loads(out)
    code, out, _ = run("status", "--json")
    assert rerun["failed"] == json.loads(out)["failed"] == {"bad.pdf": reason}
    code, out, _ = run("status")
    assert f"failed bad.pdf: {reason}" in out.splitlines()
    code, out, _ = run("documents")  # no empty collection and type for the failed file; one chunk, not "1 chunks"
    assert out.splitlines() == [f"bad.pdf  failed: {reason}", "ok.md  default · doc · 1 chunk"]
    assert run("index", "--strict")[0] == 1
    (tmp_path / "docs" / "bad.pdf").unlink()
    assert run("index", "--strict")[0] == 0


@pytest.mark.parametrize("args", [("get", "a.md", "--lines", "abc"), ("index", "--nope"), ("roots", "remove"),
                                  ("search",), ("frobnicate",)])
def test_usage_errors_exit_2(run, args):
    code, out, err = run(*args)
    assert (code, out) == (2, ""), err
    assert "Usage:" in err or "use START-END" in err


def test_install_print_warns_about_a_missing_folder(run, tmp_path):
    code, out, err = run("install", "cursor", "--print", str(tmp_path / "nope"))
    assert code == 0
    assert json.loads(out)["mcpServers"]["docshelf"]["args"][-1] == str(tmp_path / "nope")
    assert err.splitlines()[0] == (f"Warning: {tmp_path / 'nope'} does not exist; the server will not index it "
                                   "until it does.")
