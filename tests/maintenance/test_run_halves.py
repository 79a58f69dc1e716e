"""`run.py test` on two cores runs two halves at once (tools/run/tests.py): together they must run every
test under tests/ exactly once, and the half run one test after another must hold every browser test
that shares the session's JupyterLab or browser.

The suite is collected once: with the browser half's marker expression, pytest itself says which tests
that half selects and which it leaves to the other (REST_MARKERS is that expression negated)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run.tests import REST_MARKERS, SERVER_MARKERS  # noqa: E402

pytestmark = pytest.mark.slow

# pytest, collecting only, with a plugin that prints the tests the marker expression selects and those it
# deselects (every other test), as JSON on the last line.
COLLECT_ONCE = """
import json, sys
import pytest

class Halves:
    selected, deselected = [], []
    def pytest_deselected(self, items):
        self.deselected += [item.nodeid for item in items]
    def pytest_collection_finish(self, session):
        self.selected = [item.nodeid for item in session.items]

halves = Halves()
code = pytest.main(sys.argv[1:], plugins=[halves])
print(json.dumps({"code": int(code), "selected": halves.selected, "deselected": halves.deselected}))
"""


def test_the_two_halves_run_every_test_once():
    args = [sys.executable, "-c", COLLECT_ONCE, "tests", "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run([*args, "-m", SERVER_MARKERS], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    servers, rest = set(found["selected"]), set(found["deselected"])
    assert servers and rest
    assert len(servers) == len(found["selected"]) and len(rest) == len(found["deselected"]), "a test collected twice"
    assert not servers & rest, f"run twice: {sorted(servers & rest)[:5]}"
    assert REST_MARKERS == f"not ({SERVER_MARKERS})", "the other half must run exactly what the browser half does not"
    beside = {test.split("::")[0] for test in rest if test.startswith("tests/browser/")}
    # Only whole modules that start their own servers go beside the others.
    assert beside <= {"tests/browser/test_lecture_fit.py"}, sorted(beside)
    assert any("test_laptop_stages.py" in test for test in servers)  # shares the session's JupyterLab
