"""helpers.lessons.backward.gradients at its edges: notebook 11's hand-worked row, what the functions refuse (word for
word) and where, the shapes and number types they take, and the check-yourself question, against torch autograd or
numpy written out here."""

import math
import re

import numpy as np
import pytest
import torch

from helpers.core.validation import InputError
from helpers.lessons.backward.gradients import (
    finite_difference_gradients,
    jacobian_question,
    layer_norm_backward,
    layer_norm_backward_from_saved,
    layer_norm_backward_steps,
    parameter_gradients_in_blocks,
    sgd_into_layer_norm,
)

from conftest import LESSON_X


def _refused(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


def _autograd(x, dy, gamma=None, beta=None, eps=1e-5):
    """dx, dγ, dβ of Σ dy · F.layer_norm(x; γ, β) by torch autograd, in float64."""
    xt = torch.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    n = xt.shape[-1]
    gt = torch.tensor(np.ones(n) if gamma is None else np.asarray(gamma, dtype=np.float64), requires_grad=True)
    bt = torch.tensor(np.zeros(n) if beta is None else np.asarray(beta, dtype=np.float64), requires_grad=True)
    torch.nn.functional.layer_norm(xt, (n,), gt, bt, eps).backward(torch.tensor(np.asarray(dy, dtype=np.float64)))
    return xt.grad.numpy(), gt.grad.numpy(), bt.grad.numpy()


# --- what the checks refuse, and the edge they let through ----------------------------------------------


def test_backward_refuses_an_empty_row_and_non_finite_numbers_in_words():
    _refused(
        lambda: layer_norm_backward([], []),
        "LayerNorm's backward pass needs at least one feature per row; got shape (0,).",
    )
    _refused(
        lambda: layer_norm_backward([1.0, np.nan], [1.0, 1.0]), "x contains NaN or infinity; it needs finite numbers."
    )


def test_a_row_of_one_number_has_no_gradient_through_x_but_one_through_beta():
    grad_x, grad_gamma, grad_beta = layer_norm_backward([3.0], [2.5])
    np.testing.assert_array_equal(grad_x, [0.0])  # x̂ is 0 whatever x is
    np.testing.assert_array_equal(grad_gamma, [0.0])
    np.testing.assert_array_equal(grad_beta, [2.5])


def test_a_constant_row_with_eps_0_is_refused_wherever_it_sits_in_the_matrix():
    message = (
        "A row has every value the same and eps is 0, so its standard deviation is 0 and the "
        "gradient does not exist; use a positive eps such as 1e-5."
    )
    # row 1 is constant at 2, neither the matrix's largest nor its smallest value
    _refused(lambda: layer_norm_backward([[2.0, 2.0], [1.0, 3.0]], np.ones((2, 2)), eps=0.0), message)
    grad_x, _, _ = layer_norm_backward([[2.0, 2.5], [1.0, 3.0]], [[1.0, 0.0], [0.0, 1.0]], eps=0.0)
    np.testing.assert_allclose(grad_x, _autograd([[2.0, 2.5], [1.0, 3.0]], [[1.0, 0.0], [0.0, 1.0]], eps=0.0)[0])


def test_parameter_gradients_are_float64_sums_even_for_a_float32_upstream_gradient():
    rng = np.random.default_rng(21)
    x, dy = rng.normal(size=(256, 3)), rng.normal(size=(256, 3)).astype(np.float32)
    _, grad_gamma, grad_beta = layer_norm_backward(x, dy)
    assert grad_gamma.dtype == np.float64 == grad_beta.dtype
    exact_beta = [math.fsum(column) for column in dy.astype(np.float64).T]
    np.testing.assert_allclose(grad_beta, exact_beta, rtol=1e-13)
    np.testing.assert_allclose(grad_gamma, _autograd(x, dy.astype(np.float64))[1], rtol=1e-12)


# --- notebook 11's row 1, step by step ------------------------------------------------------------------


def test_row_1_with_dy_1_0_0_keeps_every_piece_notebook_11_shows():
    steps = layer_norm_backward_steps(LESSON_X[0], grad_output=[1, 0, 0])  # whole numbers, as a slider could give
    np.testing.assert_array_equal(steps.input, LESSON_X[0])
    assert steps.grad_output.dtype == np.float64 == steps.g.dtype == steps.gamma.dtype
    np.testing.assert_array_equal(steps.grad_output, [1.0, 0.0, 0.0])
    np.testing.assert_array_equal(steps.gamma, [1.0, 1.0, 1.0])  # γ = 1 by default
    np.testing.assert_array_equal(steps.g, [1.0, 0.0, 0.0])
    assert f"{steps.std:.5f}" == "0.58602"
    np.testing.assert_array_equal(np.round(steps.normalised, 4), [1.1729, -1.2707, 0.0978])
    np.testing.assert_array_equal(np.round(steps.normalised * steps.mean_g_normalised, 4), [0.4585, -0.4968, 0.0382])
    np.testing.assert_array_equal(np.round(steps.grad_x, 4), [0.3551, 0.2789, -0.6341])
    np.testing.assert_allclose(steps.grad_x, _autograd(LESSON_X[0], [1.0, 0.0, 0.0])[0], rtol=1e-12)


def test_steps_take_gamma_into_g():
    steps = layer_norm_backward_steps(LESSON_X[0], [0.5, -1.0, 2.0], gamma=[2.0, 3.0, -1.0])
    np.testing.assert_array_equal(steps.gamma, [2.0, 3.0, -1.0])
    np.testing.assert_array_equal(steps.g, [1.0, -3.0, -2.0])
    np.testing.assert_allclose(steps.grad_x, _autograd(LESSON_X[0], [0.5, -1.0, 2.0], [2.0, 3.0, -1.0])[0])


# --- dx from what the forward pass saved ------------------------------------------------------------------


def _saved(x, eps=1e-5):
    mean = x.mean(axis=-1)
    return mean, 1 / np.sqrt(((x - mean[..., None]) ** 2).mean(axis=-1) + eps)


def test_backward_from_saved_takes_any_leading_axes_and_flat_mean_and_rstd():
    rng = np.random.default_rng(22)
    x, dy, gamma = rng.normal(size=(2, 4, 5)) * 2 + 1, rng.normal(size=(2, 4, 5)), rng.normal(size=5)
    mean, rstd = _saved(x)  # shapes (2, 4): one per row, as the forward pass saves them
    ours = layer_norm_backward_from_saved(x, dy, mean, rstd, gamma)
    np.testing.assert_allclose(ours, _autograd(x, dy, gamma)[0], rtol=1e-10, atol=1e-12)


def test_backward_from_saved_without_gamma_is_gamma_1():
    rng = np.random.default_rng(23)
    x, dy = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    mean, rstd = _saved(x)
    np.testing.assert_allclose(layer_norm_backward_from_saved(x, dy, mean, rstd), _autograd(x, dy)[0], atol=1e-12)


def test_backward_from_saved_refuses_a_gamma_of_the_wrong_length_in_words():
    x = np.ones((2, 5))
    _refused(
        lambda: layer_norm_backward_from_saved(x, x, [1.0, 1.0], [1.0, 1.0], gamma=[1.0, 2.0]),
        "gamma needs one value per feature: 5 values; got 2.",
    )


def test_backward_from_saved_rounds_the_row_sums_to_float16_before_dividing_them():
    """In float16 a = mean(g) and b = mean(g · x̂) are rounded to float16 too: a sum of 2049 becomes 2048 first."""
    half = np.float16
    x, dy = np.array([[0.0, 0.0, 0.0], [0.5, 2.0**-12, 0.0]]), np.array([[2048.0, 1.0, 0.0], [1.0, 1.0, 1.0]])
    expected = []
    for x_hat, g in zip(x.astype(half), dy.astype(half)):  # mean 0 and rstd 1: x̂ = x, and γ = 1: g = dy
        a = half(half(half(half(g[0] + g[1]) + g[2])) / half(3))
        products = [half(gi * xi) for gi, xi in zip(g, x_hat)]
        b = half(half(half(products[0] + products[1]) + products[2]) / half(3))
        expected.append([half(half(1) * half(half(gi - a) - half(xi * b))) for gi, xi in zip(g, x_hat)])
    assert expected[0] == [1366.0, -681.5, -682.5]  # a = 682.5: 2048 / 3, not 2049 / 3
    ours = layer_norm_backward_from_saved(x, dy, [0.0, 0.0], [1.0, 1.0], dtype=np.float16)
    assert ours.dtype == np.float16
    np.testing.assert_array_equal(ours, np.array(expected, dtype=np.float16))


# --- the gradient check by central differences -----------------------------------------------------------


def test_finite_differences_without_beta_of_one_row_with_its_own_eps_match_autograd():
    dy = np.array([0.4, -1.1, 0.9])
    numeric = finite_difference_gradients(LESSON_X[1], dy, [1.5, -0.5, 2.0], None, eps=0.1)
    for mine, reference in zip(numeric, _autograd(LESSON_X[1], dy, [1.5, -0.5, 2.0], eps=0.1)):
        np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-8)


