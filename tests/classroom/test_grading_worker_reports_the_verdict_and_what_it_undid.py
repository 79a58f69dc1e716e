"""The grading process's worker (classroom/grading/runner.py, ``_grade``), run here with a stand-in checker:
the report it leaves for the sealed line: whether the name was defined, the cell's failed lines, what was
refused (each once, in order), what the cell patched and was undone, what the function changed while judged
(at most three; then there is no verdict), how many warnings and printed characters were kept from the
verdict, and the verdict itself: ``passed`` a true boolean, the mistake, the diagnosis and the text.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

import pytest

from classroom.grading import runner


@dataclass
class Stand:
    passed: object
    mistake: str | None
    diagnosis: str

    def __str__(self):
        return f"text of {self.diagnosis}"


@pytest.fixture(autouse=True)
def streams(monkeypatch):
    """The worker sets the streams back to the process's own: put pytest's back after each test."""
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    monkeypatch.setattr(sys, "stderr", sys.stderr)


def grade(code: str, check, refused=None, name="mean") -> dict:
    box: dict = {}
    job = {"step": "mean", "name": name, "code": code, "cell_limit": 5.0}
    runner._grade(job, check, [] if refused is None else refused, {"until": None}, box)
    return json.loads(box["report"])


def right(step, fn):
    return Stand(1, None, "Right.")


def test_a_judged_function_reports_the_checkers_verdict_with_passed_a_boolean():
    calls = []

    def check(step, fn):
        calls.append((step, fn([1, 2, 3])))
        return Stand(0, "n-1", "You divided by n − 1.")

    report = grade("def mean(row):\n    return sum(row) / len(row)\n", check)
    assert calls == [("mean", 2)]  # the step and the cell's own function
    assert report["passed"] is False and report["mistake"] == "n-1"
    assert report["diagnosis"] == "You divided by n − 1." and report["text"] == "text of You divided by n − 1."
    assert report["defined"] is True and report["cell_failed"] == [] and report["refused"] == []
    assert report["patched"] == [] and report["changed_while_judged"] == []
    assert grade("def mean(row):\n    return 0\n", right)["passed"] is True


def test_a_cell_that_does_not_define_the_name_is_never_checked():
    def check(step, fn):
        raise AssertionError("not to be called")

    report = grade("def average(row):\n    return 0\n", check)
    assert report["defined"] is False and "passed" not in report and "mistake" not in report


def test_the_cells_failed_lines_are_reported_and_the_function_still_judged():
    report = grade("x = 1 / 0\ndef mean(row):\n    return 0\n", right)
    assert report["cell_failed"] == ["your cell's line 1 raised ZeroDivisionError: division by zero"]
    assert report["defined"] is True and report["passed"] is True


def test_each_refusal_is_reported_once_in_the_order_first_made():
    refused = ["wrote a file", "started a process", "wrote a file", "started a process", "deleted a file"]
    report = grade("def mean(row):\n    return 0\n", right, refused=refused)
    assert report["refused"] == ["wrote a file", "started a process", "deleted a file"]


def test_prints_and_warnings_are_counted_and_kept_out_of_the_verdict(capfd):
    code = "import warnings\nprint('abc')\nwarnings.warn('w1')\ndef mean(row):\n    print('de')\n    return 0\n"

    def check(step, fn):
        fn([1])
        import warnings

        warnings.warn("w2", stacklevel=1)
        return Stand(True, None, "Right.")

    report = grade(code, check)
    assert report["printed"] == len("abc\n") + len("de\n")
    assert report["warnings"] == 2
    assert report["passed"] is True
    out, err = capfd.readouterr()
    assert "abc" not in out and "de" not in out and "w1" not in err


def test_what_the_function_changes_while_judged_voids_the_verdict_and_names_three(monkeypatch):
    import helpers.checking

    def check(step, fn):
        for name in ("z_one", "a_two", "m_three", "b_four"):
            setattr(helpers.checking, f"_p7_{name}", 1)
        return Stand(True, None, "Right.")

    report = grade("def mean(row):\n    return 0\n", check)
    assert "passed" not in report
    assert report["changed_while_judged"] == [
        "helpers.checking._p7_a_two",
        "helpers.checking._p7_b_four",
        "helpers.checking._p7_m_three",
    ]  # sorted, the first three
    assert not hasattr(helpers.checking, "_p7_z_one")  # and undone


def test_what_the_cell_patched_is_undone_before_the_check_and_named():
    import helpers.checking

    seen = []

    def check(step, fn):
        seen.append(getattr(helpers.checking, "_p7_planted", None))
        return Stand(True, None, "Right.")

    code = "import helpers.checking\nhelpers.checking._p7_planted = 'mine'\ndef mean(row):\n    return 0\n"
    report = grade(code, check)
    assert seen == [None]
    assert report["patched"] == ["replaced part of the checker (helpers.checking._p7_planted)"]
    assert report["passed"] is True


def test_the_cell_runs_as_its_own_module_with_the_real_builtins():
    seen = []

    def check(step, fn):
        seen.append(fn.__globals__["__name__"])
        seen.append(fn([]))
        return Stand(True, None, "Right.")

    grade("def mean(row):\n    return len\n", check)
    assert seen == ["__answer__", len]
