"""proctree.end_processes returns the ids it signalled: a process it may not signal (another user's, when not
root) or that went in between is neither listed nor a crash, and the others are still ended and listed."""

from __future__ import annotations

import signal

from classroom.hub import proctree


def test_refused_and_vanished_processes_are_left_out_and_the_rest_signalled_twice(monkeypatch):
    sent = []

    def kill(pid, sig):
        if pid == 11:
            raise PermissionError(pid)
        if pid == 12:
            raise ProcessLookupError(pid)
        sent.append((pid, sig))

    monkeypatch.setattr(proctree, "alive", lambda pid, start=None: True)  # nothing ever ends by itself
    monkeypatch.setattr(proctree.os, "kill", kill)
    assert proctree.end_processes({13: 5, 11: 5, 12: 5}, grace=0) == [13]
    assert sent == [(13, signal.SIGTERM), (13, signal.SIGKILL)]
