"""helpers.lessons.backward.precision at its edges: PyTorch's arrangement of dx bit for bit for short rows and at the
vector-lane boundaries, inputs rounded to the working type first, a fused multiply-add rounded once, and the column
sums of dβ against additions written out one by one here."""

import platform
import re
from fractions import Fraction

import numpy as np
import pytest
import torch

from helpers.lessons.backward import precision
from helpers.lessons.backward.precision import (
    blocked_sum,
    layer_norm_backward_pytorch_form,
    sequential_sum,
    vector_lanes,
)

X86 = platform.machine().lower() in ("x86_64", "amd64")
LANES = vector_lanes(torch.backends.cpu.get_cpu_capability())


def _refused(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


def _saved_float32(x):
    """The per-row mean and rstd in float64, rounded to float32, as a float32 forward pass saves them."""
    wide = x.astype(np.float64)
    mean = wide.mean(axis=1)
    rstd = 1 / np.sqrt(((wide - mean[:, None]) ** 2).mean(axis=1) + 1e-5)
    return mean.astype(np.float32), rstd.astype(np.float32)


def _torch_dx(x, dy, mean, rstd, gamma):
    weight = None if gamma is None else torch.from_numpy(gamma)
    return torch.ops.aten.native_layer_norm_backward(
        torch.from_numpy(dy),
        torch.from_numpy(x),
        [x.shape[1]],
        torch.from_numpy(mean),
        torch.from_numpy(rstd),
        weight,
        None,
        [True, False, False],
    )[0].numpy()


@pytest.mark.skipif(not X86, reason="the bit-for-bit claim is about x86 builds")
@pytest.mark.parametrize("with_gamma", [True, False], ids=["gamma", "no-gamma"])
@pytest.mark.parametrize("features", [3, LANES - 1, LANES, LANES + 1, 2 * LANES + 1])
def test_pytorch_form_is_torchs_float32_dx_bit_for_bit_below_at_and_past_one_vector(features, with_gamma):
    rng = np.random.default_rng(features)
    x = (rng.normal(size=(32, features)) + 1e4).astype(np.float32)
    dy, gamma = rng.normal(size=(32, features)).astype(np.float32), rng.normal(size=features).astype(np.float32)
    gamma = gamma if with_gamma else None
    mean, rstd = _saved_float32(x)
    ours = layer_norm_backward_pytorch_form(x, dy, mean, rstd, gamma, lanes=LANES)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours, _torch_dx(x, dy, mean, rstd, gamma))


def test_pytorch_form_rounds_every_input_to_its_type_first():
    rng = np.random.default_rng(31)
    x, dy, gamma = rng.normal(size=(4, 12)) + 100, rng.normal(size=(4, 12)), rng.normal(size=12)
    wide = x.mean(axis=1), 1 / np.sqrt(x.var(axis=1) + 1e-5)  # float64 numbers, not yet rounded
    given = layer_norm_backward_pytorch_form(x, dy, *wide, gamma)  # dtype float32 by default
    rounded = layer_norm_backward_pytorch_form(
        *(np.asarray(a, dtype=np.float32) for a in (x, dy, *wide, gamma)), dtype=np.float32
    )
    assert given.dtype == np.float32
    np.testing.assert_array_equal(given, rounded)


def test_pytorch_form_refuses_a_gamma_of_the_wrong_length_in_words():
    ones = np.ones((2, 5), dtype=np.float32)
    _refused(
        lambda: layer_norm_backward_pytorch_form(ones, ones, [0.0, 0.0], [1.0, 1.0], gamma=[1.0, 2.0, 3.0]),
        "gamma needs one value per feature: 5 values; got 3.",
    )


