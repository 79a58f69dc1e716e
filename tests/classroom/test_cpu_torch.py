"""torch's CPU build is installed first on Linux, for run.py's .venv and for the class hub alike."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from classroom.hub import cpu_torch

ROOT = Path(__file__).resolve().parents[2]
FILES = (ROOT / "requirements.txt", ROOT / "classroom" / "requirements-hub.txt")


def test_both_environments_pin_the_same_torch():
    versions = {cpu_torch.pinned_torch(path) for path in FILES}
    assert len(versions) == 1 and None not in versions, versions


def test_on_linux_the_cpu_build_is_tried_as_configured_then_from_pytorchs_cpu_index(tmp_path):
    pins = tmp_path / "requirements.txt"
    pins.write_text("numpy>=1.26\ntorchvision==0.1  # not torch\ntorch==2.13.0   # the one\n", encoding="utf-8")
    first, second = cpu_torch.attempts(pins, platform="linux")
    assert first == ["torch==2.13.0+cpu"]
    assert second[-1] == "torch==2.13.0+cpu"
    assert second[second.index("--index-url") + 1] == "https://download.pytorch.org/whl/cpu"
    assert "https://pypi.org/simple" in second  # the CPU index holds torch; its dependencies come from PyPI


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_elsewhere_pypis_torch_is_already_the_cpu_build(tmp_path, platform):
    pins = tmp_path / "requirements.txt"
    pins.write_text("torch==2.13.0\n", encoding="utf-8")
    assert cpu_torch.attempts(pins, platform=platform) == []


@pytest.mark.parametrize("line", ["torch>=2.0", "torch", "# torch==2.13.0", "pytorch==2.13.0", "torch==2.13.0+cpu"])
def test_only_an_exact_pin_without_a_local_label_is_a_pin(tmp_path, line):
    pins = tmp_path / "requirements.txt"
    pins.write_text(line + "\n", encoding="utf-8")
    assert cpu_torch.pinned_torch(pins) is None
    assert cpu_torch.attempts(pins, platform="linux") == []


@pytest.mark.skipif(sys.platform != "linux", reason="PyPI's torch is the CPU build off Linux")
def test_this_environments_torch_is_the_cpu_build():
    """What run.py installed: CUDA's build maps 3.2 GB when imported, over the grader's memory room."""
    torch = pytest.importorskip("torch")
    assert torch.version.cuda is None, f"torch {torch.__version__} is a CUDA build"
