"""A graded class as root, with students as Unix users: 22 students fetch an assignment and submit
(right variants, catalogued mistakes, two at once, tampering), the instructor (root) collects,
autogrades with the grader judging as ``nobody``, generates and releases feedback; each student
fetches only their own. Every grade equals the one computed here from what that student wrote; no
student can list the exchange's inbound, read the gradebook, the sources or another's collected
submission. The hub's web front (the assignment list) is not used here: each student runs
nbgrader's own commands as themselves, with the hub's students' configuration (hubconfig).

Needs root and an environment with nbgrader (LAYERNORM_NBGRADER_PYTHON, or the hub's).
"""

from __future__ import annotations

import json
import os
import pwd
import re
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_grading_grader import expected_points, mistaken, planted
from test_grading_nbgrader import PYTHON, _text, needs_nbgrader

from classroom.grading import assignment, cycle, hubconfig, plan
from classroom.hub import accounts

pytestmark = [
    pytest.mark.hub,
    needs_nbgrader,
    pytest.mark.skipif(os.geteuid() != 0, reason="students are Unix users: needs root"),
]

STEP = "variance"
NAME = assignment.name_of(STEP)
RIGHT = [
    "import numpy as np\ndef variance(row):\n    return float(np.var(row))\n",
    "import statistics\ndef variance(row):\n    return statistics.pvariance([float(v) for v in row])\n",
    "import numpy as np\ndef variance(row):\n    r = np.asarray(row, dtype=np.float64)\n    return float(((r - r.mean()) ** 2).mean())\n",
    "def variance(row):\n    m = sum(row) / len(row)\n    return sum((v - m) ** 2 for v in row) / len(row)\n",
]
TAMPER = {
    "checker": "import helpers.exercises\nhelpers.exercises.check = lambda s, f: True\n",
    "numpy": "import numpy as np\nnp.allclose = lambda *a, **k: True\n",
    "exchange": "import os\ntry:\n    os.listdir('{exchange}/layernorm/inbound')\nexcept OSError:\n    pass\n",
    "gradebook": "try:\n    open('{course}/gradebook.db', 'rb').read()\nexcept OSError:\n    pass\n",
    "writes": "try:\n    open('/tmp/grd-forged.csv', 'w').write('100')\nexcept OSError:\n    pass\n",
}


def _class(exchange: Path, course: Path) -> dict[str, tuple[str, int]]:
    """student → (answer cell, the grade it earns, computed from what was planted)."""
    full = plan.total_points(STEP)
    hidden = [t for t in plan.tests_for(STEP) if t.hidden][0].points
    found = {}
    for i, code in enumerate(RIGHT):
        found[f"grd-right{i}"] = (code, full)
    for i, mistake in enumerate(planted(STEP)):
        found[f"grd-m{i:02d}"] = (mistaken(STEP, mistake), expected_points(STEP, {mistake.key}, False))
    for kind, trick in TAMPER.items():
        base, earned = (RIGHT[0], full) if kind != "numpy" else (mistaken(STEP, planted(STEP)[0]), None)
        if earned is None:
            earned = expected_points(STEP, {planted(STEP)[0].key}, False)
        found[f"grd-t-{kind}"] = (trick.format(exchange=exchange, course=course) + base, earned)
    one_pass = "import numpy as np\ndef variance(row):\n    r = np.asarray(row)\n    return float((r * r).mean() - r.mean() ** 2)\n"
    found["grd-onepass"] = (one_pass, expected_points(STEP, {"one-pass"}, False))
    found["grd-loop"] = ("def variance(row):\n    while True:\n        pass\n", 0)
    found["grd-stub"] = (None, 0)
    assert hidden and len(found) >= 20
    return found


