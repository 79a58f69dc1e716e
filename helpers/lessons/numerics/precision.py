"""Precision practice for notebook 09: bfloat16 storage, float32 statistics, parallel Welford, the
normalise step's own cancellation and the unit roundoff of each type (the error bounds are in numerics_errors).

Pure numpy (numpy has no bfloat16, so ``to_bfloat16`` rounds float32 bit patterns the way the
hardware does); nothing here displays or imports torch. Introduced in notebook 09.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS
from helpers.lessons.numerics.moments import layer_norm_with

UNIT_ROUNDOFF = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24, "float64": 2.0**-53}


def to_bfloat16(x) -> np.ndarray:
    """``x`` rounded to bfloat16 (8 significant bits, float32's range), returned as float32 values.

    Rounds to nearest, ties to even, on the top 16 bits of the float32 pattern; inf and NaN pass through.
    """
    values = np.asarray(x, dtype=np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    out = rounded.view(np.float32)
    return np.where(np.isfinite(values), out, values).astype(np.float32)


def stored_as(x, storage: str) -> np.ndarray:
    """``x`` as ``storage`` ("float16", "bfloat16", "float32" or "float64") holds it, as float64 values."""
    if storage == "bfloat16":
        return to_bfloat16(x).astype(np.float64)
    if storage not in ("float16", "float32", "float64"):
        raise ValueError(f"storage must be float16, bfloat16, float32 or float64; got {storage!r}.")
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float64).astype(storage).astype(np.float64)


def layer_norm_low_precision(x, storage: str, statistics: str, eps: float = DEFAULT_EPS) -> np.ndarray:
    """LayerNorm of ``x`` stored in ``storage``, statistics in ``statistics``, output rounded to ``storage``.

    ``statistics="float32"``: read the stored values into float32 and run ``layer_norm_forward`` there
    (what autocast-style and fused kernels do). ``statistics="float16"``: every operation in float16,
    sums one value at a time (``numerics.layer_norm_with``). Returns float64 values.
    """
    stored = stored_as(x, storage)
    if statistics == "float32":
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            output = layer_norm_forward(stored.astype(np.float32), eps)[0]
    elif statistics == "float16" and storage == "float16":
        output = layer_norm_with(stored.astype(np.float16), "two-pass", np.float16, eps)
    else:
        raise ValueError("Statistics are float32, or float16 for float16 storage.")
    return stored_as(output, storage)


def welford_state(row) -> tuple[int, float, float]:
    """(count, mean, M2) of a row by Welford's update, in float64; the variance is M2 / count."""
    count, mean, m2 = 0, 0.0, 0.0
    for value in np.asarray(row, dtype=np.float64).ravel():
        count += 1
        delta = value - mean
        mean += delta / count
        m2 += delta * (value - mean)
    return count, mean, m2


def welford_merge(a, b) -> tuple[int, float, float]:
    """Chan's formula: the (count, mean, M2) of two parts combined, without revisiting the data.

    δ = mean_b − mean_a; n = n_a + n_b; mean = mean_a + δ·n_b/n; M2 = M2_a + M2_b + δ²·n_a·n_b/n.
    """
    (na, mean_a, m2a), (nb, mean_b, m2b) = a, b
    n = na + nb
    if n == 0:
        return 0, 0.0, 0.0
    delta = mean_b - mean_a
    return n, mean_a + delta * nb / n, m2a + m2b + delta * delta * na * nb / n


def normalise_two_ways(row, dtype=np.float32, eps: float = DEFAULT_EPS) -> tuple[np.ndarray, np.ndarray]:
    """The normalise step two ways, statistics exact in ``dtype``: ``(x − μ)·rstd`` and ``x·rstd − μ·rstd``.

    The second is how a kernel folds the mean into one multiply-add, ``x·rstd + b`` with
    ``b = −μ·rstd`` rounded to ``dtype`` and the multiply-add done exactly (a fused multiply-add).
    For a constant row both should be 0; the second is left with b's rounding error.
    """
    values = np.asarray(row, dtype=dtype)
    mean = values.astype(np.float64).mean().astype(dtype)
    var = ((values.astype(np.float64) - mean) ** 2).mean().astype(dtype)
    rstd = (dtype(1) / np.sqrt(var + dtype(eps))).astype(dtype)
    factored = ((values - mean) * rstd).astype(np.float64)
    shift = (-(mean * rstd)).astype(dtype)  # rounded to dtype
    fused = values.astype(np.float64) * float(rstd) + float(shift)  # one rounding: exact product, then add
    return factored, fused


def first_failure(results, method: str) -> float:
    """The smallest offset at which ``method`` is no longer right in a sweep (inf if it never fails)."""
    failed = [r.offset for r in results if r.method == method and not r.right]
    return min(failed) if failed else math.inf
