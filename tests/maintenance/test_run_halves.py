"""`run.py test` on two cores runs two halves at once (tools/run/tests.py): together they must run every
test under tests/ exactly once, and the half run one test after another must hold every browser test
that shares the session's JupyterLab or browser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run.tests import SERVER_MARKERS  # noqa: E402

pytestmark = pytest.mark.slow


def collected(*marker: str) -> set[str]:
    args = [sys.executable, "-m", "pytest", "tests", "--collect-only", "-q", "-p", "no:cacheprovider", *marker]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]
    return {line for line in done.stdout.splitlines() if "::" in line}


def test_the_two_halves_run_every_test_once():
    everything = collected()
    servers = collected("-m", SERVER_MARKERS)
    rest = collected("-m", f"not ({SERVER_MARKERS})")
    assert servers and rest
    assert not servers & rest, f"run twice: {sorted(servers & rest)[:5]}"
    assert servers | rest == everything, f"run by neither half: {sorted(everything - servers - rest)[:5]}"
    beside = {test.split("::")[0] for test in rest if test.startswith("tests/browser/")}
    # Only whole modules that start their own servers go beside the others.
    assert beside <= {"tests/browser/test_lecture_fit.py"}, sorted(beside)
    assert any("test_laptop_stages.py" in test for test in servers)  # shares the session's JupyterLab
