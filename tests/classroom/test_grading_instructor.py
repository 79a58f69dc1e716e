"""The course as an instructor's formgrader uses it, without a hub: nbgrader's own commands, run as an
instructor's Unix account (not root), generate, release and collect; students fetch and submit as
themselves; an autograde started as the instructor is refused with one sentence (students' code runs
only as nobody, which needs root); root's ``run.py hub-grade`` autogrades, releases the feedback and
exports. The formgrader's buttons call these same nbgrader apps in the instructor's server. Needs
root and the hub's nbgrader; skipped without, failed under REQUIRE_HUB=1.
"""

from __future__ import annotations

import csv
import grp
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from grading_support import python_fixture  # noqa: F401 — the fixture `python`

from classroom.grading import assignment, course, hubconfig, hubsetup, nbgrader_hooks, plan

from hub_support import require_root

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TEACHER, STUDENTS = "grd-in-teach", ("grd-in-ana", "grd-in-bo")
STEP = "mean"
NAME = assignment.name_of(STEP)
ANSWERS = {
    "grd-in-ana": "def mean(row):\n    return sum(row) / len(row)\n",
    "grd-in-bo": "def mean(row):\n    return 0.0\n",
}


def home_of(name: str) -> Path:
    return Path(pwd.getpwnam(name).pw_dir)


def as_user(name: str, command: list[str], cwd: Path, config: str, python: str) -> subprocess.CompletedProcess:
    entry = pwd.getpwnam(name)
    env = {
        "HOME": entry.pw_dir,
        "PATH": f"{Path(python).parent}:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": config,
        "LANG": "C.UTF-8",
    }
    return subprocess.run(
        command,
        cwd=cwd,
        env=env,
        user=entry.pw_uid,
        group=entry.pw_gid,
        extra_groups=os.getgrouplist(name, entry.pw_gid),
        capture_output=True,
        text=True,
        timeout=300,
        umask=0o022,
    )


@pytest.fixture
def hub_course(python):
    require_root()
    from classroom.hub import accounts

    state = Path(tempfile.mkdtemp(prefix="grading-instructor-", dir="/tmp"))  # pytest's own is root's only
    state.chmod(0o755)
    (state / "students.txt").write_text(f"{TEACHER} instructor\n" + "".join(f"{s}\n" for s in STUDENTS))
    try:
        for name in (TEACHER, *STUDENTS):
            accounts.ensure_student(name)
        made = hubsetup.set_up(state / "grading", python, [TEACHER], list(STUDENTS))
        yield state, made
    finally:
        for name in (TEACHER, *STUDENTS):
            accounts.remove_student(name)
        shutil.rmtree(state, ignore_errors=True)


def test_an_instructor_releases_and_collects_as_themself_and_root_grades(hub_course, python):
    state, made = hub_course
    jupyter = state / "grading" / "jupyter"
    staff, pupils = hubconfig.config_path(jupyter, True), hubconfig.config_path(jupyter, False)
    nbgrader = [python, "-m", "nbgrader"]

    def teacher(*args):
        done = as_user(TEACHER, [*nbgrader, *args], made.folder, staff, python)
        return done.returncode, done.stdout + done.stderr

    for command in (("generate_assignment", NAME, "--force"), ("release_assignment", NAME)):
        code, said = teacher(*command)
        assert code == 0, said
    inbound = made.exchange / course.COURSE_ID / "inbound"
    for student in STUDENTS:
        home = Path(pwd.getpwnam(student).pw_dir)
        done = as_user(student, [*nbgrader, "fetch_assignment", NAME], home, pupils, python)
        assert done.returncode == 0, done.stderr
        path = home / NAME / f"{NAME}.ipynb"
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("grade_id") == plan.answer_id(STEP):
                cell["source"] = ANSWERS[student]
        path.write_text(json.dumps(nb))
        done = as_user(student, [*nbgrader, "submit", NAME], home, pupils, python)
        assert done.returncode == 0, done.stderr
        peek = as_user(student, [python, "-c", f"import os; os.listdir({str(inbound)!r})"], home, pupils, python)
        assert "PermissionError" in peek.stderr  # a student submits, but never lists the submissions
    code, said = teacher("collect", NAME)
    assert code == 0, said
    assert {p.parent.name for p in (made.folder / "submitted").glob(f"*/{NAME}")} == set(STUDENTS)

    code, said = teacher("autograde", NAME, "--force")  # as the instructor: refused, nothing graded
    refusal = nbgrader_hooks.NOT_ROOT.format(user=hubsetup.JUDGE_USER, assignment=NAME)
    assert refusal in " ".join(said.split()), said
    assert not list((made.folder / "autograded").glob(f"*/{NAME}/*.ipynb"))

    def hub_grade(*args):
        done = subprocess.run(
            [python, "-m", "classroom.grading.cli", "--state", str(state), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    full = plan.total_points(STEP)
    said = hub_grade("autograde", plan.notebook_of(STEP))
    assert f"grd-in-ana: {full} of {full}" in said and "grd-in-bo: 0 of" in said, said
    hub_grade("feedback", STEP)
    home = Path(pwd.getpwnam("grd-in-ana").pw_dir)
    done = as_user("grd-in-ana", [*nbgrader, "fetch_feedback", NAME], home, pupils, python)
    assert done.returncode == 0, done.stderr
    fetched = list(home.glob(f"{NAME}/feedback/*/{NAME}.html"))
    assert len(fetched) == 1 and f"(Score: {full}.0 / {full}.0)" in fetched[0].read_text()  # hers alone
    hub_grade("export", str(state / "grades.csv"))
    rows = {row["student"]: row[NAME] for row in csv.DictReader((state / "grades.csv").open())}
    assert rows == {"grd-in-ana": str(full), "grd-in-bo": "0"}
    assert grp.getgrgid(os.stat(made.exchange / course.COURSE_ID / "inbound").st_gid).gr_name == hubsetup.GRADERS

    # root releases the next one with hub-grade: the course stays the graders', and the instructor's
    hub_grade("release", "03")
    info = os.stat(made.folder)
    assert (oct(info.st_mode & 0o7777), grp.getgrgid(info.st_gid).gr_name) == ("0o2770", hubsetup.GRADERS)
    code, said = teacher("db", "assignment", "list")
    assert code == 0 and "03_variance" in said, said
    done = as_user(STUDENTS[0], [*nbgrader, "fetch_assignment", "03_variance"], home_of(STUDENTS[0]), pupils, python)
    assert done.returncode == 0, done.stderr
