"""helpers.core's rounding edges: the rounding drift's one-unit and 1 % lines, hand rounding's width, and
round_half_away_from_zero's types. (The refusals and input checks are in tests/core/test_input_checks.py.)

Each test states a rule from a docstring; expected values are worked out here (exact fractions, or
the numbers written out), never read back from helpers. tools/mutation/mutmut_triage.md lists which
survivor each test was written against.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from helpers.core.layernorm import layer_norm_steps, round_half_away_from_zero
from helpers.core.validation import InputError


def _stages(record) -> set[str]:
    return {drift.stage for drift in record.rounding_drift()}


# ---------------------------------------------------------------------------------------------
# rounding_drift: "off ... by more than one unit in the last kept place, or ... by more than 1%"


def test_a_stage_exactly_one_unit_off_is_not_listed():
    # mean −4.66 / 4 = −1.165 → −1.17 by hand; 0.775 + 1.17 = 1.945 → 1.95 against the exact 1.94:
    # one unit in the second place (0.010000000000000009 in floats), and 0.6% of the stage's size.
    record = layer_norm_steps([0.775, -1.013, -1.501, -2.921], decimals=2)
    assert record.differences[0] == 1.95 and abs(record.exact.differences[0] - 1.94) < 1e-12
    assert "differences" not in _stages(record)


def test_a_stage_one_and_a_half_units_off_is_listed_though_under_one_percent():
    record = layer_norm_steps([-1.3813, -2.7542, -2.9008], decimals=3)
    drift = {d.stage: d for d in record.rounding_drift()}["normalised"]
    hand, exact = np.asarray(record.normalised), np.asarray(record.exact.normalised)
    assert 1.2e-3 < np.max(np.abs(hand - exact)) < 1.9e-3  # more than one unit of 0.001, less than two
    assert drift.largest_difference == pytest.approx(np.max(np.abs(hand - exact)))
    # how far apart, as a fraction of the stage's size: well under the 1% that would list it anyway
    assert drift.relative_difference == pytest.approx(np.linalg.norm(hand - exact) / np.linalg.norm(exact))
    assert drift.relative_difference < 0.01


def test_a_stage_under_one_unit_off_is_listed_when_off_by_more_than_one_percent_of_its_size():
    # mean −0.047 / 3 = −0.015666…, kept as −0.016: a third of a unit of 0.001 off, and 2.1 % of the mean
    record = layer_norm_steps([0.003, -0.022, -0.028], decimals=3)
    exact, hand = Fraction(-47, 3000), Fraction(-16, 1000)
    assert record.mean == float(hand)
    assert abs(hand - exact) < Fraction(1, 1000) and abs(hand - exact) / abs(exact) > Fraction(2, 100)
    assert "mean" in _stages(record)


def test_a_stage_under_one_unit_and_under_one_percent_off_is_not_listed():
    # mean −0.125 / 3 = −0.041666…, kept as −0.042: a third of a unit off again, but 0.8 % of the mean
    record = layer_norm_steps([-0.046, 0.022, -0.101], decimals=3)
    exact, hand = Fraction(-125, 3000), Fraction(-42, 1000)
    assert record.mean == float(hand)
    assert Fraction(7, 1000) < abs(hand - exact) / abs(exact) < Fraction(9, 1000)
    assert "mean" not in _stages(record)


def test_a_stage_that_is_exactly_zero_by_hand_and_exactly_is_not_listed():
    # [1, −1] with eps = 0: mean 0, differences ±1, variance 1, std 1: every stage is exact at 3 places,
    # and the mean (0) has no size to be 1% of.
    record = layer_norm_steps([1.0, -1.0], eps=0, decimals=3)
    assert record.exact.mean == 0.0 and record.mean == 0.0
    assert record.rounding_drift() == ()


# ---------------------------------------------------------------------------------------------
# hand rounding: decimal arithmetic "wide enough for any float kept to 12 places"


def test_hand_rounding_keeps_twelve_places_of_values_near_1e17():
    # The values as written (repr): 1e17, 1e17 and 1.0000000000000002e17. The mean is 100000000000000006.666…,
    # 30 digits at 12 places: 28-digit decimal arithmetic (Python's default) would lose the last two.
    row = [1e17, 1e17, float("1.0000000000000002e17")]
    written = [Fraction(repr(v)) for v in row]
    mean = sum(written) / 3
    mean = Fraction(int(mean * 10**12 + Fraction(1, 2)), 10**12)  # positive: half up is half away from zero
    expected = [float(-(mean - w)) for w in written]  # already at 12 places: ±6.666666666667, 13.333333333333
    record = layer_norm_steps(row, decimals=12)
    assert list(record.differences) == expected
    assert record.differences[0] == -6.666666666667


def test_a_std_that_rounds_to_zero_says_so_in_plain_words():
    with pytest.raises(InputError) as caught:
        layer_norm_steps([1.0, 1.0001], decimals=0)
    assert caught.value.argument == "decimals"
    assert str(caught.value) == (
        "At 0 decimal places the standard deviation rounds to 0, so dividing by it is impossible; "
        "keep more places or use a larger eps."
    )


# ---------------------------------------------------------------------------------------------
# round_half_away_from_zero: "Returns a float for a float, else an array."


def test_rounding_a_float_gives_a_float_and_a_list_gives_an_array():
    one = round_half_away_from_zero(0.0625, 3)
    assert type(one) is float and one == 0.063
    many = round_half_away_from_zero([0.0625, -0.0625, 2.5], 0)
    assert isinstance(many, np.ndarray) and many.dtype == np.float64 and list(many) == [0.0, 0.0, 3.0]
    assert list(round_half_away_from_zero([0.0625, -0.0625], 3)) == [0.063, -0.063]
