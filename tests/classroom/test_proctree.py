"""The processes below a process, and ending them (classroom/hub/proctree.py), from its docstring: a process is
known by its id and its start time, so that ending "what a hub left running" never ends a later process that
was given one of its ids (it once killed another test's nbgrader in a busy run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.hub.proctree import alive, end_processes, snapshot, started  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


@pytest.fixture
def sleeper():
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield process
    process.kill()
    process.wait()


def test_a_running_process_is_known_by_its_id_and_start_time(sleeper):
    start = started(sleeper.pid)
    assert start is not None and snapshot([sleeper.pid]) == {sleeper.pid: start}
    assert alive(sleeper.pid) and alive(sleeper.pid, start)
    assert not alive(sleeper.pid, start + 1)  # the same id, started at another time: another process


def test_an_id_that_is_another_process_now_is_left_alone(sleeper):
    reused = {sleeper.pid: started(sleeper.pid) - 1}  # as if the process recorded had ended and its id been reused
    assert end_processes(reused, grace=0.1) == []
    assert sleeper.poll() is None, "a process that was not the one recorded was signalled"


def test_the_process_recorded_is_ended_and_named(sleeper):
    assert end_processes(snapshot([sleeper.pid]), grace=5) == [sleeper.pid]
    assert sleeper.wait(timeout=10) == -15  # SIGTERM was enough
    assert not alive(sleeper.pid)


def test_ids_that_run_nothing_are_left_out_of_a_snapshot(sleeper):
    sleeper.kill()
    sleeper.wait()
    assert snapshot([sleeper.pid]) == {} and started(sleeper.pid) is None
