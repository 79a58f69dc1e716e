"""What a simulated student (classroom/sim/client.py's Student) sends to the hub and reads back, against a small
recording stand-in for the hub's pages and REST API: each step's method, address, headers and body as a browser
and JupyterLab send them (the login form with its _xsrf, the student's own token, the spawn page's progress
stream, the contents and sessions API), and each refusal as one sentence naming the student and the step.
The real hub answers them in tests/classroom/test_hub_class.py (root)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time

import pytest
from tornado.httpclient import HTTPClientError
from tornado.web import Application, RequestHandler

from classroom.sim import client
from classroom.sim.client import Student, StudentError

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


class Recorder(RequestHandler):
    """Records every request; answers from the test's table {(method, path with query): (status, headers, body)}."""

    def initialize(self, answers: dict, seen: list):
        self.answers, self.seen = answers, seen

    async def _answer(self):
        request = self.request
        self.seen.append(
            {
                "method": request.method,
                "uri": request.uri,
                "headers": {key: value for key, value in request.headers.get_all()},
                "body": request.body.decode(),
            }
        )
        status, headers, body = self.answers.get((request.method, request.uri), (404, {}, b"no such page"))
        if status == "slow":  # a page that takes 1.5 s to answer
            await asyncio.sleep(1.5)
            status = 200
        if isinstance(body, list):  # sent in parts, each flushed: a stream's events
            self.set_status(status)
            for part in body:
                self.write(part)
                await self.flush()
                await asyncio.sleep(0.05)  # so that each part arrives on its own
            return
        self.set_status(status)
        for key, value in headers.items() if isinstance(headers, dict) else headers:
            self.add_header(key, value)
        if body:
            self.write(body)

    get = post = put = patch = delete = _answer


def play(answers: dict, steps, token: str = "", patience: float = 1.0):
    """Run ``steps(student)`` against the recorder; returns (its result or its StudentError, requests, student)."""
    seen: list[dict] = []

    async def main():
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        server = Application([(r".*", Recorder, dict(answers=answers, seen=seen))]).listen(port, "127.0.0.1")
        student = Student(f"http://127.0.0.1:{port}/", "sim", "pass word&1", patience)
        student.token = token
        try:
            return await steps(student), student
        except StudentError as error:
            return error, student
        finally:
            server.stop()

    outcome, student = asyncio.run(main())
    return outcome, seen, student


def sent(request: dict, *names: str) -> dict:
    """The request's headers among ``names`` (tornado's spelling), absent ones left out."""
    return {name: request["headers"][name] for name in names if name in request["headers"]}


CHECKED = ("Authorization", "Cookie", "X-Xsrftoken", "Content-Type", "Accept")


def test_a_request_with_a_token_sends_it_and_a_dict_body_as_json():
    answers = {("POST", "/x"): (201, {}, b'{"ok": 1}')}
    outcome, seen, _ = play(answers, lambda s: s.request("/x", "POST", {"a": [1, "b"]}), token="t0k")
    assert outcome == (201, b'{"ok": 1}')
    assert sent(seen[0], *CHECKED) == {"Authorization": "token t0k", "Content-Type": "application/json"}
    assert json.loads(seen[0]["body"]) == {"a": [1, "b"]}


def test_a_request_without_a_token_or_cookies_sends_neither():
    outcome, seen, _ = play({}, lambda s: s.request("/missing"))
    assert outcome == (404, b"no such page")  # an error status is returned, not raised
    assert sent(seen[0], *CHECKED) == {} and seen[0]["method"] == "GET"
    outcome, seen, _ = play({}, lambda s: s.request("/missing", auth="cookie"))
    assert sent(seen[0], *CHECKED) == {}


def test_a_text_body_is_sent_as_it_is_and_a_post_without_one_sends_an_empty_body():
    async def steps(student):
        await student.request("/raw", "PUT", "plain text")
        await student.request("/bytes", "POST", b"\x00raw")
        await student.request("/empty", "POST")
        await student.request("/patch", "PATCH")
        return await student.request("/gone", "DELETE")

    outcome, seen, _ = play({("DELETE", "/gone"): (204, {}, b"")}, steps, token="t")
    assert outcome == (204, b"")
    assert [(r["method"], r["uri"], r["body"]) for r in seen] == [
        ("PUT", "/raw", "plain text"),
        ("POST", "/bytes", "\x00raw"),
        ("POST", "/empty", ""),
        ("PATCH", "/patch", ""),
        ("DELETE", "/gone", ""),
    ]
    assert sent(seen[0], *CHECKED) == {"Authorization": "token t"}  # text is not JSON


