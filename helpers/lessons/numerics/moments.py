"""Numerics: how the variance is computed decides whether LayerNorm survives finite precision.

Three ways to get the variance of a row, each computed entirely in one floating-point type:

- one-pass  ``E[x²] − E[x]²``: one sweep over the data, but two big nearly equal numbers are
  subtracted, so it cancels catastrophically when the values sit far from zero;
- two-pass  ``E[(x − E[x])²]``: the mean first, then the squared differences (``helpers.layer_norm``);
- Welford: one streaming sweep that updates a running mean and a running sum of squared
  differences, feature by feature (what PyTorch's CPU and CUDA kernels do, vectorised over rows).

Pure numpy; nothing here displays or imports torch. Introduced in notebook 09.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS, as_float_array, layer_norm

VARIANCE_METHODS = ("one-pass", "two-pass", "Welford")

# A method is "still right" when every output is within this of the float64 LayerNorm of the same
# stored input: the outputs agree to the two decimal places the lesson prints.
OUTPUT_TOLERANCE = 1e-2


def _float_dtype(x, dtype) -> np.dtype:
    if dtype is None:
        dtype = as_float_array(x).dtype  # integers become float64
    dtype = np.dtype(dtype)
    if dtype not in (np.float16, np.float32, np.float64):
        raise ValueError(f"dtype must be float16, float32 or float64; got {dtype}.")
    return dtype


def _values(x, dtype, axis=-1) -> np.ndarray:
    """``x`` stored in ``dtype`` (rounded as it would be in memory), with the features last."""
    array = as_float_array(x)  # a plain-words ValueError for text, ragged rows, ...
    if array.ndim == 0 or array.shape[axis] == 0:
        raise ValueError(f"The variance needs at least one value along the axis; got shape {array.shape}.")
    with np.errstate(over="ignore"):  # a value too big for float16 becomes inf: that is the lesson
        stored = array.astype(dtype)
    return np.moveaxis(stored, axis, -1)


def running_sum(values, dtype) -> np.ndarray:
    """Sum over the last axis one value at a time, every partial sum rounded to ``dtype``.

    This is what a simple kernel with a ``dtype`` accumulator does. ``np.sum`` would not do for
    float16: numpy adds float16 numbers in float32 and blocks of eight, which hides float16's
    stall (a float16 running sum of ones stops at 2048, where the step between numbers becomes 2).
    Introduced in notebook 09.
    """
    dtype = np.dtype(dtype)
    values = np.asarray(values).astype(dtype)
    total = np.zeros(values.shape[:-1], dtype=dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(values.shape[-1]):
            total = (total + values[..., k]).astype(dtype)
    return total


def _mean(values: np.ndarray, dtype) -> np.ndarray:
    n = dtype.type(values.shape[-1])
    return running_sum(values, dtype) / n


def variance_one_pass(x, axis: int = -1, dtype=None) -> np.ndarray:
    """Biased variance as ``E[x²] − E[x]²``, every operation in ``dtype`` (sums: ``running_sum``).
    Can be 0, negative or inf.

    ``dtype=None`` uses x's float type (float64 for integers). Introduced in notebook 09.
    """
    dtype = _float_dtype(x, dtype)
    values = _values(x, dtype, axis)
    with np.errstate(over="ignore", invalid="ignore"):
        mean_of_squares = _mean(values * values, dtype)
        mean = _mean(values, dtype)
        return mean_of_squares - mean * mean


def variance_two_pass(x, axis: int = -1, dtype=None) -> np.ndarray:
    """Biased variance as ``E[(x − E[x])²]``: the mean first, then squared differences, in ``dtype``.

    Introduced in notebook 09.
    """
    dtype = _float_dtype(x, dtype)
    values = _values(x, dtype, axis)
    with np.errstate(over="ignore", invalid="ignore"):
        differences = values - _mean(values, dtype)[..., None]
        return _mean(differences * differences, dtype)


def welford_moments(x, axis: int = -1, dtype=None) -> tuple[np.ndarray, np.ndarray]:
    """Mean and biased variance by Welford's streaming update, one feature at a time, all rows at once.

    For each new value v (the k-th): ``delta = v − mean; mean += delta / k;
    m2 += delta · (v − mean)``; at the end the variance is ``m2 / n``. Every operation is in
    ``dtype``. Introduced in notebook 09.
    """
    dtype = _float_dtype(x, dtype)
    values = _values(x, dtype, axis)
    mean = np.zeros(values.shape[:-1], dtype=dtype)
    m2 = np.zeros(values.shape[:-1], dtype=dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(values.shape[-1]):
            value = values[..., k]
            delta = value - mean
            mean = mean + delta / dtype.type(k + 1)
            m2 = m2 + delta * (value - mean)
        return mean, m2 / dtype.type(values.shape[-1])


def variance_welford(x, axis: int = -1, dtype=None) -> np.ndarray:
    """Biased variance by Welford's streaming update (``welford_moments``). Introduced in notebook 09."""
    return welford_moments(x, axis, dtype)[1]


