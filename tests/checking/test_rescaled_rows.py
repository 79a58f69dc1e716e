"""The one-pass variance's pattern (helpers/checking/results.py, _rescaled): a wrong variance only rescales a
row, so each row of the result is a positive multiple of the right one, "to 1e-3 of its size": a row off
from the multiple by less than 1e-3 of its largest value keeps the pattern, by more does not."""

from __future__ import annotations

import numpy as np

from helpers.checking.results import _rescaled

RIGHT = np.array([1.0, -1.0, 0.0, 0.0])  # x̂ of a row; its largest |value| is 1
ASIDE = np.array([0.0, 0.0, 1.0, -1.0])  # a change across the row that leaves the best multiple at 2


def test_twice_the_row_is_rescaled_and_a_negative_multiple_is_not():
    assert _rescaled(2 * RIGHT, RIGHT)
    assert not _rescaled(-2 * RIGHT, RIGHT)


def test_off_from_the_multiple_by_just_under_1e_3_of_its_size_keeps_the_pattern():
    assert _rescaled(2 * RIGHT + 0.9e-3 * 2 * ASIDE, RIGHT)  # 2 × 1: the multiple's size


def test_off_by_just_over_1e_3_of_its_size_does_not():
    assert not _rescaled(2 * RIGHT + 1.1e-3 * 2 * ASIDE, RIGHT)
    assert not _rescaled(2 * RIGHT + 5e-3 * 2 * ASIDE, RIGHT)  # five times the room: far from a multiple
