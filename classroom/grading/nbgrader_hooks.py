"""nbgrader's autograde with this grader: :class:`GradeCells` takes the place of nbgrader's
``Execute``, so no submitted notebook runs in a kernel (as the instructor, with the tests in the
student's namespace). The answer cell is judged alone in a fresh process; each test cell's output
becomes its sentence (an error output when it failed, which nbgrader's SaveAutoGrades reads as 0
points; plain text when it passed: full points); the hidden test's code is replaced by one comment,
so the feedback never shows it; what was ignored goes under the answer cell.

Imported only where nbgrader is installed (the hub's environment); set up by
:func:`classroom.grading.course.config_text`.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbformat.v4 import new_output
from traitlets import Bool, Unicode

from classroom.grading import grade, notebook, plan

NOT_ROOT = (
    "Autograding runs each student's code as the account {user}, which only root can do, so it was not "
    "started from here: on the hub's machine run `sudo python3 run.py hub-grade autograde {assignment}`."
)
HIDDEN_NOTE = "# Hidden test: the full check on cases you have not seen (its code is not shown)."


def _step_of(nb) -> str | None:
    ids = notebook.by_id(nb)
    return next((step for step in plan.STEPS if plan.answer_id(step) in ids), None)


class GradeCells(Preprocessor):
    """Grade the notebook's answer cell with :mod:`classroom.grading` and write the tests' outputs."""

    enabled = Bool(True)  # nbconvert's default is off
    user = Unicode("", help="As root: the unprivileged account that judges the answer cells.").tag(config=True)
    python = Unicode("", help="The Python that judges (default nbgrader's own).").tag(config=True)
    course_root = Unicode(".", help="The course folder (submitted/ and release/ are read from it).").tag(config=True)

    def preprocess(self, nb, resources):
        step = _step_of(nb)
        if step is None:
            return nb, resources
        _restore_deleted_tests(nb, Path(self.course_root), resources, step)
        cells = notebook.by_id(nb)
        limits = {"forbidden": (os.path.realpath(self.course_root),)}  # the sources, the gradebook
        if self.user and os.geteuid() != 0:
            raise PermissionError(
                NOT_ROOT.format(user=self.user, assignment=resources.get("nbgrader", {}).get("assignment", "NN"))
            )
        if self.user:
            limits["user"] = self.user
        if self.python:
            limits["python"] = self.python
        code = notebook.source(cells[plan.answer_id(step)])
        if code.startswith(notebook.UNREADABLE):  # the submission could not be read: its sentence, 0 points
            result = grade.zero(step, code[len(notebook.UNREADABLE) :].strip())
        elif not code.strip():
            result = grade.zero(step, "The answer cell is empty: nothing was submitted.")
        else:
            result = grade.grade_code(step, code, **limits)
        for outcome in result.outcomes:
            cell = cells.get(outcome.test.grade_id)
            if cell is None:
                continue
            if outcome.test.hidden:
                cell.source = HIDDEN_NOTE
            cell.outputs = [_output(outcome)]
        edited = _edited_tests(Path(self.course_root), resources, step)
        answer = cells[plan.answer_id(step)]
        late = _late(resources)
        notes = result.ignored + [sentence for sentence in (edited, late) if sentence]
        answer.outputs = [new_output("stream", name="stdout", text=f"Note: {s}\n") for s in notes]
        return nb, resources


def _restore_deleted_tests(nb, root: Path, resources: dict, step: str) -> None:
    """Put back, at the end, the test cells the student deleted, as released: nbgrader grades only the
    cells a notebook has, so a deleted test would cost its points whatever the function earns."""
    info = resources.get("nbgrader", {})
    try:
        released = notebook.read(root / "release" / info["assignment"] / f"{info['notebook']}.ipynb")
    except (KeyError, notebook.BadSubmission):
        return
    present, ours = notebook.by_id(nb), notebook.by_id(released)
    for test in plan.tests_for(step):
        if test.grade_id not in present and test.grade_id in ours:
            nb.cells.append(nbformat.from_dict(ours[test.grade_id]))


def _edited_tests(root: Path, resources: dict, step: str) -> str | None:
    """The sentence on test cells the student edited, deleted or moved, read from the submission as
    it arrived (nbgrader has already put the released tests back into the notebook graded here)."""
    info = resources.get("nbgrader", {})
    try:
        name, student, notebook_id = info["assignment"], info["student"], info["notebook"]
        submitted = notebook.read(root / "submitted" / student / name / f"{notebook_id}.ipynb")
        released = notebook.read(root / "release" / name / f"{notebook_id}.ipynb")
    except (KeyError, notebook.BadSubmission):
        return None
    return notebook.changed_tests(submitted, released, [t.grade_id for t in plan.tests_for(step)])


def _late(resources: dict) -> str | None:
    """One sentence when the submission arrived after the assignment's due date (nbgrader's gradebook:
    ``nbgrader db assignment add NAME --duedate=...``); the grade is the same, and nbgrader's late
    rule (``LateSubmissionPlugin``, none by default) decides what it costs."""
    from nbgrader.api import Gradebook, MissingEntry

    info = resources.get("nbgrader", {})
    try:
        with Gradebook(info["db_url"]) as gradebook:
            submission = gradebook.find_submission(info["assignment"], info["student"])
            late, due = submission.total_seconds_late, submission.duedate
    except (KeyError, MissingEntry):
        return None
    if not late or late <= 0 or due is None:
        return None
    minutes = late / 60
    shown = f"{minutes:.0f}"
    if minutes < 1:  # "0 minutes" would say it was not late
        span = "less than a minute"
    elif int(shown) < 120:  # as shown: 119.7 minutes is "2.0 hours", never "120 minutes"
        span = f"{shown} minute{'' if shown == '1' else 's'}"
    else:
        span = f"{minutes / 60:.1f} hours"
    return (
        f"This submission arrived {span} after the deadline ({due:%Y-%m-%d %H:%M} UTC): it was graded all the "
        "same, and the course's late rule decides what that costs."
    )


def _output(outcome: grade.Outcome):
    if outcome.passed:
        return new_output("stream", name="stdout", text=f"✓ {outcome.sentence}\n")
    return new_output("error", ename="Not passed", evalue=outcome.sentence, traceback=[f"✗ {outcome.sentence}"])
