"""The device setting (cpu / cuda / auto) and the length grouping of the packaged model's batches."""

from __future__ import annotations

import pytest

from docshelf.config import Settings, load_settings
from docshelf.embedders import embedder_from_settings
from docshelf.embedders.devices import select_providers
from docshelf.embedders.onnx_minilm import token_buckets
from docshelf.errors import ConfigError, EmbedderUnavailable
from docshelf.interfaces.cli import main

CPU, CUDA = "CPUExecutionProvider", "CUDAExecutionProvider"
CPU_WHEEL = ["AzureExecutionProvider", CPU]
GPU_WHEEL = ["TensorrtExecutionProvider", CUDA, CPU]


@pytest.mark.parametrize(
    ("device", "available", "chosen"),
    [
        ("cpu", CPU_WHEEL, [CPU]),
        ("cpu", GPU_WHEEL, [CPU]),
        ("auto", CPU_WHEEL, [CPU]),
        ("auto", GPU_WHEEL, [CUDA, CPU]),
        ("cuda", GPU_WHEEL, [CUDA, CPU]),
        ("CUDA", GPU_WHEEL, [CUDA, CPU]),
    ],
)
def test_providers_for_each_device(device, available, chosen):
    assert select_providers(device, available) == chosen


def test_cuda_without_the_gpu_build_is_a_clear_error():
    with pytest.raises(EmbedderUnavailable) as exc:
        select_providers("cuda", CPU_WHEEL)
    assert str(exc.value) == (
        "device 'cuda' was asked for but onnxruntime offers no CUDAExecutionProvider (it offers: "
        "AzureExecutionProvider, CPUExecutionProvider); install the GPU build (pip uninstall -y onnxruntime "
        "&& pip install 'docshelf[gpu]') on a machine with an NVIDIA driver and the CUDA version that build names (onnxruntime-gpu 1.31: CUDA 13), or use --device cpu or auto"
    )


def test_an_unknown_device_is_a_config_error():
    with pytest.raises(ConfigError, match="device 'tpu' is not one of cpu, cuda, auto"):
        select_providers("tpu", GPU_WHEEL)
    with pytest.raises(ConfigError, match="device"):
        load_settings(device="gpu")


@pytest.fixture
def cpu_wheel(monkeypatch):
    """onnxruntime as the CPU wheel reports itself, whatever build this machine has."""
    import onnxruntime

    monkeypatch.setattr(onnxruntime, "get_available_providers", lambda: list(CPU_WHEEL))


def test_the_setting_reaches_the_packaged_model_and_cuda_fails_on_load(cpu_wheel):
    embedder = embedder_from_settings(Settings(device="cuda"))
    assert embedder.device == "cuda" and not embedder.loaded  # nothing loads until first use
    with pytest.raises(EmbedderUnavailable, match="device 'cuda' was asked for"):
        embedder.load()
    assert embedder_from_settings(Settings()).device == "auto"


def test_the_cli_rejects_an_unknown_device_as_a_bad_flag(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(tmp_path / "index"))
    with pytest.raises(SystemExit) as exc:
        main(["search", "alpha", "--device", "gpu"])
    assert exc.value.code == 2
    assert "'gpu' is not one of cpu, cuda, auto" in capsys.readouterr().err


def test_the_cli_device_flag_reaches_the_settings(tmp_path, monkeypatch, capsys, cpu_wheel):
    monkeypatch.setenv("DOCSHELF_INDEX_DIR", str(tmp_path / "index"))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nalpha")
    with pytest.raises(SystemExit) as exc:
        main(["index", str(tmp_path / "docs"), "--device", "cuda"])
    assert exc.value.code == 1
    assert "Error: device 'cuda' was asked for but onnxruntime offers no CUDAExecutionProvider" in capsys.readouterr().err


def test_token_buckets_group_by_length_within_both_caps():
    lengths = [200, 10, 120, 12, 256, 11, 130, 9, 60]
    batches = token_buckets(lengths, max_rows=3, max_tokens=300)
    assert batches == [[7, 1, 5], [3, 8], [2, 6], [0], [4]]
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    for b in batches:
        assert len(b) <= 3 and (len(b) == 1 or len(b) * max(lengths[i] for i in b) <= 300)


def test_token_buckets_keep_equal_lengths_in_input_order_and_take_a_long_row_alone():
    assert token_buckets([5, 5, 5, 5], max_rows=8, max_tokens=10_000) == [[0, 1, 2, 3]]
    assert token_buckets([300], max_rows=8, max_tokens=100) == [[0]]
    assert token_buckets([], max_rows=8, max_tokens=512) == []
