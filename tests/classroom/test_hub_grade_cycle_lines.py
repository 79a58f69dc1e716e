"""``run.py hub-grade``'s cycle on a course with the real nbgrader (classroom/grading/cli.py): what each
command prints and writes, from a due date through the collects to the exported table, and a failed
nbgrader command in one sentence. The course is set up as one user (no root), and the root check is
given root's euid. Autograde and feedback are test_hub_grade_autograde_lines'; the hub's own run, as
root with the students' accounts and release (the graders' group), test_grading_instructor's. Needs
the hub environment's nbgrader (skipped without, like test_grading_nbgrader).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from grading_support import python_fixture  # noqa: F401 — the fixture `python`

from classroom.grading import assignment, cli, cycle

pytestmark = pytest.mark.slow

NAME = "04_epsilon_and_std"
RIGHT = "import numpy as np\ndef std(row, eps):\n    return float(np.sqrt(np.var(row) + eps))\n"
NO_EPS = "import numpy as np\ndef std(row, eps):\n    return float(np.std(row))\n"
HEADER = ["student", "02_mean", "03_variance", NAME, "05_normalise", "06_gamma_and_beta", "07_whole_matrix",
          "08_pytorch", "total", "max"]  # fmt: skip


def _submit(inbound, released: dict, student: str, code: str) -> None:
    """A submission in the exchange's inbound as nbgrader's submit leaves it (name, timestamp, secret)."""
    nb = json.loads(json.dumps(released))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "answer_std":
            cell["source"] = code
    folder = inbound / f"{student}+{NAME}+2026-12-02 10:00:00.000000 UTC+{student}0secret"
    folder.mkdir(parents=True)
    (folder / f"{NAME}.ipynb").write_text(json.dumps(nb))
    (folder / "timestamp.txt").write_text("2026-12-02 10:00:00.000000 UTC")
    (folder / "submission_secret.txt").write_text(f"{student}-secret")


def test_each_command_says_what_it_did_in_one_line_per_student(tmp_path, python, monkeypatch, capsys):
    state = tmp_path / "hub"
    course = cycle.Course(state / "grading", python)
    course.set_up(["std"])
    released = assignment.source_notebook("std")  # collect needs no release: nbgrader's generate is autograde's
    (state / "students.txt").write_text("ana\nbo\nteach instructor\n")
    monkeypatch.setattr(sys, "executable", python)  # run.py hub-grade runs with the hub's Python
    monkeypatch.setattr(os, "geteuid", lambda: 0)

    def hub_grade(*argv: str) -> list[str]:
        assert cli.main(["--state", str(state), *argv]) == 0, capsys.readouterr().err
        said = capsys.readouterr()
        assert said.err == ""
        return said.out.splitlines()

    assert hub_grade("due", "04", "2026-12-09 23:59 UTC") == [
        f"{NAME} is due 2026-12-09 23:59 UTC; a later submission is graded all the same, with a note."
    ]
    listed = subprocess.run(
        [python, "-m", "nbgrader", "db", "assignment", "list"],
        cwd=course.folder,
        env={**os.environ, "PATH": f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"{NAME} (due: 2026-12-09 23:59:00)" in listed.stdout.splitlines()  # in nbgrader's gradebook
    inbound = course.exchange / "layernorm" / "inbound"
    _submit(inbound, released, "ana", RIGHT)
    assert hub_grade("collect", NAME) == [f"Collected {NAME} from 1 student."]
    _submit(inbound, released, "bo", NO_EPS)
    _submit(inbound, released, "zed", RIGHT)
    assert hub_grade("collect", "04") == [f"Collected {NAME} from 3 students."]

    out = tmp_path / "grades.csv"
    assert hub_grade("export", str(out)) == [
        f"Wrote {out}: one row per student, one column per exercise, then the total and the maximum."
    ]
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows == [HEADER]  # collected, not graded yet: nobody has a score


def test_a_failed_nbgrader_command_is_one_sentence_and_exit_status_1(tmp_path, python, monkeypatch, capsys):
    state = tmp_path / "hub"
    cycle.Course(state / "grading", python).set_up(["mean"])
    monkeypatch.setattr(sys, "executable", python)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert cli.main(["--state", str(state), "feedback", "02"]) == 1  # nothing autograded yet
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.startswith("error: `nbgrader generate_feedback 02_mean --force` failed: ")
    assert said.err.count("\n") == 1
