"""The fingerprint's probes one by one (helpers/forensics/probes.py), each in its docstring's and notebook 13's
words: the rows they build, what each measures, and the edges of each reading (exactly at a tolerance, one
step each side). Expected values are worked here by hand or with plain numpy and torch, never read from the
module.
"""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from helpers.forensics.call import CallProblem
from helpers.forensics.probes import (
    alternating,
    apply_conventions,
    base_matrix,
    base_rows,
    conditioning,
    constant_rows,
    divisor_kind,
    eps_from_ladder,
    moved_by_edits,
    one_pass_changes,
    pattern,
    relative_difference,
    row_fits,
    row_shift,
    shape_misfit,
    spread,
    torch_difference,
    torch_layer_norm,
)


def layer_norm(x, eps=1e-5, ddof=0):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, ddof=ddof, keepdims=True) + eps)


def one_pass_layer_norm(x, eps=1e-5):
    """E[x²] − E[x]², in the type it is given."""
    mean = x.mean(axis=-1, keepdims=True)
    var = (x * x).mean(axis=-1, keepdims=True) - mean * mean
    return ((x - mean) / np.sqrt(var + eps)).astype(np.float64)


# --- the rows the probes are built from ---------------------------------------------------------------


def test_the_pattern_row_is_j_minus_half_of_n_minus_1():
    assert list(pattern(4)) == [-1.5, -0.5, 0.5, 1.5]
    assert list(pattern(3)) == [-1.0, 0.0, 1.0]
    assert pattern(5).dtype == np.float64


def test_the_alternating_row_is_minus_half_half_and_zero_last_when_odd():
    assert list(alternating(4)) == [-0.5, 0.5, -0.5, 0.5]
    assert list(alternating(5)) == [-0.5, 0.5, -0.5, 0.5, 0.0]


@pytest.mark.parametrize(("n", "rows"), [(1, 4), (3, 6), (13, 16), (14, 16), (15, 16), (16, 17), (768, 16)])
def test_the_ordinary_matrix_has_n_plus_3_tokens_at_most_16_and_never_n(n, rows):
    assert base_rows(n) == rows
    assert base_rows(n) != n


def test_the_ordinary_matrix_holds_3_place_numbers_between_minus_2_and_2_and_its_rows_and_columns_differ():
    x = base_matrix(4)
    assert x.shape == (7, 4)
    assert np.all(np.abs(x) <= 2) and np.array_equal(np.round(x, 3), x)
    square = base_matrix(3)[:3]
    assert not np.array_equal(square, square.T)
    assert np.array_equal(base_matrix(4), x)  # the same matrix every time


# --- the axis: which rows and which columns move -----------------------------------------------------


def test_a_row_wise_layer_norm_moves_row_1_for_token_1_and_every_column_for_feature_1():
    x = base_matrix(4)
    assert moved_by_edits(layer_norm, x, layer_norm(x)) == ((1,), (1, 2, 3, 4))


def test_a_column_wise_norm_moves_every_row_for_token_1_and_column_1_for_feature_1():
    def by_columns(x):
        return layer_norm(x.T).T

    x = base_matrix(4)
    assert moved_by_edits(by_columns, x, by_columns(x)) == (tuple(range(1, 8)), (1,))


def test_a_change_within_four_times_the_noise_floor_is_not_a_move():
    x = base_matrix(4)
    out = layer_norm(x)

    def noisy(edited):  # token 1's output and feature 1's move as they should; the rest by 1e-6 of (1 + |out|)
        y = layer_norm(edited)
        return y + 1e-6 * (1 + np.abs(y)) * np.where(np.arange(7)[:, None] == 0, 0.0, 1.0)

    assert moved_by_edits(noisy, x, out, noise=1e-6 / 3)[0] == (1,)  # 4 × noise is past the change: not moved
    assert moved_by_edits(noisy, x, out, noise=1e-6 / 5)[0] == tuple(range(1, 8))  # 4 × noise is under it


# --- conditioning, fits and differences --------------------------------------------------------------


def test_conditioning_is_the_largest_value_over_the_std_and_at_least_1():
    x = np.array([[1.0, 2.0, 3.0], [-1.0, 1.0, -1.0], [2.0, 2.0, 2.0], [1e6 + 1, 1e6 - 1, 1e6]])
    std = [math.sqrt(2 / 3), math.sqrt(8 / 9)]
    got = conditioning(x)
    assert got[0] == pytest.approx(3 / std[0])
    assert got[1] == pytest.approx(1 / std[1])  # 1.06: over 1 as it is
    assert got[2] == 1.0  # a constant row: no std, conditioning 1
    assert got[3] == pytest.approx((1e6 + 1) / math.sqrt(2 / 3), rel=1e-6)
    assert conditioning(np.array([[0.5, -0.5]]))[0] == 1.0  # |x| = std: exactly 1


