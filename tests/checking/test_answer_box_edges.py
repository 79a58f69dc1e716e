"""An answer box's edges, exactly on them and one unit in the last place either side.

Rows whose values are short decimals put the exact value on a decimal (a mean of 0.25, a variance of
0.0625), so that an answer can sit exactly half a unit or one unit away; a value exactly on a boundary
counts as inside it (helpers.core.tolerance.EDGE), whatever binary floating point does to the decimals.
"""

from __future__ import annotations

import pytest

from helpers.checking.answers import RIGHT, ROUNDING, WRONG, diagnose


@pytest.mark.parametrize("typed, kind", [("0.12", RIGHT), ("0.13", RIGHT), ("0.11", WRONG), ("0.14", WRONG)])
def test_an_answer_exactly_half_a_unit_from_the_exact_value_is_right(typed, kind):
    assert diagnose([0.0, 0.25], "mean", typed).kind == kind  # exact 0.125


@pytest.mark.parametrize("typed, kind", [("0.04", ROUNDING), ("0.05", ROUNDING), ("0.06", WRONG)])
def test_half_a_unit_with_fewer_than_two_significant_digits_is_right_up_to_rounding(typed, kind):
    verdict = diagnose([0.0, 0.09], "mean", typed)  # exact 0.045: 0.04 and 0.05 keep one significant digit
    assert verdict.kind == kind
    assert (verdict.mistake == "too-few-digits") is (kind == ROUNDING)


@pytest.mark.parametrize(
    "typed, slip", [("-0.25", True), ("-0.24", True), ("-0.26", True), ("-0.23", False), ("-0.27", False)]
)
def test_a_sign_slip_is_named_up_to_one_unit_from_the_right_size(typed, slip):
    verdict = diagnose([0.0, 0.5], "mean", typed)  # exact 0.25
    assert verdict.kind == WRONG and (verdict.mistake == "sign") is slip, verdict


@pytest.mark.parametrize("typed", ["-0.001", "0.000", "-0.002"])
def test_a_value_within_one_unit_of_zero_has_no_sign_to_slip(typed):
    verdict = diagnose([0.0, 0.002], "mean", typed)  # exact 0.001: one unit at 3 places
    assert verdict.mistake != "sign", verdict


@pytest.mark.parametrize(
    "typed, named", [("0.700", True), ("0.699", True), ("0.701", True), ("0.698", False), ("0.702", False)]
)
def test_a_mistake_is_named_up_to_one_unit_from_its_value(typed, named):
    # the sum of (0.1, 0.2, 0.4) is exactly 0.7: the mean not divided by n
    verdict = diagnose([0.1, 0.2, 0.4], "mean", typed)
    assert verdict.kind == WRONG and (verdict.mistake == "sum-not-divided") is named, verdict
    if named:  # the catalogue's sentence, and nothing about rounding by hand: the mean has one step
        assert verdict.hint == (
            "Looks like a known mistake: not dividing the sum by n. That is the sum of the values: divide it by n = 3."
        )


@pytest.mark.parametrize(
    "typed, slip",
    [("2.662", True), ("2.663", True), ("2.664", True), ("2.665", True), ("2.666", True), ("2.667", False)],
)
def test_a_sign_slip_is_named_up_to_one_unit_from_the_right_size_worked_by_hand(typed, slip):
    # notebook 06's output: exact -2.66237, -2.665 with every step rounded to 3 places by hand (exercises.md)
    verdict = diagnose([0.076, -0.313, -0.262], "output", typed, index=2, gamma=[2, 1, 3], beta=[0, 0.5, -1])
    assert verdict.kind == WRONG and (verdict.mistake == "sign") is slip, verdict


@pytest.mark.parametrize(
    "row, typed", [([0.5, 1.5], "-1.0"), ([-0.5, -1.5], "1.0"), ([0.5, 1.5], "-1.00"), ([-0.5, -1.5], "1.00")]
)
def test_a_mean_of_exactly_one_with_the_wrong_sign_is_a_sign_slip(row, typed):
    verdict = diagnose(row, "mean", typed)
    assert (verdict.kind, verdict.mistake) == (WRONG, "sign"), verdict


@pytest.mark.parametrize(
    "row, quantity, typed",
    [
        ([0.1, 0.2], "mean", "0.0"),  # dividing by 3 gives 0.1: exactly half a unit from the exact 0.15
        ([0.0, 0.25], "mean", "0.0"),  # dividing by 3 gives 0.083: under half a unit from the exact 0.125
        ([0.427, -0.407], "std", "0.4169"),  # a forgotten ε gives 0.41700: under half a unit from 0.417012
    ],
)
def test_a_mistake_that_rounds_like_the_right_value_is_not_named(row, quantity, typed):
    # one unit from the mistake's value, but that value is within half a unit of the right one: the digits
    # cannot tell the mistake from the right working
    verdict = diagnose(row, quantity, typed)
    assert (verdict.kind, verdict.mistake) == (WRONG, None) and verdict.hint.startswith("Not quite."), verdict


def test_of_two_mistakes_within_one_unit_the_one_with_the_answers_digits_is_named():
    # notebook 05's row: the variance 0.0753 without dividing by n is 0.2258 (0.2 at 1 place), the values
    # squared without the mean 0.2508 (0.3): "0.2" is the first
    verdict = diagnose([0.61, 0.616, 0.031], "variance", "0.2")
    assert (verdict.kind, verdict.mistake) == (WRONG, "sum-not-divided"), verdict


def test_of_two_mistakes_with_the_answers_digits_the_nearer_is_named():
    # x̂ of -0.752: dividing by n − 1 gives -0.6908, not squaring -0.6780; both are -0.7 at 1 place
    verdict = diagnose([-0.752, -0.579, 0.601], "normalised", "-0.7", index=0)
    assert (verdict.kind, verdict.mistake) == (WRONG, "n-1"), verdict
    assert verdict.hint.endswith("numpy's var and std divide by n unless given ddof=1.")  # no word of rounding by hand


@pytest.mark.parametrize("typed", ["0.000", "-0.000"])
def test_an_answer_of_zero_has_no_sign_to_slip(typed):
    # x̂ of 0.01049 is 0.00304 (3 units at 3 places); every step by hand at 3 places gives 0.000
    verdict = diagnose([0.01049, 0.07053, -0.05], "normalised", typed, index=0)
    assert verdict.kind == WRONG and verdict.mistake != "sign", verdict
