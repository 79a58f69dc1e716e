"""The grading process's ``main`` (classroom/grading/runner.py), run in this process with its exits, its audit
hook and its memory ceiling stood in for: it reads the job on stdin, lowers the ceiling by the job's memory,
judges, and writes exactly one line on its stdout: the marker, the job's seal, the report, and nothing of the
seal inside the report. For the module step, a grader that cannot check its own module (no torch, or a
warm-up module that fails) reports the grader's problem, cut at 300 characters, and judges nothing.
"""

from __future__ import annotations

import io
import json
import sys
import time

import pytest

import helpers.checking.exercises as exercises
from classroom.grading import runner

SEAL = "5ea1" * 8


class Exited(Exception):
    pass


@pytest.fixture
def process(monkeypatch):
    """Run main() on ``job``: (the lines it wrote to stdout, the memory ceiling it asked for)."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    monkeypatch.setattr(sys, "stderr", sys.stderr)
    hooks, ceilings = [], []
    monkeypatch.setattr(sys, "addaudithook", hooks.append)  # never installed in the test's own process
    monkeypatch.setattr(runner, "_lower_memory_ceiling", ceilings.append)

    def exit_(code):
        raise Exited(code)

    monkeypatch.setattr(runner.os, "_exit", exit_)

    def run(capfd, **job):
        job = {"root": str(runner.__file__).rsplit("/classroom/", 1)[0], "seal": SEAL, **job}
        monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(job)))
        with pytest.raises(Exited) as exited:
            runner.main()
        assert exited.value.args == (0,)
        return capfd.readouterr().out.split("\n"), ceilings, hooks

    return run


def test_a_judged_cell_is_one_sealed_line_and_the_seal_is_not_in_the_report(process, capfd):
    code = "def mean(row):\n    return sum(row) / len(row)\n"
    lines, ceilings, hooks = process(capfd, step="mean", name="mean", code=code, memory=12345, cell_limit=5.0)
    assert lines[-1] == "" and len(lines) == 2  # one line, ending in a newline
    assert lines[0].startswith(runner.MARK + SEAL)
    report = json.loads(lines[0][len(runner.MARK + SEAL) :])
    assert report["passed"] is True and report["defined"] is True and report["mistake"] is None
    assert SEAL not in lines[0][len(runner.MARK + SEAL) :]
    assert ceilings == [12345] and len(hooks) == 1  # lowered by the job's room; the guard installed


def test_a_cell_that_defines_nothing_is_still_one_sealed_line(process, capfd):
    lines, _, _ = process(capfd, step="variance", name="variance", code="x = 1\n", memory=1)
    report = json.loads(lines[0][len(runner.MARK + SEAL) :])
    assert report["defined"] is False and "passed" not in report


@pytest.mark.parametrize(
    "warm, said",
    [
        (ImportError("No module named 'torch'"), "ImportError: No module named 'torch'"),
        (RuntimeError("x" * 400), None),
    ],
)
def test_a_grader_that_cannot_check_its_own_module_says_so_and_judges_nothing(process, capfd, monkeypatch, warm, said):
    real = exercises.check

    def check(step, fn):
        if step == "module":
            if isinstance(warm, ImportError):
                raise warm
            return type("Verdict", (), {"passed": False, "__str__": lambda self: str(warm)})()
        return real(step, fn)

    monkeypatch.setattr(exercises, "check", check)
    monkeypatch.setattr(runner, "_warm_up_module", lambda: object)  # not torch's: importing it takes seconds
    lines, ceilings, hooks = process(capfd, step="module", name="MyLayerNorm", code="class MyLayerNorm: ...", memory=1)
    assert len(lines) == 2 and lines[0].startswith(runner.MARK + SEAL)
    report = json.loads(lines[0][len(runner.MARK + SEAL) :])
    assert report == {"grader_problem": said if said else "x" * 300}
    assert ceilings == [] and hooks == []  # nothing of the student's was run


def test_no_frame_the_students_code_can_walk_up_to_holds_the_seal(process, capfd):
    code = (
        "import sys\n"
        "def look():\n"
        f"    target = {SEAL[::-1]!r}[::-1]  # the seal, but not in the cell's source\n"
        "    frame, seen = sys._getframe(1), []\n"
        "    while frame is not None:\n"
        "        seen.append(target in repr(frame.f_locals))\n"
        "        frame = frame.f_back\n"
        "    return seen\n"
        "seen = look()\n"
        "raise RuntimeError(f'frames {len(seen)} seal {any(seen)}')\n"
        "def mean(row):\n    return sum(row) / len(row)\n"
    )
    lines, _, _ = process(capfd, step="mean", name="mean", code=code, memory=1)
    report = json.loads(lines[0][len(runner.MARK + SEAL) :])
    (failed,) = report["cell_failed"]
    assert failed.startswith("your cell's line 10 raised RuntimeError: frames ")
    assert failed.endswith(" seal False") and int(failed.split()[-3]) >= 3  # it walked up through the grader


def test_a_cell_that_never_ends_is_stopped_by_the_watchdog_and_its_function_still_judged(process, capfd):
    # Ends by itself after 5 s (so that a watchdog that fails fails this test rather than hanging it).
    code = "import time\ndef mean(row):\n    return sum(row) / len(row)\nwhile time.monotonic() < {}:\n    pass\n"
    code = code.format(time.monotonic() + 5)
    lines, _, _ = process(capfd, step="mean", name="mean", code=code, memory=1, cell_limit=0.05)
    report = json.loads(lines[0][len(runner.MARK + SEAL) :])
    assert report["cell_failed"] == ["your cell's own code did not finish within 0.05 s (its line 4)"]
    assert report["passed"] is True


def test_a_module_is_judged_after_the_graders_own_module_passed_its_check(process, capfd, monkeypatch):
    checked = []

    def check(step, fn):
        checked.append((step, getattr(fn, "__name__", None)))
        return type("Verdict", (), {"passed": True, "mistake": None, "diagnosis": "Right.", "__str__": str})()

    class Warm:
        pass

    monkeypatch.setattr(exercises, "check", check)
    monkeypatch.setattr(runner, "_warm_up_module", lambda: Warm)
    code = "class MyLayerNorm:\n    pass\n"
    lines, ceilings, hooks = process(capfd, step="module", name="MyLayerNorm", code=code, memory=5)
    assert checked == [("mean", "<lambda>"), ("module", "Warm"), ("module", "MyLayerNorm")]
    report = json.loads(lines[0][len(runner.MARK + SEAL) :])
    assert report["passed"] is True and ceilings == [5] and len(hooks) == 1


def test_a_worker_that_died_without_a_report_is_read_by_the_judge_as_no_verdict(process, capfd, monkeypatch):
    """The runner's own fallback, an empty report (its worker thread ended without one), is no verdict for the
    judge: nothing earned, one sentence, never a crash of the grading."""
    from classroom.grading import judge

    def check(step, fn):
        if step == "mean" and getattr(fn, "__name__", "") == "mean":
            raise KeyboardInterrupt  # stands in for whatever ends the worker thread (a late CellTimeout)
        return type("Verdict", (), {"passed": True, "mistake": None, "diagnosis": "Right.", "__str__": str})()

    monkeypatch.setattr(exercises, "check", check)
    monkeypatch.setattr(runner.threading, "excepthook", lambda args: None)  # the thread's end, unreported
    code = "def mean(row):\n    return 0\n"
    lines, _, _ = process(capfd, step="mean", name="mean", code=code, memory=1)
    assert lines[0] == runner.MARK + SEAL + "{}"
    verdict, peak = judge._read(lines[0] + "\n", SEAL, "mean", False, 60, 0)
    assert verdict.judged is False and not verdict.passed and peak == 0
    assert verdict.problem == "Your function could not be judged, so it earns nothing."
