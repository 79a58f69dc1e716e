"""LayerNorm's formula with settings a learner can get wrong: what each mistake really computes.

``forward(x, eps, changes)`` is LayerNorm with ``changes`` made to :data:`RIGHT` (divide by n − 1,
ε outside the root, the wrong axis, …). Pure maths: numpy only.
"""

from __future__ import annotations

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS

LESSON_WIDTH = 3  # the lesson's rows have 3 features: the number a hard-coded n usually is

# The formula's settings, as LayerNorm has them. A mistake changes one (or, compounded, two) of them.
RIGHT = {
    "centre": "mean",  # what is subtracted: "mean" or "median"
    "mean_div": "n",  # the mean's divisor: "n", "n-1", "1" (the sum) or "3" (the lesson's width)
    "var_div": "n",  # the variance's divisor, the same choices
    "var_centred": True,  # squares of x − μ (True) or of x itself
    "square": True,  # square the differences (True) or take their size |x − μ|
    "one_pass": False,  # E[x²] − E[x]²: equal in exact arithmetic, wrong in float32 far from zero
    "variance_out": "variance",  # what the variance step returns: "variance", "variance+eps" or "root"
    "eps_at": "inside",  # "inside" the root, "none", "outside" (√σ² + ε), "root-outside" (√σ² + √ε), "both"
    "root": True,  # divide by the root of σ² + ε (True) or by σ² + ε itself
    "eps_value": "given",  # the ε passed in, or "default" (a fixed 1e-5 whatever was passed)
    "axis": "row",  # "row", "column", "all" (whole matrix), "lost-keepdims", "lost-keepdims-2"
    "numerator_centred": True,  # x − μ over the std (True) or x itself
    "divide": True,  # divide by the std at all
    "scale": "std",  # "std", or "min-max": (x − min) / (max − min)
    "affine": "right",  # γ · x̂ + β, or one of the mistakes in _affine
}


def _count(x: np.ndarray, axis: str) -> int:
    return {"column": x.shape[0], "all": x.size}.get(axis, x.shape[-1])


def _reduce(a: np.ndarray, axis: str, divisor: float) -> np.ndarray:
    if axis == "column":
        return a.sum(axis=0, keepdims=True) / divisor
    if axis == "all":
        return np.asarray(a.sum() / divisor)
    if axis.startswith("lost-keepdims"):
        return a.sum(axis=-1) / divisor  # (m,): broadcasts along the columns
    return a.sum(axis=-1, keepdims=True) / divisor


def _divisor(kind: str, count: int) -> float:
    return {"n": count, "n-1": count - 1, "1": 1, "3": LESSON_WIDTH}[kind]


def forward(x, eps: float = DEFAULT_EPS, changes=None, gamma=None, beta=None, x_hat=None) -> dict:
    """LayerNorm's quantities with ``changes`` made to its settings: a dict with "mean", "variance",
    "std", "normalised" and "output" (arrays in float64; a quantity is missing where the mistaken
    formula cannot run, e.g. n − 1 for one value, or lost keepdims on a matrix that is not square).
    ``x_hat``, when given, is taken as the normalised input (the scale-and-shift step)."""
    p = {**RIGHT, **(changes or {})}
    found: dict = {}
    with np.errstate(all="ignore"):
        try:
            if x_hat is None:
                x_hat = _normalise(np.asarray(x, dtype=np.float64), float(eps), p, found)
            else:
                x_hat = np.asarray(x_hat, dtype=np.float64)
            found["normalised"] = x_hat
            if gamma is not None and beta is not None:
                gamma, beta = np.asarray(gamma, dtype=np.float64), np.asarray(beta, dtype=np.float64)
                base = np.asarray(x, dtype=np.float64) if p["affine"] == "not-normalised" else x_hat
                found["output"] = _affine(p["affine"], base, gamma, beta)
        except (ValueError, IndexError, ZeroDivisionError):
            pass
    return found


def _normalise(x: np.ndarray, eps: float, p: dict, found: dict) -> np.ndarray:
    axis, count = p["axis"], _count(x, p["axis"])
    if count - (p["mean_div"] == "n-1" or p["var_div"] == "n-1") < 1:
        raise ZeroDivisionError
    mean = _reduce(x, axis, _divisor(p["mean_div"], count))
    found["mean"] = mean
    if p["centre"] == "median":
        centre = np.median(x, axis=-1, keepdims=True)
        found["mean"] = centre
    else:
        centre = mean
    if p["one_pass"]:
        variance = _reduce(x * x, axis, count) - mean * mean
    else:
        if axis == "lost-keepdims":  # x.var(axis=-1): each row's own variance, shape (m,)
            diff = x - centre.reshape(-1, 1) if p["var_centred"] else x
        else:  # lost-keepdims-2: the mean square of the wrongly centred differences, per row
            diff = x - centre if p["var_centred"] else x
        size = diff * diff if p["square"] else np.abs(diff)
        variance = _reduce(size, axis, _divisor(p["var_div"], count))
    e = eps if p["eps_value"] == "given" else DEFAULT_EPS
    found["variance"] = {"variance": variance, "variance+eps": variance + e, "root": np.sqrt(variance)}[
        p["variance_out"]
    ]
    root = {
        "inside": lambda: np.sqrt(variance + e),
        "none": lambda: np.sqrt(variance),
        "outside": lambda: np.sqrt(variance) + e,
        "root-outside": lambda: np.sqrt(variance) + np.sqrt(e),
        "both": lambda: np.sqrt(variance + e) + e,
    }[p["eps_at"]]()
    if not p["root"]:
        root = variance + (0.0 if p["eps_at"] == "none" else e)
    found["std"] = root
    if p["scale"] == "min-max":
        low, high = x.min(axis=-1, keepdims=True), x.max(axis=-1, keepdims=True)
        return (x - low) / (high - low)
    numerator = x - centre if p["numerator_centred"] else x
    return numerator / root if p["divide"] else numerator


def _affine(kind: str, x_hat: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    per_row = (slice(None), None)
    return {
        "right": lambda: gamma * x_hat + beta,
        "not-normalised": lambda: gamma * x_hat + beta,  # x_hat is x here: the row was never normalised
        "swapped": lambda: beta * x_hat + gamma,
        "no-gamma": lambda: x_hat + beta,
        "no-beta": lambda: gamma * x_hat,
        "neither": lambda: x_hat + 0.0 * gamma,
        "beta-scaled": lambda: gamma * (x_hat + beta),
        "scalar-gamma": lambda: gamma[0] * x_hat + beta,
        "scalar-both": lambda: gamma[0] * x_hat + beta[0],
        "per-row": lambda: gamma[per_row] * x_hat + beta[per_row],
        "gamma-per-row": lambda: gamma[per_row] * x_hat + beta,
        "beta-per-row": lambda: gamma * x_hat + beta[per_row],
    }[kind]()
