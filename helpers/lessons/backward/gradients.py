"""The backward pass of LayerNorm: how a change in the loss flows back to x, γ and β.

With ``x̂ = (x − μ) / σ_ε``, ``σ_ε = √(σ² + eps)`` (its reciprocal is ``rstd``), ``y = γ·x̂ + β``
and ``g = grad_output · γ``, the gradient with respect to one row is the closed form

    dx = rstd · (g − mean(g) − x̂ · mean(g · x̂))

Subtracting mean(g) removes any push that would shift the whole row (LayerNorm ignores shifts);
subtracting x̂ · mean(g · x̂) removes the push that would only rescale it (LayerNorm ignores scale,
up to eps). Pure numpy; nothing here displays or imports torch. Introduced in notebook 11.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS, as_float_array, check_eps, layer_norm, per_feature


def _normalised(values: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    x_hat, _, _, std = layer_norm_forward(values, eps)
    return x_hat, std


def _checked(x, gamma, eps):
    values = as_float_array(x).astype(np.float64)
    if values.ndim == 0 or values.size == 0:
        raise ValueError(f"LayerNorm's backward pass needs at least one feature per row; got shape {values.shape}.")
    if not np.all(np.isfinite(values)):
        raise ValueError("x contains NaN or infinity; it needs finite numbers.")
    check_eps(eps)
    if eps == 0 and np.any(values.max(axis=-1) == values.min(axis=-1)):
        raise ValueError(
            "A row has every value the same and eps is 0, so its standard deviation is 0 and the "
            "gradient does not exist; use a positive eps such as 1e-5."
        )
    return values, per_feature(gamma, "gamma", values.shape[-1], default=1.0, dtype=np.float64)


def layer_norm_backward(x, grad_output, gamma=None, eps: float = DEFAULT_EPS):
    """Gradients of LayerNorm (last axis) given the gradient of the loss with respect to its output.

    Returns ``(grad_x, grad_gamma, grad_beta)``: ``grad_x`` has x's shape; ``grad_gamma`` and
    ``grad_beta`` have one value per feature, summed over every row (every leading axis), in float64.
    β does not change the gradient with respect to x, so it is not an argument.
    Introduced in notebook 11.
    """
    values, scale = _checked(x, gamma, eps)
    upstream = np.asarray(grad_output, dtype=np.float64)
    if upstream.shape != values.shape:
        raise ValueError(f"grad_output must have x's shape {values.shape}; got {upstream.shape}.")
    normalised, std = _normalised(values, eps)
    g = upstream * scale
    grad_x = (g - g.mean(axis=-1, keepdims=True) - normalised * (g * normalised).mean(axis=-1, keepdims=True)) / std
    leading = tuple(range(values.ndim - 1))
    grad_gamma = (upstream * normalised).sum(axis=leading)
    grad_beta = upstream.sum(axis=leading)
    return grad_x, grad_gamma, grad_beta


@dataclass(frozen=True)
class BackwardSteps:
    """Every piece of the closed-form gradient for one row, in the order it is computed."""

    input: np.ndarray
    grad_output: np.ndarray
    gamma: np.ndarray
    std: float  # σ_ε = √(σ² + eps), the reciprocal of rstd
    normalised: np.ndarray  # x̂
    g: np.ndarray  # grad_output · γ
    mean_g: float
    mean_g_normalised: float  # mean(g · x̂)
    grad_x: np.ndarray  # (g − mean(g) − x̂ · mean(g · x̂)) / σ_ε


def layer_norm_backward_steps(row, grad_output, gamma=None, eps: float = DEFAULT_EPS) -> BackwardSteps:
    """The backward pass of one row, keeping every intermediate (for working it by hand).

    Introduced in notebook 11.
    """
    values, scale = _checked(row, gamma, eps)
    upstream = np.asarray(grad_output, dtype=np.float64)
    if values.ndim != 1 or upstream.shape != values.shape:
        raise ValueError(
            f"Give one row and one upstream gradient of the same length; got shapes {values.shape} "
            f"and {upstream.shape}."
        )
    normalised, std = _normalised(values, eps)
    g = upstream * scale
    mean_g, mean_g_normalised = float(g.mean()), float((g * normalised).mean())
    grad_x = (g - mean_g - normalised * mean_g_normalised) / std
    return BackwardSteps(values, upstream, scale, float(std[0]), normalised, g, mean_g, mean_g_normalised, grad_x)


def layer_norm_jacobian(row, gamma=None, eps: float = DEFAULT_EPS) -> np.ndarray:
    """The n × n matrix J with ``J[i, j] = ∂y_i / ∂x_j`` for one row.

    ``J = diag(γ) · (I − 1/n − x̂ x̂ᵀ / n) / σ_ε``. Every row of J sums to 0 (``J · 1 = 0``: shifting
    x changes nothing), and ``J · x̂ = γ · x̂ · eps / ((σ² + eps) · σ_ε)``, tiny: scaling x changes
    almost nothing. Introduced in notebook 11.
    """
    values, scale = _checked(row, gamma, eps)
    if values.ndim != 1:
        raise ValueError(f"layer_norm_jacobian takes one row (a flat list of numbers); got shape {values.shape}.")
    n = values.size
    normalised, std = _normalised(values, eps)
    core = np.eye(n) - 1.0 / n - np.outer(normalised, normalised) / n
    return scale[:, None] * core / std


def layer_norm_backward_from_saved(x, grad_output, mean, rstd, gamma=None, dtype=np.float64) -> np.ndarray:
    """dx in the x̂ form, from x, dy and the per-row ``mean`` and ``rstd`` the forward pass saved.

    x̂ is recomputed, ``(x − mean) · rstd`` (cheaper than storing a second full array); then two
    reductions per row, ``a = mean(g)`` and ``b = mean(g · x̂)``, and ``dx = rstd · (g − a − x̂ · b)``.
    Every operation is rounded to ``dtype``. (PyTorch's CPU kernel arranges the same gradient
    differently: ``helpers.lessons.backward.precision``.) Introduced in notebook 11.
    """
    dtype = np.dtype(dtype).type
    values = np.asarray(x, dtype=dtype)
    upstream = np.asarray(grad_output, dtype=dtype)
    scale = per_feature(gamma, "gamma", values.shape[-1], default=1.0, dtype=np.float64).astype(dtype)
    mean = np.asarray(mean, dtype=dtype).reshape(values.shape[:-1] + (1,))
    rstd = np.asarray(rstd, dtype=dtype).reshape(values.shape[:-1] + (1,))
    x_hat = (values - mean) * rstd
    g = upstream * scale
    a = g.mean(axis=-1, keepdims=True, dtype=dtype)
    b = (g * x_hat).mean(axis=-1, keepdims=True, dtype=dtype)
    return rstd * (g - a - x_hat * b)


def finite_difference_gradients(x, grad_output, gamma, beta, eps: float = DEFAULT_EPS, step: float = 1e-6):
    """dx, dγ and dβ with no calculus: central differences of the loss L = Σ dy · LayerNorm(x; γ, β).

    Every entry of x, γ and β in turn is nudged up and down by ``step`` and the project's forward pass
    (``helpers.layer_norm``) is run again: ``(L(+step) − L(−step)) / (2 · step)``. Independent of
    ``layer_norm_backward``, so the two can check each other. Introduced in notebook 11.
    """
    values, scale = _checked(x, gamma, eps)
    shift = per_feature(beta, "beta", values.shape[-1], default=0.0, dtype=np.float64)
    upstream = np.asarray(grad_output, dtype=np.float64)
    if upstream.shape != values.shape:
        raise ValueError(f"grad_output must have x's shape {values.shape}; got {upstream.shape}.")

    def loss(*arguments):
        return float(np.sum(upstream * layer_norm(*arguments, eps=eps)))

    def nudged(position):
        arguments = [values, scale, shift]
        grad = np.zeros_like(arguments[position])
        for index in np.ndindex(grad.shape):
            up, down = arguments[position].copy(), arguments[position].copy()
            up[index] += step
            down[index] -= step
            plus = arguments[:position] + [up] + arguments[position + 1 :]
            minus = arguments[:position] + [down] + arguments[position + 1 :]
            grad[index] = (loss(*plus) - loss(*minus)) / (2 * step)
        return grad

    return nudged(0), nudged(1), nudged(2)


def parameter_gradients_in_blocks(x, grad_output, block_rows: int, eps: float = DEFAULT_EPS):
    """dγ and dβ as a parallel kernel reduces them: each block of ``block_rows`` rows sums its own
    partial dγ = Σ dy · x̂ and dβ = Σ dy, then the partial sums are added.

    Returns ``(partial_gamma, partial_beta, grad_gamma, grad_beta)``; the partials have one row per
    block. Introduced in notebook 11.
    """
    values, _ = _checked(x, None, eps)
    upstream = np.asarray(grad_output, dtype=np.float64)
    if values.ndim != 2 or upstream.shape != values.shape:
        raise ValueError(
            f"Give x and grad_output as matrices of the same shape; got {values.shape} and {upstream.shape}."
        )
    if int(block_rows) != block_rows or block_rows < 1:
        raise ValueError(f"block_rows must be a whole number of at least 1; got {block_rows!r}.")
    x_hat, _ = _normalised(values, eps)
    starts = range(0, values.shape[0], int(block_rows))
    partial_gamma = np.array([(upstream[s : s + block_rows] * x_hat[s : s + block_rows]).sum(axis=0) for s in starts])
    partial_beta = np.array([upstream[s : s + block_rows].sum(axis=0) for s in starts])
    return partial_gamma, partial_beta, partial_gamma.sum(axis=0), partial_beta.sum(axis=0)


@dataclass(frozen=True)
class SgdRun:
    """Plain SGD on a weight matrix W whose output feeds a LayerNorm; one entry per step."""

    weight_norms: np.ndarray  # ‖W‖ before each step (Frobenius)
    inner_products: np.ndarray  # ⟨W, ∇_W L⟩ before each step
    gradient_norms: np.ndarray  # ‖∇_W L‖
    losses: np.ndarray
    learning_rate: float


def sgd_into_layer_norm(inputs, targets, weight, learning_rate: float, steps: int, eps: float = DEFAULT_EPS) -> SgdRun:
    """Train W in ``LayerNorm(inputs @ Wᵀ) ≈ targets`` (mean squared error) with plain SGD.

    Because LayerNorm ignores the scale of its input, ∇_W L is (nearly) perpendicular to W, so each
    step can only lengthen W: ‖W − η∇‖² = ‖W‖² + η²‖∇‖² up to that tiny inner product.
    Introduced in notebook 11.
    """
    h = np.asarray(inputs, dtype=np.float64)
    w = np.array(weight, dtype=np.float64)
    wanted = np.asarray(targets, dtype=np.float64)
    if h.ndim != 2 or w.ndim != 2 or w.shape[1] != h.shape[1] or wanted.shape != (h.shape[0], w.shape[0]):
        raise ValueError("Shapes must be inputs (batch, d_in), weight (d_out, d_in), targets (batch, d_out).")
    norms, inner, gradient_norms, losses = [], [], [], []
    for _ in range(int(steps)):
        x = h @ w.T
        y = layer_norm_forward(x, eps)[0]
        losses.append(float(((y - wanted) ** 2).mean()))
        dy = 2 * (y - wanted) / y.size
        dx = layer_norm_backward(x, dy, eps=eps)[0]
        grad_w = dx.T @ h
        norms.append(float(np.linalg.norm(w)))
        inner.append(float(np.sum(w * grad_w)))
        gradient_norms.append(float(np.linalg.norm(grad_w)))
        w = w - learning_rate * grad_w
    return SgdRun(np.array(norms), np.array(inner), np.array(gradient_norms), np.array(losses), float(learning_rate))


def jacobian_question(row, name: str = "this row", eps: float = DEFAULT_EPS) -> dict:
    """Notebook 11's check-yourself question on one row's dy₁/dx₁ (γ = 1), as the keyword arguments of
    ``widgets.number_question``: its answer and the paths a hand derivation drops stay out of the cell."""
    x_hat, _, _, sigma = layer_norm_forward(as_float_array(row, "row")[None, :], eps)
    x1, sigma, n = float(x_hat[0, 0]), float(sigma[0, 0]), x_hat.shape[-1]
    return {
        "question": f"For {name}, what is dy₁/dx₁, the top-left entry of its Jacobian (γ = 1)? Give 3 or 4 places.",
        "answer": float(layer_norm_jacobian(row, eps=eps)[0, 0]),
        "tolerance": 6e-4,
        "hint": f"{name[0].upper() + name[1:]}'s x̂₁ is {x1:.4f} and its σ_ε is {sigma:.5f}: put them into the formula above.",
        "mistakes": {  # the paths a hand derivation drops, so a wrong answer is told which one
            1 / sigma: f"That is 1/σ_ε, the direct path only: x₁ also moves the mean (−1/{n}) and σ_ε (−x̂₁·x̂₁/{n}).",
            (1 - 1 / n) / sigma: f"You left out −x̂₁·x̂₁/{n}: moving x₁ also changes σ_ε.",
            (1 - x1 * x1 / n) / sigma: f"You left out −1/{n}: moving x₁ also moves the mean.",
            (1 - 1 / n - x1 * x1 / n) * sigma: "You multiplied by σ_ε: divide by it.",
        },
    }
