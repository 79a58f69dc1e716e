"""helpers.checking.mistakes: behaviour the other checking tests left unpinned, found by mutmut
(tools/mutation/mutmut_run.py).

Each mistaken formula is written out here in plain numpy from its description in
``helpers/checking/mistakes/formula.py`` (RIGHT's comments), and each sentence from the words a learner
should read; tools/mutation/mutmut_triage.md lists which survivor each test was written against.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.checking.mistakes import sentences
from helpers.checking.mistakes.formula import forward

EPS = 1e-5
M = np.array([[1.0, 2.0, 4.0], [3.0, 5.0, 6.0]])  # two rows of three: not square, so a wrong axis shows


def _std(x, centre, eps=EPS):
    return np.sqrt(((x - centre) ** 2).mean(axis=-1, keepdims=True) + eps)


# ---------------------------------------------------------------------------------------------
# forward: "a quantity is missing where the mistaken formula cannot run, e.g. n − 1 for one value"


@pytest.mark.parametrize("changes", [{"mean_div": "n-1"}, {"var_div": "n-1"}, {"mean_div": "n-1", "var_div": "n-1"}])
def test_n_minus_1_for_one_value_gives_no_quantity(changes):
    assert forward([2.0], EPS, changes) == {}


def test_n_minus_1_for_two_values_runs():
    found = forward([1.0, 3.0], EPS, {"var_div": "n-1"})
    assert found["variance"].tolist() == [2.0]  # ((−1)² + 1²) / (2 − 1), for the one row


def test_centring_on_the_median_subtracts_each_rows_median():
    found = forward(M, EPS, {"centre": "median"})
    median = np.array([[2.0], [5.0]])
    assert found["mean"].shape == (2, 1) and found["mean"].tolist() == median.tolist()
    np.testing.assert_allclose(found["normalised"], (M - median) / _std(M, median), rtol=1e-12)


def test_the_one_pass_variance_is_the_mean_square_minus_the_squared_mean():
    found = forward(M, EPS, {"one_pass": True})
    mean = M.mean(axis=-1, keepdims=True)
    one_pass = (M * M).mean(axis=-1, keepdims=True) - mean * mean
    np.testing.assert_allclose(found["variance"], one_pass, rtol=1e-12)
    np.testing.assert_allclose(found["normalised"], (M - mean) / np.sqrt(one_pass + EPS), rtol=1e-12)


def test_the_quantities_are_float64_whatever_the_input():
    found = forward(M.astype(np.float32), EPS)
    assert {found[q].dtype for q in ("mean", "variance", "std", "normalised")} == {np.dtype(np.float64)}


def test_a_given_x_hat_is_taken_as_float64_and_needs_both_gamma_and_beta_for_an_output():
    x_hat = np.array([[-1.0, 0.0, 1.0]], dtype=np.float32)
    found = forward(None, EPS, None, np.ones(3), np.zeros(3), x_hat=x_hat)
    assert found["normalised"].dtype == np.float64 and found["output"].dtype == np.float64
    assert "output" not in forward(M, EPS, None, np.ones(3), None)  # γ without β: no scale-and-shift step
    assert "output" not in forward(M, EPS, None, None, np.zeros(3))


def test_lost_keepdims_gives_each_rows_own_variance_as_a_flat_array():
    mean = M.mean(axis=-1)
    centred = forward(M, EPS, {"axis": "lost-keepdims"})
    np.testing.assert_allclose(centred["variance"], ((M - mean[:, None]) ** 2).mean(axis=-1), rtol=1e-12)
    uncentred = forward(M, EPS, {"axis": "lost-keepdims", "var_centred": False})
    np.testing.assert_allclose(uncentred["variance"], (M**2).mean(axis=-1), rtol=1e-12)


def test_sizes_instead_of_squares_give_the_mean_absolute_difference():
    found = forward(M, EPS, {"square": False})
    mean = M.mean(axis=-1, keepdims=True)
    np.testing.assert_allclose(found["variance"], np.abs(M - mean).mean(axis=-1, keepdims=True), rtol=1e-12)


def test_min_max_scaling_maps_each_rows_own_smallest_to_0_and_largest_to_1():
    found = forward(M, EPS, {"scale": "min-max"})
    low, high = np.array([[1.0], [3.0]]), np.array([[4.0], [6.0]])
    np.testing.assert_allclose(found["normalised"], (M - low) / (high - low), rtol=1e-12)


def test_not_dividing_leaves_the_centred_row():
    found = forward(M, EPS, {"divide": False})
    np.testing.assert_allclose(found["normalised"], M - M.mean(axis=-1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize(
    "kind, formula",
    [
        ("neither", lambda x_hat, g, b: x_hat),
        ("beta-scaled", lambda x_hat, g, b: g * (x_hat + b)),
        ("scalar-both", lambda x_hat, g, b: g[0] * x_hat + b[0]),
    ],
)
def test_each_scale_and_shift_mistake_computes_what_it_says(kind, formula):
    x_hat = np.array([[-1.2, 0.1, 1.1], [0.5, -0.7, 0.2]])
    gamma, beta = np.array([2.0, 3.0, 5.0]), np.array([0.25, -0.5, 0.75])
    found = forward(None, EPS, {"affine": kind}, gamma, beta, x_hat=x_hat)
    assert found["output"].tolist() == formula(x_hat, gamma, beta).tolist()


def test_forgetting_gamma_and_beta_leaves_x_hat_even_where_a_gamma_is_0():
    x_hat = np.array([[-1.2, 0.1, 1.1]])
    found = forward(None, EPS, {"affine": "neither"}, np.array([0.0, 2.0, 0.0]), np.array([1.0, 1.0, 1.0]), x_hat=x_hat)
    assert found["output"].tolist() == x_hat.tolist()


# ---------------------------------------------------------------------------------------------
# the sentences a learner reads


def test_the_n_minus_1_sentence_names_both_divisors_and_the_fix():
    assert sentences.n_minus_1(sentences.Context(np.array([1.0, 2.0, 4.0]))) == (
        "LayerNorm's variance divides by n = 3, not by n − 1 = 2. Dividing by n − 1 (the 'unbiased' variance) "
        "is the default of torch.var and torch.std: pass unbiased=False (or correction=0) there; numpy's var "
        "and std divide by n unless given ddof=1."
    )


def test_the_no_eps_sentence_says_how_far_eps_moves_the_std_here():
    row = np.array([1.0, 2.0, 4.0])
    var = row.var()
    std, with_eps = np.sqrt(var), np.sqrt(var + EPS)
    assert sentences.no_eps(sentences.Context(row, EPS)) == (
        "Add ε to the variance before the square root: √(σ² + ε)."
        f" Here σ² = {var:.4g}, and ε = 1e-05 moves the std from {std:.7g} to {with_eps:.7g}"
        f" ({with_eps / std - 1:.1e} of its size)."
    )
    assert f"{std:.6g}" == f"{with_eps:.6g}"  # at six digits the two would read the same: a seventh tells them apart


def test_two_numbers_a_sentence_sets_side_by_side_print_differently_or_are_said_equal():
    first, second, differ = sentences.pair(1.0, 1.0 + 1e-9)
    assert differ and first != second and float(first) != float(second)
    assert sentences.pair(0.5, 0.5)[2] is False
    assert "equal at float64's precision" in sentences.moves(2.0, 2.0, "the std")
    row = np.array([1000.0, 1000.5, 1001.0])  # ε outside or inside the root: 7 digits apart
    text = sentences.eps_outside(sentences.Context(row, EPS))
    inside, outside = re.findall(r"Here that is (\S+), against (\S+) with", text)[0]
    assert inside != outside


def test_the_no_eps_sentence_for_a_constant_row_says_it_divides_0_by_0():
    assert sentences.no_eps(sentences.Context(np.array([[1.0, 2.0], [3.0, 3.0]]))) == (
        "Add ε to the variance before the square root: √(σ² + ε). Without it a constant row (σ² = 0) divides 0 by 0."
    )


def test_the_eps_outside_sentence_compares_both_roots_except_for_a_constant_row():
    row = np.array([1.0, 2.0, 4.0])
    var = row.var()
    first = "ε goes inside the square root: √(σ² + ε), not √σ² + ε."
    assert sentences.eps_outside(sentences.Context(row, 0.01)) == (
        f"{first} Here that is {np.sqrt(var + 0.01):.6g}, against {np.sqrt(var) + 0.01:.6g} with ε outside."
    )
    assert sentences.eps_outside(sentences.Context(np.array([2.0, 2.0]), 0.01)) == first


def test_a_fixed_sentence_is_the_same_for_every_row():
    say = sentences.fixed("Divide by the std.")
    assert (
        say(sentences.Context(np.array([1.0, 2.0]))) == say(sentences.Context(np.array([5.0]))) == "Divide by the std."
    )
