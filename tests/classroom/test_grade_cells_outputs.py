"""nbgrader's autograde step with this grader, called as nbgrader calls it (classroom/grading/nbgrader_hooks.py):
each test cell's output is its sentence (✓ stream when passed, a "Not passed" error when not, which
nbgrader's SaveAutoGrades reads as 0), the hidden test's code replaced by one comment, the notes under
the answer cell, a deleted test put back as released, an empty or unreadable answer a zero saying why,
the instructor's autograde refused in one sentence, and the late note from nbgrader's gradebook. In
this process, with the nbgrader of the hub's environment (skipped where there is none); no root, no hub.
The whole nbgrader run is test_grading_nbgrader's.
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest
from grading_support import hooks_fixture, nbgrader_python  # noqa: F401 — the fixture `hooks`

from classroom.grading import assignment, grade, plan

# nbgrader's import from the hub's environment takes about 8 s: out of the fast loop, in `run.py test`.
pytestmark = pytest.mark.slow

RIGHT = "def mean(row):\n    return sum(row) / len(row)\n"
N_MINUS_1 = "def mean(row):\n    return sum(row) / (len(row) - 1)\n"
TESTS = [t.grade_id for t in plan.tests_for("mean")]
HIDDEN = "test_mean_hidden"
NOTE = "# Hidden test: the full check on cases you have not seen (its code is not shown)."
REFUSAL = (
    "Autograding runs each student's code as the account nobody, which only root can do, so it was not started "
    "from here: on the hub's machine run `sudo python3 run.py hub-grade autograde {assignment}`."
)


def _released() -> dict:
    return assignment.source_notebook("mean")


def _notebook(answer: str | None, *, drop=(), source=None) -> nbformat.NotebookNode:
    nb = copy.deepcopy(source or _released())
    nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") not in drop]
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "answer_mean" and answer is not None:
            cell["source"] = answer
    return nbformat.from_dict(nb)


def _cells(nb) -> dict:
    return {c["metadata"].get("nbgrader", {}).get("grade_id"): c for c in nb["cells"]}


def _outputs(nb) -> dict:
    return {key: [dict(o) for o in cell.get("outputs", [])] for key, cell in _cells(nb).items() if key}


def _passed(sentence: str) -> list[dict]:
    return [{"output_type": "stream", "name": "stdout", "text": f"✓ {sentence}\n"}]


def _failed(sentence: str) -> list[dict]:
    return [{"output_type": "error", "ename": "Not passed", "evalue": sentence, "traceback": [f"✗ {sentence}"]}]


def _course(tmp_path: Path, submitted: dict | None = None, student: str = "ana") -> Path:
    """A course folder with the released notebook and, if given, a student's submission as it arrived."""
    root = tmp_path / "course"
    release = root / "release" / "02_mean" / "02_mean.ipynb"
    release.parent.mkdir(parents=True)
    release.write_text(json.dumps(_released()))
    if submitted is not None:
        path = root / "submitted" / student / "02_mean" / "02_mean.ipynb"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(submitted))
    return root


def _info(student: str = "ana") -> dict:
    return {"nbgrader": {"assignment": "02_mean", "notebook": "02_mean", "student": student}}


def test_a_notebook_of_no_assignment_is_left_as_it_is(hooks):
    nb = nbformat.from_dict({"cells": [{"cell_type": "code", "metadata": {}, "source": "x", "outputs": []}],
                             "metadata": {}, "nbformat": 4, "nbformat_minor": 5})  # fmt: skip
    before = copy.deepcopy(nb)
    resources = {"nbgrader": {}}
    assert hooks.GradeCells().preprocess(nb, resources) == (before, resources)


def test_the_step_is_the_first_of_the_series_whose_answer_cell_the_notebook_has(hooks):
    answers = [plan.answer_id(s) for s in ("std", "mean")]
    nb = {"cells": [{"metadata": {"nbgrader": {"grade_id": key}}} for key in answers]}
    assert hooks._step_of(nb) == "mean"
    assert hooks._step_of({"cells": [{"metadata": {"nbgrader": {"grade_id": "answer_module"}}}]}) == "module"
    assert hooks._step_of({"cells": [{"metadata": {"nbgrader": {"grade_id": "answer_other"}}}]}) is None


