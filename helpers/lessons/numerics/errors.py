"""Where a low-precision LayerNorm's error comes from: storing or arithmetic, which float16 stage,
and worst-case bounds for the offset sweep.

Every "exact" value here is float64 arithmetic on values a lower type already holds (float32 and
float16 numbers are exact in float64), so only the low-precision step under study is judged; the
tests check these float64 references against mpmath. Pure numpy. Introduced in notebook 09.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS, layer_norm
from helpers.lessons.numerics.moments import float16_largest, layer_norm_with, running_sum
from helpers.lessons.numerics.precision import UNIT_ROUNDOFF

_MANTISSA_BITS = {"float16": 11, "float32": 24, "float64": 53}  # significant bits, the leading one too


def _exact_layer_norm(values, eps: float) -> np.ndarray:
    """Two-pass LayerNorm (γ = 1, β = 0) of ``values`` in float64."""
    return layer_norm(np.asarray(values, dtype=np.float64), eps=eps)


@dataclass(frozen=True)
class ErrorSplit:
    """LayerNorm of row + offset in a low type, its error split into storing and arithmetic.

    ``storing_error``: exact LayerNorm of the stored row against exact LayerNorm of the row itself
    (shifting changes nothing, so that is the true answer). ``arithmetic_error``: the low-type
    result against exact LayerNorm of the same stored row. ``total_error``: the low-type result
    against the true answer. ``mean_error``: the low-type mean minus the exact mean of the stored row.
    All errors are the largest over the row's outputs.
    """

    offset: float
    dtype: str
    method: str
    stored: np.ndarray
    storing_error: float
    arithmetic_error: float
    total_error: float
    mean_error: float

    @property
    def arithmetic_share(self) -> float:
        """The arithmetic's error as a fraction of the total error."""
        return self.arithmetic_error / self.total_error if self.total_error > 0 else float("nan")


def split_error(row, offset: float, dtype=np.float32, method: str = "two-pass", eps: float = DEFAULT_EPS) -> ErrorSplit:
    """Split the error of ``method`` in ``dtype`` on row + offset into storing and arithmetic.

    Introduced in notebook 09."""
    base = np.asarray(row, dtype=np.float64)
    dtype = np.dtype(dtype)
    stored = (base + float(offset)).astype(dtype)
    exact_stored = stored.astype(np.float64)
    truth = _exact_layer_norm(base, eps)  # LayerNorm(row + offset) = LayerNorm(row)
    of_stored = _exact_layer_norm(exact_stored, eps)
    computed = layer_norm_with(stored, method, dtype, eps).astype(np.float64)
    low_mean = float(running_sum(stored, dtype) / dtype.type(stored.size))
    return ErrorSplit(
        float(offset),
        dtype.name,
        method,
        exact_stored,
        float(np.max(np.abs(of_stored - truth))),
        float(np.max(np.abs(computed - of_stored))),
        float(np.max(np.abs(computed - truth))),
        low_mean - float(exact_stored.mean()),
    )


FLOAT16_STAGES = ("mean", "variance", "normalise")


@dataclass(frozen=True)
class StageErrors:
    """All-float16 two-pass LayerNorm of one row, and each stage alone in float16 (the rest exact).

    ``alone[stage]`` is the largest output error when only that stage is float16; ``together`` is
    all of them float16 (``numerics.layer_norm_with``). Errors are against exact LayerNorm of the
    float16-stored row. ``squares_sum``: the variance stage's float16 running sum of squared
    differences, and ``exact_squares_sum`` the exact one.
    """

    alone: dict
    together: float
    squares_sum: float
    exact_squares_sum: float


