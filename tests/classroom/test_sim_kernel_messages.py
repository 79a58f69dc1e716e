"""A simulated student's kernel (classroom/sim/client.py's Kernel) as JupyterLab drives one, against a stand-in
for jupyter_server's sessions API and kernel websocket: the session it asks for, the messages it sends, what
it makes of a cell's outputs (streams, results, displays, an error), and each way a wait ends, in one sentence
naming the student. tests/classroom/test_sim_client.py has the restarts; the real kernel is in the hub tests."""

from __future__ import annotations

import asyncio
import json
import socket
import uuid

import pytest
from tornado.web import Application, RequestHandler
from tornado.websocket import WebSocketHandler

from classroom.sim import client
from classroom.sim.client import Kernel, Student, StudentError


def message(msg_type: str, content: dict, parent: dict | None, channel: str = "iopub") -> str:
    header = {"msg_id": uuid.uuid4().hex, "msg_type": msg_type, "session": "server", "version": "5.3"}
    return json.dumps(
        {
            "msg_id": header["msg_id"],
            "msg_type": msg_type,
            "header": header,
            "parent_header": parent or {},
            "metadata": {},
            "content": content,
            "channel": channel,
        }
    )


class Channels(WebSocketHandler):
    """A kernel's websocket: records what it is sent; answers kernel_info as the test's ``info`` says ("both":
    reply and IOPub status, "reply": the shell reply only, "iopub": the status only, "none") and a cell with ``cell(parent)``'s messages.
    ``close_plan`` gives each new connection in turn a number of messages after which it closes unanswered."""

    def initialize(self, log: dict):
        self.log = log

    def open(self, kernel_id):
        self.log["connections"].append(
            {
                "kernel": kernel_id,
                "uri": self.request.uri,
                "authorization": self.request.headers.get("Authorization"),
            }
        )
        self.count = 0
        self.close_after = self.log["close_plan"].pop(0) if self.log["close_plan"] else 0
        self.restarting = bool(self.log["restart_plan"]) and self.log["restart_plan"].pop(0)

    def on_close(self):
        self.log["http"].append(("websocket closed", self.request.uri.split("?")[0], None))

    def on_message(self, raw):
        request = json.loads(raw)
        self.log["sent"].append(request)
        self.count += 1
        if self.close_after and self.count >= self.close_after:
            self.close(4000, "gone away")
            return
        parent = request["header"]
        if self.restarting:  # the server's word that the kernel restarted; this socket then stays silent
            if self.count == 1:
                self.write_message(message("status", {"execution_state": "restarting"}, None))
            return
        if request["header"]["msg_type"] == "kernel_info_request":
            if self.log["info"] == "iopub-first":  # the status is published before the reply arrives
                self.write_message(message("status", {"execution_state": "idle"}, parent))
                self.write_message(message("kernel_info_reply", {"status": "ok"}, parent, "shell"))
                return
            if self.log["info"] == "noise":  # a kernel's own status at start, and an answer to someone else
                self.write_message(message("status", {"execution_state": "starting"}, None))
                self.write_message(message("status", {"execution_state": "idle"}, {"msg_id": "someone-else"}))
            if self.log["info"] in ("both", "reply", "noise"):
                self.write_message(message("kernel_info_reply", {"status": "ok"}, parent, "shell"))
            if self.log["info"] in ("both", "iopub", "noise"):
                self.write_message(message("status", {"execution_state": "idle"}, parent))
        else:
            for answer in self.log["cell"](parent):
                self.write_message(answer)


class Sessions(RequestHandler):
    def initialize(self, log: dict):
        self.log = log

    def post(self):
        self.log["http"].append(("POST", self.request.uri, json.loads(self.request.body)))
        self.set_status(self.log["session_status"])
        self.write({"id": "session-1", "kernel": {"id": "kernel-7"}})

    def delete(self, session=None):
        self.log["http"].append(("DELETE", self.request.uri, None))
        self.set_status(204)


def idle(parent):
    return [message("status", {"execution_state": "idle"}, parent)]


