"""torch's CPU build, installed before the requirements, so that pip on Linux never takes the CUDA build.

On Linux, PyPI's ``torch`` wheel is the CUDA build: gigabytes on disk and about 3.2 GB of address space
once imported (measured here: VmPeak 3.2 GB, against 0.64 GB for the CPU build), more than a grading
process allows and nothing a student's kernel can use. The requirement files pin ``torch==X`` with no
local label, so that they work unchanged on macOS and Windows (PyPI's wheel is the CPU build there, and
PyTorch's CPU index has no ``+cpu`` name for them). On Linux, ``X+cpu`` is installed first: as pip's own
configuration finds it (a wheel on this disk, a mirror), else from PyTorch's CPU index. ``torch==X`` in the
file is then already met (PEP 440: a pin without a local label matches ``X+cpu``), and pip adds nothing.

Standard library only: run.py's ``.venv`` and the class hub's environment both use it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PYPI = "https://pypi.org/simple"
FELL_BACK = (
    "torch's CPU build could not be installed (neither as pip is configured nor from PyTorch's CPU index: "
    "see the pip log), so pip takes PyPI's torch, the CUDA build: several GB, and it runs the series all the same."
)
_PIN = re.compile(r"\s*torch\s*==\s*([0-9][0-9A-Za-z.]*)\s*(#.*)?$")


def pinned_torch(requirements: Path) -> str | None:
    """The version ``requirements`` pins torch to (``torch==X``), or None when it pins none."""
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line)
        if match:
            return match.group(1)
    return None


def attempts(requirements: Path, platform: str | None = None) -> list[list[str]]:
    """``pip install`` arguments to try in turn for torch's CPU build; none off Linux or without a pin."""
    version = pinned_torch(requirements)
    if (platform or sys.platform) != "linux" or version is None:
        return []
    wanted = f"torch=={version}+cpu"
    return [[wanted], ["--index-url", CPU_INDEX, "--extra-index-url", PYPI, wanted]]


def install_first(requirements: Path, install, say) -> None:
    """Try each of ``attempts`` with ``install`` (pip install's arguments -> whether it succeeded) until one
    succeeds; say ``FELL_BACK`` when every one failed. Nothing is tried off Linux or without a pin."""
    tries = attempts(requirements)
    if tries and not any(install(args) for args in tries):
        say(FELL_BACK)
