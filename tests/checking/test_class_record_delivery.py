"""How the class record sends a verdict and keeps what it could not send (helpers/checking/class_record.py),
without a service: urllib's urlopen is replaced by a stand-in that answers as told and remembers each request.

From the module's docstring and the service's (classroom/service/app.py): a verdict is POSTed as JSON
(``Content-Type: application/json``, which the service requires) to the service's ``api/results`` with the
student's token, with a 2-second time-out; one that cannot get through waits in the pending file (the
student's only: the file 0o600, its folder 0o700) and goes with the next one that does, and a line cut short
by a crash loses only itself. Nothing here ever raises into the learner's notebook."""

from __future__ import annotations

import io
import json
import stat
import urllib.error

import pytest

from helpers.checking import class_record

from service_answer import Answer

URL = "http://127.0.0.1:1/services/class/"


@pytest.fixture
def service(monkeypatch):
    """A stand-in service: ``service.down`` holds the ids it cannot take now (503); it keeps each request."""

    class Service:
        requests: list = []
        down: set = set()

        @staticmethod
        def sent_ids():
            return [json.loads(request.data)["id"] for request, _ in Service.requests]

    def urlopen(request, timeout):
        Service.requests.append((request, timeout))
        if json.loads(request.data)["id"] in Service.down:
            raise urllib.error.HTTPError(request.full_url, 503, "busy", {}, io.BytesIO(b""))
        return Answer(201)

    monkeypatch.setattr(class_record.urllib.request, "urlopen", urlopen)
    return Service


def verdict(name, passed=False):
    return {"id": name, "notebook": "03", "step": "variance", "passed": passed, "mistake": None if passed else "n-1"}


@pytest.mark.parametrize("url", [URL, URL.rstrip("/")])
def test_a_verdict_is_posted_as_json_to_the_services_results_with_the_token(service, tmp_path, url):
    assert class_record.deliver(url, "a-token", verdict("a"), tmp_path / "pending.jsonl")
    [(request, timeout)] = service.requests
    assert request.full_url == "http://127.0.0.1:1/services/class/api/results"
    assert request.get_method() == "POST" and json.loads(request.data) == verdict("a")
    assert request.get_header("Authorization") == "token a-token"
    assert request.get_header("Content-type").lower() == "application/json"  # else the service refuses it: 400
    assert timeout == 2.0  # "with a 2-second time-out"


def test_verdicts_that_wait_go_with_the_next_one_and_those_still_refused_keep_waiting(service, tmp_path):
    pending = tmp_path / "home" / ".layernorm" / "pending-results.jsonl"
    service.down = {"a", "b"}
    assert not class_record.deliver(URL, "a-token", verdict("a"), pending)
    assert not class_record.deliver(URL, "a-token", verdict("b", passed=True), pending)
    assert stat.S_IMODE(pending.parent.stat().st_mode) == 0o700  # the student's only
    service.down = {"b"}
    assert class_record.deliver(URL, "a-token", verdict("c"), pending)
    assert service.sent_ids() == ["a", "b", "c", "a", "b"]
    assert all(request.get_header("Authorization") == "token a-token" for request, _ in service.requests)
    assert [json.loads(line) for line in pending.read_text(encoding="utf-8").splitlines()] == [verdict("b", True)]
    assert stat.S_IMODE(pending.stat().st_mode) == 0o600
    assert sorted(p.name for p in pending.parent.iterdir()) == [pending.name]  # nothing half-written left beside it
    service.down = set()
    assert class_record.deliver(URL, "a-token", verdict("d"), pending)
    assert service.sent_ids()[-2:] == ["d", "b"] and not pending.exists()


def test_a_line_cut_short_in_the_pending_file_loses_only_itself(service, tmp_path):
    pending = tmp_path / "pending-results.jsonl"
    lines = [json.dumps(verdict("a")), json.dumps(verdict("b"))[:20], json.dumps(verdict("c"))]
    pending.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert class_record.deliver(URL, "a-token", verdict("d"), pending)
    assert service.sent_ids() == ["d", "a", "c"] and not pending.exists()


def test_a_pending_file_that_cannot_be_written_is_a_verdict_not_sent_and_no_error(service, tmp_path):
    (tmp_path / "home").write_text("a file where the pending folder would be", encoding="utf-8")
    service.down = {"a"}
    assert class_record.deliver(URL, "a-token", verdict("a"), tmp_path / "home" / "pending.jsonl") is False


def test_a_kernel_without_a_session_name_records_under_the_steps_notebook_in_a_daemon_thread(monkeypatch):
    sent = []
    monkeypatch.setattr(class_record, "deliver", lambda url, token, verdict: sent.append((url, token, verdict)))
    environ = {"LAYERNORM_CLASS_URL": URL, "JUPYTERHUB_API_TOKEN": "a-token"}  # a console: no JPY_SESSION_NAME
    thread = class_record.record(None, "mean", True, None, environ=environ)
    thread.join(5)
    assert thread.daemon and thread.name == "class_record"  # the kernel may exit without waiting for it
    [(url, token, verdict)] = sent
    assert (url, token) == (URL, "a-token")
    assert {k: verdict[k] for k in ("notebook", "step", "passed", "mistake")} == {
        "notebook": "02", "step": "mean", "passed": True, "mistake": None}  # fmt: skip
