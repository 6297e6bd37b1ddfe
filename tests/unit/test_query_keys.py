"""Recorded settings keys (``live/query_keys.py``): found again for the same inputs, never for changed ones."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from docshelf import config
from docshelf.config import load_settings
from docshelf.live import query_keys
from docshelf.live.query_socket import settings_key


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A private temp dir, working folder, user config folder and environment for each test."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in list(os.environ):
        if name.upper().startswith("DOCSHELF_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(tmp_path / "index"))
    return tmp_path


def record(args: list[str]) -> str:
    """What the full CLI does: compute the settings and their key, and record it."""
    overrides = {}
    for i, arg in enumerate(args):
        if arg in ("--config", "--index-dir"):
            overrides[arg[2:].replace("-", "_")] = Path(args[i + 1])
    cfg = overrides.pop("config", None)
    settings = load_settings(cfg, **overrides)
    key = settings_key(settings)
    query_keys.remember(args, settings, key)
    return key


def test_a_recorded_key_is_found_for_the_same_inputs(place):
    key = record([])
    assert query_keys.recall([]) == ((place / "index").resolve(), key)
    files = list((place / "tmp" / f"docshelf-{os.geteuid()}" / "keys").iterdir())
    assert len(files) == 1 and files[0].stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("change", ["env", "config_env", "config_file", "cwd_config", "user_config", "cwd", "args"])
def test_any_input_that_shapes_the_settings_is_a_miss(place, monkeypatch, change):
    toml = place / "c.toml"
    toml.write_text('search_mode = "hybrid"\n')
    monkeypatch.setenv("DOCSHELF_CONFIG", str(toml))
    before = record([])
    assert query_keys.recall([]) is not None
    if change == "env":
        monkeypatch.setenv("DOCSHELF_SEARCH_MODE", "keyword")
    elif change == "config_env":
        other = place / "d.toml"
        other.write_text('search_mode = "keyword"\n')
        monkeypatch.setenv("DOCSHELF_CONFIG", str(other))
    elif change == "config_file":
        toml.write_text('search_mode = "keyword"\n')
    elif change == "cwd_config":  # ./docshelf.toml appears (read only without DOCSHELF_CONFIG: a superset is fine)
        Path("docshelf.toml").write_text('search_mode = "keyword"\n')
    elif change == "user_config":
        (place / "xdg" / "docshelf").mkdir(parents=True)
        (place / "xdg" / "docshelf" / "config.toml").write_text('search_mode = "keyword"\n')
    elif change == "cwd":
        (place / "elsewhere").mkdir()
        monkeypatch.chdir(place / "elsewhere")
    args = ["--index-dir", str(place / "other")] if change == "args" else []
    assert query_keys.recall(args) is None
    after = record(args)
    assert query_keys.recall(args)[1] == after
    if change in ("env", "config_env", "config_file", "args"):
        assert after != before  # the settings really differ, so the old key would have been wrong


def test_an_index_folder_behind_a_moved_link_is_a_miss(place, monkeypatch):
    (place / "a").mkdir()
    (place / "b").mkdir()
    link = place / "link"
    link.symlink_to(place / "a")
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(link))
    record([])
    assert query_keys.recall([])[0] == place / "a"
    link.unlink()
    link.symlink_to(place / "b")
    assert query_keys.recall([]) is None


def test_entries_others_could_write_are_ignored(place):
    record([])
    (entry,) = (place / "tmp" / f"docshelf-{os.geteuid()}" / "keys").iterdir()
    entry.chmod(0o644)
    assert query_keys.recall([]) is None
    entry.chmod(0o600)
    assert query_keys.recall([]) is not None
    entry.parent.chmod(0o755)
    assert query_keys.recall([]) is None
    entry.parent.chmod(0o700)


def test_the_candidates_include_the_config_file_load_settings_reads(place, monkeypatch):
    user = place / "xdg" / "docshelf" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("")
    cases = [([], None), ([], "local")]
    for args, setup in cases:
        if setup == "local":
            Path("docshelf.toml").write_text("")
        assert config._config_path().resolve() in [p.resolve() for p in query_keys.config_candidates(args)]
    monkeypatch.setenv("DOCSHELF_CONFIG", str(place / "env.toml"))
    assert config._config_path() in query_keys.config_candidates([])
    chosen = place / "chosen.toml"
    monkeypatch.setattr(config, "_CONFIG_OVERRIDE", chosen)  # what load_settings does for --config
    for args in (["--config", str(chosen)], [f"--config={chosen}"], ["-c", str(chosen)]):
        assert config._config_path() in query_keys.config_candidates(args)
