"""Relative sizes in words (helpers/forensics/sizes.py), at the edges of each wording: within 5 % of the whole
is "about as much as" it (0.95 included, 1.05 not); under the noise floor is "nothing beyond rounding" (the
floor itself is not under it); a small size is said in the largest unit that keeps it under a thousand, with
two significant digits, and one of a unit is singular ("1 millionth", never "1000 billionths")."""

from __future__ import annotations

import pytest

from helpers.forensics.sizes import NOISE, factor_text, size_words

WHOLE = "the row's size"


@pytest.mark.parametrize("value", [0.95, 0.99, 1.0, 1.0499])
def test_within_five_percent_is_about_as_much(value):
    assert size_words(value) == f"about as much as {WHOLE}"


@pytest.mark.parametrize(("value", "words"), [(0.9499, f"0.95 of {WHOLE}"), (1.05, f"about 1.1 times {WHOLE}")])
def test_just_outside_five_percent_says_the_size(value, words):
    assert size_words(value) == words


def test_the_noise_floor_itself_is_not_under_it():
    assert size_words(NOISE * 0.999).startswith("nothing beyond rounding (under a billionth of")
    assert size_words(NOISE) == f"1 billionth of {WHOLE}"


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (1e-6, "1 millionth"),  # 1e-9 × 1000 is 1.0000000000000002e-06 in binary: not a thousand billionths
        (9.99e-7, "1 millionth"),  # 999 billionths at two significant digits
        (9.9e-7, "990 billionths"),
        (1.04e-6, "1 millionth"),
        (2.5e-6, "2.5 millionths"),
        (1e-3, "1 thousandth"),
        (9.99e-4, "1 thousandth"),
        (0.0099, "9.9 thousandths"),
    ],
)
def test_a_small_size_is_said_in_the_unit_that_keeps_it_under_a_thousand(value, words):
    assert size_words(value) == f"{words} of {WHOLE}"


@pytest.mark.parametrize(
    ("factor", "text"), [(2.0, "2"), (-1.0, "−1"), (1.001, "1.001"), (1.0002, "1.0002"), (1.000002, "1.000002")]
)
def test_a_factor_near_1_keeps_the_digits_that_show_how_near(factor, text):
    assert factor_text(factor) == text


@pytest.mark.parametrize(("factor", "text"), [(-2.0, "−2"), (-1.001, "−1.001"), (-1.000002, "−1.000002")])
def test_a_factor_near_minus_1_keeps_the_digits_that_show_how_near(factor, text):
    """A sign flip that is not exactly −1 shows how far it is from −1, as a factor near 1 does."""
    assert factor_text(factor) == text
