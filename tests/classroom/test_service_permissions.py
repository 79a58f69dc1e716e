"""The class service's permission rules, run without a hub or root (issue 35): its real handlers
(classroom/service/app.py) and store, against a stand-in for the hub's identity (tests/classroom/fake_hub.py).

A student posts only with their own token and only as themselves; a student cannot read the class's results;
an instructor (the instructors group), a hub admin and an admin service can; a missing or unknown token, a
login cookie instead of a token, a token without the service's scope, a service's token, a malformed body
and a wrong content type are each answered 400, 401 or 403 with one sentence, store nothing, and the
service goes on answering. Each rule is tested at its edge. tests/classroom/test_class_service.py runs the
same service on a real hub.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import time
import uuid
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
import fake_hub  # noqa: E402

KIND = fake_hub.install()
from tornado.httpclient import AsyncHTTPClient, HTTPRequest  # noqa: E402
from tornado.httpserver import HTTPServer  # noqa: E402
from tornado.httputil import HTTPHeaders  # noqa: E402
from tornado.testing import bind_unused_port  # noqa: E402

from classroom.service import app as service  # noqa: E402
from classroom.service.store import Store  # noqa: E402

PREFIX = "/services/class/"
RESULTS, SUMMARY, CSV, PAGE = PREFIX + "api/results", PREFIX + "api/summary", PREFIX + "api/results.csv", PREFIX
JSON = {"Content-Type": "application/json"}
PEOPLE = {
    "alice-token": fake_hub.model("alice"),
    "bob-token": fake_hub.model("bob"),
    "teacher-token": fake_hub.model("teacher", groups=["instructors"]),
    "admin-token": fake_hub.model("root", admin=True),
    "script-token": fake_hub.model("grader", kind="service", scopes=[fake_hub.ACCESS, "admin:users"]),
    "service-token": fake_hub.model("culler", kind="service"),
    "no-scope-token": fake_hub.model("mallory", scopes=["self"]),
    "alice-login": fake_hub.model("alice"),  # a login cookie's value, not a token
    "near-instructor-token": fake_hub.model("ian", groups=["instructor", "Instructors"]),
    "scoped-admin-token": fake_hub.model("sam", scopes=[fake_hub.ACCESS, "admin:users!group=x", "admin:user"]),
}


@pytest.fixture(autouse=True)
def identities(monkeypatch):
    monkeypatch.setattr(fake_hub, "IDENTITIES", dict(PEOPLE))
    monkeypatch.setattr(service.Base, "hub_auth", fake_hub.FakeHubAuth(), raising=False)


@pytest.fixture
def store(tmp_path):
    found = Store(tmp_path / "class.sqlite")
    yield found
    found.close()


def body(**fields) -> str:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps({k: v for k, v in verdict.items() if v is not ...})


def exchange(store, *calls):
    """Run the service's application on a free port and make ``calls`` (method, path, headers, body) in
    order; [(status, JSON or text, headers)]. The same server answers every call: a refused one must not stop
    it. A call whose method is "RAW" sends its body, bytes, as the whole request (headers no client adds)."""

    async def main():
        server = HTTPServer(service.make_app(store, PREFIX))
        sock, port = bind_unused_port()
        server.add_sockets([sock])
        client = AsyncHTTPClient()
        found = []
        try:
            for method, path, headers, data in calls:
                if method == "RAW":
                    code, raw, answer_headers = await _raw(port, data)
                else:
                    request = HTTPRequest(
                        f"http://127.0.0.1:{port}{path}",
                        method=method,
                        headers=headers,
                        body=data if method == "POST" else None,
                        follow_redirects=False,
                    )
                    response = await client.fetch(request, raise_error=False)
                    code, raw, answer_headers = response.code, response.body, response.headers
                text = raw.decode("utf-8", "replace")
                try:
                    found.append((code, json.loads(text), answer_headers))
                except ValueError:
                    found.append((code, text, answer_headers))
        finally:
            server.stop()
            await server.close_all_connections()
        return found

    return asyncio.run(main())


async def _raw(port: int, request: bytes):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = HTTPHeaders.parse("\r\n".join(lines[1:]))
    data = await reader.readexactly(int(headers.get("Content-Length", "0")))
    writer.close()
    await writer.wait_closed()
    return int(lines[0].split()[1]), data, headers


def serve(store, *calls):
    """:func:`exchange` without the answers' headers: [(status, JSON or text)]."""
    return [(code, answer) for code, answer, _ in exchange(store, *calls)]


