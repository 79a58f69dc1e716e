"""The ±row probe (``helpers.forensics.affine``), read from its docstrings: a LayerNorm is odd, so from a row r of
mean 0 and from −r, feature by feature, β = (y(r) + y(−r)) / 2 and γ·s = (y(r) − y(−r)) / (2r). γ's shape is
measured, its size read from the function's own γ parameter when the probe agrees with it, or 1 when γ is the
same on every feature; a feature whose γ is 0 is left out of every later check. Each function here is a
LayerNorm computed by hand, with γ and β chosen by the test, seen row by row; no fingerprint is taken."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from helpers.forensics.affine import Affine, measure, odd_row

EPS = 1e-5
FLOAT64 = 2.0**-53  # the noise of a float64 computation
FLOAT16 = 2.0**-11  # and of a float16 one


def _layer_norm(x: np.ndarray) -> np.ndarray:
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=1, keepdims=True) + EPS)


def _affine_of(gamma=1.0, beta=0.0):
    """γ·LayerNorm(x) + β, row by row."""
    return lambda x: np.asarray(gamma) * _layer_norm(x) + np.asarray(beta)


def _scale(n: int) -> float:
    """s, the one scale a LayerNorm gives the odd row of ``n`` features (mean 0): 1 / √(mean r² + ε)."""
    r = odd_row(n)
    return 1.0 / np.sqrt(np.mean(r**2) + EPS)


def _rows(n: int) -> np.ndarray:
    """The two rows the probe sends: r and −r."""
    return np.vstack([odd_row(n), -odd_row(n)])


NO_PARAMETERS = SimpleNamespace()


# The odd row


@pytest.mark.parametrize("n", range(2, 10))
def test_the_odd_row_has_mean_zero_no_zero_and_only_plus_minus_one_and_two(n):
    r = odd_row(n)
    assert r.shape == (n,)
    assert r.sum() == 0.0
    assert set(r.tolist()) <= {1.0, -1.0, 2.0}


def test_the_odd_row_alternates_and_starts_with_two_minus_one_minus_one_when_odd():
    assert odd_row(4).tolist() == [1.0, -1.0, 1.0, -1.0]
    assert odd_row(3).tolist() == [2.0, -1.0, -1.0]
    assert odd_row(7).tolist() == [2.0, -1.0, -1.0, 1.0, -1.0, 1.0, -1.0]


# measure: a LayerNorm with no γ or β


@pytest.mark.parametrize("n", [4, 5])
def test_a_plain_layer_norm_has_nothing_to_divide_out(n):
    found = measure(_affine_of(), NO_PARAMETERS, n, FLOAT64)
    assert (found.kind, found.source, found.gamma, found.beta) == ("none", "none", None, None)
    assert found.scale_known and not found.parameters_ignored and not found.constant_output and not found.undone
    np.testing.assert_allclose(found.measured_gamma, [_scale(n)] * n, rtol=1e-12)
    assert found.measured_beta == (0.0,) * n
    assert found.beta_error == 0.0
    assert found.keep is None and found.magnified == 1.0 and found.zero_columns == () and found.shift is None


def test_a_constant_factor_on_every_feature_is_left_to_the_divisor():
    for factor in (3.0, -0.5):
        found = measure(_affine_of(factor), NO_PARAMETERS, 4, FLOAT64)
        assert (found.kind, found.source, found.gamma, found.beta, found.scale_known) == (
            "none",
            "none",
            None,
            None,
            True,
        )
        np.testing.assert_allclose(found.measured_gamma, [factor * _scale(4)] * 4, rtol=1e-12)


def test_an_output_that_is_not_finite_gives_nothing():
    def nan_in_one_row(x):
        y = _layer_norm(x)
        y[1, 2] = np.nan
        return y

    for fn in (nan_in_one_row, lambda x: _layer_norm(x) / 0.0):
        with np.errstate(all="ignore"):
            assert measure(fn, NO_PARAMETERS, 4, FLOAT64) == Affine()


# measure: γ and β measured


@pytest.mark.parametrize("size", [1e-3, 1.0])
def test_beta_is_the_mean_of_the_two_outputs_and_gammas_shape_their_half_difference_over_r(size):
    gamma, beta = size * np.array([1.0, 2.0, -0.5, 3.0, 1.5]), np.array([0.25, -1.0, 0.0, 2.0, 0.5])
    found = measure(_affine_of(gamma, beta), NO_PARAMETERS, 5, FLOAT64)
    assert (found.kind, found.source, found.scale_known) == ("per feature", "measured", False)
    np.testing.assert_allclose(found.measured_gamma, gamma * _scale(5), rtol=1e-12)
    np.testing.assert_allclose(found.measured_beta, beta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(found.beta, beta, rtol=1e-12, atol=1e-15)
    # only the shape: γ over its root mean square, most features positive
    np.testing.assert_allclose(found.gamma, gamma / np.sqrt(np.mean(gamma**2)), rtol=1e-12)
    assert found.undone and found.shift is None and not found.parameters_ignored


def test_a_gamma_mostly_negative_is_measured_mostly_positive():
    gamma = np.array([-1.0, -2.0, 0.5, -3.0])
    found = measure(_affine_of(gamma), NO_PARAMETERS, 4, FLOAT64)
    np.testing.assert_allclose(found.gamma, -gamma / np.sqrt(np.mean(gamma**2)), rtol=1e-12)
    assert found.beta is None


def test_gammas_of_one_size_but_both_signs_are_measured_per_feature():
    gamma = np.array([2.0, -2.0, 2.0, 2.0])
    found = measure(_affine_of(gamma), NO_PARAMETERS, 4, FLOAT64)
    assert (found.kind, found.source, found.scale_known) == ("per feature", "measured", False)
    np.testing.assert_allclose(found.gamma, [1.0, -1.0, 1.0, 1.0], rtol=1e-12)
    half = measure(_affine_of(np.array([2.0, -2.0, 2.0, -2.0])), NO_PARAMETERS, 4, FLOAT64)
    np.testing.assert_allclose(half.gamma, [1.0, -1.0, 1.0, -1.0], rtol=1e-12)  # flipped only when most are < 0


def test_a_beta_the_same_on_every_feature_is_a_shift():
    found = measure(_affine_of(2.0, 0.75), NO_PARAMETERS, 4, FLOAT64)
    assert found.gamma is None and found.kind == "none"
    np.testing.assert_allclose(found.beta, [0.75] * 4, rtol=1e-12)
    assert found.shift == pytest.approx(0.75, rel=1e-12)
    assert found.undone


def test_a_feature_whose_gamma_is_zero_gives_beta_alone_and_is_left_out():
    gamma, beta = np.array([2.0, 0.0, 2.0, 2.0, 2.0]), np.array([0.0, 0.5, 0.0, 0.0, 0.0])
    found = measure(_affine_of(gamma, beta), NO_PARAMETERS, 5, FLOAT64)
    assert (found.kind, found.source, found.scale_known) == ("per feature", "measured", True)
    assert found.gamma.tolist() == [1.0, 0.0, 1.0, 1.0, 1.0]  # the same γ on the others: 1, the factor is the divisor's
    np.testing.assert_allclose(found.beta, beta, atol=1e-15)
    assert found.zero_columns == (2,)
    assert found.keep.tolist() == [True, False, True, True, True]
    assert found.measured_gamma[1] == 0.0


def test_one_feature_alone_with_a_gamma_is_the_one_kept():
    gamma, beta = np.array([0.0, 0.0, 3.0, 0.0]), np.array([1.0, 0.0, 0.5, -1.0])
    found = measure(_affine_of(gamma, beta), NO_PARAMETERS, 4, FLOAT64)
    assert (found.kind, found.source, found.scale_known) == ("per feature", "measured", True)
    assert found.gamma.tolist() == [0.0, 0.0, 1.0, 0.0] and found.zero_columns == (1, 2, 4)
    np.testing.assert_allclose(found.beta, beta, atol=1e-15)


def test_zero_gammas_among_unequal_ones_are_left_out_of_the_shape():
    gamma = np.array([1.0, 0.0, 3.0, 0.0])
    found = measure(_affine_of(gamma), NO_PARAMETERS, 4, FLOAT64)
    assert not found.scale_known
    np.testing.assert_allclose(found.gamma, [1.0 / np.sqrt(5.0), 0.0, 3.0 / np.sqrt(5.0), 0.0], rtol=1e-12)
    assert found.zero_columns == (2, 4)
    within_rounding = measure(_affine_of(np.array([1.0, 3 * FLOAT16, 3.0, 1.0])), NO_PARAMETERS, 4, FLOAT16)
    assert within_rounding.gamma[1] == 0.0 and within_rounding.zero_columns == (2,)


def test_an_output_that_does_not_depend_on_the_input_is_constant_and_its_beta_is_the_output():
    beta = np.array([0.5, 1.0, -1.5, 2.0])
    found = measure(lambda x: np.tile(beta, (x.shape[0], 1)), NO_PARAMETERS, 4, FLOAT16)
    assert found.constant_output
    assert (found.kind, found.source, found.gamma, found.beta) == ("none", "none", None, None)
    assert found.measured_gamma == (0.0,) * 4
    assert found.measured_beta == tuple(beta)
    assert found.beta_error == pytest.approx(4 * FLOAT16 * 2.0)  # the rounding of y's largest, 2


# measure: what counts as rounding


def test_a_beta_within_the_outputs_rounding_is_zero_and_one_past_it_is_kept():
    """r and −r give β exactly, but for the rounding of y: four times the noise of the output's size."""
    size = 2.0 * _scale(4)  # γ = 2: the output's largest, and the slope's
    inside = measure(_affine_of(2.0, 3 * FLOAT16 * size), NO_PARAMETERS, 4, FLOAT16)
    assert inside.beta is None and inside.measured_beta == (0.0,) * 4 and inside.beta_error == 0.0
    past = 5 * FLOAT16 * size
    outside = measure(_affine_of(2.0, past), NO_PARAMETERS, 4, FLOAT16)
    np.testing.assert_allclose(outside.beta, [past] * 4, rtol=1e-9)
    largest = 2.0 * _scale(4) + past
    assert outside.beta_error == pytest.approx(4 * FLOAT16 * largest, rel=1e-12)