def test_a_right_answer_passes_every_test_and_the_hidden_tests_code_is_hidden(hooks, tmp_path):
    nb = _notebook(RIGHT)
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    outputs = _outputs(nb)
    assert {key: outputs[key] for key in TESTS} == {
        **{key: _passed("Not made.") for key in TESTS[:-1]},
        HIDDEN: _passed("Right on every unseen case."),
    }
    assert outputs["answer_mean"] == []
    assert _cells(nb)[HIDDEN].source == NOTE
    assert [c.source for c in nb.cells if c is not _cells(nb)[HIDDEN]] == [
        c["source"] for c in _notebook(RIGHT).cells if c["metadata"].get("nbgrader", {}).get("grade_id") != HIDDEN
    ]  # every other cell as it was


def test_a_named_mistake_fails_its_test_and_the_hidden_one_with_the_checkers_sentence(hooks, tmp_path):
    nb = _notebook(N_MINUS_1)
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    outputs = _outputs(nb)
    sentence = outputs["test_mean_n-1"][0].get("evalue", "")
    assert sentence.startswith("Looks like a known mistake: dividing the sum by n − 1.")
    assert {key: outputs[key] for key in TESTS} == {
        **{key: _passed("Not made.") for key in TESTS if key not in ("test_mean_n-1", HIDDEN)},
        "test_mean_n-1": _failed(sentence),
        HIDDEN: _failed(sentence),
    }


@pytest.mark.parametrize("answer", ["", "  \n\n", "\t"])
def test_an_empty_answer_cell_is_a_zero_saying_nothing_was_submitted(hooks, tmp_path, answer):
    nb = _notebook(answer)
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    sentence = "The answer cell is empty: nothing was submitted."
    assert {key: _outputs(nb)[key] for key in TESTS} == {key: _failed(sentence) for key in TESTS}


def test_an_unreadable_submissions_stand_in_is_a_zero_with_its_sentence(hooks, tmp_path):
    sentence = "02_mean.ipynb is not a readable notebook (its JSON breaks at line 1); submit it again from JupyterLab."
    nb = _notebook("# Not graded: " + sentence + "\n")
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    assert {key: _outputs(nb)[key] for key in TESTS} == {key: _failed(sentence) for key in TESTS}


def test_an_answer_that_only_mentions_the_stand_ins_words_is_graded(hooks, tmp_path):
    nb = _notebook(RIGHT + "# Not graded: a comment of mine\n")
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    assert _outputs(nb)[HIDDEN] == _passed("Right on every unseen case.")


@pytest.mark.parametrize("resources, named", [(_info(), "02_mean"), ({}, "NN"), ({"nbgrader": {}}, "NN")])
def test_an_instructors_autograde_is_refused_in_one_sentence_and_grades_nothing(
    hooks, tmp_path, monkeypatch, resources, named
):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    nb = _notebook(RIGHT)
    with pytest.raises(PermissionError) as refused:
        hooks.GradeCells(course_root=str(tmp_path), user="nobody").preprocess(nb, resources)
    assert str(refused.value) == REFUSAL.format(assignment=named)
    assert all(_outputs(nb)[key] == [] for key in TESTS)


def test_the_judge_gets_the_account_the_python_and_the_course_folder_to_keep_out_of(hooks, tmp_path, monkeypatch):
    seen = []

    def judged(step, code, **limits):
        seen.append((step, code, limits))
        return grade.zero(step, "judged elsewhere")

    monkeypatch.setattr(hooks.grade, "grade_code", judged)
    monkeypatch.setattr(os, "geteuid", lambda: 0)  # root's autograde: the judge runs as the account
    course = tmp_path / "link"
    course.symlink_to(tmp_path)
    hooks.GradeCells(course_root=str(course), user="nobody", python="/opt/hub/python").preprocess(
        _notebook(RIGHT), {"nbgrader": {}}
    )
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(_notebook(RIGHT), {"nbgrader": {}})
    with_all = {"forbidden": (str(tmp_path),), "user": "nobody", "python": "/opt/hub/python"}
    assert seen == [("mean", RIGHT, with_all), ("mean", RIGHT, {"forbidden": (str(tmp_path),)})]


def test_by_default_the_course_folder_is_the_working_folder(hooks):
    assert (hooks.GradeCells().course_root, hooks.GradeCells().user, hooks.GradeCells().python) == (".", "", "")
    assert hooks.GradeCells().enabled is True


