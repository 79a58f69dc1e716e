"""`run.py test` on two cores runs its parts at once (tools/run/tests.py PARTS): the browser tests, the class
hubs and the rest. Together they must run every test under tests/ exactly once, and the part run one test
after another must hold every browser test that shares the session's JupyterLab or browser.

Each test's markers are read from one collection of the suite, and each part's marker expression is
evaluated on them by pytest's own expression code. Inside `run.py test`'s last part that collection is the
run's own: its -m left out exactly the other parts' tests, and conftest.py kept their markers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _pytest.mark.expression import Expression

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run.tests import HUB_MARKERS, PARTS, REST_MARKERS, SERVER_MARKERS  # noqa: E402

pytestmark = pytest.mark.slow

# pytest, collecting only, with a plugin that prints every test's markers as JSON on the last line.
COLLECT_ONCE = """
import json, sys
import pytest

class Marks:
    found = {}
    def pytest_collection_finish(self, session):
        self.found = {item.nodeid: sorted({m.name for m in item.iter_markers()}) for item in session.items}

marks = Marks()
code = pytest.main(sys.argv[1:], plugins=[marks])
print(json.dumps({"code": int(code), "marks": marks.found}))
"""


def marks_from_this_run(session) -> dict[str, frozenset[str]] | None:
    """Every test's markers from the run this test is in, when it is `run.py test`'s last part over the whole
    of tests/ (-m REST_MARKERS, nothing else left out). None otherwise."""
    config = session.config
    whole = any(Path(arg).resolve() == ROOT / "tests" for arg in config.args)
    if not whole or config.option.markexpr != REST_MARKERS or config.option.keyword or config.option.deselect:
        return None
    from conftest import DESELECTED

    here = {item.nodeid: frozenset(m.name for m in item.iter_markers()) for item in session.items}
    return {**DESELECTED, **{nodeid: marks for nodeid, marks in here.items() if nodeid.startswith("tests/")}}


def marks_collected_anew() -> dict[str, frozenset[str]]:
    args = [sys.executable, "-c", COLLECT_ONCE, "tests", "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {
        nodeid: frozenset(marks) for nodeid, marks in json.loads(done.stdout.strip().splitlines()[-1])["marks"].items()
    }


def parts_of(marks: dict[str, frozenset[str]]) -> dict[str, list[str]]:
    """Test id -> the names of the parts whose marker expression selects it."""
    compiled = [(name, Expression.compile(expression)) for name, expression, _ in PARTS]

    def selecting(found: frozenset[str]) -> list[str]:
        return [name for name, expression in compiled if expression.evaluate(lambda mark, **_: mark in found)]

    return {nodeid: selecting(found) for nodeid, found in marks.items()}


def test_the_parts_run_every_test_once(request):
    marks = marks_from_this_run(request.session) or marks_collected_anew()
    parts = parts_of(marks)
    assert len(parts) > 2000, f"only {len(parts)} tests collected"
    not_once = {nodeid: names for nodeid, names in parts.items() if len(names) != 1}
    assert not not_once, f"{len(not_once)} tests run by no part or by several: {sorted(not_once.items())[:5]}"
    by_part = {name: {n for n, names in parts.items() if names == [name]} for name, _, _ in PARTS}
    assert all(by_part.values()), {name: len(found) for name, found in by_part.items()}
    servers, hubs, rest = (by_part[name] for name, _, _ in PARTS)
    beside = {test.split("::")[0] for test in hubs | rest if test.startswith("tests/browser/")}
    # Only whole modules that start their own servers go beside the others.
    assert beside <= {"tests/browser/test_lecture_fit.py", "tests/browser/test_lecture_keys.py"}, sorted(beside)
    assert any("test_class_service_page.py" in test for test in hubs)  # a hub with its own browser
    assert any("test_laptop_stages.py" in test for test in servers)  # shares the session's JupyterLab
    # every test that starts a class hub runs with the hubs, or with the browser tests when it drives a browser
    assert {test for test, found in marks.items() if "hub" in found} <= hubs | servers
    assert any("test_hub_class.py" in test for test in hubs) and any("test_grading_class.py" in test for test in hubs)


def test_the_parts_marker_expressions_are_what_run_py_passes():
    """PARTS names the same expressions run.py's commands use: the browser part first (shown live)."""
    assert [expression for _, expression, _ in PARTS] == [SERVER_MARKERS, HUB_MARKERS, REST_MARKERS]
    assert len({report for _, _, report in PARTS}) == len(PARTS)
