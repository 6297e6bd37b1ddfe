"""The thin ``docshelf search`` parser (``interfaces/cli_args.py``) against the Typer command it shadows."""

from __future__ import annotations

import pytest
from typer.core import TyperArgument, TyperOption
from typer.main import get_command

from docshelf.interfaces.cli import FLAGS, app
from docshelf.interfaces.cli_args import SEARCH_DEFAULTS, SEARCH_OPTIONS, parse_search, settings_args_of
from docshelf.requests import SearchRequest



def test_the_search_options_are_the_typer_commands():
    """Same flags, same request fields, same types, same defaults, same multiple-or-not."""
    command = get_command(app).commands["search"]
    field_of = {flag: name for name, flag in FLAGS.items() if name in SearchRequest.model_fields}
    seen = {}
    for param in command.params:
        if not isinstance(param, TyperOption) or param.name in ("as_json", "help"):
            continue
        field = next(field_of[o] for o in param.opts if o in field_of)
        annotation = param.type_descriptor.annotation  # int, float, str or list[str]
        for opt in param.opts:
            seen[opt] = (field, getattr(annotation, "__args__", (annotation,))[0], param.multiple)
        if param.default is not None:
            assert SEARCH_DEFAULTS[field] == param.default, field
        else:
            assert field not in SEARCH_DEFAULTS, field
    assert seen == SEARCH_OPTIONS
    json_flag = next(p for p in command.params if p.name == "as_json")
    assert json_flag.opts == ["--json"] and json_flag.is_flag
    assert [p.name for p in command.params if isinstance(p, TyperArgument)] == ["query"]


def test_a_plain_search_is_parsed_as_the_typer_command_would():
    call = parse_search(["-v", "search", "how to", "-k", "3", "--tag", "a", "--json", "--tag=b", "--index-dir", "/x",
                         "--min-score", "0.25", "--mode=keyword"])
    assert call is not None
    assert (call.settings_args, call.verbose, call.as_json) == (["--index-dir", "/x"], 1, True)
    assert call.request == {"query": "how to", "k": 3, "tags_any": ["a", "b"], "min_score": 0.25, "mode": "keyword"}
    assert parse_search(["search", "--", "--model"]).request["query"] == "--model"
    assert parse_search(["--config=c.toml", "search", "q"]).settings_args == ["--config=c.toml"]
    assert parse_search(["search", "q"]).request == {"query": "q", "k": 5, "min_score": 0.0}
    assert parse_search(["search", "q", "--min-score", ".5"]).request["min_score"] == 0.5


@pytest.mark.parametrize("args", [
    ["search", "q", "--help"], ["--help"], ["--version"], ["search"], ["search", "a", "b"], ["status", "--json"],
    ["search", "q", "-k", "x"], ["search", "q", "-k", "1.5"], ["search", "q", "-k", " 5"], ["search", "q", "-k", "5_0"],
    ["search", "q", "--min-score", "nan"], ["search", "q", "--min-score", "1e-1"], ["search", "q", "-k"], ["search", "q", "-k", "-3"],
    ["search", "q", "-k5"], ["search", "q", "-k=5"], ["search", "q", "--mode", "keyword", "-m", "fuzzy"],
    ["search", "q", "--unknown", "x"], ["search", "q", "--json", "--json"], ["search", "-", "--json"],
    ["-c=x.toml", "search", "q"], ["--index-dir", "--json", "search", "q"], ["-x", "search", "q"],
])
def test_anything_else_is_left_to_the_full_cli(args):
    assert parse_search(args) is None


def test_settings_args_are_what_the_thin_client_fingerprints():
    args = ["search", "q", "--model", "fake", "-vv", "--index-dir=/i", "--json"]
    assert settings_args_of(args) == parse_search(args).settings_args == ["--model", "fake", "--index-dir=/i"]
    assert settings_args_of(["--version"]) is None


def test_every_option_help_is_printed_as_written():
    """Typer renders help as Rich markup: a bracketed word such as ``[[wiki links]]`` would vanish."""
    from typer.testing import CliRunner

    root = get_command(app)
    runner = CliRunner()
    for name, command in root.commands.items():
        out = runner.invoke(app, [name, "--help"], env={"COLUMNS": "500", "TERMINAL_WIDTH": "500"}).output
        flat = " ".join(out.replace("│", " ").split())
        for param in command.params:
            help_text = " ".join((getattr(param, "help", None) or "").split())
            assert help_text in flat, (name, param.name, help_text)


def test_a_flag_shows_no_value_type_in_help():
    """``--force <bool>`` reads as if the flag took a value; options that take one keep their type."""
    from typer.testing import CliRunner

    out = CliRunner().invoke(app, ["index", "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"}).output
    assert "<bool>" not in out and "--force" in out and "--dry-run" in out
    out = CliRunner().invoke(app, ["search", "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"}).output
    assert "<int>" in out  # -k takes a number


def test_usage_lines_read_as_a_person_writes_them():
    """Typer 0.29 wrote ``docshelf search [OPTIONS] {query}`` and ``<list[Path]>``: placeholders
    no person writes. Usage lines read ``QUERY``, ``[PATHS]...``; types are one value's."""
    from typer.testing import CliRunner

    root = get_command(app)
    runner = CliRunner()
    env = {"COLUMNS": "200", "TERMINAL_WIDTH": "200"}
    usages = {}
    for name, command in root.commands.items():
        out = runner.invoke(app, [name, "--help"], env=env).output
        usages[name] = next(line.strip() for line in out.splitlines() if "Usage:" in line)
        assert "{" not in out and "list[" not in out and "<Path>" not in out, (name, out)
    assert usages["search"] == "Usage: docshelf search [OPTIONS] QUERY"
    assert usages["index"] == "Usage: docshelf index [OPTIONS] [PATHS]..."
    assert usages["install"] == "Usage: docshelf install [OPTIONS] CLIENT [ROOTS]..."
    remove = runner.invoke(app, ["roots", "remove", "--help"], env=env).output
    assert "Usage: docshelf roots remove [OPTIONS] PATH" in remove
    missing = runner.invoke(app, ["get"], env=env)
    assert missing.exit_code == 2 and "Usage: docshelf get [OPTIONS] PATH" in missing.output


def test_an_option_name_as_the_query_gets_a_hint(capsys):
    """``docshelf search --keep-index`` is a lookup of an option's name, not an option of search."""
    from docshelf.interfaces.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["search", "--keep-index"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "No such option: --keep-index" in err
    assert "docshelf search -- --keep-index" in err
    with pytest.raises(SystemExit):
        main(["index", "--keep-index"])
    assert "docshelf search --" not in capsys.readouterr().err
