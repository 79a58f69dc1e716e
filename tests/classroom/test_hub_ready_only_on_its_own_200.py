"""When a starting hub counts as ready, and when a port counts as taken (classroom/hub/launch.py), decided
without a network: the hub's REST root answering 200 is the hub; any other answer (the proxy's 503 while the
hub starts, a 401, a 404) is a hub not there yet, until the time runs out and that is said. A port that may
not be bound (EACCES: below 1024 without root) is as good as taken; one in use is taken; one free is free.
The clock, the sleep, the HTTP answers and the socket are the test's own.
"""

from __future__ import annotations

import errno
import io
import urllib.error
from email.message import Message
from types import SimpleNamespace

import pytest

from classroom.hub import launch
from classroom.hub.launch import Hub, HubError
from classroom.hub.settings import HubSettings


class Running:
    returncode = None

    def poll(self):
        return None


@pytest.fixture
def answering(monkeypatch):
    """urlopen answers each path with the status the test sets; each call moves the clock by 0.25 s."""
    asked, statuses, clock = [], {}, [0.0]

    class Answer:
        def __init__(self, status):
            self.status, self.headers = status, {"Content-Type": "application/json"}

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def opened(url, timeout):
        asked.append(url)
        clock[0] += 0.25
        status = statuses[url.split(":8123", 1)[1]]
        if status >= 400:
            raise urllib.error.HTTPError(url, status, "no", Message(), io.BytesIO(b""))
        return Answer(status)

    monkeypatch.setattr(launch.urllib.request, "urlopen", opened)
    monkeypatch.setattr(launch, "time", SimpleNamespace(monotonic=lambda: clock[0], sleep=lambda s: None))
    return asked, statuses


@pytest.mark.parametrize("status", [401, 404, 503, 302])
def test_a_hub_answering_anything_but_200_is_not_ready(answering, status):
    asked, statuses = answering
    statuses["/hub/api/"] = status
    with pytest.raises(HubError) as caught:
        Hub(HubSettings(ip="127.0.0.1", port=8123, class_service=False), Running()).wait_ready(timeout=1.0)
    assert str(caught.value) == "the hub did not answer in time"
    assert len(asked) == 4 and set(asked) == {"http://127.0.0.1:8123/hub/api/"}  # asked until the time ran out


def test_a_hub_answering_200_is_ready_at_once(answering):
    asked, statuses = answering
    statuses["/hub/api/"] = 200
    Hub(HubSettings(ip="127.0.0.1", port=8123, class_service=False), Running()).wait_ready(timeout=1.0)
    assert asked == ["http://127.0.0.1:8123/hub/api/"]


class Socket:
    """A socket whose bind fails with the test's errno (None: it binds)."""

    fails_with = None

    def __init__(self, *args):
        pass

    def setsockopt(self, *args):
        pass

    def bind(self, address):
        if Socket.fails_with is not None:
            raise OSError(Socket.fails_with, "stand-in")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize(("fails_with", "free"), [(None, True), (errno.EADDRINUSE, False), (errno.EACCES, False)])
def test_a_port_that_may_not_be_bound_is_as_good_as_taken(monkeypatch, fails_with, free):
    monkeypatch.setattr(launch.socket, "socket", Socket)
    monkeypatch.setattr(Socket, "fails_with", fails_with)
    assert launch.port_free(80, "") is free


def test_a_port_refused_for_another_reason_is_an_error_not_a_busy_port(monkeypatch):
    monkeypatch.setattr(launch.socket, "socket", Socket)
    monkeypatch.setattr(Socket, "fails_with", errno.EADDRNOTAVAIL)
    with pytest.raises(OSError) as caught:
        launch.port_free(8000, "10.9.9.9")
    assert caught.value.errno == errno.EADDRNOTAVAIL
