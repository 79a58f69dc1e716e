"""What the judge makes of the grading process (classroom/grading/judge.py), from its docstrings, without starting
one: only the line carrying the job's seal is the verdict; no sealed line says why in one sentence (out of time,
out of memory or CPU, or ended early); the grader's own failure is never the student's grade; what was refused,
undone or skipped is said once each; and the process gets a minimal environment, with no hub token.
"""

from __future__ import annotations

import json
import pwd
import signal

import pytest

from classroom.grading import judge, runner

SEAL = "0123456789abcdef0123456789abcdef"
REPORT = {
    "defined": True,
    "cell_failed": [],
    "refused": [],
    "patched": [],
    "changed_while_judged": [],
    "peak_kib": 51234,
    "passed": False,
    "mistake": "n-1",
    "diagnosis": "Looks like a known mistake: dividing by n − 1.",
    "text": "✗ variance: dividing by n − 1.",
}


def sealed(report: dict, seal: str = SEAL) -> str:
    return runner.MARK + seal + json.dumps(report)


def read(out: str, *, timed_out=False, timeout=60.0, code=0, name="variance"):
    return judge._read(out, SEAL, name, timed_out, timeout, code)


def test_the_sealed_report_is_the_verdict_with_the_processs_peak_size():
    verdict, peak = read("the student's print\n" + sealed(REPORT) + "\n")
    assert (verdict.judged, verdict.passed, verdict.mistake) == (True, False, "n-1")
    assert verdict.diagnosis == REPORT["diagnosis"] and verdict.text == REPORT["text"]
    assert verdict.ignored == [] and verdict.problem == "" and peak == 51234
    right, _ = read(sealed({**REPORT, "passed": True, "mistake": None, "diagnosis": "Right."}))
    assert (right.judged, right.passed, right.mistake, right.diagnosis) == (True, True, None, "Right.")


def test_a_report_without_its_peak_size_reads_as_unknown():
    report = {k: v for k, v in REPORT.items() if k != "peak_kib"}
    assert read(sealed(report))[1] == 0


def test_the_last_sealed_line_is_the_verdict():
    first = sealed({**REPORT, "passed": True, "mistake": None})
    verdict, _ = read(first + "\n" + sealed(REPORT) + "\n")
    assert verdict.mistake == "n-1" and not verdict.passed


@pytest.mark.parametrize(
    "out",
    [
        sealed({**REPORT, "passed": True}, seal="f" * 32),  # another job's seal, or a guessed one
        runner.MARK + '{"passed": true}',  # the marker without the seal
        " " + sealed({**REPORT, "passed": True}),  # the seal not at the start of its line
        "",
    ],
)
def test_a_line_without_the_jobs_seal_is_no_verdict(out):
    verdict, peak = read(out)
    assert verdict.judged is False and not verdict.passed and peak == 0
    assert verdict.problem == "Your code ended the grading process before it was judged, so it earns nothing."


@pytest.mark.parametrize("timeout, said", [(60.0, "60 s"), (2.5, "2.5 s")])
def test_a_process_stopped_at_its_time_says_so_with_the_limit(timeout, said):
    verdict, peak = read("", timed_out=True, timeout=timeout, code=-signal.SIGKILL)
    assert verdict.judged is False and peak == 0
    assert verdict.problem == f"Your code did not finish within {said}, so it earns nothing."


@pytest.mark.parametrize(
    "code, out", [(-signal.SIGKILL, "partial output"), (-signal.SIGXCPU, ""), (-signal.SIGSEGV, ""), (1, "")]
)
def test_a_process_killed_for_memory_or_cpu_says_so(code, out):
    verdict, _ = read(out, code=code)
    assert verdict.judged is False
    assert verdict.problem == "Your code used more memory or time than grading allows, so it earns nothing."


@pytest.mark.parametrize("code, out", [(0, ""), (1, "Traceback: something printed"), (2, ""), (-signal.SIGTERM, "")])
def test_a_process_that_ended_otherwise_before_its_verdict_says_so(code, out):
    verdict, _ = read(out, code=code)
    assert verdict.problem == "Your code ended the grading process before it was judged, so it earns nothing."


