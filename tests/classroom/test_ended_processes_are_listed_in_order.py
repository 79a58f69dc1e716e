"""``end_processes`` (classroom/hub/proctree.py) "returns the ids of those it signalled": sorted, whatever
order they were given in and however a set would hold them, and each id once though it was sent SIGTERM and
then SIGKILL. The processes are stood in for (no process is signalled): ``alive`` and ``os.kill`` are the
test's, so the ids can be any numbers.
"""

from __future__ import annotations

import signal

import pytest

from classroom.hub import proctree


@pytest.fixture
def stand_ins(monkeypatch):
    sent, ended = [], set()
    stubborn = set()  # ids that ignore SIGTERM

    def kill(pid, sig):
        sent.append((pid, sig))
        if sig == signal.SIGKILL or pid not in stubborn:
            ended.add(pid)

    def alive(pid, start=None):
        return pid not in ended

    monkeypatch.setattr(proctree.os, "kill", kill)
    monkeypatch.setattr(proctree, "alive", alive)
    return sent, stubborn


def test_the_ids_signalled_are_returned_sorted_whatever_their_order(stand_ins):
    sent, _ = stand_ins
    # 16, 9, 40: an int set of this size holds 16 before 9 (16 % 8 == 0, 9 % 8 == 1)
    assert proctree.end_processes({40: 1, 16: 1, 9: 1}, grace=0.01) == [9, 16, 40]
    assert sorted(sent) == [(9, signal.SIGTERM), (16, signal.SIGTERM), (40, signal.SIGTERM)]


def test_a_process_sent_both_signals_is_listed_once(stand_ins):
    sent, stubborn = stand_ins
    stubborn.add(16)
    assert proctree.end_processes({16: 1, 9: 1}, grace=0.01) == [9, 16]
    assert sent == [(16, signal.SIGTERM), (9, signal.SIGTERM), (16, signal.SIGKILL)]  # TERM to all, then KILL
