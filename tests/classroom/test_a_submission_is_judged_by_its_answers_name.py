"""One submission's grade (classroom/grading/grade.py, ``grade_code`` and ``grade_notebook``), with the judge
stood in for: the code is judged under the answer's own name for the step (``MyLayerNorm`` for the module,
not "module"), with the limits given; the grade carries the verdict's notes (a copy), its problem, its time
and peak size; a notebook is judged by its answer cell alone, its tests compared with the release only when
one is given, the sentence on edited tests coming after what the judge ignored.
"""

from __future__ import annotations

import json

import pytest

from classroom.grading import grade, judge, plan


@pytest.fixture
def judged(monkeypatch):
    seen = []
    notes = ["Your code tried to do what grading does not allow (wrote a file): ..."]

    def stand_in(step, name, code, **limits):
        seen.append((step, name, code, limits))
        return judge.Verdict(True, passed=True, ignored=notes, seconds=1.25, peak_kib=4096)

    monkeypatch.setattr(judge, "judge", stand_in)
    return seen, notes


@pytest.mark.parametrize("step, name", [("mean", "mean"), ("scale_shift", "scale_shift"), ("module", "MyLayerNorm")])
def test_the_code_is_judged_under_the_answers_own_name_with_the_limits_given(judged, step, name):
    seen, _ = judged
    result = grade.grade_code(step, "the code", timeout=9, user="nobody")
    assert seen == [(step, name, "the code", {"timeout": 9, "user": "nobody"})]
    assert result.step == step and result.score == result.max_score == plan.total_points(step)


def test_the_grade_carries_the_verdicts_notes_time_and_peak(judged):
    _, notes = judged
    result = grade.grade_code("mean", "x")
    assert result.ignored == notes and result.ignored is not notes  # the grade's own list, added to later
    assert (result.seconds, result.peak_kib, result.problem) == (1.25, 4096, "")


def test_a_verdicts_problem_is_the_grades(monkeypatch):
    monkeypatch.setattr(judge, "judge", lambda *a, **k: judge.Verdict(False, problem="Too slow."))
    result = grade.grade_code("mean", "x")
    assert result.problem == "Too slow." and result.score == 0


def submission(tmp_path, answer: str, test_source: str = "check()") -> tuple:
    ids = [t.grade_id for t in plan.tests_for("mean")]
    released = {
        "cells": [
            {"cell_type": "code", "source": "def mean(row): ...", "metadata": {"nbgrader": {"grade_id": "answer_mean"}}}
        ]
        + [
            {"cell_type": "code", "source": "check()", "metadata": {"nbgrader": {"grade_id": i, "points": 1}}}
            for i in ids
        ]
    }
    submitted = json.loads(json.dumps(released))
    submitted["cells"][0]["source"] = answer
    submitted["cells"][1]["source"] = test_source
    path = tmp_path / "02_mean.ipynb"
    path.write_text(json.dumps(submitted), encoding="utf-8")
    return path, released


def test_a_notebook_is_judged_by_its_answer_cell_and_its_edits_noted_after_the_judges(judged, tmp_path):
    seen, notes = judged
    path, released = submission(tmp_path, "def mean(row):\n    return 1\n", test_source="pass")
    result = grade.grade_notebook(path, "mean", released, timeout=4)
    assert seen == [("mean", "mean", "def mean(row):\n    return 1\n", {"timeout": 4})]
    assert result.ignored[:-1] == notes and len(result.ignored) == 2
    assert result.ignored[-1].startswith(f"Your notebook edited test cell {plan.tests_for('mean')[0].grade_id} ")
    assert len(notes) == 1  # the verdict's own list untouched


def test_without_the_release_no_test_is_compared(judged, tmp_path):
    _, notes = judged
    path, _ = submission(tmp_path, "def mean(row):\n    return 1\n", test_source="pass")
    assert grade.grade_notebook(path, "mean").ignored == notes


def test_an_unchanged_notebook_adds_no_note(judged, tmp_path):
    _, notes = judged
    path, released = submission(tmp_path, "def mean(row):\n    return 1\n")
    assert grade.grade_notebook(path, "mean", released).ignored == notes


def test_a_notebook_without_its_answer_cell_is_never_judged(judged, tmp_path):
    seen, _ = judged
    path = tmp_path / "02_mean.ipynb"
    path.write_text(json.dumps({"cells": []}), encoding="utf-8")
    result = grade.grade_notebook(path, "mean", {"cells": []})
    assert seen == [] and result.score == 0 and result.ignored == []
    assert result.problem.startswith("Your notebook has no answer cell answer_mean ")
