"""Which onnxruntime execution providers the local model runs on, from the ``device`` setting.

``cpu`` always works. ``cuda`` needs the ``onnxruntime-gpu`` wheel (``pip install
'docshelf[gpu]'``) and a visible NVIDIA GPU; asked for and missing, it is an error, never a
silent fall-back. ``auto`` takes CUDA when onnxruntime offers it and the CPU otherwise.
A pure function of the providers onnxruntime reports, so the choice is testable anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError, EmbedderUnavailable

DEVICES = ("cpu", "cuda", "auto")
CPU, CUDA = "CPUExecutionProvider", "CUDAExecutionProvider"


def select_providers(device: str, available: Sequence[str]) -> list[str]:
    """The providers to hand to ``InferenceSession`` for ``device``, best first."""
    device = (device or "cpu").strip().lower()
    if device not in DEVICES:
        raise ConfigError(f"device {device!r} is not one of {', '.join(DEVICES)}")
    if device == "cpu":
        return [CPU]
    if CUDA in available:
        return [CUDA, CPU]
    if device == "auto":
        return [CPU]
    raise EmbedderUnavailable(
        "device 'cuda' was asked for but onnxruntime offers no CUDAExecutionProvider "
        f"(it offers: {', '.join(available) or 'none'}); install the GPU build "
        "(pip uninstall -y onnxruntime && pip install 'docshelf[gpu]') on a machine with an NVIDIA "
        "driver and the CUDA version that build names (onnxruntime-gpu 1.31: CUDA 13), "
        "or use --device cpu or auto"
    )


def available_providers() -> list[str]:
    import onnxruntime as ort

    return list(ort.get_available_providers())


__all__ = ["DEVICES", "available_providers", "select_providers"]
