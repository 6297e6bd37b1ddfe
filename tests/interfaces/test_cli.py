"""The CLI as a user meets it: exact messages on stderr, data on stdout, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docshelf.interfaces.cli import main


@pytest.fixture
def run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(tmp_path / "index"))
    monkeypatch.setenv("DOCSHELF_MODEL", "fake")
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
def indexed(run, tmp_path, write):
    """An index holding one document, so a test meets the error it is about, not "no index"."""
    write(tmp_path / "docs", "guide.md", "# Guide\n\n## Tokens\n\nRotate the ingest token monthly.")
    assert run("index", str(tmp_path / "docs"))[0] == 0
    return tmp_path / "docs"


def test_index_then_search_as_json(run, tmp_path, write):
    write(tmp_path / "docs", "guide.md", "# Guide\n\n## Tokens\n\nRotate the ingest token monthly.")
    code, out, err = run("index", str(tmp_path / "docs"), "--json")
    assert code == 0 and json.loads(out)["added"] == ["guide.md"]
    code, out, _ = run("search", "ingest token", "--mode", "keyword", "--json")
    hit = json.loads(out)["hits"][0]
    assert code == 0
    assert (hit["path"], hit["heading_path"], hit["mode"], hit["start_line"]) == ("guide.md", ["Guide", "Tokens"], "keyword", 5)
    assert hit["text"][hit["highlights"][0][0] : hit["highlights"][0][1]].lower() == "ingest"


def test_human_output_cites_path_heading_and_lines(run, tmp_path, write):
    write(tmp_path / "docs", "guide.md", "# Guide\n\n## Tokens\n\nRotate the ingest token monthly.")
    run("index", str(tmp_path / "docs"))
    code, out, _ = run("search", "ingest token", "--mode", "keyword")
    assert code == 0
    assert out.splitlines()[0].startswith("1. guide.md › Guide › Tokens (lines 5-5)")


def test_missing_folder_is_a_clear_error(run, tmp_path):
    code, out, err = run("index", str(tmp_path / "nope"))
    assert (code, out) == (1, "")
    assert err.strip() == f"Error: {tmp_path / 'nope'} does not exist"


def test_index_without_paths_or_roots_says_what_to_do(run):
    code, _, err = run("index")
    assert code == 1
    assert "no folders to index: pass a PATH (`docshelf index ~/docs`)" in err


def test_empty_query_is_rejected(run, indexed):
    code, _, err = run("search", "   ")
    assert code == 2 and err.splitlines()[-1] == "Error: Invalid value for QUERY: is empty; pass some words to search for"


def test_bad_mode_is_rejected(run, indexed):
    code, _, err = run("search", "x", "--mode", "psychic")
    assert code == 2
    assert err.splitlines()[-1] == (
        "Error: Invalid value for --mode: unknown mode 'psychic'; use one of hybrid, semantic, keyword, fuzzy")


def test_unknown_document_is_not_found(run, indexed):
    code, _, err = run("get", "missing.md")
    assert code == 1 and "no indexed document at 'missing.md'" in err


def test_status_lists_failures_with_reasons(run, tmp_path, write):
    write(tmp_path / "docs", "ok.md", "# OK\n\nfine")
    (tmp_path / "docs" / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    run("index", str(tmp_path / "docs"))
    code, out, _ = run("status", "--json")
    status = json.loads(out)
    assert (code, status["documents"], list(status["failed"])) == (0, 1, ["bad.pdf"])
    assert status["failed"]["bad.pdf"]


def test_dry_run_lists_reasons(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "# A\n\nalpha")
    (tmp_path / "docs" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    code, out, _ = run("index", str(tmp_path / "docs"), "--dry-run")
    assert code == 0
    assert out.splitlines() == ["add     a.md", "skip    logo.png (unsupported format)", "0 unchanged"]
    assert not (tmp_path / "index").exists()  # a dry run creates nothing, not even the index folder
    run("index", str(tmp_path / "docs"))
    write(tmp_path / "docs", "b.md", "# B\n\nbeta")
    code, out, _ = run("index", str(tmp_path / "docs"), "--dry-run")
    assert (code, out.splitlines()) == (0, ["add     b.md", "skip    logo.png (unsupported format)", "1 unchanged"])


def test_config_file_sets_collections(run, tmp_path, write):
    write(tmp_path, "docshelf.toml", '[[collections]]\nname = "vendor-docs"\ninclude = ["**/vast/**"]\n')
    write(tmp_path / "docs", "vast/setup.md", "# Setup\n\nvast cluster setup")
    run("index", str(tmp_path / "docs"))
    code, out, _ = run("search", "cluster", "--mode", "keyword", "--collection", "vendor-docs", "--json")
    assert [h["collection"] for h in json.loads(out)["hits"]] == ["vendor-docs"]


def test_get_prints_the_document(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "# A\n\nfirst paragraph\n\n## B\n\nsecond paragraph")
    run("index", str(tmp_path / "docs"))
    code, out, _ = run("get", "a.md")
    assert (code, out) == (0, "# A\n\nfirst paragraph\n\n## B\n\nsecond paragraph\n")


def test_get_takes_a_path_relative_to_the_current_folder(run, tmp_path, write, monkeypatch):
    """Beside ``docs/``, ``get docs/api.rst`` is the file a shell completes; it was refused."""
    write(tmp_path / "docs", "api.rst", "API\n===\n\nThe reference.")
    run("index", str(tmp_path / "docs"))
    expected = run("get", "api.rst")
    assert expected[0] == 0
    assert run("get", "docs/api.rst") == expected
    assert run("get", "./docs/../docs/api.rst") == expected
    monkeypatch.chdir(tmp_path / "docs")
    assert run("get", "../docs/api.rst") == expected
    code, out, err = run("get", "../docs/missing.rst")
    assert (code, out) == (1, "") and "no indexed document at '../docs/missing.rst'" in err
    code, out, err = run("get", "/srv/docs/api.rst")  # named as typed, not with its first '/' cut
    assert (code, out) == (1, "") and "no indexed document at '/srv/docs/api.rst';" in err


def test_documents_says_when_its_filters_leave_nothing(run, indexed):
    # (not "docs/": from this folder that is the indexed folder itself, so every document in it)
    assert run("documents", "--path", "api/") == (
        0, "", "No documents match --path/--collection; `docshelf documents` lists every one.\n")
    assert run("documents", "--path", "docs/")[1].startswith("guide.md")
    code, out, _ = run("documents")
    assert code == 0 and out.startswith("guide.md")


def test_tag_and_field_filters(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "---\ntags: [ops, db]\nstatus: draft\n---\n# A\n\nbackup notes for the database")
    write(tmp_path / "docs", "b.md", "---\ntags: [ops]\nstatus: final\n---\n# B\n\nbackup notes for the web tier")
    run("index", str(tmp_path / "docs"))

    def paths(*flags: str) -> list[str]:
        code, out, err = run("search", "backup", "--mode", "keyword", "--json", *flags)
        assert code == 0, err
        return sorted(h["path"] for h in json.loads(out)["hits"])

    assert paths("--tag", "db", "--tag", "ops") == ["a.md", "b.md"]
    assert paths("--all-tag", "db", "--all-tag", "ops") == ["a.md"]
    assert paths("--field", "status=final") == ["b.md"]
    code, _, err = run("search", "backup", "--field", "status")
    assert code == 2 and "use KEY=VALUE" in err


def test_model_change_is_refused_until_index_force(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "# A\n\nalpha notes")
    assert run("index", str(tmp_path / "docs"))[0] == 0
    code, _, err = run("--model", "fake-32", "search", "alpha")
    assert code == 1 and "built with model fake-64 (64-d), but this run uses fake-32 (32-d)" in err
    code, out, err = run("--model", "fake-32", "index", "--force", "--json")
    assert code == 0, err
    assert json.loads(out)["added"] == ["a.md"]
    code, out, _ = run("--model", "fake-32", "search", "alpha", "--mode", "keyword", "--json")
    assert code == 0 and [h["path"] for h in json.loads(out)["hits"]] == ["a.md"]


DATE_ERROR = ("expected an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]), got {!r}")


@pytest.mark.parametrize("flag, value", [("--from", "2024-1-5"), ("--from", "yesterday"), ("--to", "2024-02-30"),
                                         ("--to", "05/01/2024")])
def test_a_date_that_is_not_iso_8601_is_a_usage_error_naming_the_format(run, tmp_path, write, flag, value):
    write(tmp_path / "docs", "a.md", "---\ndate: 2024-01-05\n---\n# A\n\nalpha notes")
    run("index", str(tmp_path / "docs"))
    code, out, err = run("search", "alpha", flag, value)
    assert (code, out) == (2, "")
    assert err.splitlines()[-1] == f"Error: Invalid value for {flag}: " + DATE_ERROR.format(value)


def test_iso_dates_and_date_times_filter_by_day(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "---\ndate: 2024-01-05T23:30:00+01:00\n---\n# A\n\nalpha notes")
    write(tmp_path / "docs", "b.md", "---\ndate: 2024-03-01\n---\n# B\n\nalpha more notes")
    run("index", str(tmp_path / "docs"))

    def paths(*flags: str) -> list[str]:
        code, out, err = run("search", "alpha", "--mode", "keyword", "--json", *flags)
        assert code == 0, err
        return sorted(h["path"] for h in json.loads(out)["hits"])

    assert paths("--from", "2024-01-05") == ["a.md", "b.md"]
    assert paths("--from", "2024-01-05T12:00:00Z", "--to", "2024-01-05") == ["a.md"]
    assert paths("--from", "2024-01-06 08:00") == ["b.md"]
    assert paths("--to", "2024-03-01T00:00+05:00") == ["a.md", "b.md"]
    code, _, err = run("search", "alpha", "--from", "2024-03-02", "--to", "2024-03-01")
    assert code == 2 and err.splitlines()[-1] == "Error: Invalid value for --to: 2024-03-01 is before date_from 2024-03-02"


def test_one_line_range_syntax(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "# A\n\nfirst paragraph\n\n## B\n\nsecond paragraph")
    run("index", str(tmp_path / "docs"))
    assert run("get", "a.md", "--lines", "7") == run("get", "a.md", "--lines", "7-7")
    code, out, _ = run("get", "a.md", "--lines", "7")
    assert (code, out) == (0, "second paragraph\n")  # exactly line 7, not the chunk around it
    assert run("get", "a.md", "--lines", "5-7")[1] == "## B\n\nsecond paragraph\n"
    write(tmp_path / "docs", "a.md", "# A\n\nrewritten")  # changed since indexing: the chunks, and why
    code, out, err = run("get", "a.md", "--lines", "7")
    assert (code, out) == (0, "## B\n\nsecond paragraph\n")
    assert " ".join(err.split()) == (
        "Note: a.md changed on disk since it was indexed: this is the indexed text of lines 7-7 (the chunks "
        "holding lines 7-7), not the file's current lines; re-index it to read exact lines")
    code, _, err = run("get", "a.md", "--lines", "abc")
    assert code == 2
    assert err.splitlines()[-1] == (
        "Error: Invalid value for --lines: use START-END or one line number, e.g. '10-40' or '12', got 'abc'")


def test_get_an_unknown_section_or_page_names_the_problem(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "# Guide\n\nintro\n\n## 2. The `tokens` command\n\nrotate them\n\n## Limits\n\nten")
    run("index", str(tmp_path / "docs"))
    for written in ("The `tokens` command", "the tokens command", "2. The tokens command", "## The `tokens` command"):
        code, out, err = run("get", "a.md", "--section", written)
        assert (code, out) == (0, "## 2. The tokens command\n\nrotate them\n"), (written, err)
    code, _, err = run("get", "a.md", "--section", "Quotas")
    assert code == 1
    assert err.strip() == "Error: a.md has no section 'Quotas'; its sections are: Guide; 2. The tokens command; Limits"
    code, _, err = run("get", "a.md", "--page", "2")
    assert code == 1 and err.strip() == "Error: a.md has no pages (markdown format); read it by lines or section, or whole"
    code, _, err = run("get", "a.md", "--lines", "500-600")
    assert code == 1 and err.strip() == "Error: a.md has text on lines 1-11; lines 500-600 hold none"


def test_get_a_page_past_the_end_of_a_pdf_says_how_many_pages_it_has(run, tmp_path):
    from reportlab.pdfgen import canvas

    (tmp_path / "docs").mkdir()
    pdf = canvas.Canvas(str(tmp_path / "docs" / "manual.pdf"))
    for text in ("Tokens expire after 90 days.", "Rotate the token.", "Ask the admin."):
        pdf.drawString(72, 750, text)
        pdf.showPage()
    pdf.save()
    run("index", str(tmp_path / "docs"))
    code, out, _ = run("get", "manual.pdf", "--page", "2")
    assert (code, out.strip()) == (0, "Rotate the token.")
    code, _, err = run("get", "manual.pdf", "--page", "9")
    assert code == 1 and err.strip() == "Error: manual.pdf has 3 pages; there is no page 9"


def test_documents_pages_through_two_roots_holding_the_same_path(run, tmp_path, write):
    for root in ("one", "two"):
        write(tmp_path / root, "README.md", f"# {root}\n\nreadme of {root}")
        write(tmp_path / root, "guide.md", f"# Guide {root}\n\nguide of {root}")
        run("index", str(tmp_path / root))
    seen, cursor = [], None
    while True:
        code, out, err = run("documents", "--limit", "1", "--json", *(["--cursor", cursor] if cursor else []))
        assert code == 0, err
        page = json.loads(out)
        assert page["total"] == 4
        seen += [(d["path"], d["root"]) for d in page["documents"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    one, two = str((tmp_path / "one").resolve()), str((tmp_path / "two").resolve())
    assert seen == [("README.md", one), ("README.md", two), ("guide.md", one), ("guide.md", two)]
    code, out, err = run("documents", "--limit", "3")
    assert out.splitlines()[0].startswith("README.md")
    assert len(out.splitlines()) == 3
    assert err.splitlines()[-1].startswith("Showing 3 of 4 documents; next page: `docshelf documents --cursor ")
    code, out, _ = run("documents", "--limit", "3", "--all")
    assert len(out.splitlines()) == 4


# -- found when tried as a new user would -------------------------------------------------
def test_global_options_work_after_the_command(run, tmp_path, write):
    write(tmp_path / "docs", "a.md", "# A\n\nalpha notes")
    code, out, err = run("index", str(tmp_path / "docs"), "--index-dir", str(tmp_path / "other"), "--json")
    assert (code, json.loads(out)["added"]) == (0, ["a.md"]), err
    code, out, err = run("status", "--json", f"--index-dir={tmp_path / 'other'}", "-v")
    assert (code, json.loads(out)["index_dir"], json.loads(out)["documents"]) == (0, str(tmp_path / "other"), 1)
    assert not (tmp_path / "index").exists()  # the default index was never touched
    # After `--`, the same words are arguments, not options.
    code, _, err = run("search", "--index-dir", str(tmp_path / "other"), "--", "--model")
    assert code == 0, err


def test_version(run):
    from docshelf import __version__

    assert run("--version") == (0, f"docshelf {__version__}\n", "")


@pytest.mark.parametrize("command", [("search", "alpha"), ("status",), ("documents",), ("get", "a.md")])
def test_reads_before_any_index_say_so_and_create_nothing(run, tmp_path, command):
    code, out, err = run(*command)
    assert (code, out) == (1, "")
    assert err.strip() == (f"Error: no index at {tmp_path / 'index'} yet: run `docshelf index PATH` to make one "
                           "(or point --index-dir at an existing index)")
    assert not (tmp_path / "index").exists()


def test_doctor_warns_without_an_index_and_on_an_empty_one(run, tmp_path):
    from docshelf.diagnostics import diagnose
    from docshelf.config import load_settings
    from docshelf.service import Docshelf

    settings = load_settings(index_dir=tmp_path / "index", model="fake")
    checks = {c.check: c for c in diagnose(settings)}
    assert (checks["index"].status, checks["index"].detail) == (
        "warn", f"no index at {tmp_path / 'index'} yet: run `docshelf index PATH` to make one")
    assert checks["writer lock"].status == "ok" and not (tmp_path / "index").exists()
    (tmp_path / "empty").mkdir()
    Docshelf(settings).index([tmp_path / "empty"])
    index = diagnose(settings)[0]
    assert (index.status, index.detail) == ("warn", f"{tmp_path / 'index'}: 0 documents, 0 chunks, 0 failed; "
                                                    "the index is empty: `docshelf index PATH` adds documents")


ENTRY_POINTS = ["from docshelf.interfaces.cli import main; main()", "from docshelf.interfaces.cli_entry import main; main()"]


@pytest.mark.parametrize("entry", ENTRY_POINTS, ids=["cli", "cli_entry"])
def test_a_cold_search_without_an_index_exits_1_not_aborted(tmp_path, entry):
    """The packaged model starts loading on a second thread before the index is opened; an
    error meanwhile used to end the process inside onnxruntime's set-up (abort, exit 134)."""
    env = _cold_env(tmp_path / "none")
    env.pop("DOCSHELF_MODEL", None)  # the real model: the one that loads on the second thread
    done = subprocess.run([sys.executable, "-c", entry, "search", "what causes cancer", "--json"], env=env,
                          capture_output=True, text=True, timeout=180)
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    assert done.stderr.startswith("Error: no index at ") and done.stderr.count("\n") == 1, done.stderr


