"""lesson.attend: the requests a student had refused once and asked again (``Student.retried``, e.g. the
nbgitpuller link clicked again) are kept with the result's reconnects, after the kernels' own, whether the
visit went well or not (lesson.py: "kernel websockets reopened, refused links clicked again")."""

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
REFUSED = "nbgitpuller's link refused with 404 (try 1 of 3)"


class Kernel:
    def __init__(self):
        self.reconnects = ["code 1006, ''"]
        self.checks = 0

    async def run(self, code):
        if code == CHECK:
            self.checks += 1
            return {"error": None, "text": "✗ not yet" if self.checks == 1 else "✓ right"}
        return {"error": None, "text": ""}

    async def close(self):
        pass


class Student:
    fail_pull = False

    def __init__(self, hub, name, password, patience=1.0):
        self.name, self.kernel_ids, self.retried = name, [], []

    async def sign_in(self):
        pass

    async def spawn(self):
        return 1.0

    async def pull(self, repo):
        self.retried.append(REFUSED)
        if Student.fail_pull:
            raise StudentError(f"{self.name}: nbgitpuller did not finish (status 404): ")

    async def notebook(self, name):
        return NB02

    async def open_kernel(self, name):
        self.kernel_ids.append("k1")
        return Kernel()

    async def stop_server(self):
        pass

    async def logout(self):
        pass


@pytest.fixture
def stood_in(monkeypatch):
    Student.fail_pull = False
    monkeypatch.setattr(lesson, "Student", Student)
    monkeypatch.setattr(lesson, "usage", lambda uid: Usage(1, 1.0, 1.0, 1.0))
    monkeypatch.setattr(lesson, "pwd", SimpleNamespace(getpwnam=lambda name: SimpleNamespace(pw_uid=1001)))


def test_a_link_clicked_again_is_kept_after_the_kernels_reconnects(stood_in):
    result = asyncio.run(lesson.attend("http://hub", "s001", "pw", "repo"))
    assert result.ok
    assert result.reconnects == ["code 1006, ''", REFUSED]
    assert lesson.summary([result], 1.0)["websocket_reconnects"] == 2


def test_a_link_refused_to_the_end_is_still_kept(stood_in):
    Student.fail_pull = True
    result = asyncio.run(lesson.attend("http://hub", "s001", "pw", "repo"))
    assert not result.ok and result.error.startswith("s001: nbgitpuller did not finish")
    assert result.reconnects == [REFUSED]