def float16_stage_errors(row, eps: float = DEFAULT_EPS) -> StageErrors:
    """Measure each stage of a float16 LayerNorm alone, with every other stage exact (float64).

    Stages: the mean (a float16 running sum, divided by n); the variance (squares of the exact
    differences rounded to float16, a float16 running sum, divided by n); the normalise step
    (μ and σ² rounded to float16, then x − μ, √(σ² + ε) and the division in float16).
    Introduced in notebook 09."""
    h = np.dtype(np.float16).type
    given = np.asarray(row, dtype=np.float64)
    with np.errstate(over="ignore"):
        stored16 = given.astype(np.float16)
    if np.all(np.isfinite(given)) and not np.all(np.isfinite(stored16)):
        largest = float(np.max(np.abs(given)))
        raise ValueError(
            f"float16 cannot hold {largest:g}: its largest number is {float16_largest():g}, so the row would be "
            "stored as infinity."
        )
    values = stored16.astype(np.float64)
    n = values.size
    truth = _exact_layer_norm(values, eps)
    mean, diff = values.mean(), values - values.mean()
    variance = float((diff * diff).mean())

    def error(output):
        with np.errstate(invalid="ignore"):
            return float(np.max(np.abs(np.asarray(output, dtype=np.float64) - truth)))

    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        mean16 = float(running_sum(stored16, np.float16) / h(n))
        d = values - mean16
        by_mean = d / np.sqrt((d * d).mean() + eps)
        squares_sum = float(running_sum((diff * diff).astype(np.float16), np.float16))
        variance16 = float(h(squares_sum) / h(n))
        by_variance = diff / np.sqrt(variance16 + eps)
        d16 = stored16 - h(mean)
        by_normalise = d16 / np.sqrt(h(variance) + h(eps))
        together = layer_norm_with(stored16, "two-pass", np.float16, eps)
    alone = dict(zip(FLOAT16_STAGES, (error(by_mean), error(by_variance), error(by_normalise))))
    return StageErrors(alone, error(together), squares_sum, float((diff * diff).sum()))


def _gamma(k: int, u: float) -> float:
    """Higham's γ_k = k·u / (1 − k·u): the relative error bound of k roundings in a row."""
    return k * u / (1 - k * u)


def output_error_bound(stored, method: str, dtype: str = "float32", eps: float = DEFAULT_EPS) -> float:
    """A worst-case bound on the largest output error of ``method`` on one stored row.

    The same quantity as the sweep measures: the low-type output against exact LayerNorm of the
    same stored row. From the unit roundoff u, with n features: the mean is off by at most
    δμ = γₙ·mean|x|; the computed variance lies in [σ²_lo, σ²_hi], for two-pass
    σ²(1 − γₙ₊₃) … (σ² + δμ²)(1 + γₙ₊₃), for one-pass σ² ∓ γ₃ₙ₊₃·mean(x²) (cancellation);
    the output (x − μ̂)·r̂ then differs from (x − μ)·r by at most
    max|x − μ|·|r̂ − r| + (δμ + u·max|x − μ̂|)·r̂, with r̂ between 1/√(σ²_hi + ε) and
    1/√(max(σ²_lo, 0) + ε), widened by γ₄ for the square root, the division and ε.
    A one-pass output that is a number had σ̂² ≥ 0 once the cancelling terms' step reaches ε, so
    then r̂ ≤ 1/√ε caps the bound; below that, σ²_lo + ε ≤ 0 leaves no bound (``inf``). A one-pass
    output can also be NaN (σ̂² + ε < 0), which no bound covers.
    Introduced in notebook 09.
    """
    if method not in ("one-pass", "two-pass"):
        raise ValueError(f"method must be 'one-pass' or 'two-pass'; got {method!r}.")
    u = UNIT_ROUNDOFF[dtype]
    values = np.asarray(stored, dtype=np.float64)
    n = values.size
    mean = values.mean()
    variance = float(((values - mean) ** 2).mean())
    spread = float(np.max(np.abs(values - mean)))
    d_mean = _gamma(n, u) * float(np.mean(np.abs(values)))
    if method == "two-pass":
        low, high = variance * (1 - _gamma(n + 3, u)), (variance + d_mean**2) * (1 + _gamma(n + 3, u))
    else:
        slack = _gamma(3 * n + 3, u) * float(np.mean(values * values))
        low, high = variance - slack, variance + slack
    r = 1 / np.sqrt(variance + eps)
    if low < 0 and method == "one-pass":
        # The computed variance is a difference of two numbers at least ``smallest``: a multiple of
        # their step q. If q ≥ ε a negative one is ≤ −ε (NaN), so a number output had σ̂² ≥ 0.
        smallest = (1 - _gamma(3 * n + 3, u)) * min(float(np.mean(values * values)), mean * mean)
        step = 2.0 ** (np.floor(np.log2(smallest)) - _MANTISSA_BITS[dtype] + 1) if smallest > 0 else 0.0
        low = 0.0 if step >= eps else low
    if low + eps <= 0:
        return math.inf  # σ̂² + ε can be as small as rounding makes it: no bound
    r_high = (1 + _gamma(4, u)) / np.sqrt(low + eps)
    r_low = (1 - _gamma(4, u)) / np.sqrt(high + eps)
    return float(spread * max(r_high - r, r - r_low) + (d_mean + u * (spread + d_mean)) * r_high)