def test_a_stretched_centred_row_fits_exactly_and_its_shift_is_its_offset_over_size_and_conditioning():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    y = 2 * (x - 2.5) + 0.5
    worst, shift = row_fits(x, y)
    cond = 4 / math.sqrt(1.25)
    assert worst == pytest.approx(0.0, abs=1e-15)
    assert shift == pytest.approx(0.5 / (3.5 * cond))
    assert shape_misfit(x, y) == worst


def test_a_curved_row_misses_its_best_line_by_its_largest_residual():
    x = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0]])
    y = np.array([[2.25, 0.25, 0.25, 2.25], [-3.0, -1.0, 1.0, 3.0]])  # (x − 2.5)²: best line flat at 1.25
    worst, shift = row_fits(x, y)
    cond = 4 / math.sqrt(1.25)
    assert worst == pytest.approx(1.0 / (2.25 * cond))  # the worst row is the first
    assert shift == pytest.approx(1.25 / (2.25 * cond))


def test_the_features_kept_are_fitted_against_the_whole_rows_mean():
    x = np.array([[1.0, 2.0, 3.0, 10.0]])
    keep = np.array([True, True, True, False])
    y = (2 * (x - 4.0))[:, keep]  # centred on the whole row's mean, 4, not the kept features' 2
    worst, shift = row_fits(x, y, keep)
    assert worst == pytest.approx(0.0, abs=1e-15) and shift == pytest.approx(0.0, abs=1e-15)
    assert shape_misfit(x, y, keep) == pytest.approx(0.0, abs=1e-15)


def test_the_row_shift_is_the_outputs_mean_over_its_largest_value():
    y = np.array([[1.0, 3.0], [-1.0, 1.0], [-4.0, 0.0]])
    assert row_shift(None, y) == pytest.approx(2 / 3)  # rows: 2/3, 0 and 2/4
    assert row_shift(None, y[1:]) == pytest.approx(0.5)
    assert row_shift(None, 1e-3 * y) == pytest.approx(2 / 3)  # relative to the row's size, however small


def test_the_conventions_found_are_applied_as_written():
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    u = np.array([-1.5, -0.5, 0.5, 1.5])  # Σu² = 5
    np.testing.assert_allclose(apply_conventions(x, True, 4, "inside sqrt", 0.1)[0], u / math.sqrt(5 / 4 + 0.1))
    np.testing.assert_allclose(apply_conventions(x, True, 3, "added to std", 0.1)[0], u / (math.sqrt(5 / 3) + 0.1))
    np.testing.assert_allclose(apply_conventions(x, False, 4, "none", 0.0)[0], x[0] / math.sqrt(30 / 4))


def test_the_relative_difference_is_the_worst_rows_and_infinite_for_nan():
    expected = np.array([[1.0, -2.0, 0.0], [0.5, 0.25, 0.0]])
    y = expected + np.array([[0.02, 0.0, 0.0], [0.0, 0.01, 0.0]])
    assert relative_difference(y, expected) == pytest.approx(0.02)  # 0.02/2 and 0.01/0.5
    x = np.array([[1.0, 3.0, 2.0], [0.0, 2.0, 1.0]])  # conditioning 3/√(2/3) and 2/√(2/3)
    assert relative_difference(y, expected, x) == pytest.approx(0.02 / (2 / math.sqrt(2 / 3)))
    assert relative_difference(np.array([[np.nan, 1.0]]), np.array([[1.0, 1.0]])) == math.inf


def test_an_infinite_output_against_an_infinite_expectation_is_infinite_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert relative_difference(np.array([[np.inf, 1.0]]), np.array([[np.inf, 1.0]])) == math.inf


# --- the divisor: n, n − 1, both or neither -----------------------------------------------------------


@pytest.mark.parametrize(
    ("divisor", "n", "noise", "verdict"),
    [
        (4.0, 4, 0.0, ("biased", 4.0, 1.0)),
        (3.0, 4, 0.0, ("unbiased", 3.0, 1.0)),
        (4 * (1 + 0.999e-6), 4, 0.0, ("biased", 4.0, 1.0)),  # just inside 1e-6
        (3 * (1 - 0.999e-6), 4, 0.0, ("unbiased", 3.0, 1.0)),
        (4 * (1 + 2.0**-16), 4, 2.0**-20, ("biased", 4.0, 1.0)),  # exactly at 16 roundings (all exact in binary)
        (3 * (1 - 2.0**-16), 4, 2.0**-20, ("unbiased", 3.0, 1.0)),
        (4 * (1 + 1.5e-6), 4, 1e-7, ("biased", 4.0, 1.0)),  # 16 roundings, 1.6e-6, when above 1e-6
    ],
)
def test_a_divisor_at_n_or_n_minus_1_to_the_tolerance_is_that_divisor(divisor, n, noise, verdict):
    assert divisor_kind(divisor, n, noise) == verdict


