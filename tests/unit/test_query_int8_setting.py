"""``query_int8`` reaches the packaged model's embedder from the settings (off by default)."""

from __future__ import annotations

from docshelf.config import Settings
from docshelf.embedders import embedder_from_settings
from docshelf.live.query_socket import settings_key


def test_query_int8_is_off_by_default_and_set_from_settings(tmp_path):
    assert embedder_from_settings(Settings(index_dir=tmp_path)).query_int8 is False
    assert embedder_from_settings(Settings(index_dir=tmp_path, query_int8=True)).query_int8 is True


def test_a_server_with_other_query_int8_does_not_answer_for_the_client(tmp_path):
    # its query vectors differ slightly, so its answers may too
    assert settings_key(Settings(index_dir=tmp_path)) != settings_key(Settings(index_dir=tmp_path, query_int8=True))