def test_cookies_set_by_the_hub_are_sent_back_with_the_xsrf_token_and_a_redirect_is_not_followed():
    answers = {
        ("GET", "/hub/login"): (200, [("Set-Cookie", "_xsrf=abc|1; Path=/"), ("Set-Cookie", "other=2")], b"form"),
        ("GET", "/next"): (302, {"Location": "/elsewhere", "Set-Cookie": "other=3"}, b""),
    }

    async def steps(student):
        await student.request("/hub/login", auth="cookie")
        status = await student.request("/next", auth="cookie", headers={"X-Mine": "1"})
        await student.request("/last", auth="cookie")
        return status

    outcome, seen, student = play(answers, steps, token="t")
    assert outcome == (302, b"")
    assert student.cookies == {"_xsrf": "abc|1", "other": "3"}
    assert sent(seen[1], *CHECKED, "X-Mine") == {
        "Cookie": "_xsrf=abc|1; other=2",
        "X-Xsrftoken": "abc|1",
        "X-Mine": "1",
    }
    assert sent(seen[2], *CHECKED) == {"Cookie": "_xsrf=abc|1; other=3", "X-Xsrftoken": "abc|1"}
    assert [r["uri"] for r in seen] == ["/hub/login", "/next", "/last"]  # /elsewhere never asked


def test_cookies_without_an_xsrf_token_send_no_xsrf_header():
    answers = {("GET", "/a"): (200, {"Set-Cookie": "session=9"}, b"")}

    async def steps(student):
        await student.request("/a")
        return await student.request("/b", auth="cookie")

    _, seen, _ = play(answers, steps)
    assert sent(seen[1], *CHECKED) == {"Cookie": "session=9"}


def test_a_form_is_sent_url_encoded():
    _, seen, _ = play({}, lambda s: s.request("/f", "POST", form={"username": "sim", "password": "a b&c"}))
    assert seen[0]["body"] == "username=sim&password=a+b%26c"
    assert sent(seen[0], *CHECKED) == {"Content-Type": "application/x-www-form-urlencoded"}


def test_json_answers_are_decoded_and_an_unexpected_status_names_the_student_and_the_request():
    answers = {
        ("GET", "/ok"): (200, {}, b'{"a": 1}'),
        ("GET", "/empty"): (201, {}, b""),
        ("GET", "/bad"): (500, {}, b"x" * 300),
    }

    async def steps(student):
        found = [await student.json("/ok"), await student.json("/empty", expect=(201,))]
        try:
            await student.json("/bad", "GET")
        except StudentError as error:
            found.append(str(error))
        return found

    outcome, _, _ = play(answers, steps)
    assert outcome == [{"a": 1}, None, "sim: GET /bad answered 500: " + repr(b"x" * 200)]
    outcome, _, _ = play(answers, lambda s: s.json("/ok", expect=(201,)))
    assert str(outcome) == "sim: GET /ok answered 200: b'{\"a\": 1}'"


LOGIN = {
    ("GET", "/hub/login"): (200, {"Set-Cookie": "_xsrf=X1; Path=/"}, b"<form>"),
    ("POST", "/hub/login?next="): (302, {"Set-Cookie": "jupyterhub-session-id=S; Path=/", "Location": "/hub/"}, b""),
    ("POST", "/hub/api/users/sim/tokens"): (201, {}, b'{"token": "the-students-token"}'),
}


def test_signing_in_posts_the_login_form_then_asks_for_a_token_with_the_login_cookie():
    outcome, seen, student = play(LOGIN, lambda s: s.sign_in())
    assert outcome is None and student.token == "the-students-token"
    assert [(r["method"], r["uri"]) for r in seen] == [
        ("GET", "/hub/login"),
        ("POST", "/hub/login?next="),
        ("POST", "/hub/api/users/sim/tokens"),
    ]
    assert sent(seen[0], *CHECKED) == {}
    assert seen[1]["body"] == "username=sim&password=pass+word%261&_xsrf=X1"
    assert sent(seen[1], *CHECKED) == {
        "Cookie": "_xsrf=X1",
        "X-Xsrftoken": "X1",
        "Content-Type": "application/x-www-form-urlencoded",
    }
    assert json.loads(seen[2]["body"]) == {"note": "class simulation", "expires_in": 3600}
    assert sent(seen[2], *CHECKED) == {
        "Cookie": "_xsrf=X1; jupyterhub-session-id=S",
        "X-Xsrftoken": "X1",
        "Content-Type": "application/json",
    }


