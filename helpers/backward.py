"""The backward pass of LayerNorm: how a change in the loss flows back to x, γ and β.

With ``x̂ = (x − μ) / σ``, ``σ = √(var + eps)``, ``y = γ·x̂ + β`` and ``g = grad_output · γ``,
the gradient with respect to one row is the closed form

    dx = (1/σ) · (g − mean(g) − x̂ · mean(g · x̂))

Subtracting mean(g) removes any push that would shift the whole row (LayerNorm ignores shifts);
subtracting x̂ · mean(g · x̂) removes the push that would only rescale it (LayerNorm ignores scale,
up to eps). Pure numpy; nothing here displays or imports torch. Introduced in notebook 11.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.layernorm import DEFAULT_EPS, as_float_array, check_eps, per_feature


def _normalised(values: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    mean = values.mean(axis=-1, keepdims=True)
    differences = values - mean
    std = np.sqrt((differences * differences).mean(axis=-1, keepdims=True) + eps)
    return differences / std, std


def _checked(x, gamma, eps):
    values = as_float_array(x).astype(np.float64)
    if values.ndim == 0 or values.size == 0:
        raise ValueError(f"LayerNorm's backward pass needs at least one feature per row; got shape {values.shape}.")
    if not np.all(np.isfinite(values)):
        raise ValueError("x contains NaN or infinity; it needs finite numbers.")
    check_eps(eps)
    if eps == 0 and np.any(values.max(axis=-1) == values.min(axis=-1)):
        raise ValueError("A row has every value the same and eps is 0, so its standard deviation is 0 and the "
                         "gradient does not exist; use a positive eps such as 1e-5.")
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
    grad_x = (g - g.mean(axis=-1, keepdims=True)
              - normalised * (g * normalised).mean(axis=-1, keepdims=True)) / std
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
    std: float  # σ = √(var + eps)
    normalised: np.ndarray  # x̂
    g: np.ndarray  # grad_output · γ
    mean_g: float
    mean_g_normalised: float  # mean(g · x̂)
    grad_x: np.ndarray  # (g − mean(g) − x̂ · mean(g · x̂)) / σ


def layer_norm_backward_steps(row, grad_output, gamma=None, eps: float = DEFAULT_EPS) -> BackwardSteps:
    """The backward pass of one row, keeping every intermediate (for working it by hand).

    Introduced in notebook 11.
    """
    values, scale = _checked(row, gamma, eps)
    upstream = np.asarray(grad_output, dtype=np.float64)
    if values.ndim != 1 or upstream.shape != values.shape:
        raise ValueError(f"Give one row and one upstream gradient of the same length; got shapes {values.shape} "
                         f"and {upstream.shape}.")
    normalised, std = _normalised(values, eps)
    g = upstream * scale
    mean_g, mean_g_normalised = float(g.mean()), float((g * normalised).mean())
    grad_x = (g - mean_g - normalised * mean_g_normalised) / std
    return BackwardSteps(values, upstream, scale, float(std[0]), normalised, g, mean_g, mean_g_normalised, grad_x)


def layer_norm_jacobian(row, gamma=None, eps: float = DEFAULT_EPS) -> np.ndarray:
    """The n × n matrix J with ``J[i, j] = ∂y_i / ∂x_j`` for one row.

    ``J = diag(γ) · (I − 1/n − x̂ x̂ᵀ / n) / σ``. Every row of J sums to 0 (``J · 1 = 0``: shifting
    x changes nothing), and ``J · x̂ = γ · x̂ · eps / ((var + eps) · σ)``, tiny: scaling x changes
    almost nothing. Introduced in notebook 11.
    """
    values, scale = _checked(row, gamma, eps)
    if values.ndim != 1:
        raise ValueError(f"layer_norm_jacobian takes one row (a flat list of numbers); got shape {values.shape}.")
    n = values.size
    normalised, std = _normalised(values, eps)
    core = np.eye(n) - 1.0 / n - np.outer(normalised, normalised) / n
    return scale[:, None] * core / std
