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
