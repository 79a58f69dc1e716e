"""What the class record keeps and what it drops (helpers/checking/class_record.py, ``deliver``), from the module's
docstring: a verdict the service refuses (400, or 413 for a body too large) is dropped, not retried, whether it
is the new one or one that waited; while the service cannot be reached, the new verdict waits and those already
waiting stay as they are (they go with the next one that gets through)."""

from __future__ import annotations

import io
import json
import urllib.error

import pytest

from helpers.checking import class_record

from service_answer import Answer

URL = "http://127.0.0.1:1/services/class/"


@pytest.fixture
def service(monkeypatch):
    """A stand-in service answering each id with the status in ``service.status`` (201 when not there)."""

    class Service:
        status: dict = {}
        asked: list = []

    def urlopen(request, timeout):
        name = json.loads(request.data)["id"]
        Service.asked.append(name)
        status = Service.status.get(name, 201)
        if status >= 300:
            raise urllib.error.HTTPError(request.full_url, status, "answer", {}, io.BytesIO(b""))
        return Answer(status)

    monkeypatch.setattr(class_record.urllib.request, "urlopen", urlopen)
    return Service


def verdict(name):
    return {"id": name, "notebook": "03", "step": "variance", "passed": False, "mistake": "n-1"}


def waiting(pending):
    return [json.loads(line)["id"] for line in pending.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("status", [400, 413])
def test_a_new_verdict_the_service_refuses_is_dropped_not_kept(service, tmp_path, status):
    pending = tmp_path / "pending-results.jsonl"
    service.status = {"a": status}
    class_record.deliver(URL, "a-token", verdict("a"), pending)
    assert service.asked == ["a"] and not pending.exists()


@pytest.mark.parametrize("status", [400, 413])
def test_a_waiting_verdict_the_service_refuses_is_dropped_with_the_next_delivery(service, tmp_path, status):
    pending = tmp_path / "pending-results.jsonl"
    pending.write_text("".join(json.dumps(verdict(n)) + "\n" for n in ("w1", "w2", "w3")), encoding="utf-8")
    service.status = {"w1": status, "w2": 503}
    assert class_record.deliver(URL, "a-token", verdict("new"), pending)
    assert service.asked == ["new", "w1", "w2", "w3"]
    assert waiting(pending) == ["w2"]  # only the one the service could not take now


def test_while_the_service_is_down_the_waiting_verdicts_are_not_sent_and_the_new_one_joins_them(service, tmp_path):
    pending = tmp_path / "pending-results.jsonl"
    pending.write_text(json.dumps(verdict("w1")) + "\n", encoding="utf-8")
    service.status = {"new": 503}
    assert class_record.deliver(URL, "a-token", verdict("new"), pending) is False
    assert service.asked == ["new"]
    assert waiting(pending) == ["w1", "new"]