def _as(name: str, home: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    entry = pwd.getpwnam(name)
    return subprocess.run(
        [PYTHON, *args],
        cwd=home,
        env={**env, "HOME": str(home), "USER": name},
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=[],
        capture_output=True,
        text=True,
        timeout=300,
    )


FETCH_AND_SUBMIT = """
import json
from pathlib import Path
from nbgrader.apps import FetchAssignmentApp, SubmitApp  # in one process: nbgrader's start-up once
fetch = FetchAssignmentApp()
fetch.initialize([{name!r}])
fetch.start()
path = Path({name!r}) / ({name!r} + ".ipynb")
nb = json.loads(path.read_text())
code = {code!r}
if code is not None:
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {{}}).get("grade_id") == {answer!r}:
            cell["source"] = code
path.write_text(json.dumps(nb))
submit = SubmitApp()
submit.initialize([{name!r}])
submit.start()
"""


def test_a_class_of_students_is_graded_exactly_and_sees_only_its_own(tmp_path):
    state = Path(tempfile.mkdtemp(prefix="grd-class-"))
    os.chmod(state, 0o755)
    course = cycle.Course(state, PYTHON, judge_python=PYTHON, judge_user="nobody")
    students = {}
    try:
        course.set_up([STEP])
        students = _class(course.exchange, course.folder)
        jupyter = hubconfig.write(state / "jupyter", course.exchange, course.folder)[0].parent
        env = {
            "PATH": f"{Path(PYTHON).parent}:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "JUPYTER_CONFIG_PATH": hubconfig.config_path(jupyter, instructor=False),
        }
        homes = {name: accounts.ensure_student(name) for name in students}
        course.generate(STEP)
        course.release(STEP)

        started = time.perf_counter()

        def submit(name):
            code = students[name][0]
            script = FETCH_AND_SUBMIT.format(name=NAME, code=code, answer=plan.answer_id(STEP))
            return name, _as(name, homes[name], env, "-c", script)

        with ThreadPoolExecutor(2) as pool:
            for name, done in pool.map(submit, students):
                assert done.returncode == 0, (name, done.stderr[-600:])
        # what a student cannot reach: the inbound's list, the course folder (gradebook, sources)
        someone = next(iter(students))
        for command in (["ls", f"{course.exchange}/layernorm/inbound"], ["ls", str(course.folder)]):
            denied = subprocess.run(command, user=pwd.getpwnam(someone).pw_uid, capture_output=True)
            assert denied.returncode != 0, command

        phases = {"fetch and submit": time.perf_counter() - started}
        for phase, run in (("collect", course.collect), ("autograde", course.autograde), ("feedback", course.feedback)):
            begun = time.perf_counter()
            run(STEP)
            phases[phase] = time.perf_counter() - begun
        assert not Path("/tmp/grd-forged.csv").exists()

        import sqlite3

        with sqlite3.connect(course.folder / "gradebook.db") as db:
            scores = dict(
                db.execute(
                    "select s.student_id, sum(coalesce(g.auto_score, 0)) from grade g join submitted_notebook n "
                    "on g.notebook_id = n.id join submitted_assignment s on n.assignment_id = s.id "
                    "group by s.student_id"
                ).fetchall()
            )
        assert scores == {name: earned for name, (_, earned) in students.items()}

        def fetch(name):
            return name, _as(name, homes[name], env, "-m", "nbgrader", "fetch_feedback", NAME)

        begun = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            for name, done in pool.map(fetch, students):
                assert done.returncode == 0, (name, done.stderr[-600:])
                pages = list((homes[name] / NAME / "feedback").glob("*/*.html"))
                assert len(pages) == 1, (name, pages)  # their own, and only theirs
                text = _text(pages[0].read_text())
                total = re.search(r"Score: ([0-9.]+) / ([0-9.]+)", text)
                assert total and float(total.group(1)) == students[name][1], (name, total and total.group(0))
                assert "BEGIN HIDDEN" not in text and ".passed" not in text
        phases["fetch feedback"] = time.perf_counter() - begun
        print("graded class of", len(students), {k: round(v, 1) for k, v in phases.items()})
    finally:
        for name in students:
            accounts.remove_student(name)
        subprocess.run(["rm", "-rf", str(state)], check=False)
        Path("/tmp/grd-forged.csv").unlink(missing_ok=True)
    assert json.dumps(list(students))  # the class really ran
