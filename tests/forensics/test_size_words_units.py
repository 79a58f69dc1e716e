"""Relative sizes in words (helpers/forensics/sizes.py) for every kind of size its docstring lists: nothing to
say ("—"), NaN or infinity, under the noise floor (the floor named in words when it has a name), a share of
the whole with two significant digits, "about N times" with thousands separated by commas, and millions,
billions and trillions of times; and a constant factor with 4 digits, or 8 when it is within 1e-3 of ±1."""

from __future__ import annotations

import math

import pytest

from helpers.forensics.sizes import factor_text, size_words

WHOLE = "the row's size"


def test_nothing_measured_and_nan_or_infinity():
    assert size_words(None) == "—"
    assert size_words(math.nan) == "NaN or infinity"
    assert size_words(math.inf) == "NaN or infinity"


@pytest.mark.parametrize(
    ("noise", "under"), [(1e-9, "a billionth"), (1e-6, "a millionth"), (1e-2, "a hundredth"), (3e-7, "3e-07")]
)
def test_under_the_noise_floor_names_the_floor(noise, under):
    assert (
        size_words(noise / 2, noise=noise, whole="its output")
        == f"nothing beyond rounding (under {under} of its output)"
    )


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (1.5, "about 1.5 times"),
        (9.4, "about 9.4 times"),
        (10.0, "about 10 times"),
        (3210.0, "about 3,200 times"),
        (999_000.0, "about 1,000,000 times"),
        (1e6, "about 1 million times"),
        (2.5e9, "about 2.5 billion times"),
        (1e12, "about 1 trillion times"),
        (3.3e13, "about 33 trillion times"),
    ],
)
def test_a_large_size_is_about_so_many_times_the_whole(value, words):
    assert size_words(value) == f"{words} {WHOLE}"


@pytest.mark.parametrize(
    ("value", "words"), [(0.26, "0.26 of"), (0.01, "0.01 of"), (0.5, "0.5 of"), (0.123, "0.12 of")]
)
def test_a_share_of_the_whole_has_two_significant_digits(value, words):
    assert size_words(value) == f"{words} {WHOLE}"


@pytest.mark.parametrize(
    ("value", "words"), [(2.5e-10, "250 trillionths"), (4e-12, "4 trillionths"), (1e-12, "1 trillionth")]
)
def test_under_a_billionth_when_the_floor_allows_it(value, words):
    assert size_words(value, noise=0.0) == f"{words} of {WHOLE}"


@pytest.mark.parametrize(
    ("factor", "text"),
    [
        (1.23456789, "1.235"),
        (1.00149, "1.001"),
        (1.00099, "1.00099"),
        (-1.000002, "−1.000002"),
        (1.00000123456, "1.0000012"),
        (-2.5, "−2.5"),
    ],
)
def test_a_factor_has_4_digits_or_8_within_a_thousandth_of_1(factor, text):
    assert factor_text(factor) == text
