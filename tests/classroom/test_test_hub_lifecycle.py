"""The tests' class hub (classroom/sim/classhub.py) without root: launch and the accounts stood in for, its own
steps read. From its docstrings: students are named ``<prefix>001``…; the class list it writes names the
instructors (with "instructor") then the students; every port is its own free one on loopback; the admin
token is in the hub's environment only; a hub that does not get ready fails with its log's last lines; and
afterwards the hub is stopped, every account removed (even when one cannot be) and the state folder deleted.
"""

from __future__ import annotations

import os
from itertools import count
from pathlib import Path

import pytest

from classroom.hub import accounts, launch
from classroom.hub.settings import TOKEN_VARIABLE
from classroom.sim import classhub


def test_student_names_count_from_001_in_three_digits():
    assert classhub.names("s-", 3) == ["s-001", "s-002", "s-003"]
    assert classhub.names("grd-", 12)[-1] == "grd-012"
    assert classhub.names("x", 0) == []


class FakeHub:
    def __init__(self, settings, env, ready=True):
        self.settings, self.env, self.ready, self.stopped = settings, env, ready, None

    def wait_ready(self, timeout):
        self.waited = timeout
        if not self.ready:
            raise launch.HubError("the hub did not answer in time")

    def stop(self, timeout):
        self.stopped = timeout
        return [4321]


@pytest.fixture
def stood_in(monkeypatch):
    seen = {"removed": [], "hubs": []}
    ports = count(20001)
    monkeypatch.setattr(launch, "free_port", lambda: next(ports))

    def prepare(settings, say):
        seen["class list"] = settings.roster_path.read_text(encoding="utf-8")
        seen["state mode"] = Path(settings.state).stat().st_mode & 0o777
        settings.private.mkdir()

    def start(settings, log, env):
        log.write("first line\nthe last line\n")
        hub = FakeHub(settings, env, ready=seen.get("ready", True))
        seen["hubs"].append(hub)
        return hub

    def remove(name):
        seen["removed"].append(name)
        if name in seen.get("stuck", ()):
            raise accounts.AccountError(f"{name} still runs a process")

    monkeypatch.setattr(launch, "prepare", prepare)
    monkeypatch.setattr(launch, "start", start)
    monkeypatch.setattr(accounts, "remove_student", remove)
    return seen


def test_the_hub_runs_with_its_class_list_and_its_own_ports_and_is_cleaned_up(stood_in):
    with classhub.class_hub(["s001", "s002"], ["teach"], patience=2.0) as hub:
        state = Path(hub.settings.state)
        assert stood_in["class list"] == "teach instructor\ns001\ns002\n"
        assert stood_in["state mode"] == 0o755
        settings = hub.settings
        assert settings.ip == "127.0.0.1"
        ports = (settings.port, settings.hub_port, settings.proxy_api_port, settings.class_service_port)
        assert ports == (20001, 20002, 20003, 20004)
        assert hub.env[TOKEN_VARIABLE] == hub.token and len(hub.token) == 64
        assert TOKEN_VARIABLE not in os.environ
        assert hub.log_path == state / "private" / "hub.log"
        assert hub.waited == launch.READY_SECONDS * 2.0
    assert hub.stopped == launch.STOP_SECONDS * 2.0 and hub.leftovers == [4321]
    assert stood_in["removed"] == ["teach", "s001", "s002"]
    assert not state.exists()


def test_options_reach_the_hubs_settings(stood_in):
    with classhub.class_hub(["s001"], class_service=False, idle_timeout=5) as hub:
        assert hub.settings.class_service is False and hub.settings.idle_timeout == 5


def test_a_hub_that_does_not_get_ready_fails_with_its_logs_last_lines_and_is_cleaned_up(stood_in):
    stood_in["ready"] = False
    with pytest.raises(launch.HubError) as caught:
        with classhub.class_hub(["s001"]):
            pytest.fail("a hub that is not ready was handed to the test")
    assert str(caught.value) == "the hub did not answer in time; its log ended: first line | the last line"
    [hub] = stood_in["hubs"]
    assert hub.stopped == launch.STOP_SECONDS and stood_in["removed"] == ["s001"]
    assert not Path(hub.settings.state).exists()


def test_every_account_is_removed_even_when_one_cannot_be_and_the_first_problem_is_said(stood_in):
    stood_in["stuck"] = ("s001", "s003")
    with pytest.raises(accounts.AccountError) as caught:
        with classhub.class_hub(["s001", "s002", "s003"]) as hub:
            state = Path(hub.settings.state)
    assert stood_in["removed"] == ["s001", "s002", "s003"]
    assert str(caught.value) == "2 student account(s) could not be removed: s001 still runs a process"
    assert not state.exists()


def test_a_failing_test_still_stops_the_hub_and_removes_everything(stood_in):
    with pytest.raises(AssertionError, match="the test's own failure"):
        with classhub.class_hub(["s001"], ["teach"]) as hub:
            raise AssertionError("the test's own failure")
    assert hub.stopped == launch.STOP_SECONDS and stood_in["removed"] == ["teach", "s001"]
    assert not Path(hub.settings.state).exists()
