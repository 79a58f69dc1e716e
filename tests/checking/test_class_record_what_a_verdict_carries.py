"""What one verdict sent to the class service carries (helpers/checking/class_record.py, ``record``), from the
module's docstring: the step, ✓ or ✗ and the mistake's key, never the learner's code or answer; the mistake only
with a ✗ (a ✓ has none); the notebook the kernel's session is, else the one given, else where the step is
introduced; nothing at all outside the class hub, for a step no notebook asks, or for what is not an attempt."""

from __future__ import annotations

import pytest

from helpers.checking import class_record
from helpers.checking.results import CheckResult

HUB = {"LAYERNORM_CLASS_URL": "http://127.0.0.1:1/services/class/", "JUPYTERHUB_API_TOKEN": "a-token"}


@pytest.fixture
def sent(monkeypatch):
    found = []
    monkeypatch.setattr(class_record, "deliver", lambda url, token, verdict: found.append(verdict))
    return found


def recorded(sent, *args, environ=HUB, **kwargs):
    thread = class_record.record(*args, environ=environ, **kwargs)
    assert thread is not None
    thread.join(5)
    return sent[-1]


def test_a_pass_carries_no_mistake_even_when_one_is_given(sent):
    assert recorded(sent, None, "variance", True, "n-1")["mistake"] is None


def test_a_fail_carries_its_mistakes_key(sent):
    verdict = recorded(sent, None, "variance", False, "n-1")
    assert (verdict["passed"], verdict["mistake"]) == (False, "n-1")


@pytest.mark.parametrize(("passed", "shown"), [(1, True), (0, False), ("", False)])
def test_passed_is_sent_as_a_true_boolean(sent, passed, shown):
    verdict = recorded(sent, None, "mean", passed, "n-1")
    assert verdict["passed"] is shown


def test_a_verdict_carries_only_its_id_notebook_step_mark_and_mistake(sent):
    verdict = recorded(sent, None, "std", False, "no-eps")
    assert sorted(verdict) == ["id", "mistake", "notebook", "passed", "step"]


def test_each_verdict_has_its_own_id(sent):
    first, second = recorded(sent, None, "std", True), recorded(sent, None, "std", True)
    assert first["id"] != second["id"] and len(first["id"]) == 36  # a uuid4 as text


def test_the_notebook_is_the_sessions_then_the_one_given_then_the_steps(sent):
    session = {**HUB, "JPY_SESSION_NAME": "/home/ann/notebooks/05_normalise.ipynb"}
    assert recorded(sent, None, "mean", True, environ=session)["notebook"] == "05"
    assert recorded(sent, "11", "mean", True, environ=session)["notebook"] == "11"  # the one given wins
    scratch = {**HUB, "JPY_SESSION_NAME": "/home/ann/scratch.ipynb"}
    assert recorded(sent, None, "layer_norm", True, environ=scratch)["notebook"] == "07"
    assert recorded(sent, None, "answer-output", True, environ=scratch)["notebook"] == "06"


@pytest.mark.parametrize(
    "environ",
    [
        {},
        {"LAYERNORM_CLASS_URL": HUB["LAYERNORM_CLASS_URL"]},  # no token: not the hub
        {"JUPYTERHUB_API_TOKEN": "a-token"},  # no class service
        {**HUB, "PYTEST_CURRENT_TEST": "a test"},
    ],
)
def test_nothing_is_sent_off_the_class_hub(sent, environ):
    assert class_record.record(None, "mean", True, environ=environ) is None and sent == []


def test_a_step_no_notebook_asks_is_not_sent(sent):
    assert class_record.record(None, "median", False, "n-1", environ=HUB) is None and sent == []


@pytest.mark.parametrize("key", ["not-written", "off-the-page"])
def test_what_is_not_an_attempt_is_not_recorded(monkeypatch, key):
    calls = []
    monkeypatch.setattr(class_record, "record", lambda *args, **kwargs: calls.append(args))
    assert class_record.record_result(CheckResult("mean", False, "Not written yet.", key)) is None
    assert calls == []
    class_record.record_result(CheckResult("mean", False, "Looks like a known mistake.", "n-1"))
    assert calls == [(None, "mean", False, "n-1")]
