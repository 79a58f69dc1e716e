"""``issue_40302(rows, features, seed)`` and ``issue_51102(rows, seed)``: rows of randn·0.01 + 100 and of
4 values randn + 2000, made from the seed with the size asked for, not always the notebook's."""

import numpy as np
import pytest

from helpers.lessons.numerics import history


@pytest.mark.parametrize(("rows", "features", "seed"), [(2, 16, 0), (3, 40, 7), (1, 8, 3)])
def test_issue_40302_draws_rows_of_the_asked_width_from_the_asked_seed(rows, features, seed):
    x = (np.random.default_rng(seed).standard_normal((rows, features)) * 0.01 + 100).astype(np.float32)
    result = history.issue_40302(rows=rows, features=features, seed=seed)
    np.testing.assert_array_equal(result["true"], x.astype(np.float64).var(axis=1))
    np.testing.assert_array_equal(result["kernel"], history.one_pass_kernel_2020(x).variance.astype(np.float64))
    assert result["true"].shape == result["kernel"].shape == (rows,)


@pytest.mark.parametrize(("rows", "seed"), [(5, 0), (3, 11)])
def test_issue_51102_draws_the_asked_rows_of_four_from_the_asked_seed(rows, seed):
    x = (np.random.default_rng(seed).standard_normal((rows, 4)) + 2000).astype(np.float32)
    variance = x.astype(np.float64).var(axis=1)
    result = history.issue_51102(rows=rows, seed=seed)
    np.testing.assert_array_equal(result["expected"], variance / (variance + 1e-5))
    output = history.one_pass_kernel_2020(x).output.astype(np.float64)
    np.testing.assert_array_equal(result["kernel"], output.var(axis=1))