def test_a_login_page_without_an_xsrf_cookie_sends_an_empty_one():
    answers = {("POST", "/hub/login?next="): (302, {}, b"")}
    outcome, seen, _ = play(answers, lambda s: s.login())
    assert outcome == 302 and seen[1]["body"] == "username=sim&password=pass+word%261&_xsrf="


def test_a_login_that_is_not_let_in_is_said_and_no_token_is_asked_for():
    answers = {**LOGIN, ("POST", "/hub/login?next="): (200, {}, b"<form>wrong password</form>")}
    outcome, seen, student = play(answers, lambda s: s.sign_in())
    assert str(outcome) == "sim: the login form answered 200, not a redirect into the hub"
    assert len(seen) == 2 and student.token == ""


def test_a_token_is_taken_from_a_200_as_from_a_201():
    answers = {("POST", "/hub/api/users/sim/tokens"): (200, {}, b'{"token": "T200"}')}
    _, _, student = play(answers, lambda s: s.get_token())
    assert student.token == "T200"


def progress(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(event).encode() + b"\n\n" for event in events)


def test_spawning_posts_to_the_server_then_follows_its_progress_until_ready():
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (
            200,
            {"Content-Type": "text/event-stream"},
            progress({"progress": 50}, {"progress": 100, "ready": True}),
        ),
    }
    outcome, seen, _ = play(answers, lambda s: s.spawn(), token="T")
    assert isinstance(outcome, float) and 0 <= outcome < 30
    assert [(r["method"], r["uri"], r["body"]) for r in seen] == [
        ("POST", "/hub/api/users/sim/server", "{}"),
        ("GET", "/hub/api/users/sim/server/progress", ""),
    ]
    assert sent(seen[0], *CHECKED) == {"Authorization": "token T", "Content-Type": "application/json"}
    assert sent(seen[1], *CHECKED) == {"Authorization": "token T", "Accept": "text/event-stream"}


@pytest.mark.parametrize("status", [201, 400])  # 400: the server runs already
def test_a_server_started_or_already_running_is_waited_for(status):
    answers = {
        ("POST", "/hub/api/users/sim/server"): (status, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (200, {}, progress({"ready": True})),
    }
    outcome, seen, _ = play(answers, lambda s: s.spawn(), token="T")
    assert isinstance(outcome, float) and len(seen) == 2


@pytest.mark.parametrize("status", [200, 403, 500])
def test_a_refused_start_names_its_status_and_the_stream_is_not_asked(status):
    answers = {("POST", "/hub/api/users/sim/server"): (status, {}, b"y" * 250)}
    outcome, seen, _ = play(answers, lambda s: s.spawn(), token="T")
    assert str(outcome) == f"sim: starting the server answered {status}: " + repr(b"y" * 200)
    assert len(seen) == 1


def test_a_progress_stream_that_never_says_ready_is_a_failed_start_with_its_end():
    stream = progress({"progress": 10, "message": "w" * 400}, {"failed": True, "message": "Spawn failed"})
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (200, {}, stream),
    }
    outcome, _, _ = play(answers, lambda s: s.spawn(), token="T")
    assert str(outcome) == f"sim: the server did not start (status 200): {stream.decode()[-300:]!r}"


def test_stopping_logging_out_and_the_students_own_addresses():
    async def steps(student):
        student.cookies = {"jupyterhub-session-id": "S"}
        await student.stop_server()
        await student.logout()
        return student.server("/lab/tree"), student.server("api/x"), dict(student.cookies)

    outcome, seen, _ = play({}, steps, token="T")
    assert outcome == ("/user/sim/lab/tree", "/user/sim/api/x", {})
    assert [(r["method"], r["uri"]) for r in seen] == [("DELETE", "/hub/api/users/sim/server"), ("GET", "/hub/logout")]
    assert sent(seen[0], *CHECKED) == {"Authorization": "token T"}
    assert sent(seen[1], *CHECKED) == {"Cookie": "jupyterhub-session-id=S"}


