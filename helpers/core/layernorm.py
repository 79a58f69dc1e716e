"""The maths of Layer Normalization: pure functions on numpy arrays, and one record per row.

Nothing here displays, plots or imports torch. ``layer_norm`` normalises a whole array at once;
``layer_norm_steps`` keeps every intermediate of one row in a ``LayerNormSteps`` record, which the
notebooks, widgets, command line and tests all read, so a number cannot differ between two views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import localcontext

import numpy as np

from helpers.core import views
from helpers.core.formula import layer_norm_forward
from helpers.core.rounding import WIDE, round_half_away_from_zero, round_half_up, written  # noqa: F401 - re-exported
from helpers.core.rounding import keep as keep_places
from helpers.core.tolerance import HAND_DRIFT, past
from helpers.core.validation import (  # noqa: F401 - check_eps is used by numerics, backward, norm_family
    InputError,
    as_float_array,
    check_decimals,
    check_eps,
    check_row,
    per_feature,
)

DEFAULT_EPS = 1e-5  # PyTorch's nn.LayerNorm default, and the lesson's

# The stages of one row, in the order the lesson computes them. Display and widgets walk this list.
STAGES = (
    "input",
    "mean",
    "differences",
    "squared_differences",
    "variance",
    "eps",
    "variance_plus_eps",
    "std",
    "normalised",
    "gamma",
    "beta",
    "output",
)

# Rounding by hand "moved" a stage when it is off from the exact value by more than one unit in
# the last kept place, or by more than this fraction of the stage's size.
DRIFT_RELATIVE_TOLERANCE = HAND_DRIFT


def layer_norm(x, gamma=None, beta=None, eps: float = DEFAULT_EPS) -> np.ndarray:
    """LayerNorm over the last axis: ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    Uses the biased variance (divide by n, as ``torch.nn.LayerNorm`` does) and the two-pass
    formula (mean first, then the mean of squared differences), which stays accurate when the
    values sit far from zero. Any leading shape; float32 and float64 keep their dtype (float16 is
    computed in float32 and returned as float16); integers and lists become float64.
    Introduced in notebook 04 (used on whole matrices from notebook 05).
    """
    values = as_float_array(x)
    if values.ndim == 0:
        raise InputError("x", "LayerNorm needs at least one axis of features; got a single number.")
    features = values.shape[-1]
    if values.size == 0 or features == 0:
        raise InputError("x", f"LayerNorm needs at least one feature per row; got an array of shape {values.shape}.")
    eps = check_eps(eps)
    if not np.all(np.isfinite(values)):
        raise InputError("x", "The input contains NaN or infinity; LayerNorm needs finite numbers.")
    work = values.astype(np.float32) if values.dtype == np.float16 else values
    gamma_array = per_feature(gamma, "gamma", features, default=1.0, dtype=work.dtype)
    beta_array = per_feature(beta, "beta", features, default=0.0, dtype=work.dtype)

    x_hat, _, _, _ = _forward(work, eps)
    out = _scale_and_shift(gamma_array, x_hat, beta_array)
    return out.astype(values.dtype, copy=False)


_ZERO_STD_ROWS = (
    "A row has every value the same and eps is 0, so its standard deviation is 0 and "
    "dividing by it is impossible; use a positive eps such as 1e-5."
)
_ZERO_STD_ROW = (
    "Every value in the row is the same and eps is 0, so the standard deviation is 0 "
    "and dividing by it is impossible; use a positive eps such as 1e-5."
)


def _forward(x: np.ndarray, eps: float, zero_std: str = _ZERO_STD_ROWS):
    """:func:`helpers.core.formula.layer_norm_forward`, with overflow and a zero std said in plain words."""
    with np.errstate(over="raise", invalid="ignore", divide="ignore"):
        try:
            x_hat, mean, var, std = layer_norm_forward(x, eps)
        except FloatingPointError:
            raise InputError("row", _too_large(x.dtype)) from None
    # A row of equal values has variance 0 exactly, even where the float mean is off in its last bit
    # (3 × 0.003 / 3 = 0.0030000000000000005): with ε = 0 that is 0 / 0, not the ±1s the float noise gives.
    constant = np.all(x == x[..., :1], axis=-1, keepdims=True)
    if np.any(std == 0) or (eps == 0 and np.any(constant)):
        raise InputError("row", zero_std)
    return x_hat, mean, var, std


@dataclass(frozen=True, eq=False, repr=False)
class LayerNormSteps:
    """Every intermediate of LayerNorm on one row, from input to output. Immutable.

    With ``decimals`` set, every stage was rounded by hand (half away from zero) before the next
    was computed, as on paper, and ``exact`` holds the record computed without rounding.
    Introduced in notebook 02; printed as aligned text, and as a table in Jupyter.
    """

    input: np.ndarray
    mean: float
    differences: np.ndarray
    squared_differences: np.ndarray
    variance: float
    eps: float
    variance_plus_eps: float
    std: float
    normalised: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    output: np.ndarray
    decimals: int | None = None
    exact: LayerNormSteps | None = field(default=None)

    @property
    def n(self) -> int:
        """The number of features in the row."""
        return int(self.input.shape[0])

    @property
    def hand_rounded(self) -> bool:
        """True when every stage was rounded by hand (``decimals`` set, ``exact`` kept beside it)."""
        return self.decimals is not None and self.exact is not None

    def stage(self, name: str):
        """The value of one stage by its name in ``STAGES`` (a float or a read-only array)."""
        if name not in STAGES:
            raise ValueError(f"There is no stage called {name!r}; the stages are: {', '.join(STAGES)}.")
        return getattr(self, name)

    def rounding_drift(self) -> tuple[StageDrift, ...]:
        """The stages where rounding by hand moved the result by more than the places kept.

        Empty for an exact record. A stage is listed when any of its values is off from the exact
        one by more than one unit in the last kept place, or when the stage as a whole is off by
        more than 1% of its size (so a tiny variance kept to one significant digit is caught).
        """
        if not self.hand_rounded:
            return ()
        unit = 10.0**-self.decimals
        drifts = []
        for name in STAGES:
            if name in ("input", "eps", "gamma", "beta"):
                continue
            hand = np.atleast_1d(np.asarray(self.stage(name), dtype=np.float64))
            exact = np.atleast_1d(np.asarray(self.exact.stage(name), dtype=np.float64))
            largest = float(np.max(np.abs(hand - exact)))
            size = float(np.linalg.norm(exact))
            relative = float(np.linalg.norm(hand - exact)) / size if size > 0 else 0.0
            if past(largest, unit) or relative > DRIFT_RELATIVE_TOLERANCE:
                drifts.append(StageDrift(name, self.stage(name), self.exact.stage(name), largest, relative))
        return tuple(drifts)

    # Pretty-printing lives in helpers.display, which registers the views; these hooks only look them up.
    def __str__(self) -> str:
        return views.text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


@dataclass(frozen=True)
class StageDrift:
    """Where hand rounding moved one stage: its hand value, exact value and how far apart."""

    stage: str
    hand: object
    exact: object
    largest_difference: float
    relative_difference: float


def layer_norm_steps(
    row, eps: float = DEFAULT_EPS, gamma=None, beta=None, decimals: int | None = None
) -> LayerNormSteps:
    """Compute LayerNorm on one row and keep every intermediate in a :class:`LayerNormSteps`.

    ``decimals=None`` computes exactly (float64). ``decimals=3`` rounds every stage to 3 places,
    half away from zero as people do by hand, before computing the next, so row 1 of the lesson
    gives exactly the lesson's digits. (``variance_plus_eps`` is kept unrounded: rounding it would
    throw eps away, and for a constant row divide by zero.) Introduced in notebook 02 (notebook 00
    runs it once to check the set-up).
    """
    values = check_row(row)
    eps = check_eps(eps)
    decimals = check_decimals(decimals)
    features = values.size
    gamma_array = per_feature(gamma, "gamma", features, default=1.0, dtype=np.float64)
    beta_array = per_feature(beta, "beta", features, default=0.0, dtype=np.float64)

    exact = _exact_steps(values, float(eps), gamma_array, beta_array)
    if decimals is None:
        return exact
    return _hand_steps(values, float(eps), gamma_array, beta_array, int(decimals), exact)


def _exact_steps(values, eps, gamma, beta) -> LayerNormSteps:
    """The record of :func:`helpers.core.formula.layer_norm_forward` on one row, every intermediate kept."""
    normalised, mean, variance, std = _forward(values, eps, _ZERO_STD_ROW)
    mean, variance, std = float(mean[0]), float(variance[0]), float(std[0])
    differences = values - mean  # the same subtraction the formula makes
    squared = differences * differences
    variance_plus_eps = variance + eps
    output = _scale_and_shift(gamma, normalised, beta)
    return _record(
        values, mean, differences, squared, variance, eps, variance_plus_eps, std, normalised, gamma, beta, output
    )


def _hand_steps(values, eps, gamma, beta, decimals, exact) -> LayerNormSteps:
    """The same steps done as on paper: decimal arithmetic on the numbers as written, each stage
    rounded half away from zero before the next. (Float arithmetic would not do: 1.315 − 1.28 is
    0.03499999… in binary, which rounds to 0.03 where a person writes 0.04.)"""

    def keep(v):
        return keep_places(v, decimals)

    with localcontext(WIDE):
        x = [written(v) for v in values]
        mean = keep(sum(x) / len(x))
        differences = [keep(v - mean) for v in x]
        squared = [keep(d * d) for d in differences]
        variance = keep(sum(squared) / len(x))
        std = keep((variance + written(eps)).sqrt())
        if std == 0:
            raise InputError(
                "decimals",
                f"At {decimals} decimal places the standard deviation rounds to 0, so "
                "dividing by it is impossible; keep more places or use a larger eps.",
            )
        normalised = [keep(d / std) for d in differences]
        output = [keep(written(g) * v + written(b)) for g, v, b in zip(gamma, normalised, beta)]
    return _record(
        values,
        float(mean),
        _floats(differences),
        _floats(squared),
        float(variance),
        eps,
        float(variance) + eps,
        float(std),
        _floats(normalised),
        gamma,
        beta,
        _floats(output),
        decimals,
        exact,
    )


def _record(
    values,
    mean,
    differences,
    squared,
    variance,
    eps,
    variance_plus_eps,
    std,
    normalised,
    gamma,
    beta,
    output,
    decimals=None,
    exact=None,
) -> LayerNormSteps:
    return LayerNormSteps(
        input=frozen_array(values),
        mean=_clean_zero(mean),
        differences=frozen_array(differences),
        squared_differences=frozen_array(squared),
        variance=_clean_zero(variance),
        eps=eps,
        variance_plus_eps=variance_plus_eps,
        std=std,
        normalised=frozen_array(normalised),
        gamma=frozen_array(gamma),
        beta=frozen_array(beta),
        output=frozen_array(output),
        decimals=decimals,
        exact=exact,
    )


def _floats(decimals_list) -> list[float]:
    return [float(v) for v in decimals_list]


def _scale_and_shift(gamma, normalised, beta):
    """γ · x̂ + β, or a plain-words ValueError when γ or β is so large that the result overflows."""
    with np.errstate(over="raise", invalid="raise"):
        try:
            return gamma * normalised + beta
        except FloatingPointError:
            limit = f"{float(np.finfo(normalised.dtype).max):.1e}".replace("e+", "e")
            raise InputError(
                "output",
                f"γ · x̂ + β is too large to store as a number (over about {limit}); use a smaller gamma or beta.",
            ) from None


def _too_large(dtype) -> str:
    limit = math.sqrt(float(np.finfo(dtype).max))
    return (
        f"The values are too large: their squares overflow {np.dtype(dtype).name} (keep them below "
        f"about {limit:.0e}); LayerNorm gives almost the same result for the row divided by any positive number, "
        "so scale it down first."
    )


def frozen_array(array) -> np.ndarray:
    """A read-only float64 copy of ``array``, with -0.0 made 0.0."""
    result = np.array(array, dtype=np.float64) + 0.0  # a copy, with -0.0 made 0.0
    result.flags.writeable = False
    return result


def _clean_zero(value: float) -> float:
    return float(value) + 0.0