def test_finite_differences_refuse_a_mismatched_upstream_gradient_or_beta_in_words():
    _refused(
        lambda: finite_difference_gradients(LESSON_X, np.ones((5, 2)), None, None),
        "grad_output must have x's shape (5, 3); got (5, 2).",
    )
    _refused(
        lambda: finite_difference_gradients(LESSON_X, np.ones((5, 3)), None, [0.0]),
        "beta needs one value per feature: 3 values; got 1.",
    )


# --- dγ and dβ in blocks --------------------------------------------------------------------------------------


def test_block_partial_sums_of_a_float32_upstream_gradient_are_float64_sums():
    rng = np.random.default_rng(24)
    x, dy = rng.normal(size=(64, 3)), (rng.normal(size=(64, 3)) + 1).astype(np.float32)
    _, partial_beta, _, grad_beta = parameter_gradients_in_blocks(x, dy, 32)
    wide = dy.astype(np.float64)
    exact = [[math.fsum(column) for column in wide[s : s + 32].T] for s in (0, 32)]
    assert partial_beta.dtype == np.float64
    np.testing.assert_allclose(partial_beta, exact, rtol=1e-14)
    np.testing.assert_allclose(grad_beta, [math.fsum(column) for column in wide.T], rtol=1e-14)


def test_block_sums_refuse_x_and_an_upstream_gradient_of_different_shapes_in_words():
    _refused(
        lambda: parameter_gradients_in_blocks(np.ones((4, 3)), np.ones((4, 2)), 2),
        "Give x and grad_output as matrices of the same shape; got (4, 3) and (4, 2).",
    )


