"""``welford_merge`` (Chan's formula): the (count, mean, M2) of two parts combined without revisiting the data. It
holds for every split of a row, including a part with nothing in it, and M2 / count is the biased variance."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.lessons.numerics.precision import welford_merge, welford_state

from conftest import examples

ROW = np.array([1.133, -0.299, 0.503, 2.0, -1.5])


@pytest.mark.parametrize("split", range(len(ROW) + 1))
def test_every_split_of_row_merges_to_the_whole(split):
    count, mean, m2 = welford_merge(welford_state(ROW[:split]), welford_state(ROW[split:]))
    assert count == 5
    assert mean == pytest.approx(ROW.mean(), rel=1e-14)
    assert m2 / count == pytest.approx(ROW.var(), rel=1e-13)


def test_merging_with_an_empty_part_on_either_side_gives_the_other_part():
    part = welford_state([2.0, 4.0, 9.0])  # mean 5, M2 = 9 + 1 + 16 = 26
    assert part == (3, 5.0, 26.0)
    assert welford_merge((0, 0.0, 0.0), part) == (3, 5.0, 26.0)
    assert welford_merge(part, (0, 0.0, 0.0)) == (3, 5.0, 26.0)


def test_two_single_values_merge_by_the_formula():
    # δ = 6 − 2 = 4, n = 2, mean = 2 + 4·1/2 = 4, M2 = 0 + 0 + 16·1·1/2 = 8
    assert welford_merge((1, 2.0, 0.0), (1, 6.0, 0.0)) == (2, 4.0, 8.0)


def test_unequal_parts_weigh_each_mean_by_its_count():
    # a: [0, 0, 0] (mean 0, M2 0); b: [4] → mean 0 + 4·1/4 = 1; M2 = 16·3·1/4 = 12 (= Σ(x − 1)² = 3 + 9)
    assert welford_merge(welford_state([0.0, 0.0, 0.0]), welford_state([4.0])) == (4, 1.0, 12.0)
    assert welford_merge(welford_state([4.0]), welford_state([0.0, 0.0, 0.0])) == (4, 1.0, 12.0)


@settings(max_examples=examples(25, fast=10), deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=1, max_size=12), st.data())
def test_any_split_of_any_row_of_whole_numbers_merges_to_the_whole(values, data):
    row = np.array(values, dtype=np.float64)
    split = data.draw(st.integers(0, len(values)))
    count, mean, m2 = welford_merge(welford_state(row[:split]), welford_state(row[split:]))
    assert count == len(values)
    assert mean == pytest.approx(row.mean(), rel=1e-12, abs=1e-9)
    assert m2 == pytest.approx(((row - row.mean()) ** 2).sum(), rel=1e-9, abs=1e-6)
