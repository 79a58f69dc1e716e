"""The class service's parts without a hub: what may be recorded, the checks on a posted body,
and helpers.checking.class_record's sending (against a small local stand-in server).

Runs in the project's own environment (no JupyterHub needed); test_class_service.py runs the whole
thing on a real hub.
"""

from __future__ import annotations

import json
import stat
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from classroom.service import results  # noqa: E402
from classroom.service.catalogue import ANSWER_STEPS, MISTAKES, NOTEBOOKS, STEPS  # noqa: E402
from helpers.checking import class_record  # noqa: E402
from helpers.checking.answers import QUANTITIES  # noqa: E402


def body(**fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps({k: v for k, v in verdict.items() if v is not ...}).encode()


# --- what may be recorded ------------------------------------------------------------------
# Every key the code checker gives is in the one catalogue: tests/checking/test_mistake_keys.py (by behaviour).


@pytest.mark.slow
def test_every_mistake_an_answer_box_names_is_in_the_catalogue():
    from helpers.checking import answers as answer_check

    rng = np.random.default_rng(7)
    named = set()
    for row in [np.round(rng.uniform(-1, 1, 3), 3) for _ in range(2)] + [np.array([1.0, 2.0, 6.0])]:
        for quantity in QUANTITIES:
            question = {
                "index": 1 if quantity in ("normalised", "output") else None,
                "gamma": [2, 1, 3],
                "beta": [0, 0.5, -1],
            }
            for _, value, _ in answer_check.known_mistakes(row, quantity, **question):
                for places in (1, 3, 6):
                    text = f"{value:.{places}f}"
                    for asked in (None, 3):
                        verdict = answer_check.diagnose(row, quantity, text, places=asked, **question)
                        if not verdict.is_right:
                            named.add(verdict.mistake)
    named.discard(None)  # "Not quite": no key
    assert named <= set(MISTAKES), sorted(named - set(MISTAKES))
    assert {"n-1", "no-eps", "too-few-places", "rounding"} <= named  # the search reached the verdicts that matter
    assert {f"answer-{quantity}" for quantity in QUANTITIES} == set(ANSWER_STEPS)


def test_the_service_knows_every_step_a_kernel_records():
    """Each step the class record sends has a place in the service's catalogue, and the catalogue's notebooks
    are the series' (which notebook asks each check: tests/checking/test_class_record_rules.py)."""
    assert set(class_record.STEP_NOTEBOOKS) == set(STEPS) | set(ANSWER_STEPS)
    assert set(class_record.STEP_NOTEBOOKS.values()) <= set(NOTEBOOKS)
    assert NOTEBOOKS[0] == "00" and NOTEBOOKS[-1] == "13"


# --- a posted body ---------------------------------------------------------------------------
def test_a_good_body_is_read():
    result = results.parse(body())
    assert (result.notebook, result.step, result.passed, result.mistake) == ("03", "variance", False, "n-1")
    assert results.parse(body(passed=True, mistake=None)).passed


@pytest.mark.parametrize(
    "raw",
    [
        b"{not json",
        b"[1, 2]",
        b"\xff\xfe",
        body(step="varience"),
        body(notebook="14"),
        body(notebook=3),
        body(mistake="made-up"),
        body(passed="yes"),
        body(passed=True),  # a pass with a mistake
        body(id="7"),
        body(id=...),
        body(student="someone-else"),
        body(user="someone-else"),
        body(extra=1),
        body(mistake="x" * 5000),
    ],
)
def test_a_bad_body_is_refused_with_one_sentence(raw):
    with pytest.raises(results.Refused) as refused:
        results.parse(raw)
    message = str(refused.value)
    assert message[0].isupper() and message.endswith(".") and "\n" not in message


# --- helpers.checking.class_record -------------------------------------------------------------------------
class StandIn(BaseHTTPRequestHandler):
    """Answers like the service: 201, or the status the test sets; remembers what it got."""

    received: list = []
    status = 201
    gate = threading.Event()  # the stand-in answers once this is set: a slow service until then

    def do_POST(self):  # noqa: N802 (http.server's name)
        type(self).gate.wait(30)
        data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).received.append((self.headers["Authorization"], data))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def service():
    StandIn.received, StandIn.status, StandIn.gate = [], 201, threading.Event()
    StandIn.gate.set()
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    # shutdown() waits for the loop's next look at its flag: every 0.5 s by default, every 0.01 s here
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/services/class/"
    server.shutdown()


def hub_environ(url):
    return {"LAYERNORM_CLASS_URL": url, "JUPYTERHUB_API_TOKEN": "a-token",
            "JPY_SESSION_NAME": "/home/ann/layernorm-step-by-step/notebooks/03_variance.ipynb"}  # fmt: skip


