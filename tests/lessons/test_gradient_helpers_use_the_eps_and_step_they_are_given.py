"""Notebook 11's gradient helpers take ``eps`` (and the finite differences a ``step``) and must use them:
block sums of dγ = Σ dy · x̂ with x̂ made with that eps, SGD through a LayerNorm with that eps, and central
differences (L(+step) − L(−step)) / (2 · step) with that step. Expected values here are plain numpy."""

import numpy as np
import pytest

from helpers.lessons.backward.gradients import (
    finite_difference_gradients,
    parameter_gradients_in_blocks,
    sgd_into_layer_norm,
)

RNG = np.random.default_rng(21)
X = RNG.normal(size=(5, 4)) * 0.3  # variance ≈ 0.09: an eps of 1 changes x̂ a lot
DY = RNG.normal(size=(5, 4))


def x_hat(x, eps):
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)


@pytest.mark.parametrize("eps", [1.0, 0.05])
def test_block_sums_of_dgamma_use_x_hat_with_the_given_eps(eps):
    partial_gamma, partial_beta, grad_gamma, grad_beta = parameter_gradients_in_blocks(X, DY, 2, eps=eps)
    products = DY * x_hat(X, eps)
    np.testing.assert_allclose(partial_gamma, [products[0:2].sum(0), products[2:4].sum(0), products[4:].sum(0)])
    np.testing.assert_allclose(grad_gamma, products.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(grad_beta, DY.sum(axis=0), rtol=1e-12)  # dβ does not depend on eps


def sgd_problem():
    rng = np.random.default_rng(22)
    return rng.normal(size=(6, 3)), rng.normal(size=(4, 3)) * 0.2, rng.normal(size=(6, 4))


def test_sgd_measures_its_loss_through_a_layer_norm_with_the_given_eps():
    h, w, targets = sgd_problem()
    for eps in (1.0, 1e-5):
        run = sgd_into_layer_norm(h, targets, w, learning_rate=0.1, steps=1, eps=eps)
        expected = float(((x_hat(h @ w.T, eps) - targets) ** 2).mean())
        assert run.losses[0] == pytest.approx(expected, rel=1e-12)


def test_sgd_steps_with_the_gradient_of_the_given_eps():
    h, w, targets = sgd_problem()
    big, small = (sgd_into_layer_norm(h, targets, w, 0.1, 2, eps=eps) for eps in (1.0, 1e-5))
    assert abs(big.gradient_norms[0] - small.gradient_norms[0]) > 1e-3 * small.gradient_norms[0]


def central_difference(row, dy, step, eps=1e-5):
    out = np.zeros_like(row)
    for j in range(row.size):
        up, down = row.copy(), row.copy()
        up[j] += step
        down[j] -= step
        out[j] = (np.sum(dy * x_hat(up, eps)) - np.sum(dy * x_hat(down, eps))) / (2 * step)
    return out


@pytest.mark.parametrize("step", [0.5, 0.1])
def test_finite_differences_nudge_by_the_given_step(step):
    row, dy = np.array([1.133, -0.299, 0.503]), np.array([0.3, -1.2, 0.7])
    dx, dgamma, dbeta = finite_difference_gradients(row, dy, None, None, step=step)
    np.testing.assert_allclose(dx, central_difference(row, dy, step), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(dbeta, dy, rtol=1e-9)  # L is linear in β: any step is exact
    np.testing.assert_allclose(dgamma, dy * x_hat(row, 1e-5), rtol=1e-9)  # and in γ


def test_a_large_step_is_visibly_not_the_derivative():
    row, dy = np.array([1.133, -0.299, 0.503]), np.array([0.3, -1.2, 0.7])
    coarse = finite_difference_gradients(row, dy, None, None, step=0.5)[0]
    fine = finite_difference_gradients(row, dy, None, None)[0]
    assert np.max(np.abs(coarse - fine)) > 1e-2
