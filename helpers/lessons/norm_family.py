"""LayerNorm's relatives, where it sits in a transformer block, and learning γ and β.

- BatchNorm takes its statistics down each column (one feature across all rows);
  LayerNorm across each row (one token across all features); RMSNorm (LLaMA) across each row but
  without subtracting the mean. ``statistic_groups`` says which cells share a statistic.
- Post-LN (the original transformer, and the lesson) normalises after the residual add;
  Pre-LN (GPT-2 and most models since) normalises the sublayer's input and leaves the residual
  stream itself un-normalised.
- ``train_gamma_beta`` learns γ and β by plain gradient descent, with the gradients from
  ``helpers.lessons.backward.gradients``.

Pure numpy: nothing here displays or imports torch. Introduced in notebook 10.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS, as_float_array, check_eps, layer_norm, per_feature
from helpers.lessons.backward.gradients import layer_norm_backward

RMS_NORM_EPS = 1e-6  # the original LLaMA's (Llama 2 and Llama 3 set 1e-5)
NORM_KINDS = ("layer", "rms", "batch")

__all__ = [
    "NORM_KINDS",
    "RMS_NORM_EPS",
    "BlockSteps",
    "TrainingRun",
    "batch_norm",
    "batch_norm_statistics",
    "layer_norm",
    "post_ln_block",
    "pre_ln_block",
    "rms_norm",
    "statistic_groups",
    "train_gamma_beta",
]


def _matrix(x, name: str = "x") -> np.ndarray:
    array = as_float_array(x).astype(np.float64)
    if array.ndim != 2 or 0 in array.shape:
        raise ValueError(f"{name} must be a matrix (rows × features); got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} contains NaN or infinity; it needs finite numbers.")
    return array


def batch_norm_statistics(x) -> tuple[np.ndarray, np.ndarray]:
    """Per-feature mean and biased variance, taken down each column (across the rows).

    These are the statistics BatchNorm uses in training mode (``torch.nn.BatchNorm1d``), one pair
    per feature. Introduced in notebook 10.
    """
    values = _matrix(x)
    mean = values.mean(axis=0)
    variance = ((values - mean) ** 2).mean(axis=0)
    return mean, variance


def batch_norm(x, eps: float = DEFAULT_EPS) -> np.ndarray:
    """BatchNorm in training mode (γ = 1, β = 0): each column normalised by its own statistics.

    Every column of the output has mean 0; every row depends on the other rows in the batch.
    Introduced in notebook 10.
    """
    values = _matrix(x)
    check_eps(eps)
    mean, variance = batch_norm_statistics(values)
    if np.any(variance + eps == 0):
        raise ValueError(
            "A column has every value the same and eps is 0, so its standard deviation is 0 and "
            "dividing by it is impossible; use a positive eps such as 1e-5."
        )
    return (values - mean) / np.sqrt(variance + eps)


def rms_norm(x, weight=None, eps: float = RMS_NORM_EPS) -> np.ndarray:
    """RMSNorm over the last axis, as in LLaMA: ``x / sqrt(mean(x²) + eps) · weight``.

    No mean is subtracted and there is no β, so the output rows do not sum to 0, and the mean of
    their squares (not their variance) is close to 1. Introduced in notebook 10.
    """
    values = as_float_array(x).astype(np.float64)
    if values.ndim == 0 or values.shape[-1] == 0:
        raise ValueError(f"RMSNorm needs at least one feature per row; got shape {values.shape}.")
    if not np.all(np.isfinite(values)):
        raise ValueError("The input contains NaN or infinity; RMSNorm needs finite numbers.")
    check_eps(eps)
    mean_square = (values * values).mean(axis=-1, keepdims=True)
    if np.any(mean_square + eps == 0):
        raise ValueError("A row is all zeros and eps is 0, so its root mean square is 0; use a positive eps.")
    scale = per_feature(weight, "weight", values.shape[-1], default=1.0, dtype=np.float64)
    return values / np.sqrt(mean_square + eps) * scale


def statistic_groups(kind: str, shape) -> np.ndarray:
    """An integer label per cell of a (rows × features) matrix: cells with one label share a statistic.

    ``"layer"`` and ``"rms"``: each row is one group (label = row number); ``"batch"``: each
    column is one group (label = column number). Meant for a picture. Introduced in notebook 10.
    """
    if kind not in NORM_KINDS:
        raise ValueError(f"kind must be one of {', '.join(NORM_KINDS)}; got {kind!r}.")
    if len(shape) != 2 or min(shape) < 1:
        raise ValueError(f"shape must be (rows, features) with both at least 1; got {tuple(shape)}.")
    rows, features = (int(size) for size in shape)
    if kind == "batch":
        return np.tile(np.arange(features), (rows, 1))
    return np.repeat(np.arange(rows)[:, None], features, axis=1)


@dataclass(frozen=True)
class BlockSteps:
    """One toy transformer block on a residual stream: what goes into the sublayer, what comes out.

    ``kind`` is ``"post-LN"`` or ``"pre-LN"``. The sublayer is ``input @ weight``, a stand-in
    for attention or the feed-forward network.
    """

    kind: str
    input: np.ndarray
    sublayer_input: np.ndarray
    sublayer_output: np.ndarray
    residual_sum: np.ndarray
    output: np.ndarray


def _block_inputs(x, weight):
    values = _matrix(x)
    matrix = _matrix(weight, "weight")
    if matrix.shape != (values.shape[1], values.shape[1]):
        raise ValueError(
            f"weight must be square, {values.shape[1]} × {values.shape[1]}, to keep the residual "
            f"stream's width; got shape {matrix.shape}."
        )
    return values, matrix


def post_ln_block(x, weight, eps: float = DEFAULT_EPS) -> BlockSteps:
    """Post-LN: ``LayerNorm(x + x @ weight)``: add the sublayer's output, then normalise the sum.

    The residual stream itself is normalised after every block (the original transformer and the
    lesson's placement). Introduced in notebook 10.
    """
    values, matrix = _block_inputs(x, weight)
    sublayer_output = values @ matrix
    residual_sum = values + sublayer_output
    return BlockSteps("post-LN", values, values, sublayer_output, residual_sum, layer_norm(residual_sum, eps=eps))


def pre_ln_block(x, weight, eps: float = DEFAULT_EPS) -> BlockSteps:
    """Pre-LN: ``x + LayerNorm(x) @ weight``: normalise only what the sublayer reads.

    The residual stream passes through the block untouched apart from the added update (GPT-2 and
    most models since; a final LayerNorm comes after the last block). Introduced in notebook 10.
    """
    values, matrix = _block_inputs(x, weight)
    sublayer_input = layer_norm(values, eps=eps)
    sublayer_output = sublayer_input @ matrix
    residual_sum = values + sublayer_output
    return BlockSteps("pre-LN", values, sublayer_input, sublayer_output, residual_sum, residual_sum)


@dataclass(frozen=True)
class TrainingRun:
    """A gradient-descent run that learns γ and β: the loss after every step and where it ended."""

    losses: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    target_gamma: np.ndarray
    target_beta: np.ndarray
    learning_rate: float
    steps: int


def train_gamma_beta(
    x=None,
    target_gamma=(2.0, 0.5, -1.0),
    target_beta=(0.5, -0.25, 1.0),
    learning_rate: float = 0.5,
    steps: int = 100,
    seed: int = 0,
    eps: float = DEFAULT_EPS,
) -> TrainingRun:
    """Learn γ and β so that ``LayerNorm(x)·γ + β`` matches targets made with known γ*, β*.

    Starts from γ = 1, β = 0 (PyTorch's start) and takes ``steps`` plain gradient-descent steps
    on the mean squared error, with the gradients from ``helpers.lessons.backward.gradients.layer_norm_backward``.
    ``x`` defaults to a seeded 64 × 3 random matrix. ``losses[k]`` is the loss before step k, and the
    last entry the loss at the end (``steps + 1`` values). Introduced in notebook 10.
    """
    true_gamma = np.asarray(target_gamma, dtype=np.float64)
    true_beta = np.asarray(target_beta, dtype=np.float64)
    if true_gamma.ndim != 1 or true_gamma.shape != true_beta.shape:
        raise ValueError("target_gamma and target_beta need one value per feature each, the same number.")
    features = true_gamma.size
    values = np.random.default_rng(seed).normal(size=(64, features)) if x is None else _matrix(x)
    if values.shape[1] != features:
        raise ValueError(f"x has {values.shape[1]} features but the targets have {features}.")
    if not (learning_rate > 0 and int(steps) >= 0):
        raise ValueError("learning_rate must be positive and steps a whole number of at least 0.")
    targets = layer_norm(values, true_gamma, true_beta, eps=eps)

    gamma, beta = np.ones(features), np.zeros(features)
    losses = []
    for _ in range(int(steps) + 1):
        prediction = layer_norm(values, gamma, beta, eps=eps)
        error = prediction - targets
        losses.append(float(np.mean(error * error)))
        if len(losses) > steps:
            break
        grad_output = 2.0 * error / error.size  # d(mean squared error) / d(prediction)
        _, grad_gamma, grad_beta = layer_norm_backward(values, grad_output, gamma, eps=eps)
        gamma = gamma - learning_rate * grad_gamma
        beta = beta - learning_rate * grad_beta
    return TrainingRun(np.array(losses), gamma, beta, true_gamma, true_beta, float(learning_rate), int(steps))


def batch_norm_running_update(running_mean, running_var, x, momentum: float = 0.1):
    """BatchNorm's running statistics after one training batch, as ``torch.nn.BatchNorm1d`` keeps them.

    ``new = (1 − momentum) · old + momentum · batch``, where the batch variance is the *unbiased*
    one (÷ (n − 1)), although the batch itself was normalised with the biased one (÷ n).
    Introduced in notebook 10.
    """
    values = _matrix(x)
    if values.shape[0] < 2:
        raise ValueError("The running variance needs at least two rows (tokens) in the batch.")
    mean = values.mean(axis=0)
    unbiased = values.var(axis=0, ddof=1)
    return (
        (1 - momentum) * np.asarray(running_mean, dtype=np.float64) + momentum * mean,
        (1 - momentum) * np.asarray(running_var, dtype=np.float64) + momentum * unbiased,
    )


def batch_norm_eval(x, running_mean, running_var, eps: float = DEFAULT_EPS) -> np.ndarray:
    """BatchNorm in eval mode: every row normalised with the stored running statistics, not the batch's.

    Introduced in notebook 10.
    """
    values = _matrix(x)
    return (values - np.asarray(running_mean)) / np.sqrt(np.asarray(running_var) + eps)