def test_the_graders_own_failure_is_no_grade_and_asks_for_the_staff():
    verdict, peak = read(sealed({"grader_problem": "ImportError: no torch"}))
    assert verdict.judged is False and not verdict.passed and peak == 0
    assert verdict.problem == (
        "The grader could not run its checks here, so nothing was judged and this is not your grade: tell the "
        "course's staff (ImportError: no torch)."
    )


def test_what_was_refused_then_what_was_undone_is_said_once_each_beside_the_verdict():
    report = {**REPORT, "refused": ["wrote a file", "started a process"], "patched": ["replaced numpy.mean"]}
    verdict, _ = read(sealed(report))
    assert verdict.judged and verdict.mistake == "n-1"
    assert verdict.ignored == [
        judge._refused(["wrote a file", "started a process"]),
        judge._patched(["replaced numpy.mean"]),
    ]
    assert read(sealed({**REPORT, "patched": ["replaced numpy.mean"]}))[0].ignored == [
        judge._patched(["replaced numpy.mean"])
    ]


def test_a_failed_line_of_the_cell_is_said_once_and_the_rest_is_judged():
    refused = "your cell's line 3 raised PermissionError: Not allowed while grading: wrote a file."
    failed = ["your cell's line 2 raised ZeroDivisionError: division by zero", "your cell's line 4 raised X: y"]
    verdict, _ = read(sealed({**REPORT, "cell_failed": [failed[0], refused, failed[1]], "refused": ["wrote a file"]}))
    assert verdict.judged and verdict.mistake == "n-1"
    assert verdict.ignored == [
        judge._refused(["wrote a file"]),  # the refused line is said there, not again
        f"In your answer cell, {failed[0]}; {failed[1]}; that was skipped, and the rest of the cell ran.",
    ]


def test_a_cell_that_defines_nothing_says_why_and_what_was_refused():
    verdict, peak = read(sealed({"defined": False, "cell_failed": [], "refused": [], "patched": [], "peak_kib": 7}))
    assert verdict.judged is False and verdict.ignored == [] and peak == 7
    assert verdict.problem == "Your answer cell defines nothing to judge: it does not define variance."
    failed = ["your cell's line 1 raised SyntaxError: invalid syntax", "your cell's line 2 raised NameError: x"]
    report = {"defined": False, "cell_failed": failed, "refused": ["started a process"], "patched": []}
    verdict, _ = read(sealed(report))
    assert verdict.problem == f"Your answer cell defines nothing to judge: {failed[0]}; {failed[1]}."
    assert verdict.ignored == [judge._refused(["started a process"])]


def test_a_function_that_changed_the_checker_while_judged_earns_nothing_and_names_what():
    report = {k: v for k, v in REPORT.items() if k not in ("passed", "mistake", "diagnosis", "text")}
    verdict, peak = read(sealed({**report, "changed_while_judged": ["numpy.mean", "helpers.checking"]}))
    assert verdict.judged is False and not verdict.passed and peak == 51234
    assert verdict.problem == (
        "Your function changed the checker, numpy or torch while it was being judged (numpy.mean, "
        "helpers.checking), so its verdict cannot be trusted and it earns nothing."
    )
    verdict, _ = read(sealed({**report, "patched": ["patched helpers"]}))
    assert verdict.problem == "Your function could not be judged, so it earns nothing."
    assert verdict.ignored == [judge._patched(["patched helpers"])]


def test_the_process_environment_is_minimal_and_carries_no_hub_token(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "secret")
    monkeypatch.setenv("PYTHONPATH", "/somewhere")
    env = judge._environment("/tmp/grading-x")
    assert env == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/tmp/grading-x",
        "LANG": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        **dict.fromkeys(judge.THREAD_ENV, "1"),  # one thread each: the CPU limit is the process's
        "MPLBACKEND": "Agg",
    }


def test_judging_as_another_account_uses_its_ids_and_no_other_group():
    assert judge._as_user(None) == {}
    entry = pwd.getpwnam("nobody")
    assert judge._as_user("nobody") == {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def test_a_python_that_cannot_start_is_said_and_judges_nothing(tmp_path):
    verdict = judge.judge("mean", "mean", "def mean(row):\n    return 0\n", python=str(tmp_path / "no-python"))
    assert verdict.judged is False and not verdict.passed
    assert verdict.problem.startswith("The grader could not start Python (") and verdict.problem.endswith(").")
    assert "no-python" in verdict.problem
