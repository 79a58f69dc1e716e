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


def test_every_row_is_read_not_only_the_first():
    twice = np.stack([2 * RIGHT, 2 * RIGHT])
    assert _rescaled(twice, np.stack([RIGHT, RIGHT]))
    assert not _rescaled(np.stack([2 * RIGHT, -2 * RIGHT]), np.stack([RIGHT, RIGHT]))
    assert not _rescaled(np.stack([2 * RIGHT, 2 * ASIDE]), np.stack([RIGHT, RIGHT]))


def test_a_nan_row_far_from_zero_or_a_zero_row_of_x_hat_leaves_the_other_rows_to_be_read():
    expected = np.stack([RIGHT, RIGHT])
    nan_then_wrong = np.stack([np.full(4, np.nan), -2 * RIGHT])
    assert not _rescaled(nan_then_wrong, expected, far_rows=np.array([True, True]))
    assert _rescaled(np.stack([np.full(4, np.nan), 3 * RIGHT]), expected, far_rows=np.array([True, False]))
    assert not _rescaled(np.stack([2 * RIGHT, np.full(4, np.inf)]), expected, far_rows=np.array([True, False]))
    zero_then_wrong = np.stack([np.zeros(4), -2 * RIGHT])
    assert not _rescaled(zero_then_wrong, np.stack([np.zeros(4), RIGHT]))


def test_a_positive_multiple_below_one_is_rescaled_and_zero_times_the_row_is_not():
    assert _rescaled(0.5 * RIGHT, RIGHT)
    assert not _rescaled(0 * RIGHT, RIGHT)


def test_the_room_is_1e_3_of_the_multiples_size_whatever_the_rows_size():
    big = 10 * RIGHT  # its largest |value| is 10: the room is 1e-3 × 2 × 10
    assert _rescaled(2 * big + 0.9e-3 * 2 * 10 * ASIDE, big)
    assert not _rescaled(2 * big + 1.1e-3 * 2 * 10 * ASIDE, big)
