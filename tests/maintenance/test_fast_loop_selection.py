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
    """One collection of every fast test, without leaving any module out: none of them is in a module
    left out. (Leaving a module out takes only its own tests away, so this is the same as comparing two
    collections, with and without the ``--ignore`` options, at half the cost: 15 s on 2 cores.)"""
    left_out = {option.removeprefix("--ignore=") for option in modules_left_out()}
    assert "tests/classroom/test_hub_class.py" in left_out  # it does leave something out
    everything = fast_ids(*FAST_LEAVES_OUT)
    assert len(everything) > 2000
    lost = sorted(test for test in everything if test.split("::", 1)[0] in left_out)
    assert not lost, f"{len(lost)} fast tests would be left out, the first: {lost[:5]}"


def test_a_left_out_module_is_named_as_pytest_names_its_tests():
    """The check above compares paths as pytest writes them in a test's id (relative, with "/")."""
    options = modules_left_out()
    assert options and all(option.startswith("--ignore=tests/") for option in options), options[:3]
    assert all(Path(ROOT, option.removeprefix("--ignore=")).is_file() for option in options)