def sweep_bounds(results, eps: float = DEFAULT_EPS) -> dict:
    """For an ``offset_sweep``: per bounded method, (measured errors, bounds), one pair per offset."""
    out = {}
    for method in ("one-pass", "two-pass"):
        chosen = [r for r in results if r.method == method]
        measured = np.array([r.largest_output_error for r in chosen])
        bounds = np.array([output_error_bound(r.stored_input, method, r.dtype, eps) for r in chosen])
        out[method] = (measured, bounds)
    return out


NORMALISE_FORMS = ("(x − μ)·rstd", "x·rstd − μ·rstd", "x·rstd − μ·rstd, fused multiply-add")


def normalise_form_errors(rows, dtype=np.float32, eps: float = DEFAULT_EPS) -> np.ndarray:
    """Largest output error of each way of writing the normalise step, one row of ``rows`` at a time.

    Statistics as a kernel holds them: μ and σ² computed exactly, rounded to ``dtype``, and
    rstd = 1/√(σ² + ε) in ``dtype``. Then, in ``dtype``: ``(x − μ)·rstd`` (PyTorch's CPU forward for
    float32, aten/src/ATen/native/cpu/layer_norm_kernel.cpp); the folded ``x·rstd + b`` with
    b = −μ·rstd rounded to ``dtype`` (its path for float16 and bfloat16, which keeps the statistics in
    float32) with the product rounded; and the same with the product exact (a fused multiply-add). Errors against exact LayerNorm of the stored row;
    returns shape (rows, 3) in ``NORMALISE_FORMS`` order. Introduced in notebook 09.
    """
    dtype = np.dtype(dtype)
    out = []
    for row in np.atleast_2d(np.asarray(rows, dtype=np.float64)):
        x = row.astype(dtype)
        exact = x.astype(np.float64)
        truth = _exact_layer_norm(exact, eps)
        mean = dtype.type(exact.mean())
        rstd = dtype.type(1) / np.sqrt(dtype.type(((exact - exact.mean()) ** 2).mean()) + dtype.type(eps))
        forms = normalise_forms(x, [mean], [rstd], dtype).values()
        out.append([float(np.max(np.abs(form.astype(np.float64) - truth))) for form in forms])
    return np.array(out)


def normalise_forms(x, mean, rstd, dtype=np.float32, out_dtype=None) -> dict:
    """Each of ``NORMALISE_FORMS`` on rows ``x`` with the given per-row mean and rstd, computed in ``dtype``
    and rounded to ``out_dtype`` (default ``dtype``): to compare bit for bit with a kernel's output.

    The fused multiply-add is formed in float64, where x·rstd of two float32 numbers is exact, and
    rounded once (twice, in the rare ties where float64's own rounding of the sum decides).
    """
    dtype = np.dtype(dtype)
    out_dtype = np.dtype(out_dtype or dtype)
    x = np.atleast_2d(np.asarray(x)).astype(dtype)
    mean = np.asarray(mean).astype(dtype).reshape(len(x), 1)
    rstd = np.asarray(rstd).astype(dtype).reshape(len(x), 1)
    shift = -(mean * rstd)
    forms = (
        (x - mean) * rstd,
        x * rstd + shift,
        (x.astype(np.float64) * rstd.astype(np.float64) + shift.astype(np.float64)).astype(dtype),
    )
    return {name: form.astype(out_dtype) for name, form in zip(NORMALISE_FORMS, forms)}


def matching_form(output, forms: dict) -> dict:
    """The share of ``output``'s values that equal each form's bit for bit (NaN never matches)."""
    output = np.asarray(output)
    return {name: float(np.mean(form == output)) for name, form in forms.items()}