def test_the_entry_point_ends_a_search_with_its_output_and_exit_code(tmp_path, write):
    """``cli_entry.leave`` skips the interpreter's teardown: the output must still all arrive,
    and the exit codes stay those of ``cli.main`` (0, 1 for an error, 2 for a usage error)."""
    for n in range(30):
        write(tmp_path / "docs", f"a{n:02}.md", f"# Alpha {n}\n\n" + " ".join(f"alpha w{n}x{i}" for i in range(120)))
    env = _cold_env(tmp_path / "index")
    subprocess.run([sys.executable, "-c", ENTRY_POINTS[0], "index", str(tmp_path / "docs")], env=env, check=True,
                   capture_output=True, timeout=180)
    results = {}
    for entry in ENTRY_POINTS:
        runs = [subprocess.run([sys.executable, "-c", entry, "search", *args], env=env, capture_output=True,
                               text=True, timeout=180)
                for args in (["alpha", "--json", "-k", "20"], ["alpha", "--mode", "nope"], ["alpha", "--linked-to", "x"])]
        results[entry] = [(r.returncode, r.stderr) for r in runs]
        ok = json.loads(runs[0].stdout)  # all of it arrived (a long text: more than one buffer's worth)
        assert len(ok["hits"]) == 20 and len(runs[0].stdout) > 8192
    assert results[ENTRY_POINTS[0]] == results[ENTRY_POINTS[1]]
    assert [code for code, _ in results[ENTRY_POINTS[1]]] == [0, 2, 1]


