"""The gradebook for an LMS (classroom/grading/cycle.py, ``per_exercise``): one column per exercise of the
series, in the series' order, named for its notebook; an assignment nbgrader knows that is not one of them (an
instructor's own, made in the formgrader) has no column and counts for nothing in the total; the maximum is
the series' points: 1 per named mistake and 2 for each hidden check, added up over the seven assignments.
"""

from __future__ import annotations

import csv

from classroom.grading import cycle, plan

SERIES = ["02_mean", "03_variance", "04_epsilon_and_std", "05_normalise", "06_gamma_and_beta", "07_whole_matrix",
          "08_pytorch"]  # fmt: skip


def table(tmp_path, raw: str) -> list[dict]:
    (tmp_path / "raw.csv").write_text("assignment,student_id,score\n" + raw, encoding="utf-8")
    out = cycle.per_exercise(tmp_path / "raw.csv", tmp_path / "out.csv")
    with open(out, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_an_assignment_outside_the_series_has_no_column_and_no_share_of_the_total(tmp_path):
    rows = table(tmp_path, "02_mean,ana,6.0\n99_quiz,ana,50.0\n")
    assert list(rows[0]) == ["student", *SERIES, "total", "max"]
    assert rows[0]["total"] == "6"


def test_a_student_with_only_such_an_assignment_has_a_row_of_nothing(tmp_path):
    rows = table(tmp_path, "99_quiz,bo,50.0\n")
    assert [(r["student"], r["total"]) for r in rows] == [("bo", "0")]
    assert all(rows[0][name] == "" for name in SERIES)


def test_the_maximum_is_each_mistake_once_and_each_hidden_check_twice(tmp_path):
    rows = table(tmp_path, "02_mean,ana,1.0\n")
    tests = [test for step in plan.STEPS for test in plan.tests_for(step)]
    by_hand = sum(1 for t in tests if t.key is not None) + 2 * len(plan.STEPS)
    assert rows[0]["max"] == str(by_hand)


def test_a_total_of_parts_keeps_its_decimals(tmp_path):
    rows = table(tmp_path, "02_mean,ana,0.5\n03_variance,ana,0.25\n04_epsilon_and_std,ana,2.0\n")
    assert (rows[0]["02_mean"], rows[0]["03_variance"], rows[0]["04_epsilon_and_std"]) == ("0.5", "0.25", "2")
    assert rows[0]["total"] == "2.75"
