"""helpers.lessons.backward.gradients: the closed-form gradient against torch autograd and finite differences."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import helpers
from helpers.lessons.backward.gradients import layer_norm_backward, layer_norm_backward_steps, layer_norm_jacobian

from conftest import examples

ROW_1 = np.array([1.133, -0.299, 0.503])


def _torch_gradients(x, grad_output, gamma, beta, eps):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    gt = torch.tensor(gamma, dtype=torch.float64, requires_grad=True)
    bt = torch.tensor(beta, dtype=torch.float64, requires_grad=True)
    y = torch.nn.functional.layer_norm(xt, (x.shape[-1],), gt, bt, eps)
    y.backward(torch.tensor(grad_output, dtype=torch.float64))
    return xt.grad.numpy(), gt.grad.numpy(), bt.grad.numpy()


@settings(max_examples=examples(30, fast=10), deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=0, max_size=2).map(tuple),
    features=st.integers(2, 9),
    seed=st.integers(0, 2**31 - 1),
    eps=st.sampled_from([1e-5, 1e-3, 1e-12]),
)
def test_matches_torch_autograd_in_float64(shape, features, seed, eps):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape + (features,)) * rng.uniform(0.1, 10)
    grad_output = rng.normal(size=x.shape)
    gamma, beta = rng.normal(size=features), rng.normal(size=features)
    ours = layer_norm_backward(x, grad_output, gamma, eps=eps)
    theirs = _torch_gradients(x, grad_output, gamma, beta, eps)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-9, atol=1e-9)


def test_torch_reference_passes_gradcheck():
    x = torch.tensor(helpers.load_residual(), dtype=torch.float64, requires_grad=True)
    gamma = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64, requires_grad=True)
    beta = torch.tensor([0.1, 0.2, -0.3], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda a, g, b: torch.nn.functional.layer_norm(a, (3,), g, b, 1e-5), (x, gamma, beta)
    )


def _finite_difference_gradients(x, grad_output, gamma, beta, eps, step=1e-6):
    """Central differences of the loss sum(grad_output · helpers.layer_norm(...)): independent of backward.py."""

    def loss(x_, gamma_, beta_):
        return float(np.sum(grad_output * helpers.layer_norm(x_, gamma_, beta_, eps=eps)))

    def numeric(f, at):
        grad = np.zeros_like(at)
        for index in np.ndindex(at.shape):
            up, down = at.copy(), at.copy()
            up[index] += step
            down[index] -= step
            grad[index] = (f(up) - f(down)) / (2 * step)
        return grad

    return (
        numeric(lambda v: loss(v, gamma, beta), x),
        numeric(lambda v: loss(x, v, beta), gamma),
        numeric(lambda v: loss(x, gamma, v), beta),
    )


def test_matches_finite_differences_of_helpers_layer_norm():
    rng = np.random.default_rng(7)
    x = helpers.load_residual()
    grad_output = rng.normal(size=x.shape)
    gamma, beta = np.array([1.5, -0.5, 2.0]), np.array([0.1, 0.2, -0.3])
    ours = layer_norm_backward(x, grad_output, gamma)
    numeric = _finite_difference_gradients(x, grad_output, gamma, beta, 1e-5)
    for mine, reference in zip(ours, numeric):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-7)


def test_jacobian_matches_torch_and_finite_differences():
    gamma = np.array([1.5, -0.5, 2.0])
    ours = layer_norm_jacobian(ROW_1, gamma)
    theirs = torch.autograd.functional.jacobian(
        lambda v: torch.nn.functional.layer_norm(v, (3,), torch.tensor(gamma), None, 1e-5), torch.tensor(ROW_1)
    ).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    step = 1e-6
    for j in range(3):
        up, down = ROW_1.copy(), ROW_1.copy()
        up[j] += step
        down[j] -= step
        column = (helpers.layer_norm(up, gamma) - helpers.layer_norm(down, gamma)) / (2 * step)
        np.testing.assert_allclose(ours[:, j], column, rtol=1e-5, atol=1e-7)


def test_backward_is_the_jacobian_transposed_times_the_upstream_gradient():
    grad_output = np.array([0.3, -1.2, 0.7])
    gamma = np.array([2.0, 1.0, -1.0])
    grad_x, _, _ = layer_norm_backward(ROW_1, grad_output, gamma)
    np.testing.assert_allclose(grad_x, layer_norm_jacobian(ROW_1, gamma).T @ grad_output, atol=1e-12)


def test_jacobian_kills_shifts_and_almost_kills_scaling():
    jacobian = layer_norm_jacobian(ROW_1)
    np.testing.assert_allclose(jacobian @ np.ones(3), 0.0, atol=1e-12)  # J·1 = 0: every row sums to 0
    np.testing.assert_allclose(np.ones(3) @ jacobian, 0.0, atol=1e-12)  # γ = 1: J is symmetric too
    centred = ROW_1 - ROW_1.mean()
    variance = np.mean(centred**2)
    normalised = centred / np.sqrt(variance + 1e-5)
    expected = normalised * 1e-5 / ((variance + 1e-5) * np.sqrt(variance + 1e-5))
    np.testing.assert_allclose(jacobian @ normalised, expected, rtol=1e-6)


def test_jacobian_rank_is_n_minus_1_with_eps_and_n_minus_2_without():
    singular = np.linalg.svd(layer_norm_jacobian(ROW_1), compute_uv=False)
    variance = np.var(ROW_1)
    std = np.sqrt(variance + 1e-5)
    np.testing.assert_allclose(singular[0], 1 / std, rtol=1e-9)  # directions ⟂ 1 and ⟂ x̂
    np.testing.assert_allclose(singular[1], 1e-5 / ((variance + 1e-5) * std), rtol=1e-6)  # the x̂ direction
    assert singular[2] < 1e-14  # the shift direction 1
    assert np.linalg.matrix_rank(layer_norm_jacobian(ROW_1)) == 2
    assert np.linalg.matrix_rank(layer_norm_jacobian(ROW_1, eps=0.0)) == 1


def test_backward_steps_of_row_1_match_the_closed_form_and_torch():
    grad_output, gamma = np.array([1.0, 0.0, 0.0]), np.array([2.0, 1.0, -1.0])
    steps = layer_norm_backward_steps(ROW_1, grad_output, gamma)
    theirs = _torch_gradients(ROW_1, grad_output, gamma, np.zeros(3), 1e-5)[0]
    np.testing.assert_allclose(steps.grad_x, theirs, atol=1e-12)
    np.testing.assert_allclose(steps.grad_x, layer_norm_backward(ROW_1, grad_output, gamma)[0], atol=1e-15)
    assert steps.std == pytest.approx(np.sqrt(np.var(ROW_1) + 1e-5))
    assert steps.mean_g == pytest.approx(2.0 / 3)
    assert steps.mean_g_normalised == pytest.approx(2.0 * steps.normalised[0] / 3)


def test_bad_input_is_a_plain_value_error():
    with pytest.raises(ValueError, match="shape"):
        layer_norm_backward(ROW_1, np.ones(2))
    with pytest.raises(ValueError, match="gamma"):
        layer_norm_backward(ROW_1, np.ones(3), gamma=[1.0])
    with pytest.raises(ValueError, match="one row"):
        layer_norm_jacobian(np.ones((2, 3)))
    with pytest.raises(ValueError, match="same length"):
        layer_norm_backward_steps(ROW_1, np.ones(2))
    with pytest.raises(ValueError, match="eps is 0"):
        layer_norm_jacobian([2.0, 2.0, 2.0], eps=0.0)


def test_bad_eps_or_gamma_is_refused_like_layer_norm_refuses_it():
    for bad_eps in (-1e-5, None, float("nan")):
        with pytest.raises(ValueError, match="^eps must be"):
            layer_norm_backward(ROW_1, np.ones(3), eps=bad_eps)
    for bad_gamma in (["a", "b", "c"], [None, 1.0, 2.0], [[1.0], [2.0, 3.0]]):
        with pytest.raises(ValueError, match="^gamma needs numbers"):
            layer_norm_jacobian(ROW_1, gamma=bad_gamma)
    with pytest.raises(ValueError, match="rectangular array of numbers"):
        layer_norm_backward([[1.0, 2.0], [3.0]], np.ones(3))


# --- what a kernel saves, block partial sums, scale invariance (notebook 11) --------------------


def test_backward_from_saved_mean_and_rstd_matches_torch_kernel():
    from helpers.lessons.backward.gradients import layer_norm_backward_from_saved

    rng = np.random.default_rng(3)
    x, dy, gamma = rng.normal(size=(6, 7)) * 3 + 1, rng.normal(size=(6, 7)), rng.normal(size=7)
    xt = torch.tensor(x)
    _, mean, rstd = torch.ops.aten.native_layer_norm(xt, [7], torch.tensor(gamma), None, 1e-5)
    expected = torch.ops.aten.native_layer_norm_backward(
        torch.tensor(dy), xt, [7], mean, rstd, torch.tensor(gamma), None, [True, False, False]
    )[0]
    ours = layer_norm_backward_from_saved(x, dy, mean.numpy(), rstd.numpy(), gamma)
    np.testing.assert_allclose(ours, expected.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours, layer_norm_backward(x, dy, gamma)[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("block_rows", [1, 4, 5, 64])
def test_parameter_gradients_in_blocks_sum_to_autograd(block_rows):
    from helpers.lessons.backward.gradients import parameter_gradients_in_blocks

    rng = np.random.default_rng(block_rows)
    x, dy = rng.normal(size=(18, 5)), rng.normal(size=(18, 5))
    partial_gamma, partial_beta, grad_gamma, grad_beta = parameter_gradients_in_blocks(x, dy, block_rows)
    assert partial_gamma.shape == (-(-18 // block_rows), 5) == partial_beta.shape
    _, torch_gamma, torch_beta = _torch_gradients(x, dy, np.ones(5), np.zeros(5), 1e-5)
    np.testing.assert_allclose(grad_gamma, torch_gamma, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad_beta, torch_beta, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="whole number"):
        parameter_gradients_in_blocks(x, dy, 0)


def test_sgd_into_layer_norm_only_lengthens_the_weights():
    from helpers.lessons.backward.gradients import sgd_into_layer_norm

    rng = np.random.default_rng(0)
    h, w, targets = rng.normal(size=(32, 8)), rng.normal(size=(6, 8)) * 0.3, rng.normal(size=(32, 6))
    run = sgd_into_layer_norm(h, targets, w, learning_rate=0.5, steps=40)
    cosines = run.inner_products / (run.weight_norms * run.gradient_norms)
    assert np.max(np.abs(cosines)) < 1e-3  # the gradient is perpendicular to W, up to ε
    tiny_eps = sgd_into_layer_norm(h, targets, w, learning_rate=0.5, steps=5, eps=1e-12)
    assert np.max(np.abs(tiny_eps.inner_products / (tiny_eps.weight_norms * tiny_eps.gradient_norms))) < 1e-9
    assert np.all(np.diff(run.weight_norms) > 0)  # so every step lengthens W
    predicted = np.sqrt(run.weight_norms[:-1] ** 2 + (run.learning_rate * run.gradient_norms[:-1]) ** 2)
    np.testing.assert_allclose(run.weight_norms[1:], predicted, rtol=1e-4)
    assert run.losses[-1] < run.losses[0]


# --- the gradient check shown in notebook 11: dx, dγ and dβ by central differences -------------


def test_finite_difference_gradients_match_torch_autograd_with_gamma_and_beta():
    from helpers.lessons.backward.gradients import finite_difference_gradients

    rng = np.random.default_rng(11)
    x, dy = helpers.load_residual(), rng.normal(size=(5, 3))
    gamma, beta = np.array([1.5, -0.5, 2.0]), np.array([0.1, 0.2, -0.3])
    numeric = finite_difference_gradients(x, dy, gamma, beta)
    for mine, reference in zip(numeric, _torch_gradients(x, dy, gamma, beta, 1e-5)):
        np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-7)


def test_the_finite_difference_check_catches_a_wrong_parameter_gradient():
    from helpers.lessons.backward.gradients import finite_difference_gradients

    x, dy = helpers.load_residual(), np.random.default_rng(12).normal(size=(5, 3))
    gamma, beta = np.array([1.5, -0.5, 2.0]), np.array([0.1, 0.2, -0.3])
    _, numeric_gamma, numeric_beta = finite_difference_gradients(x, dy, gamma, beta)
    _, grad_gamma, grad_beta = layer_norm_backward(x, dy, gamma)
    np.testing.assert_allclose(grad_gamma, numeric_gamma, atol=1e-7)
    np.testing.assert_allclose(grad_beta, numeric_beta, atol=1e-7)
    wrong_gamma = (dy * x).sum(axis=0)  # Σ dy · x instead of Σ dy · x̂
    wrong_beta = (dy * gamma).sum(axis=0)  # Σ dy · γ instead of Σ dy
    assert np.max(np.abs(wrong_gamma - numeric_gamma)) > 0.1
    assert np.max(np.abs(wrong_beta - numeric_beta)) > 0.1
    with pytest.raises(ValueError, match="beta"):
        finite_difference_gradients(x, dy, gamma, [0.0])


def test_backward_from_saved_rounds_in_the_dtype_it_is_given():
    from helpers.lessons.backward.gradients import layer_norm_backward_from_saved

    rng = np.random.default_rng(13)
    x, dy, gamma = rng.normal(size=(4, 16)), rng.normal(size=(4, 16)), rng.normal(size=16)
    _, mean, _, std = helpers.core.formula.layer_norm_forward(x, 1e-5)
    in_float32 = layer_norm_backward_from_saved(x, dy, mean, 1 / std, gamma, dtype=np.float32)
    exact = layer_norm_backward(x, dy, gamma)[0]
    assert in_float32.dtype == np.float32
    assert 1e-9 < np.max(np.abs(in_float32 - exact)) < 1e-5
    np.testing.assert_allclose(layer_norm_backward_from_saved(x, dy, mean.ravel(), 1 / std, gamma), exact, atol=1e-12)


@pytest.mark.parametrize("row", [[1.133, -0.299, 0.503], [0.663, 0.779, 0.648, -2.0], [3.0, -1.0]])
def test_the_jacobian_question_names_the_path_each_wrong_answer_left_out(row):
    """Notebook 11's question on dy₁/dx₁ (γ = 1), worked out here with numpy: the answer is
    (1 − 1/n − x̂₁²/n)/σ_ε, the same as a finite difference; a wrong answer without the mean's path (−1/n) is
    told it left out −1/n, one without σ_ε's path (−x̂₁·x̂₁/n) that it left out that one."""
    from helpers.lessons.backward.gradients import jacobian_question

    x = np.asarray(row, dtype=np.float64)
    n, eps = x.size, 1e-5
    sigma = np.sqrt(x.var() + eps)
    x1 = (x[0] - x.mean()) / sigma
    question = jacobian_question(row, "row 1")
    right = (1 - 1 / n - x1 * x1 / n) / sigma
    step = 1e-6
    nudged = x.copy()
    nudged[0] += step
    by_difference = (((nudged[0] - nudged.mean()) / np.sqrt(nudged.var() + eps)) - x1) / step
    assert question["answer"] == pytest.approx(right, rel=1e-12)
    assert question["answer"] == pytest.approx(by_difference, rel=1e-4)

    def told(value: float) -> str:
        (sentence,) = [words for key, words in question["mistakes"].items() if abs(key - value) <= 1e-9 * abs(value)]
        return sentence

    no_mean_path, no_sigma_path = (1 - x1 * x1 / n) / sigma, (1 - 1 / n) / sigma
    assert f"left out −1/{n}" in told(no_mean_path) and "mean" in told(no_mean_path)
    assert f"left out −x̂₁·x̂₁/{n}" in told(no_sigma_path) and "σ_ε" in told(no_sigma_path)
    assert "direct path only" in told(1 / sigma)
    assert "divide by it" in told(right * sigma * sigma)