def test_a_notebook_is_read_from_the_students_copy_of_the_series_and_saved_back():
    path = "/user/sim/api/contents/layernorm-step-by-step/notebooks/02%20mean.ipynb"
    answers = {
        ("GET", path + "?content=1"): (200, {}, json.dumps({"type": "notebook", "content": NOTEBOOK}).encode()),
        ("PUT", path): (200, {}, b"{}"),
    }

    async def steps(student):
        content = await student.notebook("02 mean.ipynb")
        await student.save("02 mean.ipynb", {"cells": ["changed"]})
        return content

    outcome, seen, _ = play(answers, steps, token="T")
    assert outcome == NOTEBOOK
    assert [(r["method"], r["uri"]) for r in seen] == [("GET", path + "?content=1"), ("PUT", path)]
    assert json.loads(seen[1]["body"]) == {"type": "notebook", "format": "json", "content": {"cells": ["changed"]}}
    assert sent(seen[1], *CHECKED) == {"Authorization": "token T", "Content-Type": "application/json"}


@pytest.mark.parametrize("status", [201, 403])
def test_a_save_is_done_on_200_or_201_and_refused_otherwise(status):
    path = "/user/sim/api/contents/layernorm-step-by-step/notebooks/02_mean.ipynb"
    outcome, _, _ = play({("PUT", path): (status, {}, b"{}")}, lambda s: s.save("02_mean.ipynb", {}), token="T")
    if status == 201:
        assert outcome is None
    else:
        assert str(outcome) == f"sim: PUT {path} answered 403: b'{{}}'"


PULL = (
    "/user/sim/git-pull/api?repo=%2Fsrv%2Fseries.git&branch=main&targetpath=layernorm-step-by-step"
    "&urlpath=lab%2Ftree%2Flayernorm-step-by-step%2Fnotebooks%2F00_contents.ipynb"
)


@pytest.mark.parametrize("finished", ['data: {"phase": "finished"}\n\n', "data: {'phase': 'finished'}\n\n"])
def test_the_pull_link_is_clicked_with_the_students_token_and_either_quoting_of_finished(finished):
    answers = {("GET", PULL): (200, {}, ('data: {"phase": "syncing"}\n\n' + finished).encode())}
    outcome, seen, student = play(answers, lambda s: s.pull("/srv/series.git"), token="T")
    assert outcome == 'data: {"phase": "syncing"}\n\n' + finished
    assert [(r["method"], r["uri"]) for r in seen] == [("GET", PULL)] and student.retried == []
    assert sent(seen[0], *CHECKED) == {"Authorization": "token T"}


def test_a_pull_that_answers_but_never_finishes_fails_with_the_end_of_its_log():
    log = "data: " + "x" * 500 + '\n\ndata: {"phase": "error"}\n\n'
    outcome, seen, student = play({("GET", PULL): (200, {}, log.encode())}, lambda s: s.pull("/srv/series.git"))
    assert str(outcome) == f"sim: nbgitpuller did not finish (status 200): {log[-400:]}"
    assert len(seen) == 1 and student.retried == []


def test_a_new_student_has_no_token_cookies_kernels_or_retries_and_a_hub_without_its_slash():
    student = Student("http://hub.example.edu:8000//", "ana", "pw")
    assert (student.hub, student.name, student.password) == ("http://hub.example.edu:8000", "ana", "pw")
    assert Student("http://example.edu/hub-X/", "ana", "pw").hub == "http://example.edu/hub-X"
    assert student.server("Xavier.ipynb") == "/user/ana/Xavier.ipynb"
    assert (student.token, student.cookies, student.kernel_ids, student.retried, student.timings) == (
        "",
        {},
        [],
        [],
        {},
    )


def timed(steps):
    async def run(student):
        begun = asyncio.get_running_loop().time()
        result = await steps(student)
        return result, asyncio.get_running_loop().time() - begun

    return run


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_request_gives_up_at_the_students_patience_or_at_the_time_it_is_given():
    slow = {("GET", "/slow"): ("slow", {}, b"late")}
    (answer, took), _, _ = play(slow, timed(lambda s: s.request("/slow")), patience=0.3 / client.TIMEOUT)
    assert answer == (599, b"") and took < 1.3  # tornado's code for a request that timed out
    (answer, took), _, _ = play(slow, timed(lambda s: s.request("/slow", timeout=0.3)))
    assert answer == (599, b"") and took < 1.3
    (answer, _), _, _ = play(slow, timed(lambda s: s.request("/slow")))  # a quiet machine's patience: it waits
    assert answer == (200, b"late")


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_progress_stream_that_hangs_ends_at_the_time_given():
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): ("slow", {}, progress({"ready": True})),
    }
    begun = time.monotonic()
    outcome, _, _ = play(answers, lambda s: s.spawn(timeout=0.3), token="T")
    assert time.monotonic() - begun < 1.3
    # one sentence naming the student and the step, as every other refusal: the class's run goes on
    assert isinstance(outcome, StudentError) and isinstance(outcome.__cause__, HTTPClientError)
    assert outcome.__cause__.code == 599  # tornado's code for a time-out
    assert re.fullmatch(r"sim: the server did not start \(Timeout during request after 0\.\d s\): ''", str(outcome))
    outcome, _, _ = play(answers, lambda s: s.spawn(), token="T")
    assert isinstance(outcome, float)  # given the time, it started
    begun = time.monotonic()  # given no time, the student's patience is the limit
    outcome, _, _ = play(answers, lambda s: s.spawn(), token="T", patience=0.3 / client.TIMEOUT)
    assert isinstance(outcome, StudentError) and "did not start" in str(outcome)
    assert time.monotonic() - begun < 1.3