def test_the_answer_may_not_read_the_course_folder_and_is_told_so(hooks, tmp_path):
    (tmp_path / "gradebook.db").write_text("grades")
    code = f"try:\n    open({str(tmp_path / 'gradebook.db')!r}).read()\nexcept OSError:\n    pass\n" + RIGHT
    nb = _notebook(code)
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    (note,) = _outputs(nb)["answer_mean"]
    assert note["output_type"] == "stream" and note["name"] == "stdout"
    assert note["text"].startswith(
        "Note: Your code tried to do what grading does not allow (read the solutions or the course's files)"
    )
    assert note["text"].endswith("\n")
    assert _outputs(nb)[HIDDEN] == _passed("Right on every unseen case.")


def test_a_deleted_test_is_put_back_at_the_end_as_released_and_noted(hooks, tmp_path):
    submitted = _notebook(RIGHT, drop=("test_mean_median",))
    root = _course(tmp_path, submitted)
    nb = copy.deepcopy(submitted)
    hooks.GradeCells(course_root=str(root)).preprocess(nb, _info())
    released = _cells(_released())["test_mean_median"]
    assert nb.cells[-1]["metadata"] == released["metadata"] and nb.cells[-1]["source"] == released["source"]
    assert len(nb.cells) == len(_released()["cells"])
    assert _outputs(nb)["test_mean_median"] == _passed("Not made.")
    assert _outputs(nb)["answer_mean"] == [
        {
            "output_type": "stream",
            "name": "stdout",
            "text": "Note: Your notebook deleted test cell test_mean_median: the grade uses the tests as released, "
            "found by their ids, so that was ignored.\n",
        }
    ]


@pytest.mark.parametrize(
    "resources", [{}, {"nbgrader": {"notebook": "02_mean"}}, {"nbgrader": {"assignment": "02_mean"}}]
)
def test_without_the_assignment_or_notebook_nothing_is_put_back(hooks, tmp_path, resources):
    nb = _notebook(RIGHT, drop=("test_mean_median",))
    hooks._restore_deleted_tests(nb, _course(tmp_path), resources, "mean")
    assert "test_mean_median" not in _cells(nb)


def test_without_a_released_notebook_nothing_is_put_back(hooks, tmp_path):
    nb = _notebook(RIGHT, drop=("test_mean_median", "test_mean_n-1"))
    hooks._restore_deleted_tests(nb, tmp_path, _info(), "mean")
    assert len(nb.cells) == len(_released()["cells"]) - 2


def test_a_test_cell_the_released_notebook_lacks_too_is_not_invented(hooks, tmp_path):
    root = _course(tmp_path)
    released = _notebook(None, drop=("test_mean_median",))
    (root / "release" / "02_mean" / "02_mean.ipynb").write_text(json.dumps(released))
    nb = _notebook(RIGHT, drop=("test_mean_median", "test_mean_n-1"))
    hooks._restore_deleted_tests(nb, root, _info(), "mean")
    assert [c["metadata"].get("nbgrader", {}).get("grade_id") for c in nb.cells][-1] == "test_mean_n-1"
    assert "test_mean_median" not in _cells(nb)


def test_an_edited_test_is_noted_from_the_submission_as_it_arrived(hooks, tmp_path):
    submitted = _notebook(RIGHT)
    _cells(submitted)["test_mean_n-1"]["source"] = "pass"
    assert hooks._edited_tests(_course(tmp_path, submitted), _info(), "mean") == (
        "Your notebook edited test cell test_mean_n-1 (its code or points): the grade uses the tests as released, "
        "found by their ids, so that was ignored."
    )


@pytest.mark.parametrize("missing", ["assignment", "student", "notebook"])
def test_without_the_submissions_names_no_edit_is_noted(hooks, tmp_path, missing):
    submitted = _notebook(RIGHT, drop=("test_mean_median",))
    info = _info()
    del info["nbgrader"][missing]
    assert hooks._edited_tests(_course(tmp_path, submitted), info, "mean") is None


def test_an_unchanged_or_unreadable_submission_notes_no_edit(hooks, tmp_path):
    root = _course(tmp_path, _notebook(RIGHT))
    assert hooks._edited_tests(root, _info(), "mean") is None
    (root / "submitted" / "ana" / "02_mean" / "02_mean.ipynb").write_text("{")
    assert hooks._edited_tests(root, _info(), "mean") is None
    assert hooks._edited_tests(root, _info("bo"), "mean") is None


# ---- the late note, from nbgrader's own gradebook ----