def test_a_small_output_has_its_beta_judged_against_its_own_size():
    """The rounding is relative to the output's size: a function a million times smaller keeps a β a million
    times smaller."""
    found = measure(_affine_of(1e-6, 1e-12), NO_PARAMETERS, 4, FLOAT64)
    np.testing.assert_allclose(found.beta, [1e-12] * 4, rtol=1e-6)
    assert measure(_affine_of(1e-6, 1e-16), NO_PARAMETERS, 4, FLOAT64).beta is None


def test_in_float64_the_probes_floor_is_the_rounding():
    """Below PROBE_NOISE (1e-9 of the output's size) a float64 β is rounding noise."""
    assert measure(_affine_of(1.0, 1e-10), NO_PARAMETERS, 4, FLOAT64).beta is None
    assert measure(_affine_of(1.0, 1e-8), NO_PARAMETERS, 4, FLOAT64).beta is not None
    tiny = np.array([1.0, 1e-10, 1.0, 1.0])
    assert measure(_affine_of(tiny), NO_PARAMETERS, 4, FLOAT64).zero_columns == (2,)
    small = np.array([1.0, 1e-8, 1.0, 1.0])
    assert measure(_affine_of(small), NO_PARAMETERS, 4, FLOAT64).zero_columns == ()


@pytest.mark.parametrize("size", [1e-3, 1.0, 1e3])
def test_a_gamma_within_four_times_the_noise_of_the_largest_is_zero(size):
    for small, zero in ((3 * FLOAT16, True), (5 * FLOAT16, False)):
        gamma = size * np.array([1.0, small, 1.0, 1.0])
        found = measure(_affine_of(gamma), NO_PARAMETERS, 4, FLOAT16)
        assert (found.zero_columns == (2,)) is zero, small