def token(name: str) -> dict:
    return {"Authorization": f"token {name}"}


def post(who: str, data=None, headers=None) -> tuple:
    return ("POST", RESULTS, {**token(who), **JSON, **(headers or {})}, body() if data is None else data)


# --- who may post, and as whom -----------------------------------------------------------------------
def test_a_student_posts_with_their_own_token_and_it_is_recorded_as_them(store):
    [(status, answer)] = serve(store, post("alice-token"))
    assert status == 201 and answer["stored"] is True
    assert store.count() == 1 and "alice" in store.csv() and "bob" not in store.csv()


def test_a_resend_of_the_same_check_is_stored_once(store):
    same = body()
    statuses = [s for s, _ in serve(store, post("alice-token", same), post("alice-token", same))]
    assert statuses == [201, 200] and store.count() == 1


@pytest.mark.parametrize("field", ["name", "user", "student", "username"])
def test_a_body_that_names_a_student_is_refused_even_their_own_name(store, field):
    answers = serve(store, post("alice-token", body(**{field: "bob"})), post("alice-token", body(**{field: "alice"})))
    assert [s for s, _ in answers] == [400, 400], answers
    assert "must not name a student" in answers[0][1]["message"]
    assert store.count() == 0


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),  # no token at all
        (token("nobody-token"), 401),  # a token the hub does not know
        (token(""), 401),
        ({"Authorization": "alice-token"}, 401),  # a token without its scheme
        ({"Cookie": f"{fake_hub.LOGIN_COOKIE}=alice-login"}, 401),  # logged in, but no token: a web page
        (token("service-token"), 403),  # a service is no student
        (token("script-token"), 403),  # not even an admin service
        (token("no-scope-token"), 403),  # a hub user the service's scope is not granted to
    ],
)
def test_only_a_students_own_token_posts(store, headers, status):
    answers = serve(store, ("POST", RESULTS, {**headers, **JSON}, body()), post("alice-token"))
    assert answers[0][0] == status, answers
    assert isinstance(answers[0][1], dict) and answers[0][1]["message"], answers  # one sentence, as JSON
    assert answers[1][0] == 201 and store.count() == 1  # nothing stored from the refused one; still running


@pytest.mark.parametrize("scheme", ["token", "bearer", "Token"])
def test_the_token_schemes_the_hub_accepts(store, scheme):
    [(status, _)] = serve(store, ("POST", RESULTS, {"Authorization": f"{scheme} alice-token", **JSON}, body()))
    assert status == 201


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json", 201),
        ("application/json; charset=utf-8", 201),
        ("Application/JSON", 201),
        ("text/plain", 400),  # what a cross-site form may send without asking first
        ("application/x-www-form-urlencoded", 400),
        ("multipart/form-data; boundary=x", 400),
        ("application/jsonp", 400),
        ("", 400),
    ],
)
def test_a_result_must_come_as_json(store, content_type, status):
    headers = {**token("alice-token"), "Content-Type": content_type} if content_type else token("alice-token")
    answers = serve(store, ("POST", RESULTS, headers, body()))
    assert answers[0][0] == status, answers
    assert store.count() == (1 if status == 201 else 0)


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        "[]",
        "",
        '{"notebook": "03"',
        body(passed="yes"),
        body(step="softmax"),
        body(notebook="14"),
        body(mistake="not-a-key"),
        body(passed=True),  # a pass with a mistake
        body(id="not-a-uuid"),
        body(extra=1),
        "x" * 5000,
    ],
)
def test_a_malformed_body_gets_400_stores_nothing_and_the_service_goes_on(store, raw):
    answers = serve(store, post("alice-token", raw), post("alice-token"))
    assert answers[0][0] == 400 and answers[0][1]["message"], answers
    assert answers[1][0] == 201 and store.count() == 1


def test_every_key_the_catalogue_names_is_accepted_and_one_unit_off_is_not(store):
    """The edges of a body's fields: the first and last notebook, each step, and one past them."""
    from classroom.service.catalogue import ALL_STEPS, MISTAKES, NOTEBOOKS

    good = [body(notebook=NOTEBOOKS[0]), body(notebook=NOTEBOOKS[-1])]
    good += [body(step=step, mistake=None, passed=True) for step in ALL_STEPS]
    good += [body(mistake=key) for key in MISTAKES]
    bad = [body(notebook="-1"), body(notebook="14"), body(notebook="3"), body(step=ALL_STEPS[0] + "s")]
    answers = serve(store, *(post("alice-token", b) for b in good + bad))
    assert [s for s, _ in answers] == [201] * len(good) + [400] * len(bad)
    assert store.count() == len(good)


