"""helpers.lessons.numerics.precision and .lowprec: what each storage type holds, the float32 and float16
statistics, Welford's state in float64, the normalise step two ways, ε in float16 at its subnormal
edge, and the residual stream with notebook 09's defaults. Expected values are written out here with
numpy scalars (one rounding per operation) or read from the notebook's stored outputs."""

import re
import warnings

import numpy as np
import pytest

from helpers.lessons.numerics import lowprec as numerics_lowprec
from helpers.lessons.numerics import precision

ROW_1 = np.array([1.133, -0.299, 0.503])


def test_bfloat16_values_come_back_as_float32():
    rounded = precision.to_bfloat16([1.0, 300.503, np.inf])
    assert rounded.dtype == np.float32
    np.testing.assert_array_equal(rounded, [1.0, 300.0, np.inf])


def test_float64_storage_keeps_every_float64_number():
    values = [0.1, 1e300, -(2.0**-1074), 1 / 3]
    stored = precision.stored_as(values, "float64")
    assert stored.dtype == np.float64
    np.testing.assert_array_equal(stored, values)


def test_an_unknown_storage_is_named_in_the_sentence():
    message = "storage must be float16, bfloat16, float32 or float64; got 'int8'."
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        precision.stored_as([1.0], "int8")
    assert str(caught.value) == message


def test_float32_statistics_are_float32_arithmetic_on_the_stored_row():
    # notebook 09's table: row 1 + 10,000, two-pass in float32 gives 1.1735, −1.2701, 0.0983, where exact
    # arithmetic on the same float32 row gives 1.1729, −1.2707, 0.0978 (the storing moves it by 4.6e-05 only).
    output = precision.layer_norm_low_precision(ROW_1 + 10_000, "float32", "float32")
    np.testing.assert_allclose(output, [1.1735, -1.2701, 0.0983], atol=5e-5)
    stored = (ROW_1 + 10_000).astype(np.float32).astype(np.float64)
    centred = stored - stored.mean()
    assert np.max(np.abs(output - centred / np.sqrt(np.mean(centred**2) + 1e-5))) > 5e-4


def test_all_float16_statistics_use_the_given_eps():
    row = np.array([0.25, -1.5, 2.0, 0.75])  # float16 numbers, and every step below is exact or one rounding
    h = np.float16
    stored = [h(v) for v in row]
    total = h(0)
    for v in stored:
        total = h(total + v)
    mean = h(total / h(4))
    squares = h(0)
    for v in stored:
        squares = h(squares + h(h(v - mean) * h(v - mean)))
    std = np.sqrt(h(h(squares / h(4)) + h(0.5)))
    expected = [float(h(h(v - mean) / std)) for v in stored]
    np.testing.assert_array_equal(precision.layer_norm_low_precision(row, "float16", "float16", eps=0.5), expected)


def test_float16_statistics_for_other_storage_are_refused_in_a_sentence():
    message = "Statistics are float32, or float16 for float16 storage."
    for storage, statistics in (("bfloat16", "float16"), ("float32", "float16"), ("float16", "float64")):
        with pytest.raises(ValueError, match=re.escape(message)) as caught:
            precision.layer_norm_low_precision(ROW_1, storage, statistics)
        assert str(caught.value) == message


def test_welford_state_starts_from_nothing():
    # Values far below 1: starting the mean anywhere but 0 would lose them to rounding.
    count, mean, m2 = precision.welford_state([1e-20, 3e-20])
    assert count == 2
    assert mean == pytest.approx(2e-20, rel=1e-15, abs=0) and m2 == pytest.approx(2e-40, rel=1e-15, abs=0)


def test_welford_state_of_float32_values_is_computed_in_float64():
    row = (np.random.default_rng(9).normal(size=200) * 0.01 + 1000).astype(np.float32)
    exact = row.astype(np.float64)
    count, mean, m2 = precision.welford_state(row)
    assert count == 200 and isinstance(mean, float)
    assert mean == pytest.approx(exact.mean(), rel=1e-13, abs=0)
    assert m2 / count == pytest.approx(exact.var(), rel=1e-9, abs=0)


