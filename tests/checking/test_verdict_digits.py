"""How many digits a verdict prints so that "expected" and "got" never look the same when they differ
(helpers/checking/results.py, telling_digits and values_text's ``against``), from their docstrings: the fewest
significant digits, 6 or more (17 at most), at which every value that differs from its counterpart prints
differently; 6 when the shapes differ; NaN and infinity print as themselves and need no digits."""

from __future__ import annotations

import numpy as np

from helpers.checking.results import pair_texts, telling_digits, values_text


def test_values_that_differ_in_their_eighth_digit_are_printed_with_eight():
    assert telling_digits(1.0000001, 1.0) == 8
    assert telling_digits([1.0000001, 2.0], [1.0, 2.0]) == 8
    assert values_text([1.0000001, 2.0], against=[1.0, 2.0]) == "[1.0000001, 2]"
    assert values_text(0.659363 + 1e-10, against=0.659363) == "0.6593630001"


def test_six_digits_at_least_even_where_one_would_tell_them_apart():
    assert telling_digits(1.0, 2.0) == 6
    assert telling_digits([1.0, 2.0], [1.0, 2.0]) == 6  # nothing differs


def test_a_nan_or_an_infinity_needs_no_digits():
    assert telling_digits([np.nan, 1.0], [np.nan, 1.0]) == 6
    assert telling_digits([np.inf, 1.0000001], [1.0, 1.0]) == 8


def test_seventeen_digits_at_most():
    assert telling_digits(1.0 + 2**-52, 1.0) == 17


def test_six_digits_when_the_shapes_differ():
    assert telling_digits([1.0000001, 2.0], [1.0, 2.0, 3.0]) == 6  # they cannot be set side by side
    assert telling_digits(1.0000001, [1.0, 2.0]) == 6  # a number against a row


def test_a_value_alone_is_printed_to_six_significant_digits_or_as_many_as_tell_values_apart():
    assert values_text([0.123456789, 0.2]) == "[0.123457, 0.2]"
    assert values_text(1 / 3) == "0.333333"
    assert values_text([1e8, 1e8 + 1]) == "[100000000, 100000001]"  # the docstring's example


def test_a_pair_shows_the_digits_of_its_far_values_and_not_those_of_its_rounding():
    """pair_texts: values within the room print at six digits even where they differ; those outside it with
    digits enough to differ."""
    expected = np.array([1.0, 2.0, 3.0])
    got = np.array([1.0 + 1e-12, 2.0000001, 3.0])
    room = (0.0, 1e-9)  # 1e-12 is within it, 1e-7 is not
    assert pair_texts(expected, got, room) == ("[1, 2, 3]", "[1, 2.0000001, 3]")
    assert pair_texts(expected, got, (0.0, 1e-6)) == ("[1, 2, 3]", "[1, 2, 3]")  # all within: six digits
    assert pair_texts(expected, got, (0.0, np.array([1e-9, 1e-6, 1e-9]))) == ("[1, 2, 3]", "[1, 2, 3]")


def test_a_pair_of_different_shapes_is_shown_as_it_is():
    assert pair_texts([1.0, 2.0], [1.0, 2.0, 3.0], (0.0, 1e-9)) == ("[1, 2]", "[1, 2, 3]")
    assert pair_texts([1.0, np.nan], [1.0, np.nan], (0.0, 1e-9)) == ("[1, nan]", "[1, nan]")