# --- SGD into a LayerNorm ---------------------------------------------------------------------------------------


def test_sgd_records_what_torch_autograd_gives_step_by_step():
    rng = np.random.default_rng(25)
    h, w, targets = rng.normal(size=(6, 4)), rng.normal(size=(3, 4)), rng.normal(size=(6, 3))
    run = sgd_into_layer_norm(h, targets, w, learning_rate=0.7, steps=3)
    weight = torch.tensor(w, requires_grad=True)
    norms, inner, gradient_norms, losses = [], [], [], []
    for _ in range(3):
        loss = ((torch.nn.functional.layer_norm(torch.tensor(h) @ weight.T, (3,)) - torch.tensor(targets)) ** 2).mean()
        (grad,) = torch.autograd.grad(loss, weight)
        norms.append(weight.norm().item())
        inner.append((weight * grad).sum().item())
        gradient_norms.append(grad.norm().item())
        losses.append(loss.item())
        weight = (weight - 0.7 * grad).detach().requires_grad_()
    np.testing.assert_allclose(run.losses, losses, rtol=1e-12)
    np.testing.assert_allclose(run.weight_norms, norms, rtol=1e-12)
    np.testing.assert_allclose(run.gradient_norms, gradient_norms, rtol=1e-10)
    np.testing.assert_allclose(run.inner_products, inner, atol=1e-12)
    assert run.learning_rate == 0.7


@pytest.mark.parametrize(
    "shapes",
    [((6,), (3, 4), (6, 3)), ((6, 4), (3,), (6, 3)), ((6, 4), (3, 5), (6, 3)), ((6, 4), (3, 4), (6, 4))],
    ids=["inputs-flat", "weight-flat", "weight-too-wide", "targets-wrong"],
)
def test_sgd_refuses_every_shape_mismatch_in_words(shapes):
    inputs, weight, targets = (np.ones(shape) for shape in shapes)
    _refused(
        lambda: sgd_into_layer_norm(inputs, targets, weight, learning_rate=0.1, steps=1),
        "Shapes must be inputs (batch, d_in), weight (d_out, d_in), targets (batch, d_out).",
    )


# --- notebook 11's check-yourself question --------------------------------------------------------------------


def test_the_jacobian_question_for_row_2_is_what_number_question_is_given():
    row = LESSON_X[1]
    question = jacobian_question(row, name="row 2")
    assert set(question) == {"question", "answer", "tolerance", "hint", "mistakes"}
    assert question["question"] == (
        "For row 2, what is dy₁/dx₁, the top-left entry of its Jacobian (γ = 1)? Give 3 or 4 places."
    )
    assert question["tolerance"] == 6e-4
    sigma = np.sqrt(row.var() + 1e-5)
    x1 = (row[0] - row.mean()) / sigma
    assert question["hint"] == (f"Row 2's x̂₁ is {x1:.4f} and its σ_ε is {sigma:.5f}: put them into the formula above.")
    assert question["hint"].startswith("Row 2's x̂₁ is -1.0273 and its σ_ε is 0.45622")
    assert sorted(question["mistakes"].values()) == sorted(
        [
            "That is 1/σ_ε, the direct path only: x₁ also moves the mean (−1/3) and σ_ε (−x̂₁·x̂₁/3).",
            "You left out −1/3: moving x₁ also moves the mean.",
            "You left out −x̂₁·x̂₁/3: moving x₁ also changes σ_ε.",
            "You multiplied by σ_ε: divide by it.",
        ]
    )


def test_the_jacobian_question_by_default_asks_about_this_row():
    question = jacobian_question([1.0, 2.0, 4.0])
    assert question["question"].startswith("For this row, what is dy₁/dx₁")
    assert question["hint"].startswith("This row's x̂₁ is ")


def test_the_jacobian_questions_answer_uses_its_eps():
    row = np.array([1.0, 2.0, 4.0])
    sigma = np.sqrt(row.var() + 0.5)
    x1 = (row[0] - row.mean()) / sigma
    assert jacobian_question(row, eps=0.5)["answer"] == pytest.approx((1 - 1 / 3 - x1 * x1 / 3) / sigma, rel=1e-12)


def test_a_bad_row_for_the_jacobian_question_is_refused_as_the_row():
    with pytest.raises(InputError) as refused:
        jacobian_question(["a", "b", "c"])
    assert refused.value.argument == "row"