@pytest.mark.parametrize(
    ("divisor", "n", "noise"),
    [(4 * (1 + 2e-6), 4, 0.0), (16.0, 4, 0.0), (4 * (1 + 2e-6), 4, 1e-7), (4 * (1 + 2.0**-15), 4, 2.0**-20)],
)
def test_a_divisor_that_is_neither_is_n_with_a_constant_factor(divisor, n, noise):
    kind, k, factor = divisor_kind(divisor, n, noise)
    assert (kind, k) == ("biased", float(n)) and factor == pytest.approx(math.sqrt(divisor / n))


def test_when_n_and_n_minus_1_both_fit_it_cannot_tell_and_keeps_k_as_measured():
    assert divisor_kind(767.5, 768, 2.0**-7) == ("cannot tell", 767.5, 1.0)


@pytest.mark.parametrize("divisor", [math.nan, math.inf, 0.0, -4.0])
def test_a_divisor_that_cannot_be_one_is_unclear(divisor):
    assert divisor_kind(divisor, 4) == ("unclear", 4.0, 1.0)


# --- ε and where it goes ------------------------------------------------------------------------------

VARIANCES = np.array([10.0 ** (-2 * j) for j in range(17)])  # the ladder's variances, 1 down to 1e-32


@pytest.mark.parametrize(
    ("placement", "scales"),
    [
        ("inside sqrt", 1 / np.sqrt(VARIANCES + 1e-5)),
        ("added to std", 1 / (np.sqrt(VARIANCES) + 1e-5)),
    ],
)
def test_the_constant_that_stays_the_same_on_every_row_gives_eps_and_its_place(placement, scales):
    found, eps, rows, spreads = eps_from_ladder(scales, VARIANCES)
    assert found == placement and eps == pytest.approx(1e-5, rel=1e-6)
    assert rows == 17  # ε/v is above 1e-7 on every row
    right, wrong = spreads if placement == "inside sqrt" else spreads[::-1]
    assert right < 1e-6 and wrong > 0.5


def test_only_rows_where_eps_shows_above_the_threshold_count():
    scales = 1 / np.sqrt(VARIANCES + 1e-5)
    _, _, rows, _ = eps_from_ladder(scales, VARIANCES, threshold=1.5e-5)  # ε/v > 1.5e-5: v < 0.67, 16 rows
    assert rows == 16
    _, _, rows, _ = eps_from_ladder(scales, VARIANCES, valid=np.arange(17) < 5)
    assert rows == 5


def test_no_eps_shows_as_none_and_nothing_usable_as_unclear():
    assert eps_from_ladder(1 / np.sqrt(VARIANCES), VARIANCES) == ("none", 0.0, 0, (None, None))
    nan = np.full(17, np.nan)
    assert eps_from_ladder(nan, VARIANCES) == ("unclear", None, 0, (None, None))
    assert eps_from_ladder(-1 / np.sqrt(VARIANCES), VARIANCES) == ("unclear", None, 0, (None, None))


def test_one_informative_row_or_scattered_estimates_are_unclear():
    scales = 1 / np.sqrt(VARIANCES + 1e-5)
    only_one = np.arange(17) == 3
    placement, eps, rows, _ = eps_from_ladder(scales, VARIANCES, valid=only_one)
    assert (placement, eps, rows) == ("unclear", None, 1)
    scattered = 1 / np.sqrt(VARIANCES + 1e-5 * np.linspace(1, 2, 17))  # ε from 1e-5 to 2e-5: spread ~0.6
    placement, eps, rows, _ = eps_from_ladder(scattered, VARIANCES)
    assert (placement, eps, rows) == ("unclear", None, 17)
    slightly = 1 / np.sqrt(VARIANCES + 1e-5 * np.linspace(1, 1.005, 17))  # spread 0.005: under 1e-2
    assert eps_from_ladder(slightly, VARIANCES)[0] == "inside sqrt"
    assert eps_from_ladder(scattered, VARIANCES, noise=0.1)[0] == "inside sqrt"  # 8 × noise is the limit


def test_the_spread_of_estimates_is_their_range_over_their_median():
    assert spread(np.array([1.0, 2.0, 3.0])) == 1.0
    assert spread(np.array([2.0, 2.0])) == 0.0
    assert spread(np.array([0.0, 1.0])) == math.inf
    assert spread(np.array([1.0, -1.0, 2.0])) == math.inf


# --- one pass: an offset the type stores exactly ------------------------------------------------------


def _along(fn):
    def along(x, dtype=None):
        return fn(x)

    return along