def one_pass_parts(row, dtype=None) -> tuple[float, float, float]:
    """The one-pass formula's pieces for one row, in ``dtype``: (E[x²], E[x]², their difference).

    When the two pieces are huge and nearly equal, their difference is what rounding left over.
    Introduced in notebook 09.
    """
    dtype = _float_dtype(row, dtype)
    values = _values(row, dtype)
    if values.ndim != 1:
        raise ValueError(f"one_pass_parts takes one row (a flat list of numbers); got shape {values.shape}.")
    with np.errstate(over="ignore", invalid="ignore"):
        mean_of_squares = _mean(values * values, dtype)
        mean = _mean(values, dtype)
        square_of_mean = mean * mean
        return float(mean_of_squares), float(square_of_mean), float(mean_of_squares - square_of_mean)


_VARIANCE_FUNCTIONS = {"one-pass": variance_one_pass, "two-pass": variance_two_pass, "Welford": variance_welford}


def layer_norm_with(x, variance_method: str = "two-pass", dtype=None, eps: float = DEFAULT_EPS) -> np.ndarray:
    """LayerNorm over the last axis (γ = 1, β = 0) with the chosen variance method, all in ``dtype``.

    ``variance_method`` is one of ``VARIANCE_METHODS``; Welford normalises with its own running mean,
    the others with the summed mean. Two-pass in float32 or float64 is
    ``helpers.core.formula.layer_norm_forward`` itself; in float16 it sums with ``running_sum``, because
    numpy's own float16 sums are float32 inside. Nothing is checked or repaired: a negative
    one-pass variance gives NaN, an overflowing float16 square gives inf or NaN, exactly as a naive
    kernel would. Introduced in notebook 09.
    """
    if variance_method not in _VARIANCE_FUNCTIONS:
        raise ValueError(f"variance_method must be one of {', '.join(VARIANCE_METHODS)}; got {variance_method!r}.")
    dtype = _float_dtype(x, dtype)
    values = _values(x, dtype)
    if variance_method == "two-pass" and dtype != np.float16:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return layer_norm_forward(values, eps)[0]  # the package's formula; numpy sums float32 in float32
    if variance_method == "Welford":  # Welford's own running mean, as a Welford kernel normalises with
        mean, variance = welford_moments(values, dtype=dtype)
    else:
        mean, variance = None, _VARIANCE_FUNCTIONS[variance_method](values, dtype=dtype)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        mean = (_mean(values, dtype) if mean is None else mean)[..., None]
        std = np.sqrt(variance + dtype.type(eps))[..., None]
        return (values - mean) / std


@dataclass(frozen=True)
class SweepResult:
    """One variance method on one shifted row: what it computed and whether that is still right.

    ``stored_input`` is row + offset as ``dtype`` holds it (already rounded); the truth is the
    float64 LayerNorm of that same stored input, so only the method's own arithmetic is judged.
    """

    offset: float
    method: str
    dtype: str
    stored_input: np.ndarray
    variance: float
    output: np.ndarray
    true_variance: float
    true_output: np.ndarray
    largest_output_error: float
    right: bool


def offset_sweep(
    row, offsets=(0, 10, 100, 1_000, 10_000, 100_000), dtype=np.float32, eps: float = DEFAULT_EPS
) -> tuple[SweepResult, ...]:
    """Add each offset to ``row`` and compute LayerNorm with every variance method in ``dtype``.

    Adding a constant does not change a true LayerNorm output, so any change is the arithmetic's
    fault. A result is ``right`` when every output is within ``OUTPUT_TOLERANCE`` of the float64
    truth for the same stored input. Introduced in notebook 09.
    """
    dtype = _float_dtype(row, dtype)
    base = np.asarray(row, dtype=np.float64)
    if base.ndim != 1 or base.size == 0:
        raise ValueError(f"offset_sweep takes one row (a flat list of numbers); got shape {base.shape}.")
    results = []
    for offset in offsets:
        with np.errstate(over="ignore"):
            stored = (base + float(offset)).astype(dtype)
        exact = stored.astype(np.float64)
        finite = bool(np.all(np.isfinite(exact)))
        true_variance = float(variance_two_pass(exact)) if finite else math.nan
        true_output = layer_norm(exact, eps=eps) if finite else np.full(base.shape, math.nan)
        for method in VARIANCE_METHODS:
            variance = float(_VARIANCE_FUNCTIONS[method](stored, dtype=dtype))
            output = layer_norm_with(stored, method, dtype, eps).astype(np.float64)
            with np.errstate(invalid="ignore"):
                error = float(np.max(np.abs(output - true_output)))
            results.append(
                SweepResult(
                    float(offset),
                    method,
                    dtype.name,
                    exact,
                    variance,
                    output,
                    true_variance,
                    true_output,
                    error,
                    bool(finite and error <= OUTPUT_TOLERANCE),
                )
            )
    return tuple(results)


