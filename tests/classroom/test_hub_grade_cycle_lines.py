"""``run.py hub-grade``'s cycle on a course with the real nbgrader (classroom/grading/cli.py): what each
command prints and writes, from a due date to the exported grades, with a stranger's submission set
aside. The course is set up as one user (no root: the judge runs as this account, not nobody, since
the course's configuration names none), and the root check is given root's euid. The hub's own run,
as root with the students' accounts, is test_grading_instructor's; release needs root (the graders'
group) and is tested there. Needs the hub environment's nbgrader (skipped without, like
test_grading_nbgrader).
"""

from __future__ import annotations

import csv
import json
import os
import sys

import pytest
from grading_support import python_fixture  # noqa: F401 — the fixture `python`

from classroom.grading import cli, cycle

pytestmark = pytest.mark.slow

NAME = "04_epsilon_and_std"
RIGHT = "import numpy as np\ndef std(row, eps):\n    return float(np.sqrt(np.var(row) + eps))\n"
NO_EPS = "import numpy as np\ndef std(row, eps):\n    return float(np.std(row))\n"


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
    released = json.loads(course.generate("std").read_text())
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
    inbound = course.exchange / "layernorm" / "inbound"
    inbound.mkdir(parents=True)
    assert hub_grade("collect", "std") == [f"Collected {NAME} from 0 students."]
    _submit(inbound, released, "ana", RIGHT)
    assert hub_grade("collect", NAME) == [f"Collected {NAME} from 1 student."]
    _submit(inbound, released, "bo", NO_EPS)
    _submit(inbound, released, "zed", RIGHT)  # an account on the machine, not on the class list
    assert hub_grade("collect", "04") == [f"Collected {NAME} from 3 students."]

    refused = course.folder / "refused"
    assert hub_grade("autograde", "04") == [
        f"zed: zed is not on the class list: their {NAME} was kept in {refused} and not graded.",
        "ana: 15 of 15",
        "bo: 12 of 15",  # ε forgotten: its test and the hidden one (2 points) lost
        f"Autograded {NAME}: 2 submissions.",
    ]
    assert hub_grade("feedback", "std") == [
        f"Released the feedback on {NAME}: each student fetches their own from the assignment list."
    ]
    assert sorted(p.parent.parent.name for p in course.folder.glob(f"feedback/*/{NAME}/{NAME}.html")) == ["ana", "bo"]
    assert len(list((course.exchange / "layernorm" / "feedback").glob("*.html"))) == 2

    out = tmp_path / "grades.csv"
    assert hub_grade("export", str(out)) == [
        f"Wrote {out}: one row per student, one column per exercise, then the total and the maximum."
    ]
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["student"], r[NAME], r["02_mean"], r["total"], r["max"]) for r in rows] == [
        ("ana", "15", "", "15", "109"),
        ("bo", "12", "", "12", "109"),
    ]


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