def normalise_by_hand(row, kind, eps=1e-5):
    values = [kind(v) for v in row]
    exact = np.array([float(v) for v in values])
    mean = kind(exact.mean())
    variance = kind(np.mean((exact - float(mean)) ** 2))
    rstd = kind(kind(1) / np.sqrt(kind(variance + kind(eps))))
    factored = [float(kind(kind(v - mean) * rstd)) for v in values]
    shift = float(kind(-kind(mean * rstd)))
    fused = [float(v) * float(rstd) + shift for v in values]
    return factored, fused


@pytest.mark.parametrize("kind", [np.float32, np.float16])
def test_normalise_two_ways_is_the_docstrings_recipe(kind):
    for seed in range(4):
        row = np.random.default_rng(seed).normal(size=12) * 2 + 30
        factored, fused = precision.normalise_two_ways(row, kind)
        expected_factored, expected_fused = normalise_by_hand(row, kind)
        np.testing.assert_array_equal(factored, expected_factored)
        np.testing.assert_array_equal(fused, expected_fused)


def test_eps_at_float16s_smallest_normal_is_not_subnormal():
    tiny = 2.0**-14  # float16's smallest normal number
    at, below, above = numerics_lowprec.eps_in_float16((tiny, tiny - 2.0**-24, tiny + 2.0**-24), variances=(0.0,))
    assert (at.subnormal, below.subnormal, above.subnormal) == (False, True, False)
    assert at.stored == tiny and below.stored == tiny - 2.0**-24


def test_a_constant_row_is_four_float16_zeros_or_nans_whatever_the_value():
    for value in (0.1, 3.3, 1000.7):
        np.testing.assert_array_equal(numerics_lowprec.constant_row_float16(1e-5, value), [0.0, 0.0, 0.0, 0.0])
        assert np.isnan(numerics_lowprec.constant_row_float16(1e-12, value)).all()
    assert numerics_lowprec.constant_row_float16(1e-5).shape == (4,)
    assert numerics_lowprec.constant_row_float16(1e-5, n=7).shape == (7,)


def test_a_constant_row_whose_float16_mean_is_off_divides_by_zero_quietly():
    # Every step in float16: 3·v rounds, so the mean of three v = 8.142e-05 is not v; the squared
    # differences underflow to 0 and ε = 1e-12 is 0 in float16, so x − μ is divided by 0.
    h = np.float16
    v = h(8.142e-05)
    mean = h(h(h(v + v) + v) / h(3))
    assert mean != v
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        output = numerics_lowprec.constant_row_float16(1e-12, float(v), n=3)
    np.testing.assert_array_equal(output, [np.sign(float(v) - float(mean)) * np.inf] * 3)


def test_a_constant_row_whose_float16_sum_overflows_is_nan():
    # 4 · 16,384 = 65,536 is past float16's largest number: a float16 sum overflows, the mean is inf.
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # quietly: the NaN is the lesson, not a warning
        output = numerics_lowprec.constant_row_float16(1e-5, 16_384.0)
    assert np.isnan(output).all() and output.shape == (4,)


def test_residual_drift_by_default_is_the_notebooks_64_blocks_of_1024():
    drift = numerics_lowprec.residual_drift()
    assert list(drift) == ["float16", "bfloat16", "float32"]
    published = {  # notebook 09: after k = 8, 16, 32, 64 blocks, and LayerNorm's output after the last
        "float16": ("5.9e-04", "7.2e-04", "1.1e-03", "1.6e-03", "1.2e-02"),
        "bfloat16": ("4.7e-03", "6.8e-03", "8.7e-03", "1.3e-02", "7.3e-02"),
        "float32": ("0.0e+00", "8.7e-10", "9.1e-10", "8.3e-10", "2.4e-08"),
    }
    for kind, d in drift.items():
        assert d.residual_type == kind and d.stream_error.shape == (64,)
        shown = tuple(f"{d.stream_error[k - 1]:.1e}" for k in (8, 16, 32, 64)) + (f"{d.norm_error:.1e}",)
        assert shown == published[kind]
