"""``run.py hub-grade autograde`` and ``feedback`` with the real nbgrader (classroom/grading/cli.py): one
line per submission set aside, one per student's score of the maximum, the count, then the feedback
released and the scores exported. As test_hub_grade_cycle_lines, without root (the judge runs as this
account). Not in mutmut's grading-cycle area: GradeCells runs inside nbgrader's own process there,
where mutmut's call recording cannot follow it.
"""

from __future__ import annotations

import csv
import json
import os
import sys

import pytest
from grading_support import python_fixture  # noqa: F401 — the fixture `python`
from test_hub_grade_cycle_lines import HEADER, NAME, NO_EPS, RIGHT, _submit

from classroom.grading import cli, cycle

pytestmark = pytest.mark.slow


def test_autograde_prints_each_score_and_feedback_and_export_follow(tmp_path, python, monkeypatch, capsys):
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

    inbound = course.exchange / "layernorm" / "inbound"
    for student, code in (("ana", RIGHT), ("bo", NO_EPS), ("zed", RIGHT)):  # zed: not on the class list
        _submit(inbound, released, student, code)
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
    hub_grade("export", str(out))
    rows = list(csv.reader(out.open(encoding="utf-8")))
    column = HEADER.index(NAME)
    assert rows[0] == HEADER
    assert [(r[0], r[column], r[-2], r[-1]) for r in rows[1:]] == [
        ("ana", "15", "15", "109"),
        ("bo", "12", "12", "109"),
    ]