def _cold_env(index: Path) -> dict[str, str]:
    from mcp_harness import SRC

    return {**os.environ, "DOCSHELF_INDEX_DIR": str(index), "DOCSHELF_CONFIG": os.devnull, "DOCSHELF_MODEL": "fake",
            "DOCSHELF_QUERY_TIMEOUT": "0", "PYTHONPATH": SRC}


def test_the_hint_under_no_results_depends_on_why_there_are_none(run, indexed):
    """"Try --mode fuzzy" fits a query that matched nothing, not a misspelt collection (the
    note says which exist), filters that leave no document, or a --min-score above every hit."""
    assert run("search", "zeppelin", "--collection", "vendor-doc") == (
        0, "No results.\n", "no collection named 'vendor-doc'; the index holds: default\n")
    code, out, _ = run("search", "submarine", "--mode", "keyword")
    assert (code, out) == (0, "No results. Try --mode fuzzy for names and typos, or the default mode for questions.\n")
    code, out, _ = run("search", "token", "--tag", "finance")
    assert (code, " ".join(out.split())) == (0, "No results: no indexed document matches these filters; "
                                                "`docshelf documents` lists what is indexed.")
    code, out, _ = run("search", "rotate token", "--mode", "keyword", "--min-score", "1")
    assert (code, out) == (0, "No results scored 1.0 or more; a lower --min-score shows the weaker matches.\n")


