"""A correct LayerNorm output printed to 2 places still passes check 1 (the row sums to 0).

helpers.core.published_table's docstring: "A table printed to 2 places can be off by up to 0.005 in each
value, so every check allows exactly that much and no more"; RowCheck.sum_allowance: "How far rounding can
move the row's sum: n × half a unit". Each printed value may be off by half a unit, so a row of n values
may sum to anything within n half-units of 0. The true output is worked out here with numpy, by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.published_table import check_published_output


def true_output(x, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    d = x - x.mean()
    return d / np.sqrt((d * d).mean() + eps)


def test_three_values_each_rounded_down_sum_to_one_printed_unit_and_still_pass():
    x = [0.3, 0.8, 0.3]
    # -0.7071, 1.4142, -0.7071: each printed value moves its sum by up to half a unit, all three the same way
    printed = [-0.71, 1.41, -0.71]
    assert np.all(np.abs(true_output(x) - printed) <= 0.005)
    assert sum(printed) == pytest.approx(-0.01)  # past half a unit, within three
    row = check_published_output([printed], [x]).rows[0]
    assert row.sum_allowance == pytest.approx(3 * 0.005)
    assert row.sums_to_zero
    assert row.verdict == "right: the true output, rounded"


def test_a_sum_past_n_half_units_fails_check_1():
    x = [0.3, 0.8, 0.3]
    printed = [-0.71, 1.40, -0.71]  # sums to -0.02: more than rounding three values can do
    row = check_published_output([printed], [x]).rows[0]
    assert not row.sums_to_zero
    assert row.verdict.startswith("impossible: the row does not sum to 0")