def test_outside_a_hub_nothing_is_sent(service):
    assert class_record.record(None, "mean", False, "n-1", environ={}) is None
    assert class_record.record(None, "mean", False, "n-1", environ={"JUPYTERHUB_API_TOKEN": "t"}) is None
    assert (
        class_record.record(None, "mean", False, "n-1", environ={**hub_environ(service), "PYTEST_CURRENT_TEST": "x"})
        is None
    )
    assert class_record.record(None, "meen", False, None, environ=hub_environ(service)) is None
    assert StandIn.received == []


def test_a_verdict_is_sent_with_the_token_and_the_kernels_notebook(service, monkeypatch, tmp_path):
    monkeypatch.setattr(class_record, "PENDING", tmp_path / "pending.jsonl")
    thread = class_record.record(None, "variance", False, "n-1", environ=hub_environ(service))
    thread.join(5)
    [(authorization, sent)] = StandIn.received
    assert authorization == "token a-token"
    assert {k: sent[k] for k in ("notebook", "step", "passed", "mistake")} == {
        "notebook": "03", "step": "variance", "passed": False, "mistake": "n-1"}  # fmt: skip
    assert uuid.UUID(sent["id"])
    environ = {**hub_environ(service), "JPY_SESSION_NAME": "/home/ann/scratch.ipynb"}
    class_record.record(None, "std", True, "ignored", environ=environ).join(5)
    assert StandIn.received[-1][1]["notebook"] == "04" and StandIn.received[-1][1]["mistake"] is None


def test_the_check_never_waits_for_a_slow_service(service, monkeypatch, tmp_path):
    monkeypatch.setattr(class_record, "PENDING", tmp_path / "pending.jsonl")
    StandIn.gate.clear()  # the service does not answer until the test lets it
    try:
        thread = class_record.record(None, "mean", False, "n-1", environ=hub_environ(service))
        assert thread.is_alive() and StandIn.received == [], "the check waited for the service's answer"
    finally:
        StandIn.gate.set()
    thread.join(30)
    assert not thread.is_alive() and len(StandIn.received) == 1


def test_an_unreachable_service_loses_nothing(service, tmp_path):
    pending = tmp_path / "home" / ".layernorm" / "pending-results.jsonl"
    down = "http://127.0.0.1:9/services/class/"  # the discard port: nothing listens
    first = {"id": str(uuid.uuid4()), "notebook": "02", "step": "mean", "passed": False, "mistake": "n-1"}
    second = {**first, "id": str(uuid.uuid4()), "passed": True, "mistake": None}
    assert not class_record.deliver(down, "a-token", first, pending)
    assert not class_record.deliver(down, "a-token", second, pending)
    assert stat.S_IMODE(pending.stat().st_mode) == 0o600
    assert "a-token" not in pending.read_text()  # verdicts only, never the token
    third = {**first, "id": str(uuid.uuid4())}
    assert class_record.deliver(service, "a-token", third, pending)
    assert [sent["id"] for _, sent in StandIn.received] == [third["id"], first["id"], second["id"]]
    assert not pending.exists()


def test_a_refused_verdict_is_dropped_not_retried(service, tmp_path):
    pending = tmp_path / "pending.jsonl"
    StandIn.status = 400
    verdict = {"id": str(uuid.uuid4()), "notebook": "02", "step": "mean", "passed": False, "mistake": "n-1"}
    assert class_record.deliver(service, "a-token", verdict, pending)
    assert not pending.exists()
    StandIn.status = 503
    assert not class_record.deliver(service, "a-token", verdict, pending)
    assert pending.exists()


def test_the_checker_is_unchanged_outside_a_hub():
    from helpers.checking import exercises

    result = exercises.check("mean", lambda row: sum(row) / len(row))
    assert result.passed and exercises.check.__name__ == "check" and exercises.check.__wrapped__


def test_an_answer_box_verdict_is_sent(service, monkeypatch, tmp_path):
    from helpers.checking import answers as answer_check

    monkeypatch.setattr(class_record, "PENDING", tmp_path / "pending.jsonl")
    monkeypatch.setattr(class_record.os, "environ", hub_environ(service))
    verdict = answer_check.diagnose([1.0, 2.0, 6.0], "mean", "4.5", places=1)  # the sum over n − 1
    class_record.record_answer(verdict).join(5)
    sent = StandIn.received[-1][1]
    assert (sent["notebook"], sent["step"], sent["passed"], sent["mistake"]) == ("03", "answer-mean", False, "n-1")
    assert results.parse(json.dumps(sent).encode()).step == "answer-mean"  # and the service accepts it