def play(steps, info="both", cell=idle, close_plan=(), restart_plan=(), prefix="", session_status=201):
    """Run ``steps(student, log)`` against the stand-in; returns (its result or StudentError, log)."""
    log = {"connections": [], "sent": [], "http": [], "info": info, "cell": cell, "close_plan": list(close_plan)}
    log.update(restart_plan=list(restart_plan), session_status=session_status)

    async def main():
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        app = Application(
            [
                (prefix + r"/user/sim/api/kernels/([^/]+)/channels", Channels, dict(log=log)),
                (prefix + r"/user/sim/api/sessions", Sessions, dict(log=log)),
                (prefix + r"/user/sim/api/sessions/([^/]+)", Sessions, dict(log=log)),
            ]
        )
        server = app.listen(port, "127.0.0.1")
        student = Student(f"http://127.0.0.1:{port}{prefix}", "sim", "pw")
        student.token = "T"
        try:
            return await steps(student, log)
        except StudentError as error:
            return error
        finally:
            server.stop()

    return asyncio.run(main()), log


async def connected(student, log):
    kernel = Kernel(student, "kernel-7", "session-1")
    await kernel.connect()
    return kernel


def test_opening_a_kernel_asks_for_a_session_of_the_notebook_and_waits_until_it_answers():
    async def steps(student, log):
        kernel = await student.open_kernel("02_mean.ipynb")
        return kernel, list(student.kernel_ids)

    (kernel, ids), log = play(steps)
    assert log["http"][:1] == [
        (
            "POST",
            "/user/sim/api/sessions",
            {
                "path": "layernorm-step-by-step/notebooks/02_mean.ipynb",
                "type": "notebook",
                "name": "02_mean.ipynb",
                "kernel": {"name": "python3"},
            },
        )
    ]
    assert (kernel.id, kernel.session_id, ids) == ("kernel-7", "session-1", ["kernel-7"])
    assert log["connections"] == [
        {
            "kernel": "kernel-7",
            "uri": f"/user/sim/api/kernels/kernel-7/channels?session_id={kernel.session}",
            "authorization": "token T",
        }
    ]
    assert [m["header"]["msg_type"] for m in log["sent"]] == ["kernel_info_request"]
    assert kernel.reconnects == [] and kernel.restarted is False


def test_each_message_is_a_shell_request_of_the_kernels_own_session():
    async def steps(student, log):
        kernel = await connected(student, log)
        await kernel.ready(timeout=10)
        await kernel.run("x = 1", timeout=10)
        return kernel

    kernel, log = play(steps)
    info, execute = log["sent"]
    for sent in (info, execute):
        assert set(sent) == {"header", "parent_header", "metadata", "channel", "content"}
        assert (sent["parent_header"], sent["metadata"], sent["channel"]) == ({}, {}, "shell")
        assert {key: sent["header"][key] for key in ("session", "username", "version", "date")} == {
            "session": kernel.session,
            "username": "sim",
            "version": "5.3",
            "date": "",
        }
        assert len(sent["header"]["msg_id"]) == 32
    assert info["header"]["msg_type"] == "kernel_info_request" and info["content"] == {}
    assert execute["header"]["msg_type"] == "execute_request"
    assert execute["content"] == {
        "code": "x = 1",
        "silent": False,
        "store_history": True,
        "user_expressions": {},
        "allow_stdin": False,
        "stop_on_error": True,
    }
    assert len(kernel.session) == 32 and info["header"]["msg_id"] != execute["header"]["msg_id"]


def test_a_cells_outputs_are_its_text_in_order_and_an_error_names_its_kind():
    def cell(parent):
        other = {"msg_id": "someone-else"}
        return [
            message("status", {"execution_state": "busy"}, parent),
            message("stream", {"name": "stdout", "text": "ignored"}, other),
            message("stream", {"name": "stdout", "text": "printed"}, parent),
            message("execute_result", {"data": {"text/plain": "42", "text/html": "<b>42</b>"}}, parent),
            message("display_data", {"data": {"image/png": "..."}}, parent),
            message("display_data", {"data": {"text/plain": "<Figure>"}}, parent),
            message("error", {"ename": "NameError", "evalue": "name 'y' is not defined", "traceback": []}, parent),
            message("execute_reply", {"status": "error"}, parent, "shell"),
            message("status", {"execution_state": "idle"}, other),
            message("status", {"execution_state": "idle"}, parent),
        ]

    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run("print('printed')\n42\ny", timeout=10)

    answer, _ = play(steps, cell=cell)
    assert answer == {"text": "printed\n42\n\n<Figure>\nNameError: name 'y' is not defined", "error": "NameError"}


