"""helpers.lessons.numerics.history: the old float32 one-pass kernel on any row shape, and the two
GitHub issues as notebook 09 reproduces them with their default sizes and seed (its stored sentences)."""

import numpy as np

from helpers.lessons.numerics import history as numerics_history


def lanes_by_hand(row):
    """Eight float32 lanes, value k into lane k mod 8, then the lanes added pairwise (4 + 4, 2 + 2, 1 + 1)."""
    lanes = [np.float32(0)] * 8
    for k, value in enumerate(np.asarray(row, dtype=np.float32)):
        lanes[k % 8] = np.float32(lanes[k % 8] + value)
    while len(lanes) > 1:
        half = len(lanes) // 2
        lanes = [np.float32(a + b) for a, b in zip(lanes[:half], lanes[half:])]
    return lanes[0]


def kernel_by_hand(row, eps=1e-5):
    row = np.asarray(row, dtype=np.float32)
    c = np.float32(1) / np.float32(row.size)
    mean = np.float32(lanes_by_hand(row) * c)
    variance = max(np.float32(np.float32(lanes_by_hand(row * row) * c) - np.float32(mean * mean)), np.float32(0))
    return mean, variance


def test_the_old_kernel_takes_one_row_as_a_flat_list():
    row = np.random.default_rng(11).normal(size=21) + 2000
    result = numerics_history.one_pass_kernel_2020(row.astype(np.float32))
    assert result.mean.shape == () and result.output.shape == (21,)
    assert (result.mean, result.variance) == kernel_by_hand(row)


def test_the_old_kernel_normalises_the_last_axis_of_three_dimensional_input():
    x = (np.random.default_rng(12).normal(size=(2, 3, 13)) + 2000).astype(np.float32)
    result = numerics_history.one_pass_kernel_2020(x)
    assert result.mean.shape == result.variance.shape == (2, 3) and result.output.shape == (2, 3, 13)
    for i in range(2):
        for j in range(3):
            assert (result.mean[i, j], result.variance[i, j]) == kernel_by_hand(x[i, j])


def test_the_old_kernel_rounds_float64_input_to_float32_first():
    row = np.random.default_rng(13).normal(size=(3, 10)) + 2000  # float64 numbers
    result = numerics_history.one_pass_kernel_2020(row)
    stored = numerics_history.one_pass_kernel_2020(row.astype(np.float32))
    assert result.mean.dtype == result.output.dtype == np.float32
    np.testing.assert_array_equal(result.variance, stored.variance)
    np.testing.assert_array_equal(result.output, stored.output)


def test_issue_40302_by_default_is_eight_rows_of_32768_from_seed_0_as_in_the_notebook():
    x = (np.random.default_rng(0).standard_normal((8, 32768)) * 0.01 + 100).astype(np.float32)
    result = numerics_history.issue_40302()
    np.testing.assert_array_equal(result["true"], x.astype(np.float64).var(axis=1))
    assert result["kernel"].shape == (8,) and result["kernel"].dtype == np.float64
    # Notebook 09: true variances 9.96e-05 to 1.01e-04; exactly 0 for 4 rows, 9.77e-04 to 1.95e-02 for the others.
    assert f"{result['true'].min():.2e} {result['true'].max():.2e}" == "9.96e-05 1.01e-04"
    wrong = result["kernel"][result["kernel"] > 0]
    assert np.sum(result["kernel"] == 0) == 4 and f"{wrong.min():.2e} {wrong.max():.2e}" == "9.77e-04 1.95e-02"


def test_issue_51102_by_default_is_1000_rows_of_4_from_seed_0_as_in_the_notebook():
    x = (np.random.default_rng(0).standard_normal((1000, 4)) + 2000).astype(np.float32).astype(np.float64)
    variance = x.var(axis=1)
    result = numerics_history.issue_51102()
    np.testing.assert_array_equal(result["expected"], variance / (variance + 1e-5))
    kernel = result["kernel"]
    assert kernel.shape == (1000,)
    # Notebook 09: above 100 for 127 rows, at most 48,886, within 1 % of the right value for only 24.
    assert np.sum(kernel > 100) == 127 and f"{kernel.max():,.0f}" == "48,886"
    assert np.sum(np.abs(kernel - result["expected"]) <= 0.01 * result["expected"]) == 24
