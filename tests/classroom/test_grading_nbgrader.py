"""The real nbgrader 0.9.6 cycle with this grader, as one user (no root): generate the assignment from
the series, autograde submitted notebooks with GradeCells in place of nbgrader's Execute, generate
feedback, export. Needs an environment with nbgrader (the hub's, after `run.py hub`, or
LAYERNORM_NBGRADER_PYTHON); skipped, with the reason, where there is none.

Grades are computed here from what each simulated student wrote, never read from the grader.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

from classroom.grading import assignment, cycle, plan

pytestmark = pytest.mark.slow
HUB_PYTHON = "/opt/layernorm-hub/venv/bin/python"


def _nbgrader_python() -> str | None:
    for python in (os.environ.get("LAYERNORM_NBGRADER_PYTHON"), HUB_PYTHON):
        if python and Path(python).exists():
            found = subprocess.run([python, "-c", "import nbgrader, numpy"], capture_output=True)
            if found.returncode == 0:
                return python
    return None


PYTHON = _nbgrader_python()
needs_nbgrader = pytest.mark.skipif(
    PYTHON is None, reason="no Python with nbgrader: set LAYERNORM_NBGRADER_PYTHON (run.py hub does not install it yet)"
)

STEP = "std"
NAME = assignment.name_of(STEP)
MISTAKE_TESTS = [t for t in plan.tests_for(STEP) if not t.hidden]
HIDDEN = [t for t in plan.tests_for(STEP) if t.hidden][0]
FULL = sum(t.points for t in plan.tests_for(STEP))
RIGHT = "import numpy as np\ndef std(row, eps):\n    return float(np.sqrt(np.var(row) + eps))\n"
TWO_MISTAKES = (
    "import numpy as np\ndef std(row, eps):\n    row = np.asarray(row)\n"
    "    return float(np.sqrt(((row - row.mean()) ** 2).sum() / (len(row) - 1)))\n"
)
# student: (answer code or None for the released stub, what else they did, the grade they earn)
STUDENTS = {
    "ana": (RIGHT, None, FULL),
    "bo": (TWO_MISTAKES, None, FULL - 2 - HIDDEN.points),
    "cy": ("import helpers.exercises\nhelpers.exercises.check = lambda s, f: True\n" + RIGHT, None, FULL),
    "dee": (
        "import helpers.exercises\nhelpers.exercises.check = lambda s, f: True\ndef std(row, eps):\n    return 0\n",
        None,
        0,
    ),
    "ed": (TWO_MISTAKES, "points", FULL - 2 - HIDDEN.points),
    "flo": (None, None, 0),
    "gus": ("open('/tmp/grades.csv', 'w').write('gus,100')\n" + RIGHT, "moved", FULL),
    "ida": (RIGHT, "corrupt", 0),
    "jo": (RIGHT, "deleted", 0),
    "kim": (RIGHT, "empty", 0),
    "hal": (
        "try:\n    open('{course}/gradebook.db', 'rb').read()\nexcept OSError:\n    pass\n" + TWO_MISTAKES,
        None,
        FULL - 2 - HIDDEN.points,
    ),
}


def _submit(course: Path, released: dict, student: str, code, trick) -> None:
    folder = course / "submitted" / student / NAME
    folder.mkdir(parents=True)
    (folder / "timestamp.txt").write_text("2026-12-02 10:00:00.000000 UTC")
    if trick == "corrupt":
        (folder / f"{NAME}.ipynb").write_text('{"cells": [')
        return
    nb = json.loads(json.dumps(released))
    cells = {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in nb["cells"]}
    if code is not None:
        cells[plan.answer_id(STEP)]["source"] = code.replace("{course}", str(course))
    if trick == "points":  # the n − 1 test emptied, the hidden test worth 100
        cells[f"test_{STEP}_n-1"]["source"] = "pass\n"
        cells[HIDDEN.grade_id]["metadata"]["nbgrader"]["points"] = 100
    if trick == "moved":
        nb["cells"].reverse()
    if trick == "deleted":
        nb["cells"] = [
            c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != plan.answer_id(STEP)
        ]
    if trick == "empty":
        cells[plan.answer_id(STEP)]["source"] = ""
    (folder / f"{NAME}.ipynb").write_text(json.dumps(nb))


def _text(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


@needs_nbgrader
def test_a_graded_assignment_from_release_to_export(tmp_path):
    course = cycle.Course(tmp_path, PYTHON, judge_python=PYTHON)
    course.set_up([STEP])
    released_path = course.generate(STEP)
    released = json.loads(released_path.read_text())
    solution = assignment._solution_body(STEP).strip().splitlines()[-1].strip()
    released_text = released_path.read_text()
    assert solution not in released_text and "BEGIN HIDDEN" not in released_text and ".passed" not in released_text
    for student, (code, trick, _) in STUDENTS.items():
        _submit(course.folder, released, student, code, trick)
    problems = course.autograde(STEP)
    assert set(problems) == {"ida", "jo"}
    course.nbgrader("generate_feedback", NAME, "--force")
    feedback = {s: _text((course.folder / "feedback" / s / NAME / f"{NAME}.html").read_text()) for s in STUDENTS}
    assert f"{NAME}.ipynb is not a readable notebook (its JSON breaks at line 1)" in feedback["ida"]
    assert "Your notebook has no answer cell answer_std" in feedback["jo"]
    assert "The answer cell is empty: nothing was submitted." in feedback["kim"]
    assert (course.folder / "submitted" / "ida" / NAME / f"{NAME}.ipynb.unreadable").read_text() == '{"cells": ['

    with sqlite3.connect(course.folder / "gradebook.db") as db:
        scores = dict(
            db.execute(
                "select s.student_id, sum(coalesce(g.auto_score, 0)) from grade g "
                "join submitted_notebook n on g.notebook_id = n.id join submitted_assignment s on n.assignment_id = s.id "
                "group by s.student_id"
            ).fetchall()
        )
    assert scores == {student: expected for student, (_, _, expected) in STUDENTS.items()}

    for student in STUDENTS:
        page = (course.folder / "feedback" / student / NAME / f"{NAME}.html").read_text()
        assert solution not in page and "BEGIN HIDDEN" not in page and ".passed" not in page, student
        autograded = (course.folder / "autograded" / student / NAME / f"{NAME}.ipynb").read_text()
        assert "BEGIN HIDDEN" not in autograded and ".passed" not in autograded
    bo = _text((course.folder / "feedback" / "bo" / NAME / f"{NAME}.html").read_text())
    assert bo.count("Looks like a known mistake: dividing by n − 1 and ε forgotten.") == 3  # two tests, hidden
    assert "Note: Your code replaced part of the checker" in _text(
        (course.folder / "feedback" / "cy" / NAME / f"{NAME}.html").read_text()
    )
    ed = _text((course.folder / "feedback" / "ed" / NAME / f"{NAME}.html").read_text())
    assert f"Note: Your notebook edited test cells test_{STEP}_n-1, {HIDDEN.grade_id} (its code or points)" in ed
    hal = _text((course.folder / "feedback" / "hal" / NAME / f"{NAME}.html").read_text())
    assert "Note: Your code tried to do what grading does not allow (read the solutions or the course's files)" in hal
    gus = _text((course.folder / "feedback" / "gus" / NAME / f"{NAME}.html").read_text())
    assert "Note: Your code tried to do what grading does not allow (wrote a file)" in gus
    assert "Note: Your notebook moved cells" in gus

    table = course.export(tmp_path / "grades.csv")
    rows = list(csv.reader(table.open()))
    header = rows[0]
    assert header == ["student", *[assignment.name_of(s) for s in plan.STEPS], "total", "max"]
    column = header.index(NAME)
    assert {row[0]: int(row[column]) for row in rows[1:]} == {s: e for s, (_, _, e) in STUDENTS.items()}


@needs_nbgrader
def test_release_fetch_submit_collect_and_fetch_feedback_through_the_exchange(tmp_path):
    """The exchange as one user (the hub's test does it with students as Unix users): a right answer
    submitted, collected, autograded, its feedback released and fetched."""
    course = cycle.Course(tmp_path, PYTHON, judge_python=PYTHON)
    course.set_up(["mean"])
    course.generate("mean")
    course.release("mean")
    with pytest.raises(cycle.CycleError, match=r"^02_mean is already released; nothing was changed"):
        course.release("mean")
    home = tmp_path / "home"
    home.mkdir()
    (home / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = 'layernorm'\nc.Exchange.root = {str(course.exchange)!r}\n"
    )
    env = {**os.environ, "PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ['PATH']}"}

    def student(*args):
        done = subprocess.run([PYTHON, "-m", "nbgrader", *args], cwd=home, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-800:]

    student("fetch_assignment", "02_mean")
    fetched = home / "02_mean" / "02_mean.ipynb"
    nb = json.loads(fetched.read_text())
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "answer_mean":
            cell["source"] = "def mean(row):\n    return sum(row) / len(row)\n"
    fetched.write_text(json.dumps(nb))
    student("submit", "02_mean")
    assert os.stat(course.exchange / "layernorm" / "inbound").st_mode & 0o777 == 0o733  # nobody lists it
    course.collect("mean")
    course.autograde("mean")
    course.feedback("mean")
    student("fetch_feedback", "02_mean")
    [page] = list((home / "02_mean" / "feedback").glob("*/02_mean.html"))
    text = _text(page.read_text())
    assert "Right on every unseen case." in text and "BEGIN HIDDEN" not in text
    table = course.export(tmp_path / "grades.csv")
    rows = {row["student"]: row for row in csv.DictReader(table.open())}
    assert [row["02_mean"] for row in rows.values()] == [str(plan.total_points("mean"))]
