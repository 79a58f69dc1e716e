"""Notebook 11 compares the two arrangements of dx with ``relative_error``: the largest |values − reference|
over the largest |reference|, one number for the whole array (not the largest per-entry ratio)."""

import pytest

from helpers.lessons.backward.precision import relative_error


def test_a_reference_whose_largest_entry_is_negative_is_measured_by_its_size():
    # largest |difference| 0.5, largest |reference| 4: 0.125 (dividing by the signed maximum, 1, gives 0.5)
    assert relative_error([1.0, -3.5], [1.0, -4.0]) == 0.125


def test_it_is_the_largest_difference_over_the_largest_reference_not_the_largest_ratio():
    # per entry: 0.1 / 1 = 0.1 and 0.5 / 10 = 0.05; the whole array: 0.5 / 10
    assert relative_error([1.1, 10.5], [1.0, 10.0]) == pytest.approx(0.05, rel=1e-12)


def test_a_matrix_is_one_number_too_and_a_difference_counts_by_its_size():
    # differences 1, −1, 0, 2 (largest size 2); largest |reference| 8, in a negative entry: 2 / 8
    assert relative_error([[2.0, -1.0], [4.0, -6.0]], [[1.0, 0.0], [4.0, -8.0]]) == 0.25
