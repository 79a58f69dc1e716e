"""smallest_zero_sum_squares: "None if none sums to 0", whichever side of 0 every row in the ranges lies.

A table row printed as 1.00, 1.00, 1.00 can only hide rows summing to 2.985 … 3.015; one printed −1.00, −1.00,
−1.00 only rows summing to −3.015 … −2.985. Neither hides a zero-sum row, so neither has a least sum of squares,
and the published check shows "—" for it.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.published_table import check_published_output, smallest_zero_sum_squares
from helpers.display.verdicts import published_check_table

HALF = 0.005


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_ranges_all_on_one_side_of_zero_have_no_zero_sum_row(sign):
    printed = sign * np.ones(3)
    assert smallest_zero_sum_squares(printed - HALF, printed + HALF) is None


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_printed_zero_sum_row_has_its_values_moved_half_a_unit_towards_zero(sign):
    printed = sign * np.array([1.0, -1.0, 0.0])  # least: 0.995, −0.995, 0 → 2 × 0.995²
    found = smallest_zero_sum_squares(printed - HALF, printed + HALF)
    assert found == pytest.approx(2 * 0.995**2, abs=1e-12)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_the_check_shows_no_least_sum_of_squares_for_such_a_row(sign):
    check = check_published_output([sign * np.ones(3)], [[1.0, 2.0, 3.0]])
    (row,) = check.rows
    assert row.smallest_sum_of_squares is None and not row.squares_within_n
    assert published_check_table(check).rows[0].cells[4].text == "—"
