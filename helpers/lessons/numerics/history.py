"""PyTorch's own one-pass LayerNorm, and the two GitHub issues it produced, reproduced in float32.

Until its fix, PyTorch's CPU LayerNorm (aten/src/ATen/native/cpu/layer_norm_kernel.cpp, as in
PyTorch 1.7) summed x and x² in float32 with 8-lane vector sums (``vec256::reduce_all``), took
``max(E[x²] − μ², 0)`` as the variance and wrote ``x·rstd − μ·rstd``. ``one_pass_kernel_2020``
follows that recipe in numpy; it is a reconstruction of the formula and the summation order, not
PyTorch's binary. Pure numpy. Introduced in notebook 09.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS

LANES = 8  # float32 numbers in one 256-bit vector

# What the issues reported (quoted, not computed): github.com/pytorch/pytorch/issues/40302 and /51102.
ISSUE_51102_WORST_OUTPUT_VARIANCE = 48425.8438  # the largest of its five rows' output variances


def _lane_sum(values: np.ndarray) -> np.ndarray:
    """Sum over the last axis as an 8-lane float32 vector loop, then the lanes added pairwise."""
    values = np.asarray(values, dtype=np.float32)
    n = values.shape[-1]
    padded = np.zeros(values.shape[:-1] + (-(-n // LANES) * LANES,), dtype=np.float32)
    padded[..., :n] = values
    chunks = padded.reshape(values.shape[:-1] + (-1, LANES))
    lanes = chunks[..., 0, :].copy()
    for k in range(1, chunks.shape[-2]):
        lanes = lanes + chunks[..., k, :]  # float32 + float32 stays float32
    while lanes.shape[-1] > 1:
        half = lanes.shape[-1] // 2
        lanes = lanes[..., :half] + lanes[..., half:]
    return lanes[..., 0]


@dataclass(frozen=True)
class KernelResult:
    mean: np.ndarray
    variance: np.ndarray  # after the clamp at 0
    output: np.ndarray


def one_pass_kernel_2020(x, eps: float = DEFAULT_EPS) -> KernelResult:
    """LayerNorm over the last axis the way PyTorch's CPU kernel did before the fix, in float32.

    mean = Σx·(1/n), variance = max(Σx²·(1/n) − mean², 0), rstd = 1/√(variance + ε),
    output = x·rstd + (−rstd·mean). Introduced in notebook 09."""
    values = np.asarray(x, dtype=np.float32)
    c = np.float32(1) / np.float32(values.shape[-1])
    mean = _lane_sum(values) * c
    variance = np.maximum(_lane_sum(values * values) * c - mean * mean, np.float32(0))
    rstd = np.float32(1) / np.sqrt(variance + np.float32(eps))
    output = values * rstd[..., None] + (-rstd * mean)[..., None]
    return KernelResult(mean, variance, output)


def issue_40302(rows: int = 8, features: int = 32768, seed: int = 0) -> dict:
    """Rows of randn·0.01 + 100, as in issue 40302 (it used 1024 rows): the kernel's variances.

    Returns the float32 rows' true variances (float64) and the kernel's. Introduced in notebook 09."""
    x = (np.random.default_rng(seed).standard_normal((rows, features)) * 0.01 + 100).astype(np.float32)
    exact = x.astype(np.float64)
    return {"true": exact.var(axis=1), "kernel": one_pass_kernel_2020(x).variance.astype(np.float64)}


def issue_51102(rows: int = 1000, seed: int = 0) -> dict:
    """Rows of 4 values randn + 2000, as in issue 51102 (it printed 5): each output row's variance.

    The output of a LayerNorm should have variance σ²/(σ² + ε), just under 1. Returns those
    expected values and the kernel's. Introduced in notebook 09."""
    x = (np.random.default_rng(seed).standard_normal((rows, 4)) + 2000).astype(np.float32)
    exact = x.astype(np.float64)
    variance = exact.var(axis=1)
    output = one_pass_kernel_2020(x).output.astype(np.float64)
    return {"expected": variance / (variance + DEFAULT_EPS), "kernel": output.var(axis=1)}
