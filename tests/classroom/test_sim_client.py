"""The simulated student's kernel client against a small fake of jupyter_server's kernel websocket.

Only the client's side of the protocol is checked here, quickly and without root: that it waits for
a kernel that answers, reconnects when the server says the kernel was restarted (as JupyterLab does:
the server reaches a kernel restarted on new ports only through a new websocket), says so when a
restart loses a running cell, and names a kernel that died. tests/classroom/test_hub_class.py does
the same against a real hub with a real kernel killed as it starts.
"""

from __future__ import annotations

import asyncio
import json
import socket
import uuid

import pytest
from tornado.web import Application
from tornado.websocket import WebSocketHandler

from classroom.sim import client
from classroom.sim.client import Kernel, Student, StudentError


def _message(msg_type: str, content: dict, parent: dict | None, channel: str) -> str:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": "server", "version": "5.3"}
    # as jupyter_server's JSON protocol sends them: msg_id and msg_type also at the top
    top = {"msg_id": header["msg_id"], "msg_type": msg_type}
    return json.dumps(
        {**top, "header": header, "parent_header": parent or {}, "metadata": {}, "content": content, "channel": channel}
    )


class FakeKernelSocket(WebSocketHandler):
    """Each connection plays the next script: "restart" (says the kernel restarted, then stays silent as
    channels to a dead kernel are), "dead", "restart-in-cell" (answers kernel_info, restarts on a cell),
    or "answer" (a live kernel)."""

    def initialize(self, scripts: list[str], connections: list[str]):
        self.scripts, self.connections = scripts, connections

    def open(self, *args):
        self.script = self.scripts.pop(0) if self.scripts else "answer"
        self.connections.append(self.script)

    def on_message(self, raw):
        request = json.loads(raw)
        parent, kind = request["header"], request["header"]["msg_type"]
        if self.script in ("restart", "dead"):
            state = "restarting" if self.script == "restart" else "dead"
            self.write_message(_message("status", {"execution_state": state}, None, "iopub"))
            self.script = "silent"
        elif self.script == "silent":
            return
        elif kind == "kernel_info_request":
            self.write_message(_message("kernel_info_reply", {"status": "ok"}, parent, "shell"))
            self.write_message(_message("status", {"execution_state": "idle"}, parent, "iopub"))
        elif kind == "execute_request" and self.script == "restart-in-cell":
            self.write_message(_message("status", {"execution_state": "busy"}, parent, "iopub"))
            self.write_message(_message("status", {"execution_state": "restarting"}, None, "iopub"))
            self.script = "answer"
        elif kind == "execute_request":
            self.write_message(_message("status", {"execution_state": "busy"}, parent, "iopub"))
            self.write_message(_message("stream", {"name": "stdout", "text": "hello"}, parent, "iopub"))
            self.write_message(_message("status", {"execution_state": "idle"}, parent, "iopub"))


def _play(scripts: list[str], steps):
    """Run ``steps(kernel)`` against a fake server playing ``scripts``; returns (its result, connections)."""
    connections: list[str] = []

    async def main():
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        app = Application(
            [(r"/user/sim/api/kernels/k1/channels", FakeKernelSocket, dict(scripts=scripts, connections=connections))]
        )
        server = app.listen(port, "127.0.0.1")
        try:
            student = Student(f"http://127.0.0.1:{port}", "sim", "password")
            student.token = "a-token"
            kernel = Kernel(student, "k1", "s1")
            await kernel.connect()
            return await steps(kernel), kernel
        finally:
            server.stop()

    result, kernel = asyncio.run(main())
    return result, connections, kernel


def test_a_live_kernel_is_ready_and_runs_a_cell():
    async def steps(kernel):
        await kernel.ready(timeout=10, every=0.2)
        return await kernel.run("print('hello')", timeout=10)

    answer, connections, kernel = _play(["answer"], steps)
    assert answer == {"text": "hello", "error": None}
    assert connections == ["answer"] and kernel.reconnects == []