def test_a_search_of_an_index_holding_nothing_says_so_not_that_filters_exclude_it(run, indexed):
    """As `docshelf watch` answers while it builds a first index: no filter was given, so "no
    indexed document matches these filters" blamed the wrong thing."""
    (indexed / "guide.md").unlink()
    assert run("index")[0] == 0
    for extra in ((), ("--tag", "ops")):
        code, out, _ = run("search", "token", *extra)
        assert (code, " ".join(out.split())) == (
            0, "No results: the index holds no documents. `docshelf index PATH` adds some; a running `docshelf watch` "
               "or `serve` indexes its folders itself (`docshelf status` shows how far).")


@pytest.mark.parametrize("content, message", [
    (b'chunk_tokens = "big"\n', "Error: invalid configuration: chunk_tokens in config file {cfg}: Input should be a valid "
                                "integer, unable to parse string as an integer (got 'big')"),
    (b"chunk_tokns = 200\n", "Error: config file {cfg}: unknown setting 'chunk_tokns' (did you mean 'chunk_tokens'?)"),
    (b"chunk_tokens = [unclosed\n", "Error: config file {cfg} is not valid TOML: Invalid value (at line 1, column 17)"),
    (b"\xff\xfe search_mode = 1\n", "Error: config file {cfg} is not UTF-8 text; save it as UTF-8"),
    (b'[[collections]]\nname = "ops"\ninclude = ["ops/**"]\ndoc_tpe = "runbook"\n',
     "Error: invalid configuration: collections.0.doc_tpe in config file {cfg}: unknown setting (got 'runbook')"),
    (b'search_mode = "hybird"\n', "Error: invalid configuration: search_mode in config file {cfg}: search_mode must be "
                                  "hybrid, semantic, keyword or fuzzy (got 'hybird')"),
])
def test_a_bad_config_file_is_one_line_naming_the_file_and_the_setting(run, tmp_path, content, message):
    """A pydantic dump (4 lines and a URL) named neither the file nor where the value came from,
    and a misspelt key was silently ignored."""
    cfg = tmp_path / "docshelf-test.toml"
    cfg.write_bytes(content)
    code, out, err = run("--config", str(cfg), "status")
    assert (code, out, err.strip()) == (1, "", message.format(cfg=cfg))