@pytest.mark.parametrize(
    "dtype, bits",
    [
        (np.float32, 12),
        pytest.param(
            np.float64,
            30,
            marks=pytest.mark.skipif(np.finfo(np.longdouble).nmant < 60, reason="no wider type than float64 here"),
        ),
    ],
)
def test_a_fused_multiply_add_rounds_once(dtype, bits):
    # p·q = 1 + 2·2⁻ᵇ + 2⁻²ᵇ: rounded to dtype first, the 2⁻²ᵇ is lost and p·q + r is 0; rounded once it is not.
    p = dtype(1 + 2.0**-bits)
    r = dtype(-(1 + 2.0 ** (1 - bits)))
    exact = Fraction(float(p)) ** 2 + Fraction(float(r))
    assert exact == Fraction(1, 2 ** (2 * bits))
    assert p * p + r == 0  # two roundings
    fused = precision._fused(p, p, r, dtype)
    assert fused.dtype == dtype and Fraction(float(fused)) == exact


# --- dβ's column sums -------------------------------------------------------------------------------------


def _one_by_one(values, dtype):
    """Column sums with one running sum, each addition rounded to dtype, written out as a loop."""
    totals = [dtype(v) for v in values[0]]
    for row in values[1:]:
        totals = [dtype(total + dtype(v)) for total, v in zip(totals, row)]
    return np.array(totals, dtype=dtype)


# Large and small numbers mixed, so that the order of the additions shows in float32.
SPREAD = np.random.default_rng(32).normal(size=(11, 3)) * np.array([[1e7], [1.0], [3.0]] * 3 + [[1e7], [-2.0]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_sequential_sum_adds_row_after_row_in_its_type(dtype):
    values = SPREAD if dtype is not np.float16 else SPREAD / 1e4
    total = sequential_sum(values, dtype)
    assert total.dtype == dtype
    np.testing.assert_array_equal(total, _one_by_one(values, dtype))
    if dtype is np.float32:
        assert not np.array_equal(total, values.astype(np.float32).sum(axis=0, dtype=np.float64).astype(np.float32))


def test_sequential_sum_of_float64_numbers_is_float32_by_default_and_one_row_is_itself():
    np.testing.assert_array_equal(sequential_sum(SPREAD), _one_by_one(SPREAD, np.float32))
    np.testing.assert_array_equal(sequential_sum([[1.5, -2.0, 7.0]]), np.array([1.5, -2.0, 7.0], dtype=np.float32))


@pytest.mark.parametrize(
    "function", [sequential_sum, lambda values: blocked_sum(values, 2)], ids=["sequential", "blocked"]
)
def test_sequential_and_blocked_sums_refuse_what_is_not_a_matrix_with_rows_in_words(function):
    rule = "Give a matrix with at least one row (tokens × features); got shape"
    _refused(lambda: function(np.ones((0, 3))), f"{rule} (0, 3).")
    _refused(lambda: function(np.ones(3)), f"{rule} (3,).")


@pytest.mark.parametrize("bad", [0, 2.5])
def test_blocked_sum_refuses_a_block_size_that_is_not_a_whole_number_of_at_least_1(bad):
    _refused(lambda: blocked_sum(SPREAD, bad), f"block_rows must be a whole number of at least 1; got {bad!r}.")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("block_rows", [1, 2, 4, 11, 12])
def test_blocked_sum_adds_each_block_then_the_partials_in_its_type(block_rows, dtype):
    partials, total = blocked_sum(SPREAD, block_rows, dtype)
    starts = range(0, len(SPREAD), block_rows)
    expected = np.array([_one_by_one(SPREAD[s : s + block_rows], dtype) for s in starts])
    assert partials.dtype == dtype == total.dtype
    np.testing.assert_array_equal(partials, expected)
    np.testing.assert_array_equal(total, _one_by_one(expected, dtype))


def test_blocked_sum_of_float64_numbers_is_float32_by_default_and_takes_a_whole_float_block_size():
    partials, total = blocked_sum(SPREAD, 4.0)
    expected = np.array([_one_by_one(SPREAD[s : s + 4], np.float32) for s in (0, 4, 8)])
    np.testing.assert_array_equal(partials, expected)
    np.testing.assert_array_equal(total, _one_by_one(expected, np.float32))
