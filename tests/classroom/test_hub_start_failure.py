"""When a test's class hub stops while starting, the error carries its log's last lines: the log itself is
deleted with the hub's state (classroom/sim/classhub.py), so "see its log" alone pointed at nothing."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.sim.classhub import last_lines  # noqa: E402


def test_the_last_lines_of_a_log_are_joined_in_order(tmp_path):
    log = tmp_path / "hub.log"
    log.write_text("".join(f"line {i}\n" for i in range(1, 31)), encoding="utf-8")
    assert last_lines(log) == " | ".join(f"line {i}" for i in range(19, 31))
    assert last_lines(log, count=2) == "line 29 | line 30"


def test_a_log_that_is_empty_or_missing_says_so(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("", encoding="utf-8")
    assert last_lines(empty) == "(empty)"
    assert last_lines(tmp_path / "missing.log").startswith("(unreadable: ")