def test_a_kernel_restarted_as_it_starts_is_reached_through_a_new_websocket():
    async def steps(kernel):
        await kernel.ready(timeout=10, every=0.2)
        return await kernel.run("print('hello')", timeout=10)

    answer, connections, kernel = _play(["restart"], steps)
    assert connections == ["restart", "answer"]  # the client opened a second websocket
    assert kernel.reconnects == ["the server said the kernel was restarting"]
    assert answer["text"] == "hello"


def test_a_restart_during_a_cell_says_the_cell_was_lost():
    async def steps(kernel):
        await kernel.ready(timeout=10, every=0.2)
        await kernel.run("x = 1\nprint(x)", timeout=10)

    with pytest.raises(StudentError, match=r"restarted while a cell ran.*'x = 1'"):
        _play(["restart-in-cell"], steps)


def test_a_kernel_that_died_for_good_is_named():
    async def steps(kernel):
        await kernel.ready(timeout=10, every=0.2)

    with pytest.raises(StudentError, match="died and could not be restarted"):
        _play(["dead"], steps)


def test_a_kernel_that_keeps_restarting_is_given_up_on():
    async def steps(kernel):
        await kernel.ready(timeout=20, every=0.2)

    with pytest.raises(StudentError, match="kept restarting"):
        _play(["restart"] * 5, steps)


def test_a_students_time_out_is_a_quiet_machines_times_its_patience():
    assert Student("http://hub", "sim", "pw").timeout == client.TIMEOUT
    assert Student("http://hub", "sim", "pw", patience=2.5).timeout == 2.5 * client.TIMEOUT


def _pull_against(answers: list[tuple[int, str]]):
    """Student.pull against a fake git-pull API that gives ``answers`` in turn; (result or error, student, asked)."""
    from tornado.web import RequestHandler

    asked: list[str] = []

    class GitPull(RequestHandler):
        def get(self):
            asked.append(self.request.uri)
            status, body = answers[min(len(asked), len(answers)) - 1]
            self.set_status(status)
            self.write(body)

    async def main():
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = Application([(r"/user/sim/git-pull/api", GitPull)]).listen(port, "127.0.0.1")
        student = Student(f"http://127.0.0.1:{port}", "sim", "password")
        student.token = "a-token"
        try:
            return await student.pull("/srv/series.git"), student
        except StudentError as error:
            return error, student
        finally:
            server.stop()

    outcome, student = asyncio.run(main())
    return outcome, student, asked


FINISHED = 'data: {"phase": "finished"}\n\n'


def test_a_refused_pull_link_is_clicked_again_and_each_refusal_is_kept(monkeypatch):
    monkeypatch.setattr(client.asyncio, "sleep", _no_wait)
    outcome, student, asked = _pull_against([(404, "Not allowed"), (200, FINISHED)])
    assert outcome == FINISHED and len(asked) == 2
    assert student.retried == [f"nbgitpuller's link refused with 404 (try 1 of {client.PULL_TRIES})"]


def test_a_pull_refused_every_time_fails_after_the_last_try_and_naming_its_status(monkeypatch):
    monkeypatch.setattr(client.asyncio, "sleep", _no_wait)
    outcome, student, asked = _pull_against([(403, "Forbidden")])
    assert isinstance(outcome, StudentError) and "status 403" in str(outcome)
    assert len(asked) == client.PULL_TRIES and len(student.retried) == client.PULL_TRIES - 1


def test_a_pull_that_fails_otherwise_is_not_asked_again(monkeypatch):
    monkeypatch.setattr(client.asyncio, "sleep", _no_wait)
    outcome, student, asked = _pull_against([(500, "broken")])
    assert isinstance(outcome, StudentError) and "status 500" in str(outcome) and len(asked) == 1
    assert student.retried == []


async def _no_wait(seconds):
    return None
