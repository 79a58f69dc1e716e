"""Rounding half away from zero, as people do by hand, at its edges (helpers.core.rounding): a half exactly,
and one unit of the next place either side of it, for both signs; the decimal as written, not its binary value."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core import rounding
from helpers.core.layernorm import round_half_away_from_zero as from_layernorm
from helpers.core.rounding import round_half_away_from_zero


@pytest.mark.parametrize(
    ("value", "places", "rounded"),
    [
        (0.0625, 3, 0.063),  # a half exactly: away from zero (numpy gives 0.062)
        (0.0624, 3, 0.062),  # one unit of the next place below it
        (0.0626, 3, 0.063),  # one unit above it
        (-0.0625, 3, -0.063),
        (-0.0624, 3, -0.062),
        (-0.0626, 3, -0.063),
        (1.315, 2, 1.32),  # 1.315 is 1.31499… in binary: the decimal as written rounds up
        (2.5, 0, 3.0),
        (-2.5, 0, -3.0),
        (0.05, 1, 0.1),
        (0.04999, 1, 0.0),
    ],
)
def test_halves_go_away_from_zero(value, places, rounded):
    assert rounding.round_half_away_from_zero(value, places) == rounded


def test_a_negative_that_rounds_to_zero_is_zero_not_minus_zero():
    assert str(rounding.round_half_away_from_zero(-0.0004, 3)) == "0.0"


def test_arrays_keep_their_shape_and_the_old_names_are_the_same_function():
    got = rounding.round_half_away_from_zero(np.array([[0.0625, -0.0625], [1.315, 2.5]]), 2)
    assert got.shape == (2, 2) and got.tolist() == [[0.06, -0.06], [1.32, 2.5]]
    assert from_layernorm is rounding.round_half_away_from_zero is rounding.round_half_up


@pytest.mark.parametrize(("a", "b", "same"), [(0.0625, 0.0634, True), (0.0625, 0.0624, False), (-0.0625, -0.063, True)])
def test_same_when_rounded_at_the_edge(a, b, same):
    assert rounding.same_when_rounded(a, b, 3) is same


def test_keep_is_the_hand_records_rule():
    assert rounding.keep(rounding.written(1.315), 2) == rounding.written(1.32)
    assert rounding.keep(rounding.written(-0.125), 2) == rounding.written(-0.13)


@pytest.mark.parametrize("value", [float("1.0000000000000002e17"), -123456789012345.67, 1.7976931348623157e308])
def test_twelve_places_of_the_largest_floats_are_kept_exactly(value):
    """Decimal arithmetic "wide enough for any float kept to 12 places (1.8e308 has 309 digits)": a float that
    already has no more than 12 places comes back as itself, however many digits it has."""
    assert rounding.round_half_away_from_zero(value, 12) == value
    assert rounding.keep(rounding.written(value), 12) == rounding.written(value)


@pytest.mark.parametrize(
    "value, places",
    [(2.5, 400), (0.0, 1000), (-1.25, 3), (1.7976931348623157e308, 400), (5e-324, 400), (123456789.0, 401)],
    ids=["2.5 to 400", "0 to 1000", "-1.25 to 3", "largest float to 400", "smallest float to 400", "1e8 to 401"],
)
def test_a_value_with_no_more_places_than_kept_is_itself_however_many_are_asked(value, places):
    """Rounding to more places than a number is written with changes nothing (and never raises)."""
    assert round_half_away_from_zero(value, places) == value


def test_more_places_than_kept_still_round_half_away_from_zero_next_to_ones_that_do_not():
    assert round_half_away_from_zero(0.0625, 3) == 0.063 and round_half_away_from_zero(-0.0625, 3) == -0.063
    assert round_half_away_from_zero(0.0625, 4) == 0.0625
    assert str(round_half_away_from_zero(-0.0, 5)) == "0.0"  # never a printed −0.0
