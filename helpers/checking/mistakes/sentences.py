"""The sentences a learner reads about a mistake, computed for the row at hand."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.checking.mistakes.formula import LESSON_WIDTH
from helpers.core.layernorm import DEFAULT_EPS


@dataclass(frozen=True)
class Context:
    """What a mistake's sentence is computed from: the input (a row or a matrix) and ε."""

    x: np.ndarray
    eps: float = DEFAULT_EPS

    @property
    def n(self) -> int:
        return int(np.shape(self.x)[-1])

    @property
    def rows(self) -> np.ndarray:
        """Every row of the input, one a line: a row, a matrix's rows, or a batch's tokens (its last axis)."""
        x = np.asarray(self.x, dtype=np.float64)
        return x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)

    @property
    def variance(self) -> float:
        """The smallest row variance: where ε matters most."""
        return float(np.min(self.rows.var(axis=-1)))

    @property
    def constant(self) -> bool:
        return bool(np.any(np.all(self.rows == self.rows[:, :1], axis=-1)))


def number(value: float) -> str:
    return f"{value:.6g}"


def pair(a: float, b: float) -> tuple[str, str, bool]:
    """``a`` and ``b`` as text with six significant digits, or more until they print differently:
    (a's text, b's text, whether they differ at all in float64's 17 digits)."""
    for digits in range(6, 18):
        first, second = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if first != second:
            return first, second, True
    return first, second, False


def moves(a: float, b: float, what: str) -> str:
    """ "moves the std from 1.193928 to 1.193932", or that the two are equal at float64's precision."""
    first, second, differ = pair(a, b)
    if not differ:
        return f"leaves {what} at {first} (the two are equal at float64's precision)"
    return f"moves {what} from {first} to {second}"


def n_minus_1(c: Context) -> str:
    return (
        f"LayerNorm's variance divides by n = {c.n}, not by n − 1 = {c.n - 1}. Dividing by n − 1 (the "
        "'unbiased' variance) is the default of torch.var and torch.std: pass unbiased=False (or "
        "correction=0) there; numpy's var and std divide by n unless given ddof=1."
    )


def eps_moves(c: Context) -> str:
    if c.constant:
        return " Without it a constant row (σ² = 0) divides 0 by 0."
    var = c.variance
    return (
        f" Here σ² = {var:.4g}, and ε = {c.eps:g} {moves(np.sqrt(var), np.sqrt(var + c.eps), 'the std')} "
        f"({np.sqrt(var + c.eps) / np.sqrt(var) - 1:.1e} of its size)."
    )


def no_eps(c: Context) -> str:
    return "Add ε to the variance before the square root: √(σ² + ε)." + eps_moves(c)


def eps_outside(c: Context) -> str:
    var = c.variance
    inside, outside, differ = pair(np.sqrt(var + c.eps), np.sqrt(var) + c.eps)
    return "ε goes inside the square root: √(σ² + ε), not √σ² + ε." + (
        (
            f" Here that is {inside}, against {outside} with ε outside."
            if differ
            else f" Here both give {inside} (equal at float64's precision)."
        )
        if not c.constant
        else ""
    )


def root_eps_outside(c: Context) -> str:
    return (
        f"√(σ² + ε) is not √σ² + √ε: the root of a sum is not the sum of the roots (√ε = "
        f"{np.sqrt(c.eps):.3g} is far larger than ε = {c.eps:g}). Add ε under the root: np.sqrt(var + eps)."
    )


def width(c: Context) -> str:
    return (
        f"Divide by n = len(row) (or x.shape[-1]), not by {LESSON_WIDTH}: your function must work for rows of "
        f"any length, and this one has {c.n} values."
    )


def fixed(text: str):
    return lambda _context: text


def one_pass(c: Context) -> str:
    """The one-pass variance, told with the row that shows it: how far from zero it is, in its precision."""
    rows = c.rows
    worst = int(np.argmax(np.abs(rows.mean(axis=-1)) / (rows.std(axis=-1) + 1e-30)))
    mean, var = float(rows[worst].mean()), float(rows[worst].var())
    where = (
        f" Here {'the' if len(rows) == 1 else 'one'} row's mean is {mean:.10g} and its variance only {var:.3g}: "
        f"E[x²] ≈ {mean * mean:.3g}, so the "
        "digits that make the variance are lost."
        if abs(mean) > 0 and var > 0
        else ""
    )
    return (
        "E[x²] − E[x]² equals the variance in exact arithmetic, but far from zero both terms are huge and "
        "nearly equal, and subtracting them cancels the digits that matter, in float32 and in float64 alike "
        f"(notebook 09 shows it).{where} Subtract the mean first, then square: the mean of (x − μ)²."
    )