@pytest.mark.parametrize("size", [1e-3, 1.0, 1e3])
def test_gammas_that_differ_by_rounding_are_the_same_and_by_more_are_measured(size):
    """The same γ on every feature up to eight times the noise, relative: their spread over the middle one."""
    for apart, same in ((7.5 * FLOAT16, True), (8.5 * FLOAT16, False)):
        gamma = size * np.array([1.0, 1.0 + apart, 1.0, 1.0])
        found = measure(_affine_of(gamma), NO_PARAMETERS, 4, FLOAT16)
        assert (found.gamma is None) is same, apart
        assert found.scale_known is same


# measure: γ and β read from the function's parameters


@pytest.mark.parametrize("names", [("weight", "bias"), ("gamma", "beta"), ("scale", "shift"), ("a_2", "b_2")])
def test_parameters_the_output_follows_are_read_whole(names):
    gamma, beta = np.array([1.0, 2.0, -0.5, 3.0]), np.array([0.25, -1.0, 0.0, 2.0])
    fn = SimpleNamespace(**dict(zip(names, (gamma, beta))))
    found = measure(_affine_of(gamma, beta), fn, 4, FLOAT64)
    assert (found.kind, found.source, found.scale_known, found.parameters_ignored) == (
        "per feature",
        "parameters",
        True,
        False,
    )
    assert found.gamma.tolist() == gamma.tolist()
    assert found.beta.tolist() == beta.tolist()
    assert found.shift is None
    # what the probe saw is kept as well
    np.testing.assert_allclose(found.measured_gamma, gamma * _scale(4), rtol=1e-12)
    np.testing.assert_allclose(found.measured_beta, beta, rtol=1e-12, atol=1e-15)
    assert found.beta_error == pytest.approx(4 * FLOAT64 * np.max(np.abs(_affine_of(gamma, beta)(_rows(4)))))


