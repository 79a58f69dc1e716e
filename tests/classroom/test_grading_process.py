"""The process an answer is judged in (classroom/grading/judge.py), from its docstring, seen from inside by the
answer cell itself: it starts in an empty temporary folder of its own, isolated (``-I``), with a minimal
environment and no hub token, in a session of its own, with no file it may grow, no core, a CPU ceiling and
its memory room, its error stream going nowhere; lecturer/ and the folders named are refused; the time limits:
the cell's own code gets half the wall clock at most, and a process that never gives control back is stopped at
the wall clock; and a process that ends, or is killed, before its verdict earns nothing, saying why.

Each cell reports what it sees by raising at top level: the grader skips that line, names it, and runs the
rest, so the facts come back in the grade's notes.
"""

from __future__ import annotations

import re
import time

import pytest

from classroom.grading import grade, judge, plan

pytestmark = pytest.mark.slow  # each judgement is a fresh Python process (~0.5 s, and the limits' seconds)

LOOKS = """\
import json, os, resource, sys
here = os.getcwd()
def vm():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
def mean(row):
    return sum(row) / len(row)
raise RuntimeError("place " + json.dumps([os.listdir("."), here == os.environ["HOME"], oct(os.stat(".").st_mode & 0o777)]))
raise RuntimeError("flags " + json.dumps([sys.flags.isolated, sys.flags.utf8_mode, os.getsid(0) == os.getpid()]))
raise RuntimeError("env " + json.dumps(sorted(os.environ)[:5]))
raise RuntimeError("env2 " + json.dumps(sorted(os.environ)[5:]))
raise RuntimeError("limits " + json.dumps([resource.getrlimit(r) for r in (resource.RLIMIT_FSIZE, resource.RLIMIT_CORE, resource.RLIMIT_CPU)]))
raise RuntimeError("room " + json.dumps(resource.getrlimit(resource.RLIMIT_AS)[0] - vm()))
os.listdir({forbidden!r})
raise RuntimeError("solutions " + str(len(open({solutions!r}).read())))
os.write(1, b"\\xff\\xfe not UTF-8\\n")
raise RuntimeError("stderr " + json.dumps(os.path.samestat(os.fstat(2), os.stat("/dev/null"))))
"""


def facts(note: str) -> dict[str, str]:
    """What each line of LOOKS raised, by its first word."""
    found = re.findall(r"raised RuntimeError: (\w+) (.*?)(?=; your cell's line|; that was skipped)", note)
    return dict(found)


def test_the_answer_runs_alone_in_an_empty_isolated_folder_with_its_limits(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "the hub's secret")
    code = LOOKS.format(forbidden=str(tmp_path), solutions=str(judge.SOLUTIONS / "solutions.py"))
    started = time.perf_counter()
    result = grade.grade_code("mean", code, forbidden=(tmp_path,))
    took = time.perf_counter() - started
    assert result.problem == "" and result.score == result.max_score == plan.total_points("mean")
    refused, skipped = result.ignored
    assert refused == judge._refused(["read the solutions or the course's files"])
    seen = facts(skipped)
    assert "solutions" not in seen  # lecturer/ is refused as well as the folders named
    assert seen["stderr"] == "true"  # its error stream reaches no one (not the grader's log, not a pipe)
    assert seen["place"] == '[[], true, "0o711"]'  # empty, its HOME; others may enter it but not list it
    assert seen["flags"] == "[1, 1, true]"  # -I, UTF-8 mode, its own session (killed as a group)
    expected = sorted(["PATH", "HOME", "LANG", "PYTHONIOENCODING", "MPLBACKEND", *judge.THREAD_ENV])
    assert seen["env"] + seen["env2"] == str(expected[:5]).replace("'", '"') + str(expected[5:]).replace("'", '"')
    cpu = int(judge.TIMEOUT)
    assert seen["limits"] == f"[[0, 0], [0, 0], [{cpu}, {cpu + 1}]]"
    room = int(seen["room"])  # the memory the student's code may add, less what the cell has mapped since
    assert judge.MEMORY - (256 << 20) < room <= judge.MEMORY
    assert 0 < result.seconds <= took and result.peak_kib > 0