def test_a_bad_environment_setting_names_the_variable(run, monkeypatch):
    monkeypatch.setenv("DOCSHELF_CHUNK_TOKENS", "abc")
    code, _, err = run("status")
    assert (code, err.strip()) == (1, "Error: invalid configuration: chunk_tokens in environment variable "
                                      "DOCSHELF_CHUNK_TOKENS: Input should be a valid integer, unable to parse string "
                                      "as an integer (got 'abc')")


def test_a_config_file_named_by_the_environment_must_exist(run, monkeypatch, tmp_path):
    """A misspelt DOCSHELF_CONFIG ran on the defaults without a word: the user believed their
    collections and model applied."""
    missing = tmp_path / "docshef.toml"
    monkeypatch.setenv("DOCSHELF_CONFIG", str(missing))
    code, out, err = run("status")
    assert (code, out, err.strip()) == (
        1, "", f"Error: DOCSHELF_CONFIG names {missing}, which does not exist (unset it, or set it to "
               f"{os.devnull} for no config file)")
    monkeypatch.setenv("DOCSHELF_CONFIG", os.devnull)  # the documented way to read no file
    assert "DOCSHELF_CONFIG" not in run("status")[2]


def test_get_takes_a_pdf_page_label_as_the_citation_shows_it(run, tmp_path):
    from tests.unit.test_pdf_page_labels import labelled_pdf

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "kiln.pdf").write_bytes(labelled_pdf())
    run("index", str(tmp_path / "docs"))
    code, out, _ = run("get", "kiln.pdf", "--page", "A-1")
    assert (code, out.strip()) == (0, "Appendix: glaze recipes with cobalt oxide.")
    code, out, _ = run("get", "kiln.pdf", "--page", "2")  # a number is the PDF page
    assert (code, out.strip()) == (0, "Conventions used in the margins.")
