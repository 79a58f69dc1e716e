"""helpers.lessons.numerics.moments: which float type each computation really uses, what the input is
rounded to first, the edges of what it accepts and the sentence a learner reads for bad input.

Expected values come from float16/float32 loops written out here (one rounding per operation), from
numpy in float64, or from notebook 09's stored tables."""

import re

import numpy as np
import pytest

from helpers.core.formula import layer_norm_forward
from helpers.lessons.numerics import moments as numerics

ROW_1 = np.array([1.133, -0.299, 0.503])


def raises_exactly(message, function, *args, **kwargs):
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        function(*args, **kwargs)
    assert str(caught.value) == message


def float16_running_sum(values):
    total = np.float16(0)
    for value in values:
        total = np.float16(total + np.float16(value))  # the value as float16 holds it, then one rounding
    return total


def float16_two_pass(row):
    stored = [np.float16(v) for v in row]
    n = np.float16(len(stored))
    mean = np.float16(float16_running_sum(stored) / n)
    squares = [np.float16(np.float16(v - mean) * np.float16(v - mean)) for v in stored]
    return np.float16(float16_running_sum(squares) / n)


# --- dtype=None: the input's own float type ------------------------------------------------------------


@pytest.mark.parametrize("method", ["one-pass", "two-pass", "Welford"])
@pytest.mark.parametrize("kind", [np.float16, np.float32])
def test_without_a_dtype_a_low_precision_input_is_computed_in_its_own_type(method, kind):
    row = (ROW_1 + 100).astype(kind)
    variance = {"one-pass": numerics.variance_one_pass, "two-pass": numerics.variance_two_pass}.get(
        method, numerics.variance_welford
    )
    assert variance(row).dtype == kind
    np.testing.assert_array_equal(variance(row), variance(row, dtype=kind))
    output = numerics.layer_norm_with(row, method)
    assert output.dtype == kind
    np.testing.assert_array_equal(output, numerics.layer_norm_with(row, method, kind))


def test_integers_without_a_dtype_are_computed_in_float64():
    assert numerics.variance_two_pass([1, 2, 3, 4]).dtype == np.float64
    assert numerics.variance_two_pass([1, 2, 3, 4]) == 1.25


def test_one_pass_parts_of_a_float32_row_without_a_dtype_are_float32_parts():
    stored = (ROW_1 + 10_000).astype(np.float32)
    # notebook 09: in float32 both parts are 100,008,904 and their difference is 0.
    assert numerics.one_pass_parts(stored) == (100_008_904.0, 100_008_904.0, 0.0)


def test_one_pass_parts_of_a_float64_row_asked_for_float32_are_the_notebooks_float32_row():
    # The notebook passes row 1 + 10,000 as float64 numbers and asks for float32.
    assert numerics.one_pass_parts(ROW_1 + 10_000, np.float32) == (100_008_904.0, 100_008_904.0, 0.0)


def test_one_pass_parts_squares_the_values_float16_stores():
    row = [0.1, 0.2, 0.7]
    stored = [np.float16(v) for v in row]
    n = np.float16(3)
    mean_of_squares = np.float16(float16_running_sum([np.float16(v * v) for v in stored]) / n)
    mean = np.float16(float16_running_sum(stored) / n)
    square_of_mean = np.float16(mean * mean)
    expected = (float(mean_of_squares), float(square_of_mean), float(np.float16(mean_of_squares - square_of_mean)))
    assert numerics.one_pass_parts(row, np.float16) == expected


def test_two_pass_in_float16_rounds_the_input_then_every_step():
    for row in ([0.1, 0.2, 0.7], list(ROW_1 + 100), [3.3, -1.7, 2.9, 0.01, 5.5]):
        assert numerics.variance_two_pass(row, dtype=np.float16) == float16_two_pass(row)


def test_a_float16_running_sum_adds_the_float16_value_then_rounds():
    # 1.0001 is 1 in float16; 2048 + 1 = 2049 lies halfway between float16's 2048 and 2050: ties to even.
    assert numerics.running_sum(np.array([2048.0, 1.0001]), np.float16) == 2048.0


def test_a_running_sum_over_no_values_is_zero_in_the_asked_type():
    total = numerics.running_sum(np.zeros((2, 0)), np.float16)
    assert total.dtype == np.float16 and total.shape == (2,)
    np.testing.assert_array_equal(total, [0.0, 0.0])