def test_the_cells_own_code_gets_half_the_wall_clock_when_that_is_shorter():
    code = "def mean(row):\n    return sum(row) / len(row)\nwhile True:\n    pass\n"
    verdict = judge.judge("mean", "mean", code, timeout=8)
    assert verdict.judged and verdict.passed
    assert verdict.ignored == [
        "In your answer cell, your cell's own code did not finish within 4 s (its line 3); that was skipped, "
        "and the rest of the cell ran."
    ]


def test_a_process_that_never_gives_control_back_is_stopped_at_the_wall_clock(tmp_path):
    """Graded from a submitted notebook with an edited test: the time limit reaches the judge, and the edit
    is still said."""
    import json

    from classroom.grading import notebook

    released = {
        "cells": [
            {"cell_type": "code", "source": "def mean(row):\n    raise NotImplementedError\n",
             "metadata": {"nbgrader": {"grade_id": "answer_mean", "solution": True}}},
            *[{"cell_type": "code", "source": f"# {t.grade_id}\n",
               "metadata": {"nbgrader": {"grade_id": t.grade_id, "grade": True, "points": t.points}}}
              for t in plan.tests_for("mean")],
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }  # fmt: skip
    submitted = json.loads(json.dumps(released))
    submitted["cells"][0]["source"] = "import time\ndef mean(row):\n    return sum(row) / len(row)\ntime.sleep(600)\n"
    submitted["cells"][-1]["source"] = "pass\n"
    path = tmp_path / "02_mean.ipynb"
    path.write_text(json.dumps(submitted), encoding="utf-8")
    started = time.perf_counter()
    result = grade.grade_notebook(path, "mean", released, timeout=3)
    assert time.perf_counter() - started < 30  # stopped, not waited out
    assert result.score == 0 and result.problem == "Your code did not finish within 3 s, so it earns nothing."
    assert all(o.sentence == result.problem for o in result.outcomes)
    assert result.ignored == [notebook.changed_tests(submitted, released, [t.grade_id for t in plan.tests_for("mean")])]
    assert "edited test cell test_mean_hidden" in result.ignored[0]


def test_a_cell_that_ends_the_process_before_its_verdict_gets_nothing_and_says_so():
    verdict = judge.judge("mean", "mean", "import os\ndef mean(row):\n    return sum(row) / len(row)\nos._exit(0)\n")
    assert not verdict.judged and not verdict.passed
    assert verdict.problem == "Your code ended the grading process before it was judged, so it earns nothing."


def test_a_cell_that_defines_nothing_says_which_name_it_looked_for():
    verdict = judge.judge("mean", "mean", "def average(row):\n    return sum(row) / len(row)\n")
    assert verdict.judged is False
    assert verdict.problem == "Your answer cell defines nothing to judge: it does not define mean."


def test_a_process_killed_outright_reads_as_out_of_memory_or_time():
    """SIGKILL is what the kernel's out-of-memory killer sends; here the cell sends it to its own process."""
    code = "import signal\ndef mean(row):\n    return sum(row) / len(row)\nsignal.raise_signal(signal.SIGKILL)\n"
    verdict = judge.judge("mean", "mean", code)
    assert verdict.judged is False
    assert verdict.problem == "Your code used more memory or time than grading allows, so it earns nothing."


@pytest.mark.parametrize("debug", ["", "1"], ids=["graded", "GRADING_DEBUG=1"])
def test_the_error_stream_reaches_the_grader_only_when_debugging(debug, monkeypatch, capfd):
    monkeypatch.setenv("GRADING_DEBUG", debug)
    # the cell's prints are kept from the verdict (sys.stderr is not fd 2 while it runs); the stream itself is
    # what a crash of the grading process writes to
    code = "import os\nos.write(2, b'written by the cell to its error stream\\n')\ndef mean(row):\n    return sum(row) / len(row)\n"
    result = grade.grade_code("mean", code)
    assert result.problem == "" and result.score == plan.total_points("mean")
    assert ("written by the cell to its error stream" in capfd.readouterr().err) is bool(debug)