def test_a_cell_without_output_gives_empty_text_and_no_error():
    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run("x = 1", timeout=10)

    answer, _ = play(steps)
    assert answer == {"text": "", "error": None}


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_cell_that_never_finishes_says_how_long_what_came_and_its_first_line():
    def cell(parent):
        return [
            message("status", {"execution_state": "busy"}, parent),
            message("stream", {"name": "stdout", "text": "working"}, parent),
        ]

    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run("while True:\n    pass", timeout=0.4)

    error, _ = play(steps, cell=cell)
    assert str(error) == (
        "sim: a cell ran longer than 0 s (received for it: status busy, stream; first line 'while True:')"
    )


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_silent_cell_says_nothing_came_and_cuts_its_first_line_at_60_characters():
    line = "a" * 70

    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run(line + "\nb", timeout=0.6)

    error, _ = play(steps, cell=lambda parent: [])
    assert str(error) == f"sim: a cell ran longer than 1 s (received for it: nothing; first line {'a' * 60!r})"


@pytest.mark.parametrize(
    "info, seen",
    [
        ("none", "shell reply never seen, IOPub never seen"),
        ("reply", "shell reply seen, IOPub never seen"),
        ("iopub", "shell reply never seen, IOPub seen"),
    ],
)
@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_kernel_that_does_not_answer_in_time_says_what_was_seen(info, seen):
    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.ready(timeout=0.6, every=0.15)

    error, log = play(steps, info=info)
    assert str(error) == f"sim: the kernel did not answer kernel_info within 1 s ({seen})"
    asked = [m for m in log["sent"] if m["header"]["msg_type"] == "kernel_info_request"]
    assert 3 <= len(asked) <= 5  # asked again every 0.15 s until the time ran out


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_dropped_websocket_is_opened_again_after_a_moment_and_the_wait_goes_on(monkeypatch):
    waits = []

    async def wait(seconds, *args):
        if seconds != 0:  # tornado's own sleep(0)s are not the student's
            waits.append(seconds)

    async def steps(student, log):
        kernel = await connected(student, log)
        monkeypatch.setattr(client.asyncio, "sleep", wait)
        await kernel.ready(timeout=10, every=0.2)
        return kernel

    kernel, log = play(steps, close_plan=[1])  # the first websocket closes on the first request
    assert len(waits) == 1 and isinstance(waits[0], (int, float)) and 0 < waits[0] <= 10
    assert kernel.reconnects == ["code 4000, 'gone away'"] and kernel.restarted is False
    assert [c["uri"] for c in log["connections"]] == [
        f"/user/sim/api/kernels/kernel-7/channels?session_id={kernel.session}"
    ] * 2  # the same session again: the server replays what it kept for it


async def no_wait(seconds):
    return None


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_websocket_that_keeps_closing_is_given_up_on_after_three_reconnects(monkeypatch):
    async def steps(student, log):
        kernel = await connected(student, log)
        monkeypatch.setattr(client.asyncio, "sleep", no_wait)
        try:
            await kernel.ready(timeout=10, every=0.2)
        except StudentError as error:
            return error, kernel
        return None, kernel

    (error, kernel), log = play(steps, close_plan=[1] * 10)
    assert str(error) == "sim: the kernel's websocket kept closing (code 4000, 'gone away')"
    assert kernel.reconnects == ["code 4000, 'gone away'"] * (client.MAX_RECONNECTS + 1)
    assert len(log["connections"]) == client.MAX_RECONNECTS + 1


def test_closing_a_kernel_closes_its_socket_and_ends_its_session():
    async def steps(student, log):
        kernel = await connected(student, log)
        await kernel.close()
        return kernel

    kernel, log = play(steps)
    assert log["http"] == [
        ("websocket closed", "/user/sim/api/kernels/kernel-7/channels", None),
        ("DELETE", "/user/sim/api/sessions/session-1", None),
    ]