def test_three_dimensional_input_sums_and_streams_along_the_last_axis():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 1.5
    totals = numerics.running_sum(x, np.float64)
    assert totals.shape == (2, 3)
    np.testing.assert_allclose(totals, [[sum(x[i, j]) for j in range(3)] for i in range(2)], rtol=1e-15)
    mean, variance = numerics.welford_moments(x)
    assert mean.shape == variance.shape == (2, 3)
    np.testing.assert_allclose(mean, x.mean(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(variance, x.var(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(numerics.variance_two_pass(x, axis=1), x.var(axis=1), rtol=1e-12)


# --- layer_norm_with --------------------------------------------------------------------------------


def test_layer_norm_with_uses_two_pass_when_no_method_is_named():
    row = (ROW_1 + 10_000).astype(np.float32)
    np.testing.assert_array_equal(numerics.layer_norm_with(row), numerics.layer_norm_with(row, "two-pass"))
    # notebook 09's table: row 1 + 10,000, two-pass, float32 (the float64 answer is 1.1729, -1.2707, 0.0978).
    np.testing.assert_allclose(numerics.layer_norm_with(row), [1.1735, -1.2701, 0.0983], atol=5e-5)


def test_float32_two_pass_is_the_packages_formula_bit_for_bit():
    row = np.random.default_rng(1).normal(size=4096) + 4
    stored = row.astype(np.float32)
    np.testing.assert_array_equal(
        numerics.layer_norm_with(row, "two-pass", np.float32), layer_norm_forward(stored, 1e-5)[0]
    )
    # A one-value-at-a-time float32 sum is not numpy's: the formula's mean is the one used.
    assert numerics.running_sum(stored, np.float32) != stored.sum()


def test_an_unknown_variance_method_is_named_with_the_three_choices():
    raises_exactly(
        "variance_method must be one of one-pass, two-pass, Welford; got 'three-pass'.",
        numerics.layer_norm_with,
        [1.0, 2.0],
        "three-pass",
    )


def test_an_integer_dtype_and_an_empty_row_are_explained():
    raises_exactly(
        "dtype must be float16, float32 or float64; got int32.", numerics.variance_two_pass, [1.0], dtype=np.int32
    )
    raises_exactly(
        "The variance needs at least one value along the axis; got shape (0,).", numerics.variance_one_pass, []
    )
    raises_exactly(
        "one_pass_parts takes one row (a flat list of numbers); got shape (2, 2).",
        numerics.one_pass_parts,
        [[1.0, 2.0], [3.0, 4.0]],
    )


# --- offset_sweep -----------------------------------------------------------------------------------


def test_a_sweep_of_a_single_value_is_all_zeros_and_right():
    results = numerics.offset_sweep([2.0], offsets=(0, 1_000))
    assert len(results) == 6
    for result in results:
        np.testing.assert_array_equal(result.output, [0.0])
        assert result.variance == 0.0 and result.true_variance == 0.0 and result.right


def test_an_empty_or_two_dimensional_row_is_refused_by_offset_sweep():
    raises_exactly("offset_sweep takes one row (a flat list of numbers); got shape (0,).", numerics.offset_sweep, [])
    raises_exactly(
        "offset_sweep takes one row (a flat list of numbers); got shape (1, 2).", numerics.offset_sweep, [[1.0, 2.0]]
    )


def test_sweep_true_variance_is_the_float64_variance_of_the_stored_row():
    for result in numerics.offset_sweep(ROW_1, offsets=(0, 10_000), dtype=np.float32):
        stored = (ROW_1 + result.offset).astype(np.float32).astype(np.float64)
        assert result.true_variance == pytest.approx(np.var(stored), rel=1e-12, abs=0)
    # notebook 09: 0.3432 at +10,000 in float32 (0.3434 for row 1 itself).
    assert round(result.true_variance, 4) == 0.3432


def test_sweep_adds_the_offset_in_float64_before_storing():
    row = np.array([0.5, 1.25, 3.0], dtype=np.float32)  # exact in float32; 0.1 is not
    (result, *_) = numerics.offset_sweep(row, offsets=(0.1,), dtype=np.float64)
    np.testing.assert_array_equal(result.stored_input, [0.5 + 0.1, 1.25 + 0.1, 3.0 + 0.1])


def test_sweep_without_a_dtype_uses_the_rows_float_type():
    row = (ROW_1 + 100).astype(np.float16)
    assert {r.dtype for r in numerics.offset_sweep(row, offsets=(0,), dtype=None)} == {"float16"}


def test_sweep_uses_its_eps_for_the_truth_and_for_every_method():
    eps = 0.5
    (one_pass, two_pass, welford) = numerics.offset_sweep(ROW_1, offsets=(0,), dtype=np.float64, eps=eps)
    centred = ROW_1 - ROW_1.mean()
    expected = centred / np.sqrt(np.mean(centred**2) + eps)
    for result in (one_pass, two_pass, welford):
        np.testing.assert_allclose(result.true_output, expected, rtol=1e-12)
        np.testing.assert_allclose(result.output, expected, rtol=1e-12)


# --- shift_scale_invariance ---------------------------------------------------------------------------


def test_invariance_accepts_a_row_of_exactly_two_numbers():
    (case,) = numerics.shift_scale_invariance([1.0, 3.0], scales=(1.0,))
    np.testing.assert_allclose(case.output, [-1 / np.sqrt(1 + 1e-5), 1 / np.sqrt(1 + 1e-5)], rtol=1e-12)


@pytest.mark.parametrize("row, shape", [([1.0], "(1,)"), ([[1.0, 2.0], [3.0, 4.0]], "(2, 2)"), ([], "(0,)")])
def test_invariance_refuses_fewer_than_two_numbers_or_a_matrix(row, shape):
    raises_exactly(
        f"shift_scale_invariance takes one row of at least two numbers; got shape {shape}.",
        numerics.shift_scale_invariance,
        row,
    )


@pytest.mark.parametrize("scale", [0.0, -1.0])
def test_invariance_refuses_a_zero_or_negative_scale(scale):
    raises_exactly(
        "Every scale must be positive (a negative scale flips the output's sign).",
        numerics.shift_scale_invariance,
        [1.0, 2.0],
        scales=(1.0, scale),
    )


def test_invariance_moves_the_row_in_float64_adding_the_shift():
    # At 2³⁰ float64's step is 2.4e-7 above and 1.2e-7 below: a·x + b is visibly rounded, and the output
    # is LayerNorm of exactly that rounded row.
    row = ROW_1.astype(np.float32)
    (case,) = numerics.shift_scale_invariance(row, shifts=(2.0**30,), scales=(0.001,))
    moved = 0.001 * ROW_1.astype(np.float32).astype(np.float64) + 2.0**30
    centred = moved - moved.mean()
    np.testing.assert_allclose(case.output, centred / np.sqrt(np.mean(centred**2) + 1e-5), rtol=0, atol=1e-9)
    assert case.shift == 2.0**30 and case.scale == 0.001
