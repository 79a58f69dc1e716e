"""`run.py test --fast` leaves whole modules out of its collection when their module-wide marks make every
test in them deselected (tools/run/tests.py ``modules_left_out``): that must leave out no fast test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run.tests import FAST_LEAVES_OUT, FAST_MARKERS, modules_left_out  # noqa: E402

pytestmark = pytest.mark.slow


def fast_ids(*options: str) -> set[str]:
    args = [
        sys.executable,
        "-m",
        "pytest",
        "tests",
        "-m",
        FAST_MARKERS,
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
    ]
    done = subprocess.run([*args, *options], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_leaving_modules_out_leaves_out_no_fast_test():
    left_out = modules_left_out()
    assert any("test_hub_class.py" in option for option in left_out)  # it does leave something out
    everything = fast_ids(*FAST_LEAVES_OUT)
    assert len(everything) > 2000
    assert fast_ids(*FAST_LEAVES_OUT, *left_out) == everything
