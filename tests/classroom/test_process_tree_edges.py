"""What proctree reads from /proc and how it ends processes (classroom/hub/proctree.py), at its edges: a command
name with a parenthesis in it, a child that has exited but was not waited for (a zombie, not alive), a tree of
three generations, a start time that is the kernel's own (clock ticks since boot), a process that ignores
SIGTERM (killed once the grace has run out, and no sooner than that), and one that goes at once (no waiting)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from classroom.hub import proctree

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def python(code: str) -> subprocess.Popen:
    """A Python child that runs ``code``, then prints "ready" and sleeps; returned once it has printed."""
    process = subprocess.Popen(
        [sys.executable, "-c", code + "\nprint('ready', flush=True)\nimport time\ntime.sleep(60)"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout.readline().strip() == "ready"
    return process


@pytest.fixture
def children():
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def test_a_process_whose_name_has_parentheses_is_still_read(children):
    named = python(
        "import ctypes\nctypes.CDLL(None).prctl(15, b'odd) name (x', 0, 0, 0)"  # PR_SET_NAME
    )
    children.append(named)
    assert Path(f"/proc/{named.pid}/comm").read_text().strip() == "odd) name (x"
    assert proctree.started(named.pid) is not None
    assert proctree.alive(named.pid) and named.pid in proctree.descendants(os.getpid())


def test_a_start_time_is_in_clock_ticks_since_boot(children):
    child = python("")
    children.append(child)
    uptime = float(Path("/proc/uptime").read_text().split()[0])
    age = uptime - proctree.started(child.pid) / os.sysconf("SC_CLK_TCK")
    assert 0 <= age < 30  # started moments ago: its start is close to now, counted from boot


def test_a_child_that_exited_but_was_not_waited_for_is_not_alive():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline
        time.sleep(0.02)
    try:
        assert proctree.started(child.pid) is not None  # still in the table, until waited for
        assert not proctree.alive(child.pid) and not proctree.alive(child.pid, proctree.started(child.pid))
        assert child.pid not in proctree.descendants(os.getpid())
    finally:
        child.wait()


def test_every_generation_below_a_process_is_found_and_nothing_above_or_beside_it(children):
    grandparent = python(
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', "
        '\'import subprocess, time; subprocess.Popen(["sleep", "60"]); print("up", flush=True); time.sleep(60)\'],'
        " stdout=subprocess.PIPE, text=True)\n"
        "child.stdout.readline()"
    )
    beside = python("")
    children.extend([grandparent, beside])
    below = proctree.descendants(grandparent.pid)
    assert len(below) == 2
    parents = {pid: int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) for pid in below}
    child = next(pid for pid, parent in parents.items() if parent == grandparent.pid)
    assert set(parents.values()) == {grandparent.pid, child}  # a child, and the child's child
    assert proctree.descendants(child) == below - {child}
    assert beside.pid not in below and grandparent.pid not in below and os.getpid() not in below
    assert proctree.descendants(next(iter(below - {child}))) == set()  # a leaf has nothing below it
    proctree.end_processes(proctree.snapshot(below), grace=5)


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_process_that_ignores_sigterm_is_killed_when_the_grace_runs_out(children):
    stubborn = python("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)")
    children.append(stubborn)
    begun = time.monotonic()
    assert proctree.end_processes(proctree.snapshot([stubborn.pid]), grace=0.5) == [stubborn.pid]
    took = time.monotonic() - begun
    assert stubborn.wait(timeout=10) == -signal.SIGKILL
    assert 0.5 <= took < 10


def test_a_process_that_goes_at_once_is_not_waited_for(children):
    quick = python("")
    children.append(quick)
    begun = time.monotonic()
    assert proctree.end_processes(proctree.snapshot([quick.pid]), grace=30) == [quick.pid]
    assert time.monotonic() - begun < 10 and quick.wait(timeout=10) == -signal.SIGTERM


def test_several_processes_are_ended_and_returned_in_order_and_a_reused_id_is_skipped(children):
    first, second, reused = python(""), python(""), python("")
    children.extend([second, first, reused])
    processes = {
        reused.pid: proctree.started(reused.pid) - 1,  # as if the one recorded had ended and its id been reused
        second.pid: proctree.started(second.pid),
        first.pid: proctree.started(first.pid),
    }
    begun = time.monotonic()
    assert proctree.end_processes(processes, grace=5) == sorted([first.pid, second.pid])
    assert time.monotonic() - begun < 4  # the other process that has the id now is not waited for
    assert reused.poll() is None


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_process_that_may_not_be_signalled_or_is_gone_is_not_counted(children, monkeypatch):
    guarded = python("")
    children.append(guarded)
    reasons = iter([PermissionError, ProcessLookupError])

    def refuse(pid, sig):
        raise next(reasons, PermissionError)(pid)

    monkeypatch.setattr(proctree.os, "kill", refuse)
    assert proctree.end_processes(proctree.snapshot([guarded.pid]), grace=0.1) == []
    assert guarded.poll() is None
