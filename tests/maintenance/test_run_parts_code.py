"""`run.py test`'s exit code from its parts' (tools/run/tests.py ``combined_code``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run.tests import combined_code  # noqa: E402


@pytest.mark.parametrize(
    "codes,expected",
    [
        ([0, 0, 0], 0),
        ([0, 1, 0], 1),
        ([2, 1, 0], 2),  # the first failure
        ([5, 0, 0], 0),  # a part with no tests is no failure while another ran tests
        ([5, 5, 1], 1),
        ([5, 5, 5], 5),  # nothing collected anywhere: not a pass
        ([0, 1, 5], 1),  # a part that never gave a code counts as failed (1)
    ],
)
def test_the_run_fails_when_a_part_fails_and_passes_only_when_one_ran_tests(codes, expected):
    assert combined_code(codes) == expected


# ``after_first``: the Colab-like pass starts when the first part ends, whichever it is, while the others go on.
WAIT = 30  # s: only ever waited out if after_first is wrong (then the test fails instead of hanging)


def test_what_follows_starts_when_the_first_task_ends_while_the_others_go_on():
    import threading

    from tools.run.tests import after_first

    second_ended, follow_started, log = threading.Event(), threading.Event(), []

    def first():  # ends only after the follower started: it must not wait for this one
        assert follow_started.wait(WAIT), "the follower waited for a task that had not ended"
        log.append("first ended")

    def second():
        log.append("second ended")
        second_ended.set()

    def third():  # still running when the follower starts
        assert follow_started.wait(WAIT)
        log.append("third ended")

    def follow():
        assert second_ended.is_set()
        log.append("follow started")
        follow_started.set()

    after_first([first, second, third], follow)
    assert log[:2] == ["second ended", "follow started"]
    assert sorted(log[2:]) == ["first ended", "third ended"]  # all ended before after_first returned


def test_a_task_that_fails_still_lets_what_follows_run():
    from tools.run.tests import after_first

    ran = []

    def broken():
        raise RuntimeError("a part that broke")

    with pytest.raises(RuntimeError, match="a part that broke"):
        after_first([broken], lambda: ran.append("follow"))
    assert ran == ["follow"]
