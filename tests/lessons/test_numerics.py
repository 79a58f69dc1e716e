"""helpers.lessons.numerics.moments: three variance methods in finite precision, against float64 and torch."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import helpers
from helpers.lessons.numerics import errors as numerics_errors
from helpers.lessons.numerics import moments as numerics
from helpers.lessons.numerics.moments import (
    OUTPUT_TOLERANCE,
    VARIANCE_METHODS,
    layer_norm_with,
    offset_sweep,
    variance_one_pass,
    variance_two_pass,
    variance_welford,
)

from conftest import examples

ROW_1 = [1.133, -0.299, 0.503]


@pytest.fixture(scope="module")
def residual():
    return helpers.load_residual()


def _sweep_by(results):
    return {(r.offset, r.method): r for r in results}


@pytest.mark.parametrize("variance", [variance_one_pass, variance_two_pass, variance_welford])
def test_every_method_matches_numpy_biased_variance_in_float64(variance, residual):
    np.testing.assert_allclose(variance(residual), residual.var(axis=1), rtol=1e-12)
    np.testing.assert_allclose(variance(residual, axis=0), residual.var(axis=0), rtol=1e-12)


@pytest.mark.parametrize("variance", [variance_one_pass, variance_two_pass, variance_welford])
def test_methods_compute_in_the_requested_dtype(variance, residual):
    for dtype in (np.float16, np.float32, np.float64):
        assert variance(residual, dtype=dtype).dtype == dtype
        assert layer_norm_with(residual, "two-pass", dtype).dtype == dtype


@settings(max_examples=examples(40, fast=10), deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 12)), elements=st.floats(-1e3, 1e3, allow_nan=False))
)
def test_welford_and_two_pass_agree_with_numpy_on_random_matrices(x):
    expected = x.var(axis=-1)
    scale = max(1.0, float(np.max(np.abs(x))) ** 2)
    np.testing.assert_allclose(variance_welford(x), expected, rtol=1e-9, atol=1e-12 * scale)
    np.testing.assert_allclose(variance_two_pass(x), expected, rtol=1e-9, atol=1e-12 * scale)


def test_float32_welford_is_really_float32_and_not_float64():
    # Welford in float32 on a far-shifted row is measurably off float64; in float64 it is not.
    x = np.array(ROW_1) + 100_000
    stored = x.astype(np.float32).astype(np.float64)
    in_float64 = variance_welford(stored, dtype=np.float64)
    in_float32 = variance_welford(stored, dtype=np.float32)
    assert abs(in_float64 - stored.var()) < 1e-9
    assert abs(float(in_float32) - stored.var()) > 1e-4


def test_row_1_plus_10000_one_pass_collapses_in_float32():
    shifted = np.array(ROW_1) + 10_000
    variance = variance_one_pass(shifted, dtype=np.float32)
    assert variance == 0.0  # E[x²] and E[x]² round to the same float32 number
    output = layer_norm_with(shifted, "one-pass", np.float32)
    # Independent check: with variance 0 the output is (x − mean) / sqrt(eps), in float32.
    stored = shifted.astype(np.float32)
    expected = (stored - stored.mean(dtype=np.float32)) / np.sqrt(np.float32(1e-5))
    np.testing.assert_allclose(output, expected, rtol=1e-5)
    assert np.all(np.abs(output) > 10)  # in the tens and hundreds instead of about ±1


def test_row_1_plus_10000_two_pass_and_welford_match_torch_float32():
    shifted = np.array(ROW_1) + 10_000
    torch_output = torch.nn.functional.layer_norm(torch.tensor(shifted, dtype=torch.float32), (3,)).numpy()
    np.testing.assert_allclose(torch_output, [1.1734, -1.2701, 0.0983], atol=1e-4)
    for method in ("two-pass", "Welford"):
        np.testing.assert_allclose(layer_norm_with(shifted, method, np.float32), torch_output, atol=1e-3)


def test_offset_sweep_judges_each_method(residual):
    results = _sweep_by(offset_sweep(residual[0], offsets=(0, 10, 10_000), dtype=np.float32))
    assert len(results) == 3 * len(VARIANCE_METHODS)
    for method in VARIANCE_METHODS:
        assert results[(0.0, method)].right
    assert not results[(10_000.0, "one-pass")].right
    assert results[(10_000.0, "two-pass")].right
    assert results[(10_000.0, "Welford")].right
    one_pass = results[(10_000.0, "one-pass")]
    assert one_pass.variance == 0.0
    assert one_pass.largest_output_error > 100


def test_offset_sweep_truth_is_float64_layernorm_of_the_stored_input(residual):
    for result in offset_sweep(residual[0], offsets=(0, 1_000, 100_000), dtype=np.float32):
        stored = (residual[0] + result.offset).astype(np.float32).astype(np.float64)
        np.testing.assert_array_equal(result.stored_input, stored)
        centred = stored - stored.mean()
        expected = centred / np.sqrt(np.mean(centred**2) + 1e-5)  # written out here, not helpers'
        np.testing.assert_allclose(result.true_output, expected, atol=1e-12)
        assert result.right == (result.largest_output_error <= OUTPUT_TOLERANCE)


def test_one_pass_goes_negative_on_a_shifted_row_and_gives_nan(residual):
    # Row 4 + 10,000 in float32: the one-pass variance is negative, so its square root is NaN.
    variance = variance_one_pass(residual[3] + 10_000, dtype=np.float32)
    assert variance < 0
    assert np.all(np.isnan(layer_norm_with(residual[3] + 10_000, "one-pass", np.float32)))


def test_float16_facts():
    assert numerics.float16_largest() == 65504.0
    assert numerics.float16_square_limit() == pytest.approx(255.9375, abs=1e-3)
    assert numerics.float16_first_overflowing_square() == 256.0
    with np.errstate(over="ignore"):
        assert np.isinf(np.float16(256.0) * np.float16(256.0))
    assert np.isfinite(np.float16(255.875) * np.float16(255.875))


def test_float16_one_pass_overflows_where_two_pass_survives(residual):
    results = _sweep_by(offset_sweep(residual[0], offsets=(300,), dtype=np.float16))
    assert not math.isfinite(results[(300.0, "one-pass")].variance)  # 300² > 65504
    assert not results[(300.0, "one-pass")].right
    assert results[(300.0, "two-pass")].right


def test_torch_float16_layernorm_accumulates_in_float32_and_survives():
    # What PyTorch does differently from an all-float16 kernel: it keeps its sums in float32.
    x = torch.tensor(np.array(ROW_1) + 300, dtype=torch.float16)
    output = torch.nn.functional.layer_norm(x, (3,)).float().numpy()
    expected = layer_norm_with(np.array(ROW_1) + 300, "two-pass", np.float64)
    assert np.all(np.isfinite(output))
    np.testing.assert_allclose(output, expected, atol=0.1)  # float16 stores 300.5 as 300.5, 301.1 as 301.0


def test_shift_never_changes_layernorm_but_shrinking_row_5_does(residual):
    row_5 = residual[4]
    cases = numerics.shift_scale_invariance(row_5, shifts=(0.0, 1000.0), scales=(1.0, 0.1, 0.01, 0.001))
    by = {(c.shift, c.scale): c for c in cases}
    assert by[(1000.0, 1.0)].largest_change < 1e-9
    changes = [by[(0.0, s)].largest_change for s in (1.0, 0.1, 0.01, 0.001)]
    assert changes[0] == 0.0 and changes[1] > 0.1 and changes == sorted(changes)
    for case in cases:
        # Independent check: the output is the eps-free LayerNorm times sqrt(var / (var + eps)).
        centred = row_5 - row_5.mean()
        eps_free = centred / np.sqrt(np.mean(centred**2))
        np.testing.assert_allclose(case.output, eps_free * np.sqrt(1 - case.eps_share), atol=1e-9)


def test_shift_scale_invariance_holds_without_eps(residual):
    cases = numerics.shift_scale_invariance(residual[4], shifts=(0.0, 7.0), scales=(1.0, 0.001), eps=0.0)
    assert max(c.largest_change for c in cases) < 1e-9


@pytest.mark.parametrize(
    "bad",
    [
        lambda: layer_norm_with([1.0, 2.0], "three-pass"),
        lambda: variance_two_pass([1.0, 2.0], dtype=np.int32),
        lambda: variance_two_pass([]),
        lambda: offset_sweep([[1.0, 2.0]]),
        lambda: numerics.shift_scale_invariance([1.0, 2.0], scales=(-1.0,)),
    ],
)
def test_bad_input_is_a_plain_value_error(bad):
    with pytest.raises(ValueError):
        bad()


def test_one_pass_parts_for_row_1_plus_10000():
    stored = (np.array(ROW_1) + 10_000).astype(np.float32)
    mean_of_squares, square_of_mean, difference = numerics.one_pass_parts(stored, np.float32)
    assert mean_of_squares == float(np.mean(stored * stored, dtype=np.float32))
    assert square_of_mean == float(np.float32(np.mean(stored, dtype=np.float32)) ** 2)
    assert difference == 0.0 and mean_of_squares == square_of_mean
    exact = numerics.one_pass_parts(np.array(ROW_1) + 10_000, np.float64)
    assert exact[2] == pytest.approx(np.var(ROW_1), rel=1e-6)


def test_tables_line_up_with_their_records(residual):
    results = offset_sweep(residual[0], offsets=(0, 10_000), dtype=np.float32)
    values, rows, columns = numerics.sweep_table(results)
    assert values.shape == (6, 4) and len(rows) == 6 and columns[0] == "variance" and len(columns) == 4
    assert rows[3] == "+10,000 one-pass ✗" and rows[4] == "+10,000 two-pass ✓"
    np.testing.assert_array_equal(values[3, 1:], results[3].output)
    cases = numerics.shift_scale_invariance(residual[4], scales=(1.0, 0.01))
    values, rows, columns = numerics.invariance_table(cases)
    assert values.shape == (2, 6) and rows == ["1 · x + 0", "0.01 · x + 0"] and columns[-1] == "largest change"
    np.testing.assert_array_equal(values[1, 2:5], cases[1].output)
    np.testing.assert_allclose(values[:, 0], [np.var(residual[4]) / 1e-5, np.var(residual[4] * 0.01) / 1e-5])


@pytest.mark.parametrize("variance", [variance_one_pass, variance_two_pass, variance_welford])
@pytest.mark.parametrize("bad", [[[1.0, 2.0], [3.0]], ["a", "b"], [None, 1.0]])
def test_ragged_or_non_numeric_input_is_a_plain_value_error(variance, bad):
    with pytest.raises(ValueError, match="rectangular array of numbers|real numbers"):
        variance(bad)


# --- Attribution (helpers.lessons.numerics.errors): storing against arithmetic, float16 stage by stage ----


def _mp_layer_norm(values, eps=1e-5):
    """LayerNorm in 50-digit mpmath: the independent reference for the float64 'exact' values."""
    import mpmath

    with mpmath.workdps(50):
        v = [mpmath.mpf(a) for a in values]
        mean = sum(v) / len(v)
        std = mpmath.sqrt(sum((a - mean) ** 2 for a in v) / len(v) + mpmath.mpf(eps))
        return [(a - mean) / std for a in v], mean


def test_split_error_matches_mpmath_and_blames_the_arithmetic_at_10000():
    import mpmath

    split = numerics_errors.split_error(ROW_1, 10_000, np.float32, "two-pass")
    decimal_row = [mpmath.mpf(str(a)) + 10_000 for a in ROW_1]  # the row + 10,000, exactly
    truth, _ = _mp_layer_norm(decimal_row)
    stored = (np.array(ROW_1) + 10_000).astype(np.float32)
    of_stored, exact_mean = _mp_layer_norm([float(s) for s in stored])
    ours = layer_norm_with(stored, "two-pass", np.float32).astype(np.float64)
    storing = max(abs(a - b) for a, b in zip(of_stored, truth))
    arithmetic = max(abs(mpmath.mpf(float(a)) - b) for a, b in zip(ours, of_stored))
    total = max(abs(mpmath.mpf(float(a)) - b) for a, b in zip(ours, truth))
    assert split.storing_error == pytest.approx(float(storing), rel=1e-6)
    assert split.arithmetic_error == pytest.approx(float(arithmetic), rel=1e-6)
    assert split.total_error == pytest.approx(float(total), rel=1e-6)
    float32_mean = float(np.float32(np.float32(stored[0] + stored[1]) + stored[2]) / np.float32(3))
    assert split.mean_error == pytest.approx(float32_mean - float(exact_mean), rel=1e-6)
    assert split.arithmetic_error > 5 * split.storing_error  # the audit's finding: it is the arithmetic's
    assert split.arithmetic_share > 0.9


def test_split_error_blames_storing_when_the_arithmetic_is_exact():
    # float64 arithmetic on a float16-stored row: storing is nearly everything.
    split = numerics_errors.split_error(ROW_1, 300, np.float16, "two-pass")
    assert split.storing_error > 0.01
    low = numerics_errors.split_error(ROW_1, 300, np.float64, "two-pass")
    assert low.storing_error < 1e-9 and low.arithmetic_error < 1e-9


def _float16_running_sum(values):
    total = np.float16(0)
    for v in values:
        total = np.float16(total + np.float16(v))  # one float16 rounding per addition
    return float(total)


def test_float16_stages_alone_match_an_independent_loop_and_blame_the_variance_near_4():
    row = np.random.default_rng(1).normal(size=4096) + 4.0
    errors = numerics_errors.float16_stage_errors(row)
    values = row.astype(np.float16).astype(np.float64)
    truth = helpers.layer_norm(values)
    diff = values - values.mean()
    mean16 = _float16_running_sum(values) / 4096  # float16 sum; the division's rounding is tiny here
    by_mean = (values - mean16) / np.sqrt(((values - mean16) ** 2).mean() + 1e-5)
    squares16 = _float16_running_sum(diff * diff)
    by_variance = diff / np.sqrt(squares16 / 4096 + 1e-5)
    assert errors.squares_sum == squares16
    assert errors.exact_squares_sum == pytest.approx(float((diff * diff).sum()), rel=1e-12)
    assert errors.alone["mean"] == pytest.approx(np.max(np.abs(by_mean - truth)), rel=1e-2)
    assert errors.alone["variance"] == pytest.approx(np.max(np.abs(by_variance - truth)), rel=1e-2)
    together = layer_norm_with(row.astype(np.float16), "two-pass", np.float16).astype(np.float64)
    assert errors.together == pytest.approx(np.max(np.abs(together - truth)))
    assert errors.alone["variance"] > 5 * errors.alone["mean"]  # the stalled sum, not the mean
    assert errors.alone["variance"] > 0.8 * errors.together


def test_float16_stages_are_all_small_on_a_narrow_row_near_zero_and_the_mean_overflows_near_20():
    small = numerics_errors.float16_stage_errors(np.random.default_rng(2).normal(size=16))
    assert max(small.alone.values()) < 5e-3 and small.together < 5e-3
    big = numerics_errors.float16_stage_errors(np.random.default_rng(1).normal(size=4096) + 20)
    assert math.isnan(big.alone["mean"]) and math.isnan(big.together)
    assert not math.isnan(big.alone["variance"])


def test_welford_layer_norm_normalises_with_welfords_own_mean():
    row = (np.random.default_rng(0).normal(size=8) + 1e4).astype(np.float32)
    mean, m2 = np.float32(0), np.float32(0)
    for k, value in enumerate(row, start=1):  # the textbook update, written out independently
        delta = value - mean
        mean = mean + delta / np.float32(k)
        m2 = m2 + delta * (value - mean)
    expected = (row - mean) / np.sqrt(m2 / np.float32(len(row)) + np.float32(1e-5))
    np.testing.assert_array_equal(numerics.layer_norm_with(row, "Welford", np.float32), expected)
    summed_mean = numerics.running_sum(row, np.float32) / np.float32(len(row))
    assert summed_mean != mean  # the two means differ here, so the test can tell which was used
