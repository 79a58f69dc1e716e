"""What the judge hands the grading process and how it waits (classroom/grading/judge.py, ``judge``), with a
stand-in for the process: ``python -I -X utf8 runner.py`` (this Python unless another is named), in a fresh
temporary folder (others may enter, not list; gone afterwards), the job on stdin: the checkout's root, the
step, the name, the cell's code, lecturer/ then the folders named as forbidden, the cell's limit (5 s, or half
the wall clock when that is shorter), the memory room and a seal that is new for every judgement and the only
one whose line is read; a process past its wall clock is killed with its whole group. And the limits the
process starts with: its own session, the CPU ceiling (its seconds, and one more as the hard limit), no file
it may grow, no core, and a write past the limit failing instead of killing.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys

import pytest

from classroom.grading import judge, runner

REPORT = {
    "defined": True,
    "cell_failed": [],
    "refused": [],
    "patched": [],
    "changed_while_judged": [],
    "passed": True,
    "mistake": None,
    "diagnosis": "Right.",
    "text": "Right.",
    "peak_kib": 99,
}


class Process:
    """A stand-in for Popen: records what it was given; answers with ``reply(job)``."""

    made: list = []

    def __init__(self, command, **kwargs):
        self.command, self.kwargs = command, kwargs
        self.pid, self.returncode, self.timeouts = 4242, 0, []
        folder = kwargs["cwd"]
        self.folder, self.folder_mode = folder, stat.S_IMODE(os.stat(folder).st_mode)
        Process.made.append(self)

    def communicate(self, data=None, timeout=None):
        if data is not None:
            self.job = json.loads(data)
        self.timeouts.append(timeout)
        return Process.reply(self), b""


@pytest.fixture
def process(monkeypatch):
    Process.made = []
    Process.reply = staticmethod(lambda p: (runner.MARK + p.job["seal"] + json.dumps(REPORT) + "\n").encode())
    monkeypatch.setattr(judge.subprocess, "Popen", Process)
    monkeypatch.delenv("GRADING_DEBUG", raising=False)
    return Process


def test_the_process_is_this_python_isolated_in_utf8_running_the_runner(process):
    verdict = judge.judge("mean", "mean", "def mean(row): ...")
    made = process.made[0]
    assert made.command == [sys.executable, "-I", "-X", "utf8", runner.__file__]
    assert verdict.judged and verdict.passed and verdict.peak_kib == 99 and verdict.seconds > 0
    assert made.kwargs["stdin"] == made.kwargs["stdout"] == subprocess.PIPE
    assert made.kwargs["stderr"] == subprocess.DEVNULL
    judge.judge("mean", "mean", "x", python="/opt/other/python")
    assert process.made[1].command[0] == "/opt/other/python"


def test_it_starts_in_a_fresh_folder_others_may_enter_but_not_list_removed_afterwards(process):
    judge.judge("mean", "mean", "x")
    judge.judge("mean", "mean", "x")
    first, second = process.made
    assert first.folder != second.folder
    assert os.path.basename(first.folder).startswith("grading-")
    assert first.folder_mode == 0o711
    assert not os.path.exists(first.folder) and not os.path.exists(second.folder)
    assert first.kwargs["env"] == judge._environment(first.folder)  # its HOME is that folder


def test_the_job_is_the_cell_alone_with_what_it_may_not_read(process, tmp_path):
    judge.judge("variance", "variance", "def variance(row): ...", forbidden=(tmp_path, "/srv/course"), memory=12345)
    job = process.made[0].job
    seal = job.pop("seal")
    assert job == {
        "root": str(judge.ROOT),
        "step": "variance",
        "name": "variance",
        "code": "def variance(row): ...",
        "forbidden": [str(judge.ROOT / "lecturer"), str(tmp_path), "/srv/course"],
        "cell_limit": 5.0,
        "memory": 12345,
    }
    assert len(seal) == 32 and int(seal, 16) >= 0
    assert (judge.ROOT / "helpers").is_dir() and (judge.ROOT / "lecturer").is_dir()


@pytest.mark.parametrize("timeout, limit", [(60, 5.0), (10, 5.0), (9, 4.5), (3, 1.5)])
def test_the_cells_own_limit_is_five_seconds_or_half_the_wall_clock(process, timeout, limit):
    judge.judge("mean", "mean", "x", timeout=timeout)
    assert process.made[0].job["cell_limit"] == limit
    assert process.made[0].timeouts == [timeout]


def test_the_defaults_are_a_minute_and_two_gib_of_room(process):
    judge.judge("mean", "mean", "x")
    assert process.made[0].timeouts == [60.0] and process.made[0].job["memory"] == 2 << 30 == 2147483648


def test_every_judgement_has_its_own_seal(process):
    for _ in range(3):
        judge.judge("mean", "mean", "x")
    seals = {p.job["seal"] for p in process.made}
    assert len(seals) == 3


def test_a_verdict_sealed_with_another_judgements_seal_is_not_read(process):
    judge.judge("mean", "mean", "x")
    old = process.made[0].job["seal"]
    process.reply = staticmethod(lambda p: (runner.MARK + old + json.dumps(REPORT) + "\n").encode())
    verdict = judge.judge("mean", "mean", "x")
    assert verdict.judged is False
    assert verdict.problem == "Your code ended the grading process before it was judged, so it earns nothing."


def test_a_process_past_its_wall_clock_is_killed_with_its_group_and_says_so(process, monkeypatch):
    killed = []
    monkeypatch.setattr(judge.os, "killpg", lambda pid, sig: killed.append((pid, sig)))

    def reply(p):
        if len(p.timeouts) == 1:
            raise subprocess.TimeoutExpired(p.command, p.timeouts[0])
        p.returncode = -signal.SIGKILL
        return b""

    process.reply = staticmethod(reply)
    verdict = judge.judge("mean", "mean", "x", timeout=7)
    assert killed == [(4242, signal.SIGKILL)]
    assert process.made[0].timeouts == [7, None]  # then waited for, to the end
    assert verdict.problem == "Your code did not finish within 7 s, so it earns nothing."


def test_the_process_starts_in_its_own_session_with_its_ceilings(monkeypatch):
    done = []
    monkeypatch.setattr(judge.os, "setsid", lambda: done.append("setsid"))
    monkeypatch.setattr(judge.resource, "setrlimit", lambda which, limits: done.append((which, limits)))
    monkeypatch.setattr(judge.signal, "signal", lambda which, how: done.append((which, how)))
    judge._limits(7.9)()
    resource = judge.resource
    assert done == [
        "setsid",
        (resource.RLIMIT_CPU, (7, 8)),
        (resource.RLIMIT_FSIZE, (0, 0)),
        (resource.RLIMIT_CORE, (0, 0)),
        (signal.SIGXFSZ, signal.SIG_IGN),
    ]


def test_the_judge_passes_its_wall_clock_as_the_cpu_ceiling(process, monkeypatch):
    judge.judge("mean", "mean", "x", timeout=12)
    set_to = {}
    monkeypatch.setattr(judge.os, "setsid", lambda: None)
    monkeypatch.setattr(judge.resource, "setrlimit", lambda which, limits: set_to.update({which: limits}))
    monkeypatch.setattr(judge.signal, "signal", lambda which, how: None)
    process.made[0].kwargs["preexec_fn"]()
    assert set_to[judge.resource.RLIMIT_CPU] == (12, 13)


def test_judged_as_another_account_the_process_gets_its_ids_and_no_other_group(process):
    import pwd

    judge.judge("mean", "mean", "x", user="nobody")
    entry = pwd.getpwnam("nobody")
    kwargs = process.made[0].kwargs
    assert (kwargs["user"], kwargs["group"], kwargs["extra_groups"]) == (entry.pw_uid, entry.pw_gid, [])
    judge.judge("mean", "mean", "x")
    assert not {"user", "group", "extra_groups"} & set(process.made[1].kwargs)