DUE = datetime.datetime(2026, 12, 2, 10, 0)
# student: submitted this many minutes after the due date
LATE = {
    "on-time": 0,
    "early": -30,
    "a-second": 1 / 60,
    "seconds": 20 / 60,
    "under-one": 59 / 60,
    "one": 1,
    "one-and-a-bit": 1.4,
    "two": 1.5,
    "a-bit": 45,
    "just-under": 119.4,
    "shown-as-two-hours": 119.7,
    "two-hours": 120,
    "later": 150,
    "next-day": 24 * 60,
}
MAKE = """
import datetime, sys
from nbgrader.api import Gradebook
due = datetime.datetime(2026, 12, 2, 10, 0)
with Gradebook(sys.argv[1]) as gradebook:
    gradebook.add_assignment("02_mean", duedate=due)
    gradebook.add_assignment("03_variance")
    for student, minutes in {late!r}.items():
        gradebook.add_student(student)
        gradebook.add_submission("02_mean", student, timestamp=due + datetime.timedelta(minutes=minutes))
    gradebook.add_submission("03_variance", "on-time", timestamp=due)
"""


@pytest.mark.slow
def test_a_late_submission_gets_a_note_saying_how_late_and_the_grade_stays(hooks, tmp_path):
    python = nbgrader_python()
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    env = {**os.environ, "PATH": f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run([python, "-c", MAKE.format(late=LATE), url], check=True, env=env, capture_output=True)

    def note(student: str, name: str = "02_mean"):
        return hooks._late({"nbgrader": {"db_url": url, "assignment": name, "student": student}})

    def late(span: str) -> str:
        return (
            f"This submission arrived {span} after the deadline (2026-12-02 10:00 UTC): it was graded all the same, "
            "and the course's late rule decides what that costs."
        )

    assert note("a-second") == note("seconds") == note("under-one") == late("less than a minute")  # not "0 minutes"
    assert note("one") == note("one-and-a-bit") == late("1 minute")
    assert note("two") == late("2 minutes")
    assert note("a-bit") == late("45 minutes")
    assert note("just-under") == late("119 minutes")
    assert note("two-hours") == note("shown-as-two-hours") == late("2.0 hours")  # never "120 minutes"
    assert note("later") == late("2.5 hours")
    assert note("next-day") == late("24.0 hours")
    assert note("on-time") is None and note("early") is None
    assert note("on-time", "03_variance") is None  # no due date
    assert note("nobody-by-that-name") is None
    assert hooks._late({"nbgrader": {"assignment": "02_mean", "student": "a-bit"}}) is None  # no gradebook named
    assert hooks._late({}) is None  # no submission named at all


def test_the_course_configuration_sets_the_account_the_python_and_the_course_folder(hooks):
    from traitlets.config import Config

    config = Config()
    config.GradeCells.user, config.GradeCells.python, config.GradeCells.course_root = "nobody", "/opt/py", "/srv/c"
    made = hooks.GradeCells(config=config)
    assert (made.user, made.python, made.course_root) == ("nobody", "/opt/py", "/srv/c")


def test_a_test_cell_missing_with_no_release_to_restore_it_leaves_the_others_graded(hooks, tmp_path):
    nb = _notebook(RIGHT, drop=("test_mean_n-1",))
    hooks.GradeCells(course_root=str(tmp_path)).preprocess(nb, {"nbgrader": {}})
    outputs = _outputs(nb)
    assert "test_mean_n-1" not in outputs
    assert {key: outputs[key] for key in TESTS if key != "test_mean_n-1"} == {
        **{key: _passed("Not made.") for key in TESTS[1:-1]},
        HIDDEN: _passed("Right on every unseen case."),
    }


def test_what_was_ignored_comes_first_then_the_edited_tests(hooks, tmp_path):
    code = "open('/tmp/anything', 'w')\n" + RIGHT
    submitted = _notebook(code)
    _cells(submitted)["test_mean_median"]["source"] = "pass"
    root = _course(tmp_path, submitted)
    nb = copy.deepcopy(submitted)
    hooks.GradeCells(course_root=str(root)).preprocess(nb, _info())
    notes = [o["text"] for o in _outputs(nb)["answer_mean"]]
    assert len(notes) == 2
    assert notes[0].startswith("Note: Your code tried to do what grading does not allow (wrote a file)")
    assert notes[1] == (
        "Note: Your notebook edited test cell test_mean_median (its code or points): the grade uses the tests as "
        "released, found by their ids, so that was ignored.\n"
    )