def test_closing_a_kernel_that_never_connected_only_ends_its_session():
    async def steps(student, log):
        await Kernel(student, "kernel-7", "session-9").close()

    _, log = play(steps)
    assert log["http"] == [("DELETE", "/user/sim/api/sessions/session-9", None)] and log["connections"] == []


def test_a_session_answered_with_200_is_opened_as_well_and_a_hub_under_a_path_is_reached_there():
    async def steps(student, log):
        return await student.open_kernel("02_mean.ipynb")

    kernel, log = play(steps, prefix="/https-hub", session_status=200)
    assert kernel.id == "kernel-7" and log["http"][0][1] == "/https-hub/user/sim/api/sessions"
    assert log["connections"][0]["uri"].startswith("/https-hub/user/sim/api/kernels/kernel-7/channels?")


def test_a_kernel_restarted_as_often_as_a_student_reconnects_is_still_reached(monkeypatch):
    async def steps(student, log):
        kernel = await connected(student, log)
        monkeypatch.setattr(client.asyncio, "sleep", no_wait)
        await kernel.ready(timeout=10, every=0.2)
        return kernel

    kernel, log = play(steps, restart_plan=[True] * client.MAX_RECONNECTS)
    assert kernel.reconnects == ["the server said the kernel was restarting"] * client.MAX_RECONNECTS
    assert len(log["connections"]) == client.MAX_RECONNECTS + 1


def test_messages_that_are_not_answers_to_its_request_are_passed_over_without_asking_again():
    async def steps(student, log):
        kernel = await connected(student, log)
        await kernel.ready(timeout=10, every=5)
        return kernel

    kernel, log = play(steps, info="noise")
    assert [m["header"]["msg_type"] for m in log["sent"]] == ["kernel_info_request"]
    assert kernel.reconnects == [] and kernel.restarted is False


def test_a_kernel_that_answers_at_once_is_ready_at_once_whatever_the_interval_between_requests():
    import time

    async def steps(student, log):
        kernel = await connected(student, log)
        begun = time.monotonic()
        await kernel.ready(timeout=30, every=5)
        return time.monotonic() - begun

    took, _ = play(steps)
    assert took < 2


def test_statuses_that_answer_a_request_are_the_kernels_not_the_servers_word_on_a_restart():
    def cell(parent):
        return [
            message("status", {"execution_state": "restarting"}, parent),
            message("status", {"execution_state": "dead"}, parent),
            message("status", {"execution_state": "starting"}, None),
            message("stream", {"name": "stdout", "text": "still here"}, parent),
            message("status", {"execution_state": "idle"}, parent),
        ]

    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run("print('still here')", timeout=10), kernel

    (answer, kernel), log = play(steps, cell=cell)
    assert answer == {"text": "still here", "error": None}
    assert kernel.reconnects == [] and kernel.restarted is False and len(log["connections"]) == 1


def test_a_cell_given_no_time_of_its_own_has_the_students():
    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run("x = 1")

    answer, _ = play(steps)
    assert answer == {"text": "", "error": None}


def test_a_restart_during_a_cell_names_the_cells_first_line_cut_at_60_characters():
    def cell(parent):
        return [
            message("status", {"execution_state": "busy"}, parent),
            message("status", {"execution_state": "restarting"}, None),
        ]

    async def steps(student, log):
        kernel = await connected(student, log)
        return await kernel.run("b" * 70 + "\nprint(1)", timeout=10)

    error, _ = play(steps, cell=cell)
    assert str(error) == (
        f"sim: the kernel restarted while a cell ran, and its work was lost (first line {'b' * 60!r})"
    )


def test_a_kernel_whose_status_comes_before_its_reply_is_ready_as_well():
    async def steps(student, log):
        kernel = await connected(student, log)
        await kernel.ready(timeout=10, every=5)
        return kernel

    kernel, log = play(steps, info="iopub-first")
    assert [m["header"]["msg_type"] for m in log["sent"]] == ["kernel_info_request"]
