"""The notes under a graded answer cell (classroom/grading/nbgrader_hooks.py, ``GradeCells.preprocess``): what
the grader ignored, then the sentence on edited tests, then the late note from nbgrader's gradebook, each one
stdout line "Note: …"; none when there is nothing to say, even where the cell had outputs. In this process with
the hub environment's nbgrader (skipped where there is none), the grade and the late note stood in for.
"""

from __future__ import annotations

import copy

import nbformat
import pytest
from grading_support import hooks_fixture, nbgrader_python  # noqa: F401 — the fixture `hooks`

from classroom.grading import assignment, grade, plan

pytestmark = pytest.mark.slow  # nbgrader's import from the hub's environment takes seconds


def graded(hooks, monkeypatch, *, ignored=(), edited=None, late=None, outputs=()):
    def grade_code(step, code, **limits):
        result = grade.zero(step, "stood in")
        result.ignored = list(ignored)
        return result

    monkeypatch.setattr(hooks.grade, "grade_code", grade_code)
    monkeypatch.setattr(hooks, "_edited_tests", lambda root, resources, step: edited)
    monkeypatch.setattr(hooks, "_late", lambda resources: late)
    nb = copy.deepcopy(assignment.source_notebook("mean"))
    for cell in nb["cells"]:
        if cell["metadata"]["nbgrader"]["grade_id"] == "answer_mean":
            cell["source"] = "def mean(row):\n    return 0\n"
            cell["outputs"] = list(outputs)
    nb = nbformat.from_dict(nb)
    hooks.GradeCells(course_root=".").preprocess(nb, {"nbgrader": {}})
    answer = next(c for c in nb.cells if c.metadata.nbgrader.grade_id == plan.answer_id("mean"))
    return [dict(o) for o in answer.outputs]


def note(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": f"Note: {text}\n"}


def test_the_notes_are_what_was_ignored_then_the_edited_tests_then_the_late_note(hooks, monkeypatch):
    outputs = graded(hooks, monkeypatch, ignored=["First.", "Second."], edited="Edited.", late="Late.")
    assert outputs == [note("First."), note("Second."), note("Edited."), note("Late.")]


def test_a_late_submission_alone_gets_only_its_note(hooks, monkeypatch):
    assert graded(hooks, monkeypatch, late="Arrived late.") == [note("Arrived late.")]


def test_nothing_to_say_leaves_the_answer_cell_without_outputs(hooks, monkeypatch):
    old = nbformat.v4.new_output("stream", name="stdout", text="the student's own run\n")
    assert graded(hooks, monkeypatch, outputs=[old]) == []


def test_the_grader_is_on_as_nbgrader_calls_it(hooks, monkeypatch):
    """nbconvert runs a preprocessor only when it is enabled (off by default): nbgrader calls it, not preprocess."""
    monkeypatch.setattr(hooks.grade, "grade_code", lambda step, code, **limits: grade.zero(step, "Graded."))
    nb = nbformat.from_dict(copy.deepcopy(assignment.source_notebook("mean")))
    for cell in nb.cells:
        if cell.metadata.nbgrader.grade_id == "answer_mean":
            cell.source = "def mean(row):\n    return 0\n"
    made = hooks.GradeCells(course_root=".")
    assert made.enabled is True
    made(nb, {"nbgrader": {}})
    hidden = next(c for c in nb.cells if c.metadata.nbgrader.grade_id == "test_mean_hidden")
    assert [o["evalue"] for o in hidden.outputs] == ["Graded."]
