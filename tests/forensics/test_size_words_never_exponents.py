"""Sizes in words (helpers.forensics.sizes.size_words) are never written with an exponent ("never 3.2e+03"):
a size that rounds up to 1000 of a unit is said in the next unit (99.6 times is about 100, 999.6 million about 1 billion), past the
largest unit the amount gets its thousands separator (3,300 trillion), and far under a trillionth the amount
is written out in decimals (0.00005 trillionths)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.forensics.sizes import size_words

WHOLE = "the row's size"


@pytest.mark.parametrize(
    "value, words",
    [
        (99.6, "about 100 times"),
        (9.996e8, "about 1 billion times"),
        (9.996e11, "about 1 trillion times"),
        (3.3e15, "about 3,300 trillion times"),
        (4.5e8, "about 450 million times"),
    ],
)
def test_a_large_size_rounding_to_a_thousand_of_its_unit_is_said_in_the_next(value, words):
    assert size_words(value) == f"{words} {WHOLE}"


@pytest.mark.parametrize(
    "value, amount",
    [(5e-17, "0.00005"), (1.23e-17, "0.000012"), (5.5e-19, "0.00000055"), (1e-16, "0.0001")],
)
def test_a_size_far_under_a_trillionth_is_written_in_decimals(value, amount):
    assert size_words(value, noise=0.0) == f"{amount} trillionths of {WHOLE}"


@settings(max_examples=30)
@given(st.floats(min_value=1e-300, max_value=1e300))
def test_no_size_is_written_with_an_exponent(value):
    words = size_words(value, noise=0.0)
    assert not re.search(r"\de[+-]?\d", words), words