def test_a_two_pass_variance_is_unchanged_by_the_offset_and_a_one_pass_one_loses_it():
    call = SimpleNamespace(output_types={})
    broke, changes = one_pass_changes(_along(layer_norm), call, 4, "float64", ["float64"])
    assert broke is False
    work, offset, change = changes["float64"]
    assert (work, offset) == ("float64", 1e8) and change < 1e-6
    broke, changes = one_pass_changes(_along(one_pass_layer_norm), call, 4, "float64", ["float64"])
    assert broke is True and changes["float64"][2] > 1e-3


def test_in_float32_the_offset_is_1e4_and_it_is_judged_in_the_type_computed_in():
    call = SimpleNamespace(output_types={"float32": "float32"})
    broke, changes = one_pass_changes(_along(one_pass_layer_norm), call, 4, "float64", ["float32"])
    assert changes["float32"][:2] == ("float32", 1e4) and broke is True
    broke, changes = one_pass_changes(_along(layer_norm), call, 4, "float64", ["float64", "float32"])
    assert broke is False
    assert changes["float64"][:2] == ("float64", 1e8) and changes["float32"][:2] == ("float32", 1e4)
    # rounding its input to float16 makes float16 the type it computes in, at the offset 64
    _, changes = one_pass_changes(_along(layer_norm), call, 4, "float16", ["float64"])
    assert changes["float64"][:2] == ("float16", 64.0)


def test_a_type_the_function_refuses_is_recorded_with_its_problem():
    def refuses(x, dtype=None):
        if x.dtype == np.float32:
            raise CallProblem("It refused float32.")
        return layer_norm(x)

    broke, changes = one_pass_changes(refuses, SimpleNamespace(output_types={}), 4, "float64", ["float32", "float64"])
    assert changes["float32"] == ("float32", None, "It refused float32.") and broke is False


def test_a_change_that_is_nan_counts_as_infinite():
    def breaks_on_offset(x, dtype=None):
        y = layer_norm(x)
        y[np.abs(x).max(axis=1) > 1] = np.nan
        return y

    broke, changes = one_pass_changes(breaks_on_offset, SimpleNamespace(output_types={}), 4, "float64", ["float64"])
    assert broke is True and changes["float64"][2] == math.inf


# --- rows of equal values and of zeros ----------------------------------------------------------------


def test_equal_values_and_zeros_give_zeros_with_eps_and_nan_without():
    assert constant_rows(_along(layer_norm), 4) == ("zeros", "zeros")
    with np.errstate(all="ignore"):
        assert constant_rows(_along(lambda x: layer_norm(x, eps=0.0)), 4) == ("NaN or infinity", "NaN or infinity")


def test_a_constant_row_that_gives_ones_or_other_values_says_so():
    def ones_for_constant(x):
        y = layer_norm(x)
        y[0] = 1.0
        y[1] = 0.3
        return y

    assert constant_rows(_along(ones_for_constant), 4) == ("ones", "values other than 0")

    def rms_norm(x, eps=1e-4):  # no centring: a row of equal values c gives c / √(c² + ε), ones up to ε / c²
        return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps)

    assert constant_rows(_along(rms_norm), 4)[0] == "ones"  # 0.5 / √(0.25 + 1e-4) = 0.9998


def test_a_problem_with_the_constant_rows_is_said_for_both():
    def refuses(x, dtype=None):
        raise CallProblem("It refused.")

    assert constant_rows(refuses, 4) == ("It refused.", "It refused.")


# --- PyTorch's F.layer_norm, and how far an output is from it -----------------------------------------


def test_torch_layer_norm_is_torchs_with_eps_1e_5():
    torch = pytest.importorskip("torch")
    x = base_matrix(4)
    expected = torch.nn.functional.layer_norm(torch.from_numpy(x), (4,), eps=1e-5).numpy()
    np.testing.assert_allclose(torch_layer_norm(x), expected, rtol=1e-12, atol=1e-14)


def test_the_difference_from_torch_is_the_worst_of_both_pairs_relative_to_each_rows_size():
    x = base_matrix(4)
    x[2] = [1.0, 1.001, 1.0, 1.001]  # variance 2.5e-7 beside ε = 1e-5: an output row far smaller than 1
    reference = torch_layer_norm(x)
    assert torch_difference(x, reference, None, None) == 0.0
    size = np.abs(reference[2]).max()
    assert size < 0.2
    off = reference.copy()
    off[2, 1] += 0.01 * size
    assert torch_difference(x, off, None, None) == pytest.approx(0.01)
    assert torch_difference(x, reference, x, off) == pytest.approx(0.01)  # the probes' pair counts too
    off[0, 0] = np.nan
    assert torch_difference(x, off, None, None) == math.inf
