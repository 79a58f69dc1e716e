"""What each ``run.py hub-grade`` action does (classroom/grading/cli.py, ``run``), against a stand-in course in
this process: release builds the source from the series first, then generates, releases and shares what root
wrote with the graders; due adds the date to nbgrader's gradebook; collect counts the students it collected;
autograde says each set-aside or unreadable submission by student, in name order, before the scores; feedback
and export say what they did; the class list is the course's only when students.txt is a file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from classroom.grading import assignment, cli, hubsetup, plan


class Course:
    def __init__(self, folder: Path, problems=None):
        self.folder = folder
        self.calls: list[tuple] = []
        self.problems = problems or {}

    def generate(self, step):
        self.calls.append(("generate", step))

    def release(self, step):
        self.calls.append(("release", step))

    def collect(self, step):
        self.calls.append(("collect", step))

    def autograde(self, step):
        self.calls.append(("autograde", step))
        return dict(self.problems)

    def feedback(self, step):
        self.calls.append(("feedback", step))

    def nbgrader(self, *args):
        self.calls.append(("nbgrader", *args))
        return ""

    def export(self, out):
        self.calls.append(("export", out))
        out.write_text("student,03_variance\nana,7\n", encoding="utf-8")
        return out


@pytest.fixture
def hub(tmp_path, monkeypatch):
    state = tmp_path / "hub"
    (state / "grading" / "course").mkdir(parents=True)
    (state / "grading" / "course" / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n")
    made = {}

    def course_for(grading, python, class_list=None):
        made["args"] = (grading, python, class_list)
        made["course"] = Course(state / "grading" / "course", made.get("problems"))
        made["course"].calls = made.setdefault("calls", [])
        return made["course"]

    monkeypatch.setattr(hubsetup, "course_for", course_for)
    monkeypatch.setattr(hubsetup, "graders_gid", lambda instructors: made["calls"].append(("gid", instructors)) or 4321)
    monkeypatch.setattr(
        hubsetup, "share_with_graders", lambda folder, gid: made["calls"].append(("share", folder, gid))
    )
    monkeypatch.setattr(
        assignment, "build", lambda folder, steps: made.setdefault("calls", []).append(("build", folder, steps))
    )
    made["state"] = state
    return made


def run(hub, *argv):
    args = cli.parser().parse_args(["--state", str(hub["state"]), *argv])
    return cli.run(args)


def test_release_builds_then_generates_then_releases_then_shares_with_the_graders(hub):
    lines = run(hub, "release", "04")
    folder = hub["state"] / "grading" / "course"
    assert hub["calls"] == [
        ("build", folder, ["std"]),
        ("generate", "std"),
        ("release", "std"),
        ("gid", []),
        ("share", folder, 4321),
    ]
    assert lines == ["Released 04_epsilon_and_std: students fetch it from the assignment list."]


def test_due_adds_the_date_to_the_gradebook_under_the_assignments_name(hub):
    lines = run(hub, "due", "std", "2026-12-09 23:59 UTC")
    assert hub["calls"] == [
        ("nbgrader", "db", "assignment", "add", "04_epsilon_and_std", "--duedate=2026-12-09 23:59 UTC")
    ]
    assert lines == [
        "04_epsilon_and_std is due 2026-12-09 23:59 UTC; a later submission is graded all the same, with a note."
    ]


@pytest.mark.parametrize("students, said", [((), "0 students"), (("ana",), "1 student"), (("ana", "bo"), "2 students")])
def test_collect_counts_the_students_whose_submission_of_this_assignment_it_holds(hub, students, said):
    submitted = hub["state"] / "grading" / "course" / "submitted"
    for student in students:
        (submitted / student / "03_variance").mkdir(parents=True)
    (submitted / "cy" / "02_mean").mkdir(parents=True)  # another assignment's: not counted
    lines = run(hub, "collect", "03")
    assert hub["calls"] == [("collect", "variance")]
    assert lines == [f"Collected 03_variance from {said}."]


def test_autograde_says_each_problem_by_student_in_name_order_then_the_scores(hub):
    (hub["state"] / "grading" / "course" / "submitted" / "ana" / "03_variance").mkdir(parents=True)
    hub["problems"] = {"zed": "zed is not on the class list.", "bo": "03_variance.ipynb is empty."}
    lines = run(hub, "autograde", "variance")
    assert lines[:2] == ["bo: 03_variance.ipynb is empty.", "zed: zed is not on the class list."]
    assert lines[2:] == [f"ana: 7 of {plan.total_points('variance')}", "Autograded 03_variance: 1 submission."]
    assert hub["calls"][0] == ("autograde", "variance")


def test_feedback_generates_and_releases_and_says_so(hub):
    assert run(hub, "feedback", "02_mean") == [
        "Released the feedback on 02_mean: each student fetches their own from the assignment list."
    ]
    assert hub["calls"] == [("feedback", "mean")]


def test_export_writes_where_asked_and_says_what_the_table_holds(hub, tmp_path):
    out = tmp_path / "grades.csv"
    assert run(hub, "export", str(out)) == [
        f"Wrote {out}: one row per student, one column per exercise, then the total and the maximum."
    ]
    assert hub["calls"] == [("export", out)]


def test_the_course_is_the_hubs_grading_folder_with_this_python_and_the_class_list_when_there_is_one(hub, tmp_path):
    import sys

    run(hub, "feedback", "02")
    assert hub["args"] == (hub["state"] / "grading", sys.executable, None)
    (hub["state"] / "students.txt").write_text("ana\n", encoding="utf-8")
    run(hub, "feedback", "02")
    assert hub["args"] == (hub["state"] / "grading", sys.executable, hub["state"] / "students.txt")
    (hub["state"] / "students.txt").unlink()
    (hub["state"] / "students.txt").mkdir()  # not a file: no class list
    run(hub, "feedback", "02")
    assert hub["args"][2] is None