def test_a_scalar_gamma_parameter_is_read_for_every_feature():
    fn = SimpleNamespace(weight=np.array([2.5]), bias=np.array(0.5))
    found = measure(_affine_of(2.5, 0.5), fn, 5, FLOAT64)
    assert (found.kind, found.source) == ("scalar", "parameters")
    assert found.gamma.tolist() == [2.5] * 5 and found.beta.tolist() == [0.5] * 5
    assert found.shift is None  # read from a parameter: not a shift


def test_parameters_of_one_and_zero_leave_nothing_to_divide_out():
    fn = SimpleNamespace(weight=np.ones(4), bias=np.zeros(4))
    found = measure(_affine_of(), fn, 4, FLOAT64)
    assert (found.kind, found.source, found.gamma, found.beta) == ("per feature", "parameters", None, None)
    assert not found.undone


def test_parameters_shaped_as_one_row_are_read_feature_by_feature():
    gamma, beta = np.array([[1.0, 2.0, -0.5, 3.0]]), np.array([[0.25, -1.0, 0.0, 2.0]])
    found = measure(_affine_of(gamma[0], beta[0]), SimpleNamespace(weight=gamma, bias=beta), 4, FLOAT64)
    assert (found.kind, found.source) == ("per feature", "parameters")
    assert found.gamma.tolist() == gamma[0].tolist() and found.beta.tolist() == beta[0].tolist()


def test_a_beta_parameter_agrees_to_the_rounding_of_the_outputs_size():
    """A large γ makes a large output: its β is known to PROBE_NOISE (1e-9) of that size, not of 1."""
    gamma, beta = np.full(4, 1000.0), np.full(4, 0.3)
    fn = SimpleNamespace(weight=gamma, bias=beta + 1e-8)  # 1e-11 of the output's size, 1000
    assert measure(_affine_of(gamma, beta), fn, 4, FLOAT64).source == "parameters"
    fn = SimpleNamespace(weight=gamma, bias=beta + 1e-5)  # 1e-8 of it
    assert measure(_affine_of(gamma, beta), fn, 4, FLOAT64).source == "none"


def test_a_gamma_parameter_without_beta_reads_beta_as_zero():
    for fn in (SimpleNamespace(weight=np.full(4, 2.0)), SimpleNamespace(weight=np.full(4, 2.0), bias=np.zeros(3))):
        found = measure(_affine_of(2.0), fn, 4, FLOAT64)
        assert found.source == "parameters"
        assert found.gamma.tolist() == [2.0] * 4 and found.beta.tolist() == [0.0] * 4


def test_a_zero_in_the_gamma_parameter_is_read_when_the_output_has_it_too():
    gamma, beta = np.array([2.0, 0.0, 1.0, 1.0]), np.array([0.0, 0.5, 0.0, 0.0])
    found = measure(_affine_of(gamma, beta), SimpleNamespace(weight=gamma, bias=beta), 4, FLOAT64)
    assert found.source == "parameters" and found.zero_columns == (2,)
    assert found.keep.tolist() == [True, False, True, True]


@pytest.mark.parametrize(
    "parameters",
    [
        {"weight": np.array([1.0, 2.0, 3.0, 4.0])},  # a γ not followed
        {"weight": np.array([1.0, 0.0, 1.0, 1.0])},  # a zero where the output has none
        {"weight": np.ones(4), "bias": np.full(4, 0.5)},  # a β not followed
        {"weight": np.ones(3)},  # neither one γ nor one per feature
        {"bias": np.full(4, 0.5)},  # a β, no γ
        {"weight": np.ones(4), "bias": np.full(4, 1e-8)},  # β off by more than rounding
    ],
)
def test_parameters_the_output_does_not_follow_are_said_to_be_ignored(parameters):
    found = measure(_affine_of(), SimpleNamespace(**parameters), 4, FLOAT64)
    assert found.parameters_ignored
    assert (found.kind, found.source, found.gamma, found.beta) == ("none", "none", None, None)


