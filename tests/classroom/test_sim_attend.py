"""What a simulated student does in class (classroom/sim/lesson.py's attend and run_class), against a
stand-in for the hub: the steps of the module's docstring in order, the verdicts that make a run good, the
usage read at each stage, and what is kept when a step fails. The real thing runs in the hub tests.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from classroom.sim import lesson
from classroom.sim.client import StudentError
from classroom.sim.processes import Usage

SETUP = "import helpers\nfrom helpers import SetupProblem\n"
CHECK = 'helpers.exercises.check("mean", mean)\n'
NB02 = {"cells": [{"cell_type": "code", "source": [SETUP]}, {"cell_type": "code", "source": [CHECK]}]}
NB08 = {"cells": [{"cell_type": "code", "source": ["import torch\n"]}, {"cell_type": "code", "source": ["boom()\n"]}]}


class Kernel:
    def __init__(self, student, notebook):
        self.student, self.notebook, self.reconnects, self.closed = student, notebook, [], False

    async def run(self, code):
        self.student.log.append(("run", self.notebook, code))
        if code == CHECK:
            self.student.checks += 1
            return {"error": False, "text": self.student.verdicts[self.student.checks - 1]}
        if code in self.student.failing:
            return {"error": True, "text": "x" * 400 + "NameError: boom"}
        return {"error": False, "text": ""}

    async def close(self):
        self.closed = True
        self.student.log.append(("close", self.notebook))


class Student:
    made: list = []

    def __init__(
        self, hub, name, password, patience=1.0, verdicts=("✗ not yet", "✓ right"), fail_at=None, failing=(), error=None
    ):
        self.hub, self.name, self.password, self.patience = hub, name, password, patience
        self.verdicts, self.fail_at, self.failing, self.error = verdicts, fail_at, failing, error
        self.log, self.checks, self.kernel_ids, self.retried = [], 0, [], []
        Student.made.append(self)

    def _step(self, what):
        self.log.append((what,))
        if self.fail_at == what:
            if self.error:
                raise self.error
            raise StudentError(f"{self.name}: {what} failed")

    async def sign_in(self):
        self._step("sign_in")

    async def spawn(self):
        self._step("spawn")
        return 4.5

    async def pull(self, repo):
        self._step(f"pull {repo}")

    async def notebook(self, name):
        self._step(f"notebook {name}")
        return {"02_mean.ipynb": NB02, "08_pytorch.ipynb": NB08}[name]

    async def open_kernel(self, name):
        self._step(f"open_kernel {name}")
        kernel = Kernel(self, name)
        kernel.reconnects = [f"dropped {name}"]
        self.kernel_ids.append(f"kernel-{len(self.kernel_ids)}")
        return kernel

    async def stop_server(self):
        self.log.append(("stop_server",))
        if self.fail_at == "stop_server":
            raise OSError("gone")

    async def logout(self):
        self.log.append(("logout",))


@pytest.fixture
def hub(monkeypatch):
    """Students made with the options in ``hub.options[name]``; usage counts 1 s of CPU per reading."""
    Student.made = []
    options: dict = {}
    readings = []

    def usage(uid):
        readings.append(uid)
        return Usage(2, 100.0 + len(readings), 50.0, float(len(readings)))

    monkeypatch.setattr(
        lesson,
        "Student",
        lambda hub, name, password, patience=1.0: Student(hub, name, password, patience, **options.get(name, {})),
    )
    monkeypatch.setattr(lesson, "usage", usage)
    ticks = iter(range(100, 1000))  # a clock that is not at 0
    monkeypatch.setattr(lesson, "time", SimpleNamespace(monotonic=lambda: float(next(ticks))))  # 1 s per reading
    monkeypatch.setattr(lesson, "pwd", SimpleNamespace(getpwnam=lambda name: SimpleNamespace(pw_uid=1000 + len(name))))
    return SimpleNamespace(options=options, readings=readings)


def attend(name="s001", torch=False):
    if torch:
        return asyncio.run(lesson.attend("http://hub", name, "pw", "/srv/series.git", torch))
    return asyncio.run(lesson.attend("http://hub", name, "pw", "/srv/series.git"))  # torch is off unless asked


def test_a_student_logs_in_starts_pulls_checks_wrong_then_right_and_leaves(hub):
    result = attend()
    student = Student.made[0]
    assert student.log == [
        ("sign_in",),
        ("spawn",),
        ("pull /srv/series.git",),
        ("notebook 02_mean.ipynb",),
        ("open_kernel 02_mean.ipynb",),
        ("run", "02_mean.ipynb", SETUP),
        ("run", "02_mean.ipynb", lesson.WRONG_MEAN),
        ("run", "02_mean.ipynb", CHECK),
        ("run", "02_mean.ipynb", lesson.RIGHT_MEAN),
        ("run", "02_mean.ipynb", CHECK),
        ("close", "02_mean.ipynb"),
        ("stop_server",),
        ("logout",),
    ]
    assert result.ok and result.error == ""
    assert (result.wrong_verdict, result.right_verdict) == ("✗ not yet", "✓ right")
    assert (student.hub, student.name, student.password) == ("http://hub", "s001", "pw")
    assert result.spawn_seconds == 4.5  # as the server reported it
    assert (result.login_seconds, result.pull_seconds, result.check_seconds) == (1.0, 1.0, 1.0)  # one tick each
    assert hub.readings == [1004] * 4  # the student's own uid: after the spawn, around the checks, at the end
    assert result.started == Usage(2, 101.0, 50.0, 1.0)
    assert result.check_cpu_seconds == 3.0 - 2.0  # the reading after the checks minus the one before
    assert result.numpy == Usage(2, 104.0, 50.0, 4.0)
    assert result.torch is None and result.torch_errors == []
    assert result.reconnects == ["dropped 02_mean.ipynb"] and result.kernels == ["kernel-0"]


@pytest.mark.parametrize(
    "verdicts", [("✓ right", "✓ right"), ("✗ not yet", "✗ still wrong"), ("not a verdict", "✓ right")]
)
def test_a_run_is_good_only_when_the_wrong_function_fails_and_the_right_one_passes(hub, verdicts):
    hub.options["s001"] = {"verdicts": tuple(v + " " + "." * 100 for v in verdicts)}
    result = attend()
    wrong, right = (v + " " + "." * 100 for v in verdicts)
    assert not result.ok
    assert result.error == f"verdicts: wrong function {wrong[:80]!r}, right {right[:80]!r}"


def test_a_torch_student_runs_every_cell_of_08_and_keeps_each_errors_last_300_characters(hub):
    hub.options["s001"] = {"failing": ("boom()\n",)}
    result = attend(torch=True)
    log = Student.made[0].log
    assert ("close", "02_mean.ipynb") in log and log.index(("close", "02_mean.ipynb")) < log.index(
        ("open_kernel 08_pytorch.ipynb",)
    )
    assert [entry[2] for entry in log if entry[:2] == ("run", "08_pytorch.ipynb")] == ["import torch\n", "boom()\n"]
    assert result.ok and result.torch_errors == [("x" * 400 + "NameError: boom")[-300:]]
    assert result.torch == Usage(2, 105.0, 50.0, 5.0) and hub.readings == [1004] * 5
    assert ("notebook 08_pytorch.ipynb",) in log
    assert result.reconnects == ["dropped 02_mean.ipynb", "dropped 08_pytorch.ipynb"]
    assert result.kernels == ["kernel-0", "kernel-1"]


@pytest.mark.parametrize("step", ["sign_in", "spawn", "pull /srv/series.git", "open_kernel 02_mean.ipynb"])
def test_a_failed_step_is_the_results_error_and_the_student_still_leaves(hub, step):
    hub.options["s001"] = {"fail_at": step}
    result = attend()
    assert not result.ok and result.error == f"s001: {step} failed"
    assert Student.made[0].log[-2:] == [("stop_server",), ("logout",)]


def test_a_time_out_without_words_is_named_by_its_kind(hub):
    hub.options["s001"] = {"fail_at": "spawn", "error": asyncio.TimeoutError()}
    assert attend().error == "TimeoutError"
    hub.options["s002"] = {"fail_at": "spawn", "error": ConnectionResetError("the hub hung up")}
    assert attend("s002").error == "the hub hung up"


def test_a_failing_exercise_cell_is_named_with_its_last_300_characters(hub):
    hub.options["s001"] = {"failing": (SETUP,)}
    result = attend()
    assert not result.ok
    assert result.error == "s001: a cell failed: " + ("x" * 400 + "NameError: boom")[-300:]


def test_a_server_that_cannot_be_stopped_still_gives_the_result(hub):
    hub.options["s001"] = {"fail_at": "stop_server"}
    result = attend()
    assert result.ok and result.error == ""


def test_the_class_attends_at_once_with_torch_only_for_those_named(hub):
    results = asyncio.run(lesson.run_class("http://hub", ["s001", "s002", "s003"], "pw", "repo", torch_names=["s002"]))
    assert [r.name for r in results] == ["s001", "s002", "s003"]
    assert [r.torch is not None for r in results] == [False, True, False]
    assert all(r.ok for r in results)
    assert [(s.hub, s.password, s.log[2]) for s in Student.made] == [("http://hub", "pw", ("pull repo",))] * 3
    assert [s.patience for s in Student.made] == [1.0] * 3  # a quiet machine's time-outs unless told otherwise


def test_the_class_passes_its_patience_to_every_student(hub):
    asyncio.run(lesson.run_class("http://hub", ["s001", "s002"], "pw", "repo", torch_names=["s002"], patience=3.5))
    assert [s.patience for s in Student.made] == [3.5, 3.5]