# --- who may read the class's results -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("headers", "status"),
    [
        (token("alice-token"), 403),  # a student
        (token("near-instructor-token"), 403),  # groups "instructor" and "Instructors" are not "instructors"
        (token("scoped-admin-token"), 403),  # admin:users for one group only is not admin:users
        (token("service-token"), 403),  # a service without admin:users
        (token("teacher-token"), 200),  # the instructors group
        (token("admin-token"), 200),  # a hub admin
        (token("script-token"), 200),  # an admin service (scripts, tests)
        ({}, 401),  # nobody
        (token("nobody-token"), 401),
        (token("no-scope-token"), 403),
    ],
)
@pytest.mark.parametrize("path", [SUMMARY, CSV])
def test_only_lecturers_read_the_class_results(store, headers, status, path):
    serve(store, post("alice-token"))
    answers = serve(store, ("GET", path, headers, None))
    assert answers[0][0] == status, answers
    if status != 200:
        assert "alice" not in json.dumps(answers[0][1])  # nothing of the class leaks into a refusal
    elif path == CSV:
        assert "alice" in answers[0][1]
    else:
        assert answers[0][1]["results"] == 1


def test_the_summary_names_students_only_when_asked(store):
    serve(store, post("alice-token", body(mistake="n-1")))
    [(_, plain), (_, named)] = serve(
        store,
        ("GET", SUMMARY, token("teacher-token"), None),
        ("GET", SUMMARY + "?names=1", token("teacher-token"), None),
    )
    assert "alice" not in json.dumps(plain) and "alice" in json.dumps(named)


@pytest.mark.parametrize(
    ("headers", "status"),
    [(token("teacher-token"), 200), (token("alice-token"), 403), ({}, 302)],  # nobody: off to the hub's login
)
def test_the_live_page_is_for_lecturers(store, headers, status):
    [(code, text)] = serve(store, ("GET", PAGE, headers, None))
    assert code == status
    if code == 200:
        assert "<html" in text.lower()


@pytest.mark.parametrize(
    ("model", "sees"),
    [
        (None, False),
        ({}, False),
        (fake_hub.model("a"), False),
        (fake_hub.model("a", admin=True), True),
        (fake_hub.model("a", groups=["instructors"]), True),
        (fake_hub.model("a", groups=["instructors-2"]), False),
        ({"name": "a", "groups": None}, False),
        (fake_hub.model("a", scopes=["admin:users"]), True),
        (fake_hub.model("a", scopes=["admin:users!user=a"]), False),
    ],
)
def test_may_see_class_at_its_edges(model, sees):
    assert service.may_see_class(model) is sees


def test_which_identity_module_ran():
    assert KIND in ("fake", "real")


# --- what an answer says and carries ------------------------------------------------------------------
def one_sentence(message) -> bool:
    """A sentence a person reads: a capital first, a full stop last, not shouted."""
    return isinstance(message, str) and message[:1].isupper() and message.endswith(".") and not message.isupper()


@pytest.mark.parametrize(
    ("call", "status", "says"),
    [
        (("POST", RESULTS, JSON, body()), 401, "your own hub token (Authorization: token ...)"),
        (("POST", RESULTS, {**token("service-token"), **JSON}, body()), 403, "a student's own token"),
        (("POST", RESULTS, {**token("no-scope-token"), **JSON}, body()), 403, "may not use the class service"),
        (
            ("POST", RESULTS, {**token("alice-token"), "Content-Type": "text/plain"}, body()),
            400,
            "Content-Type: application/json",
        ),
        (("GET", SUMMARY, {}, None), 401, "Log in to the hub first"),
        (("GET", CSV, token("alice-token"), None), 403, "hub admins and the instructors group"),
    ],
    ids=["post, no token", "post, a service", "post, no scope", "post, not JSON", "read, nobody", "read, a student"],
)
def test_each_refusal_is_one_json_sentence_that_says_what_to_do(store, call, status, says):
    [(code, answer, headers)] = exchange(store, call)
    assert code == status
    assert headers["Content-Type"].split(";")[0] == "application/json"
    assert set(answer) == {"status", "message"} and answer["status"] == status, answer
    assert one_sentence(answer["message"]) and says in answer["message"], answer