def test_bytes_that_are_not_utf8_in_the_progress_or_the_pull_log_do_not_stop_the_student():
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (200, {}, b"data: \xff\xfe\n\n" + progress({"ready": True})),
        ("GET", PULL): (200, {}, b'data: \xff\n\ndata: {"phase": "finished"}\n\n'),
    }

    async def steps(student):
        await student.spawn()
        return await student.pull("/srv/series.git")

    outcome, _, _ = play(answers, steps, token="T")
    assert outcome == 'data: \ufffd\n\ndata: {"phase": "finished"}\n\n'


def test_a_pull_whose_status_is_a_failure_fails_even_if_its_log_says_finished():
    body = b'data: {"phase": "finished"}\n\n'
    outcome, seen, _ = play({("GET", PULL): (500, {}, body)}, lambda s: s.pull("/srv/series.git"))
    assert str(outcome) == f"sim: nbgitpuller did not finish (status 500): {body.decode()}" and len(seen) == 1


def test_a_form_or_a_put_without_a_body_is_sent_as_the_hub_expects():
    async def steps(student):
        await student.request("/f", "PUT", form={"a": "1"})
        return await student.request("/p", "PUT")

    _, seen, _ = play({}, steps)
    assert [(r["method"], r["body"]) for r in seen] == [("PUT", "a=1"), ("PUT", "")]
    assert sent(seen[0], *CHECKED) == {"Content-Type": "application/x-www-form-urlencoded"}


@pytest.mark.parametrize("status", [404, 500])
def test_a_progress_stream_that_is_refused_is_a_failed_start_naming_its_status(status):
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (status, {}, b""),
    }
    outcome, _, _ = play(answers, lambda s: s.spawn(), token="T")
    assert str(outcome) == f"sim: the server did not start (status {status}): ''"


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_progress_stream_is_read_across_its_parts():
    parts = [b'data: {"progress": 50}\n\n', b'data: {"progress": 100, "ready": ', b"true}\n\n"]
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (200, {}, parts),
    }
    outcome, _, _ = play(answers, lambda s: s.spawn(), token="T")
    assert isinstance(outcome, float)
    failed = [b'data: {"progress": 50}\n\n', b'data: {"failed": true}\n\n']
    answers[("GET", "/hub/api/users/sim/server/progress")] = (200, {}, failed)
    outcome, _, _ = play(answers, lambda s: s.spawn(), token="T")
    assert str(outcome) == f"sim: the server did not start (status 200): {b''.join(failed).decode()!r}"


def test_signing_in_again_sends_the_login_page_the_cookies_it_has_and_not_the_old_token():
    async def steps(student):
        student.cookies = {"_xsrf": "X0"}
        return await student.login()

    outcome, seen, _ = play(LOGIN, steps, token="an-old-token")
    assert outcome == 302
    assert sent(seen[0], *CHECKED) == {"Cookie": "_xsrf=X0", "X-Xsrftoken": "X0"}


def test_a_refused_pull_link_is_clicked_again_after_a_moment(monkeypatch):
    waits = []

    async def wait(seconds, *args):
        if seconds != 0:  # tornado's own sleep(0)s are not the student's
            waits.append(seconds)

    monkeypatch.setattr(client.asyncio, "sleep", wait)
    answers = {("GET", PULL): (404, {}, b"Not allowed")}
    outcome, seen, student = play(answers, lambda s: s.pull("/srv/series.git"))
    assert len(seen) == client.PULL_TRIES and len(waits) == client.PULL_TRIES - 1
    assert all(isinstance(w, (int, float)) and 0 < w <= 10 for w in waits)  # a moment, as a student waits
