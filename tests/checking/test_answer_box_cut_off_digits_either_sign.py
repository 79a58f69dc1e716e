"""Digits cut off instead of rounded (helpers/checking/answers.py, ``diagnose``), on either side of zero: "a next
digit of 5 or more moves the last one away from zero", so −2.36667 cut to 2 places is −2.36 (towards zero), and
rounded is −2.37. The rows: (1, 2, 4.1) and its negative, mean ±7.1 / 3 = ±2.36667."""

from __future__ import annotations

import pytest

from helpers.checking.answers import WRONG, diagnose


@pytest.mark.parametrize(
    ("sign", "typed", "shown", "rounded"), [(1, "2.36", "2.36667", "2.37"), (-1, "-2.36", "-2.36667", "-2.37")]
)
def test_a_mean_with_its_digits_cut_off_is_named_whatever_its_sign(sign, typed, shown, rounded):
    row = [sign * 1.0, sign * 2.0, sign * 4.1]
    assert f"{sum(row) / 3:.5f}" == shown
    verdict = diagnose(row, "mean", typed)
    assert (verdict.kind, verdict.mistake) == (WRONG, "cut-off"), verdict
    assert verdict.hint == (
        f"{shown} to 2 decimal places is {rounded}: it looks like you cut the digits off instead of rounding "
        "(a next digit of 5 or more moves the last one away from zero)."
    )


def test_a_negative_mean_moved_away_from_zero_by_two_units_is_not_a_cut_off():
    verdict = diagnose([-1.0, -2.0, -4.1], "mean", "-2.38")  # one unit past the rounded −2.37, away from zero
    assert verdict.mistake != "cut-off", verdict