def sweep_table(results) -> tuple[np.ndarray, list[str], list[str]]:
    """``offset_sweep`` results as (values, row labels, column labels), ready for ``show_matrix``.

    One row per offset and method, labelled with ✓ (still right) or ✗; columns: the variance, then
    each output. Introduced in notebook 09.
    """
    results = tuple(results)
    if not results:
        raise ValueError("There are no sweep results to tabulate.")
    values = np.array([[r.variance, *r.output] for r in results])
    labels = [
        f"{'+' if r.offset >= 0 else '−'}{abs(r.offset):,.0f} {r.method} {'✓' if r.right else '✗'}" for r in results
    ]
    columns = ["variance"] + [f"x̂{_subscript(i + 1)}" for i in range(results[0].output.size)]
    return values, labels, columns


def invariance_table(cases) -> tuple[np.ndarray, list[str], list[str]]:
    """``shift_scale_invariance`` cases as (values, row labels, column labels) for ``show_matrix``.

    Columns: the variance in units of eps (σ²/ε), eps's share of the denominator, each output, and
    the largest change from LayerNorm of the original row. Introduced in notebook 09.
    """
    cases = tuple(cases)
    if not cases:
        raise ValueError("There are no cases to tabulate.")
    values = np.array(
        [[c.variance / c.eps if c.eps > 0 else np.inf, c.eps_share, *c.output, c.largest_change] for c in cases]
    )
    labels = [f"{c.scale:g} · x + {c.shift:g}" for c in cases]
    columns = (
        ["σ² / ε", "ε / (σ² + ε)"] + [f"y{_subscript(i + 1)}" for i in range(cases[0].output.size)] + ["largest change"]
    )
    return values, labels, columns


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def float16_largest() -> float:
    """The largest finite float16 number: 65504. Introduced in notebook 09."""
    return float(np.finfo(np.float16).max)


def float16_square_limit() -> float:
    """The x at which x² passes the largest float16: √65504 ≈ 255.94. Introduced in notebook 09."""
    return math.sqrt(float16_largest())


def float16_first_overflowing_square() -> float:
    """The smallest float16 value whose square, computed in float16, is infinite (256).

    Found by walking up the float16 numbers from the one just below ``float16_square_limit()``.
    """
    value = np.float16(float16_square_limit())
    with np.errstate(over="ignore"):
        while np.isfinite(value * value):
            value = np.nextafter(value, np.float16(np.inf))
    return float(value)


@dataclass(frozen=True)
class InvarianceCase:
    """LayerNorm of ``scale · row + shift``, and how far it moved from LayerNorm(row)."""

    shift: float
    scale: float
    variance: float
    eps: float
    eps_share: float  # eps / (variance + eps): the part of the denominator that is eps
    output: np.ndarray
    largest_change: float


def shift_scale_invariance(
    row, shifts=(0.0,), scales=(1.0, 0.1, 0.01, 0.001), eps: float = DEFAULT_EPS
) -> tuple[InvarianceCase, ...]:
    """LayerNorm(a·x + b) equals LayerNorm(x) for any shift b and scale a > 0, until eps matters.

    For every shift and scale, in float64, returns the output and its largest change from
    LayerNorm(row) with the same eps. Shifts never change it; shrinking the row shrinks its variance
    by a², and once the variance is no longer large next to eps the output shrinks too.
    Introduced in notebook 09.
    """
    base = np.asarray(row, dtype=np.float64)
    if base.ndim != 1 or base.size < 2:
        raise ValueError(f"shift_scale_invariance takes one row of at least two numbers; got shape {base.shape}.")
    if any(scale <= 0 for scale in scales):
        raise ValueError("Every scale must be positive (a negative scale flips the output's sign).")
    reference = layer_norm(base, eps=eps)
    cases = []
    for shift in shifts:
        for scale in scales:
            moved = scale * base + shift
            variance = float(variance_two_pass(moved))
            output = layer_norm(moved, eps=eps)
            cases.append(
                InvarianceCase(
                    float(shift),
                    float(scale),
                    variance,
                    float(eps),
                    eps / (variance + eps),
                    output,
                    float(np.max(np.abs(output - reference))),
                )
            )
    return tuple(cases)
