"""The real nbgrader 0.9.6 cycle with this grader, as one user (no root): generate the assignment from
the series, autograde submitted notebooks with GradeCells in place of nbgrader's Execute, generate
feedback, export. Needs an environment with nbgrader: the hub's, which `run.py hub` installs (as root
these tests install it too), or LAYERNORM_NBGRADER_PYTHON; where there is none, skipped with the
reason, and failed under REQUIRE_HUB=1 (tests/classroom/grading_support.py).

Grades are computed here from what each simulated student wrote, never read from the grader.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
from pathlib import Path

import pytest
from grading_support import gradebook_scores, python_fixture, text_of  # noqa: F401 — the fixture `python`

from classroom.grading import assignment, cycle, plan

pytestmark = pytest.mark.slow

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
    "lee": (RIGHT, "late", FULL),  # 45 minutes after the due date: a note, the same grade (no late rule set)
    "mo": (RIGHT, "deleted test", FULL),  # a test cell deleted: graded with the released one, a note
}
STRANGER = "zed"  # submits, but is not on the class list
DUE = "2026-12-02 10:00:00 UTC"


def _submit(course: Path, released: dict, student: str, code, trick) -> None:
    folder = course / "submitted" / student / NAME
    folder.mkdir(parents=True)
    stamp = "2026-12-02 10:45:00.000000 UTC" if trick == "late" else "2026-12-02 10:00:00.000000 UTC"
    (folder / "timestamp.txt").write_text(stamp)
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
    if trick == "deleted test":
        nb["cells"] = [
            c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != f"test_{STEP}_n-1"
        ]
    if trick == "empty":
        cells[plan.answer_id(STEP)]["source"] = ""
    (folder / f"{NAME}.ipynb").write_text(json.dumps(nb))


def test_a_graded_assignment_from_release_to_export(tmp_path, python):
    course = cycle.Course(tmp_path, python, judge_python=python, students=tuple(STUDENTS))
    course.set_up([STEP])
    released_path = course.generate(STEP)
    released = json.loads(released_path.read_text())
    solution = assignment._solution_body(STEP).strip().splitlines()[-1].strip()
    released_text = released_path.read_text()
    assert solution not in released_text and "BEGIN HIDDEN" not in released_text and ".passed" not in released_text
    for student, (code, trick, _) in STUDENTS.items():
        _submit(course.folder, released, student, code, trick)
    _submit(course.folder, released, STRANGER, RIGHT, None)
    course.nbgrader("db", "assignment", "add", NAME, f"--duedate={DUE}")
    problems = course.autograde(STEP)
    assert set(problems) == {"ida", "jo", STRANGER}
    assert problems[STRANGER] == (
        f"{STRANGER} is not on the class list: their {NAME} was kept in {course.folder / 'refused'} and not graded."
    )
    assert (course.folder / "refused" / STRANGER / NAME / f"{NAME}.ipynb").exists()
    course.nbgrader("generate_feedback", NAME, "--force")
    feedback = {s: text_of((course.folder / "feedback" / s / NAME / f"{NAME}.html").read_text()) for s in STUDENTS}
    assert f"{NAME}.ipynb is not a readable notebook (its JSON breaks at line 1)" in feedback["ida"]
    assert "Your notebook has no answer cell answer_std" in feedback["jo"]
    assert "The answer cell is empty: nothing was submitted." in feedback["kim"]
    assert (course.folder / "submitted" / "ida" / NAME / f"{NAME}.ipynb.unreadable").read_text() == '{"cells": ['

    scores = gradebook_scores(course.folder)
    assert scores == {student: expected for student, (_, _, expected) in STUDENTS.items()}

    for student in STUDENTS:
        page = (course.folder / "feedback" / student / NAME / f"{NAME}.html").read_text()
        assert solution not in page and "BEGIN HIDDEN" not in page and ".passed" not in page, student
        autograded = (course.folder / "autograded" / student / NAME / f"{NAME}.ipynb").read_text()
        assert "BEGIN HIDDEN" not in autograded and ".passed" not in autograded
    bo = text_of((course.folder / "feedback" / "bo" / NAME / f"{NAME}.html").read_text())
    assert bo.count("Looks like a known mistake: dividing by n − 1 and ε forgotten.") == 3  # two tests, hidden
    assert "Note: Your code replaced part of the checker" in text_of(
        (course.folder / "feedback" / "cy" / NAME / f"{NAME}.html").read_text()
    )
    ed = text_of((course.folder / "feedback" / "ed" / NAME / f"{NAME}.html").read_text())
    assert f"Note: Your notebook edited test cells test_{STEP}_n-1, {HIDDEN.grade_id} (its code or points)" in ed
    hal = text_of((course.folder / "feedback" / "hal" / NAME / f"{NAME}.html").read_text())
    assert "Note: Your code tried to do what grading does not allow (read the solutions or the course's files)" in hal
    lee = text_of((course.folder / "feedback" / "lee" / NAME / f"{NAME}.html").read_text())
    assert (
        "Note: This submission arrived 45 minutes after the deadline (2026-12-02 10:00 UTC): it was graded all the "
        "same, and the course's late rule decides what that costs."
    ) in lee
    assert "after the deadline" not in feedback["ana"]
    mo = text_of((course.folder / "feedback" / "mo" / NAME / f"{NAME}.html").read_text())
    assert f"Note: Your notebook deleted test cell test_{STEP}_n-1: the grade uses the tests as released" in mo
    gus = text_of((course.folder / "feedback" / "gus" / NAME / f"{NAME}.html").read_text())
    assert "Note: Your code tried to do what grading does not allow (wrote a file)" in gus
    assert "Note: Your notebook moved cells" in gus

    table = course.export(tmp_path / "grades.csv")
    rows = list(csv.reader(table.open()))
    header = rows[0]
    assert header == ["student", *[assignment.name_of(s) for s in plan.STEPS], "total", "max"]
    column = header.index(NAME)
    assert {row[0]: int(row[column]) for row in rows[1:]} == {s: e for s, (_, _, e) in STUDENTS.items()}


def test_release_fetch_submit_collect_and_fetch_feedback_through_the_exchange(tmp_path, python):
    """The exchange as one user (the hub's test does it with students as Unix users): a right answer
    submitted, collected, autograded, its feedback released and fetched."""
    course = cycle.Course(tmp_path, python, judge_python=python)
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
    env = {**os.environ, "PATH": f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"}

    def student(*args):
        done = subprocess.run([python, "-m", "nbgrader", *args], cwd=home, env=env, capture_output=True, text=True)
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
    text = text_of(page.read_text())
    assert "Right on every unseen case." in text and "BEGIN HIDDEN" not in text
    table = course.export(tmp_path / "grades.csv")
    rows = {row["student"]: row for row in csv.DictReader(table.open())}
    assert [row["02_mean"] for row in rows.values()] == [str(plan.total_points("mean"))]


MODULE = "module"
MODULE_NAME = assignment.name_of(MODULE)
MODULE_RIGHT = (
    "import torch\nfrom torch import nn\n\nclass MyLayerNorm(nn.Module):\n"
    "    def __init__(self, n_features, eps=1e-5):\n        super().__init__()\n        self.eps = eps\n"
    "        self.gamma = nn.Parameter(torch.ones(n_features))\n        self.beta = nn.Parameter(torch.zeros(n_features))\n\n"
    "    def forward(self, x):\n        mean = x.mean(-1, keepdim=True)\n"
    "        var = x.var(-1, keepdim=True, unbiased=False)\n"
    "        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta\n"
)


def test_the_module_assignment_releases_the_notebooks_stub_and_grades_a_class(tmp_path, python):
    """Notebook 08: the released answer cell is the notebook's own class stub (both methods), and
    nbgrader's autograde gives a right module, an n − 1 module and PyTorch's own layer norm their grades."""
    course = cycle.Course(tmp_path, python, judge_python=python)
    course.set_up([MODULE])
    released_path = course.generate(MODULE)
    released = json.loads(released_path.read_text())
    answer = next(c for c in released["cells"] if c["metadata"]["nbgrader"].get("grade_id") == plan.answer_id(MODULE))
    stub = assignment._series_cells(MODULE)[2]
    assert "".join(answer["source"]) == "import torch\nfrom torch import nn\n\n" + stub.rstrip("\n")
    assert (
        "nn.Parameter(torch.ones" not in released_path.read_text() and "BEGIN HIDDEN" not in released_path.read_text()
    )

    full = plan.total_points(MODULE)
    students = {
        "ana": (MODULE_RIGHT, full),
        "bo": (MODULE_RIGHT.replace(", unbiased=False", ""), None),  # n − 1: computed from the plan below
        "cy": ("import torch\nfrom torch import nn\nMyLayerNorm = nn.LayerNorm\n", 0),
    }
    n_minus_1 = sum(t.points for t in plan.tests_for(MODULE) if not t.hidden and plan.judged(MODULE, {"n-1"}, t.key))
    students["bo"] = (students["bo"][0], n_minus_1 - 1)  # its own test is judged, and fails
    for student, (code, _) in students.items():
        folder = course.folder / "submitted" / student / MODULE_NAME
        folder.mkdir(parents=True)
        (folder / "timestamp.txt").write_text("2026-12-02 10:00:00.000000 UTC")
        nb = json.loads(json.dumps(released))
        for cell in nb["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == plan.answer_id(MODULE):
                cell["source"] = code
        (folder / f"{MODULE_NAME}.ipynb").write_text(json.dumps(nb))
    course.autograde(MODULE)
    course.nbgrader("generate_feedback", MODULE_NAME, "--force")
    scores = gradebook_scores(course.folder)
    assert scores == {student: expected for student, (_, expected) in students.items()}
    bo = text_of((course.folder / "feedback" / "bo" / MODULE_NAME / f"{MODULE_NAME}.html").read_text())
    assert "Looks like a known mistake: dividing by n − 1." in bo and "Not judged" in bo
    cy = text_of((course.folder / "feedback" / "cy" / MODULE_NAME / f"{MODULE_NAME}.html").read_text())
    assert "PyTorch's own layer norm" in cy
    for student in students:  # the hidden test's code and the solution's lines are in no feedback
        page = (course.folder / "feedback" / student / MODULE_NAME / f"{MODULE_NAME}.html").read_text()
        assert "BEGIN HIDDEN" not in page and ".passed" not in page and "BEGIN SOLUTION" not in page
    solution = assignment._module_solutions()["forward"][-1].strip()  # the solution's return line
    assert solution not in (course.folder / "feedback" / "cy" / MODULE_NAME / f"{MODULE_NAME}.html").read_text()
