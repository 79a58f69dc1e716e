"""Notebook 09's naive kernels overflow, divide by zero and make NaN the way a kernel does: quietly.

"Nothing is checked or repaired ... exactly as a naive kernel would" (``layer_norm_with``): a float16
square past 65504 is inf, a negative variance gives NaN, a zero variance with ε = 0 gives ±inf, and
none of it prints a RuntimeWarning under the learner's table. Every call here runs with every
warning turned into an error, and the values are the IEEE results written out by hand."""

import math
import warnings

import numpy as np

from helpers.lessons.numerics import errors as numerics_errors
from helpers.lessons.numerics import moments as numerics
from helpers.lessons.numerics import precision

ROW_1 = np.array([1.133, -0.299, 0.503])


def quietly(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return function(*args, **kwargs)


def test_a_value_too_big_for_float16_is_stored_as_inf_without_a_warning():
    # 70,000 > 65,504: float16 holds inf; the mean is inf and inf − inf is NaN.
    assert math.isnan(quietly(numerics.variance_two_pass, [70_000.0, 1.0], dtype=np.float16))
    np.testing.assert_array_equal(quietly(precision.stored_as, [70_000.0, -70_000.0], "float16"), [np.inf, -np.inf])


def test_a_float16_running_sum_overflows_to_inf_and_inf_minus_inf_is_nan_quietly():
    assert quietly(numerics.running_sum, np.array([60_000.0, 60_000.0]), np.float16) == np.inf
    assert math.isnan(quietly(numerics.running_sum, np.array([np.inf, -np.inf]), np.float16))


def test_squares_past_65504_make_the_float16_variance_inf_quietly():
    # Two-pass: the differences are ±300 and 300² = 90,000 > 65,504.
    assert quietly(numerics.variance_two_pass, [-300.0, 300.0], dtype=np.float16) == np.inf
    # Welford: delta = 600 times (300 − 0) is 180,000.
    assert quietly(numerics.variance_welford, [-300.0, 300.0], dtype=np.float16) == np.inf
    # Welford on a stored inf: the running mean is inf, inf − inf is NaN.
    assert math.isnan(quietly(numerics.variance_welford, [70_000.0, 1.0], dtype=np.float16))


def test_one_pass_parts_in_float16_past_the_square_limit_are_inf_inf_nan():
    # 300² and 300.5² are both past 65,504: E[x²] = inf, E[x]² = inf, inf − inf = NaN.
    mean_of_squares, square_of_mean, difference = quietly(numerics.one_pass_parts, [300.0, 301.0], np.float16)
    assert mean_of_squares == math.inf and square_of_mean == math.inf and math.isnan(difference)


def test_float16_layer_norm_whose_centring_overflows_is_nan_quietly():
    # The float16 mean of (−60000, 60000, 60000) is 20000; −60000 − 20000 overflows to −inf.
    output = quietly(numerics.layer_norm_with, [-60_000.0, 60_000.0, 60_000.0], "one-pass", np.float16)
    assert output.dtype == np.float16 and np.all(np.isnan(output))


def test_zero_variance_and_eps_zero_divide_to_signed_inf_quietly():
    # One-pass on row 1 + 10,000 in float32 computes σ² = 0 (the notebook's table); with ε = 0 that is x/0.
    output = quietly(numerics.layer_norm_with, ROW_1 + 10_000, "one-pass", np.float32, eps=0.0)
    np.testing.assert_array_equal(output, [np.inf, -np.inf, np.inf])
    # Two-pass: differences of ±5e-31 square to 2.5e-61, which float32 rounds to 0.
    output = quietly(numerics.layer_norm_with, [1e-30, 0.0], "two-pass", np.float32, eps=0.0)
    np.testing.assert_array_equal(output, [np.inf, -np.inf])
    output = quietly(precision.layer_norm_low_precision, [1e-30, 0.0], "float32", "float32", eps=0.0)
    np.testing.assert_array_equal(output, [np.inf, -np.inf])


def test_float32_two_pass_with_overflowing_squares_or_an_inf_input_is_quiet():
    # (±1e30)² overflows float32: σ² = inf, so every output is x/inf = 0.
    np.testing.assert_array_equal(
        quietly(numerics.layer_norm_with, [1e30, -1e30, 0.0], "two-pass", np.float32), [0.0, 0.0, 0.0]
    )
    assert np.all(np.isnan(quietly(numerics.layer_norm_with, [np.inf, 1.0], "two-pass", np.float32)))
    np.testing.assert_array_equal(
        quietly(precision.layer_norm_low_precision, [1e30, -1e30, 0.0], "float32", "float32"), [0.0, 0.0, 0.0]
    )
    # float16 storage turns 70,000 into inf before the float32 statistics see it.
    assert np.all(np.isnan(quietly(precision.layer_norm_low_precision, [70_000.0, 1.0], "float16", "float32")))
    # A constant row with ε = 0: 0/0.
    assert np.all(np.isnan(quietly(precision.layer_norm_low_precision, [1.0, 1.0], "float32", "float32", eps=0.0)))


def test_an_offset_float16_cannot_hold_gives_nan_rows_judged_wrong_quietly():
    for result in quietly(numerics.offset_sweep, ROW_1, (70_000,), np.float16):
        assert result.dtype == "float16" and result.offset == 70_000.0
        assert np.all(np.isinf(result.stored_input))  # 70,001.133 and friends are past 65,504
        assert math.isnan(result.true_variance) and np.all(np.isnan(result.true_output))
        assert result.true_output.shape == (3,)
        assert np.all(np.isnan(result.output)) and result.right is False


def test_float16_stages_on_a_wide_spread_and_on_a_variance_float16_rounds_to_zero_are_quiet():
    # Squared differences of about 300² do not fit float16: the variance stage's float16 sum is inf.
    wide = quietly(numerics_errors.float16_stage_errors, [-300.0, 300.0, 1.0])
    assert wide.squares_sum == math.inf
    # 0.001 and 0.00101 differ in float16, but their variance (about 2.5e-11) is 0 in float16 and so is
    # ε = 1e-12: the normalise stage divides a nonzero x − μ by 0.
    tiny = quietly(numerics_errors.float16_stage_errors, [0.001, 0.00101], eps=1e-12)
    assert tiny.alone["normalise"] == math.inf