def test_a_gamma_parameter_not_followed_is_ignored_when_gamma_is_measured_too():
    gamma = np.array([1.0, 2.0, 3.0, 4.0])
    found = measure(_affine_of(gamma), SimpleNamespace(weight=gamma[::-1].copy()), 4, FLOAT64)
    assert (found.source, found.scale_known, found.parameters_ignored) == ("measured", False, True)
    assert not measure(_affine_of(gamma), NO_PARAMETERS, 4, FLOAT64).parameters_ignored


def test_a_gamma_parameter_with_a_zero_the_output_does_not_share_is_not_read():
    gamma = np.array([2.0, 0.0, 2.0, 2.0])
    found = measure(_affine_of(gamma), SimpleNamespace(weight=np.full(4, 2.0)), 4, FLOAT64)
    assert found.source == "measured" and found.parameters_ignored
    assert found.gamma.tolist() == [1.0, 0.0, 1.0, 1.0]


def test_parameters_followed_up_to_the_outputs_rounding_are_read():
    gamma = np.array([1.0, 2.0, 3.0, 4.0])
    fn = SimpleNamespace(weight=gamma * (1 + np.array([0.0, 3.0, -3.0, 0.0]) * FLOAT16 / 8), bias=np.zeros(4))
    assert measure(_affine_of(gamma), fn, 4, FLOAT16).source == "parameters"
    fn = SimpleNamespace(weight=gamma * np.array([1.0, 1.01, 1.0, 1.0]), bias=np.zeros(4))
    assert measure(_affine_of(gamma), fn, 4, FLOAT16).source == "measured"


# Affine: what is divided out, and what is kept


def test_features_kept_are_those_with_at_least_a_tenth_of_the_largest_gamma():
    assert Affine(gamma=np.array([1.0, 0.1, 0.09, -2.0, 0.0])).keep.tolist() == [True, False, False, True, False]
    assert Affine(gamma=np.array([1.0, 0.1, -0.1, 0.05])).keep.tolist() == [True, True, True, False]


def test_dividing_out_magnifies_rounding_by_one_over_the_smallest_gamma_kept():
    assert Affine(gamma=np.array([2.0, 0.5, 0.0, 0.25, 0.1])).magnified == 4.0
    assert Affine(gamma=np.array([-0.5, 0.5])).magnified == 2.0
    assert Affine(gamma=np.zeros(3)).magnified == 1.0
    assert Affine().magnified == 1.0


def test_the_zero_columns_are_counted_from_one():
    assert Affine(gamma=np.array([0.0, 1.0, 0.0, 2.0])).zero_columns == (1, 3)
    assert Affine(gamma=np.ones(3)).zero_columns == ()
    assert Affine().zero_columns == ()


def test_a_shift_is_a_measured_beta_the_same_on_every_feature():
    assert Affine(source="measured", beta=np.full(3, -0.25)).shift == -0.25
    assert Affine(source="none", beta=np.full(3, 2.0)).shift == 2.0
    assert Affine(source="parameters", beta=np.full(3, 2.0)).shift is None
    assert Affine(source="measured", beta=np.array([0.5, 0.5, 0.25])).shift is None
    assert Affine(source="measured").shift is None


def test_something_is_undone_when_gamma_or_beta_is_found():
    assert not Affine().undone
    assert Affine(gamma=np.ones(2)).undone
    assert Affine(beta=np.zeros(2)).undone


def test_dividing_out_subtracts_beta_then_divides_by_gamma_and_gives_nan_where_gamma_is_zero():
    y = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])
    found = Affine(gamma=np.array([2.0, 0.0, -0.5]), beta=np.array([1.0, 3.0, 1.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = found.divide_out(y)
    np.testing.assert_array_equal(z, [[0.0, np.nan, -4.0], [-1.0, np.nan, -6.0]])
    np.testing.assert_array_equal(Affine(beta=np.array([1.0, 2.0, 3.0])).divide_out(y), y - [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(Affine(gamma=np.array([2.0, 4.0, 1.0])).divide_out(y), y / [2.0, 4.0, 1.0])
    assert Affine().divide_out(y) is y


def test_dividing_out_is_silent_even_where_it_overflows():
    """A huge output over a tiny γ is infinite, without a warning in the learner's notebook."""
    found = Affine(gamma=np.array([1e-10, 1.0, 0.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = found.divide_out(np.array([[1e300, 1.0, np.inf]]))
    np.testing.assert_array_equal(z, [[np.inf, 1.0, np.nan]])