def test_a_post_with_no_content_type_at_all_gets_400_not_a_crash(store):
    data = body().encode()
    request = (
        b"POST " + RESULTS.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token alice-token\r\n"
        b"Content-Length: " + str(len(data)).encode() + b"\r\nConnection: close\r\n\r\n" + data
    )
    [(code, answer, _), (after, _, _)] = exchange(store, ("RAW", RESULTS, {}, request), post("alice-token"))
    assert code == 400 and "Content-Type: application/json" in answer["message"], answer
    assert after == 201 and store.count() == 1


def test_a_stored_result_is_answered_with_its_id_and_a_resend_says_it_was_not_stored_again(store):
    check = str(uuid.uuid4())
    answers = serve(store, post("alice-token", body(id=check)), post("alice-token", body(id=check)))
    assert answers == [(201, {"stored": True, "id": check}), (200, {"stored": False, "id": check})]


def test_an_unexpected_failure_is_a_json_500_that_shows_nothing_inside_and_the_service_goes_on(store, monkeypatch):
    real_add, failures = store.add, []

    def add_once_failing(name, result):
        if not failures:
            failures.append(name)
            raise RuntimeError("disk I/O error in /srv/class/secret.sqlite")
        return real_add(name, result)

    monkeypatch.setattr(store, "add", add_once_failing)
    [(code, answer, headers), (after, _, _)] = exchange(store, post("alice-token"), post("alice-token"))
    assert code == 500 and headers["Content-Type"].split(";")[0] == "application/json"
    assert answer["status"] == 500 and answer["message"] and "secret" not in json.dumps(answer), answer
    assert after == 201 and store.count() == 1


def test_the_class_results_are_never_cached_and_the_csv_downloads_as_a_file(store):
    serve(store, post("alice-token"))
    summary, csv, page_ = exchange(
        store, *(("GET", path, token("teacher-token"), None) for path in (SUMMARY, CSV, PAGE))
    )
    for code, _, headers in (summary, csv, page_):
        assert code == 200 and headers["Cache-Control"] == "no-store"
    assert csv[2]["Content-Type"] == "text/csv; charset=utf-8"
    assert csv[2]["Content-Disposition"] == 'attachment; filename="class-results.csv"'


def test_the_summary_carries_the_exercises_the_count_and_the_catalogues_labels(store):
    from classroom.service.catalogue import MISTAKES

    serve(store, post("alice-token"), post("bob-token"))
    [(code, summary)] = serve(store, ("GET", SUMMARY, token("teacher-token"), None))
    assert code == 200 and set(summary) == {"exercises", "results", "labels"}
    assert summary["results"] == 2 and summary["labels"] == MISTAKES and summary["exercises"]


def test_the_live_page_carries_the_hubs_xsrf_token_escaped(store):
    from classroom.service import page

    rendered = page.render('a"<b')
    assert '<meta name="xsrf" content="a&quot;&lt;b">' in rendered and "__XSRF__" not in rendered
    [(code, text)] = serve(store, ("GET", PAGE, token("teacher-token"), None))
    [sent] = re.findall(r'<meta name="xsrf" content="([^"]*)">', text)
    assert code == 200 and sent and "__XSRF__" not in text


def test_the_hubs_oauth_callback_is_the_hubs_handler(store):
    [(code, _)] = serve(store, ("GET", PREFIX + "oauth_callback", {}, None))
    assert code != 404 and code < 500  # the hub's handler refuses a callback without its code and state


class Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines: list[tuple[str, str]] = []

    def emit(self, record):
        self.lines.append((record.name, record.getMessage()))


def test_the_access_log_has_status_method_path_and_time_and_never_a_token(store):
    records = Records()
    root = logging.getLogger()
    root.addHandler(records)
    loggers = [logging.getLogger(name) for name in ("classroom.service", "tornado.access")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.INFO)
    try:
        started = time.perf_counter()
        answers = serve(store, post("alice-token"), ("GET", SUMMARY + "?token=teacher-token&names=1", {}, None))
        elapsed_ms = 1000 * (time.perf_counter() - started)
    finally:
        root.removeHandler(records)
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
    assert [code for code, _ in answers] == [201, 200]
    mine = [text for name, text in records.lines if name == "classroom.service"]
    pattern = r"(\d{3}) (POST|GET) (\S+) (\d+\.\d) ms"
    lines = [re.fullmatch(pattern, text) for text in mine]
    assert all(lines) and len(lines) == 2, mine
    assert [m.group(1, 2, 3) for m in lines] == [("201", "POST", RESULTS), ("200", "GET", SUMMARY)]
    assert all(float(m.group(4)) <= elapsed_ms for m in lines)  # each request's own time, in ms
    assert not [text for _, text in records.lines if "token" in text], records.lines
