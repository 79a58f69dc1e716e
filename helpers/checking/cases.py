"""The unseen cases :func:`helpers.checking.exercises.check` runs a learner's function on, and what each named
mistake would give on them. Pure maths: numpy only, no display, no torch.

Every expected value comes from :func:`helpers.core.formula.layer_norm_forward` (or the hand-rounded
record of :func:`helpers.core.layernorm.layer_norm_steps`); every mistake is the same formula with one
thing done wrong, so a learner's result is matched against what that mistake really produces.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from helpers.checking import mistakes as catalogue
from helpers.core.data import load_residual
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS, layer_norm_steps
from helpers.core.tolerance import ROOM, result_room

SEED = 20240914  # the cases are random, but the same every time
ROW_STEPS = ("mean", "variance", "std", "normalise")
FUNCTION_STEPS = (*ROW_STEPS, "scale_shift", "layer_norm")  # the steps a learner writes a function for
STEPS = (*FUNCTION_STEPS, "module")
ROUNDING_PLACES = (1, 2, 3, 4)


FLOAT64_TOLERANCE = ROOM["float64"]  # (relative, floor): about 1000 and 16 units of float64's rounding
FLOAT32_RELATIVE = ROOM["float32"][0]
FAR = 100.0  # a row is "far from zero" when |μ| is this many times its std: where one-pass breaks in float32
FAR_FLOAT64 = 30.0  # … and in float64: its cancellation, u·(μ/σ)² ≈ 1e-13, is past FLOAT64_TOLERANCE


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: a description, the arguments, the right answer, and the
    step it checks (the float32 tolerance depends on the step)."""

    label: str
    args: tuple
    expected: np.ndarray
    dtype: type = np.float64
    step: str = "normalise"

    @property
    def tolerance(self) -> tuple[float, object]:
        """(relative, absolute) room for a correct result at this case's precision, row by row
        (helpers.core.tolerance.result_room): a few units of float32's or float64's rounding, scaled by the
        row's own sizes. A correct function passes in any summation order, in either precision; a float64
        result rounded to float32, a variance with 1e-10 added, or the one-pass variance on a row far from
        zero for its precision does not."""
        if self.step == "scale_shift":
            x_hat, gamma, beta = (np.asarray(a, dtype=np.float64) for a in self.args)
            scale = np.max(np.abs(gamma * x_hat) + np.abs(beta), axis=-1, keepdims=True)
            return result_room("output", x_hat, dtype=self.dtype, scale=scale)
        eps = self.args[1] if len(self.args) > 1 else 0.0
        return result_room(QUANTITY[self.step], self.args[0], eps, self.dtype)

    @property
    def far(self) -> bool:
        """True when some row of the input sits far from zero: |μ| ≥ FAR · σ (not for scale_shift's x̂)."""
        if self.step == "scale_shift":
            return False
        x = np.atleast_2d(np.asarray(self.args[0], dtype=np.float64))
        return bool(np.any(np.abs(x.mean(axis=-1)) >= FAR * (x.std(axis=-1) + 1e-30)))

    def far_rows(self) -> np.ndarray:
        """Row by row, whether the one-pass variance can lose its digits there, in the case's precision: a row
        with |μ| ≥ FAR σ (FAR_FLOAT64 σ in float64), or a constant row whose square the precision cannot hold
        exactly (10000.3, not 0.5: there E[x²] − E[x]² is exactly 0)."""
        x = np.atleast_2d(np.asarray(self.args[0], dtype=np.float64)).reshape(-1, np.shape(self.args[0])[-1])
        mean, spread = x.mean(axis=-1), x.std(axis=-1)
        far = FAR if self.dtype == np.float32 else FAR_FLOAT64
        square = x[:, 0].astype(self.dtype) * x[:, 0].astype(self.dtype)
        inexact = np.array([Fraction(float(v)) ** 2 != Fraction(float(s)) for v, s in zip(x[:, 0], square)])
        return np.where(spread > 0, np.abs(mean) >= far * spread, (np.ptp(x, axis=-1) == 0) & inexact)

    @property
    def far_from_zero(self) -> bool:
        """True for a case far enough from zero, in its own precision, for the one-pass variance to fail:
        |μ| ≥ 100 σ in float32, |μ| ≥ 30 σ in float64."""
        if self.dtype == np.float32:
            return self.far
        if self.step == "scale_shift":
            return False
        x = np.atleast_2d(np.asarray(self.args[0], dtype=np.float64))
        spread = x.std(axis=-1)  # a constant row is not one: a wrong answer there has other causes too
        return bool(np.any((spread > 0) & (np.abs(x.mean(axis=-1)) >= FAR_FLOAT64 * spread)))


@dataclass(frozen=True)
class Mistake:
    """A named mistake for one step: ``key`` for tests, ``name`` in plain words, ``entry`` (the
    :class:`helpers.checking.mistakes.Mistake` it comes from: ``advice(context)`` is the sentence a learner
    reads), and ``result(args)``, what a function making this mistake returns (None: it fails;
    ``result`` itself None: rounding or the one-pass variance, recognised by the checker another way)."""

    key: str
    name: str
    entry: catalogue.Mistake
    result: object

    def advice(self, x, eps: float = DEFAULT_EPS) -> str:
        return self.entry.advice(catalogue.Context(np.asarray(x, dtype=np.float64), eps))


def rows() -> list[tuple[str, np.ndarray]]:
    """The rows the single-row steps are checked on, none of them a row the learner has worked."""
    rng = np.random.default_rng(SEED)
    x = load_residual()
    found = [(f"a random row of {n} values", np.round(rng.normal(0, 1, n), 3)) for n in (4, 2, 7)]
    found.append(("row 5 of the lesson's matrix", x[4].copy()))
    found.append(("a constant row (every value the same)", np.full(4, 0.5)))
    found.append(("a row far from zero (1000 added to each value)", np.round(rng.normal(0, 1, 5), 3) + 1000.0))
    found.append(("a random row of 6 values in float32", np.round(rng.normal(0, 2, 6), 3).astype(np.float32)))
    found.append(
        (
            "a row of 8 values far from zero in float32 (1000 added to each)",
            (np.round(rng.normal(0, 1, 8), 3) + 1000.0).astype(np.float32),
        )
    )
    found.append(("a wide row of 32 values", np.round(rng.normal(0, 1, 32), 3)))
    found.append(("a row of small spread, where ε matters (σ² ≈ 1e-4)", np.round(rng.normal(0, 0.01, 5), 5)))
    found.append(
        ("a row far from zero at float64's edge (10,000 added, spread 10)", np.round(rng.normal(0, 10, 6), 3) + 1e4)
    )
    found.append(("a constant row far from zero (every value 10000.3)", np.full(3, 10000.3)))
    found.append(("a row far from zero in float64 (100,000,000 added to 0, 1, 2)", 1e8 + np.array([0.0, 1.0, 2.0])))
    found.append((f"a wide row of {WIDE} values, one far out (x̂ ≈ 11 there)", wide_row()))
    return found


WIDE = 128  # a row this wide, with one value far out, has |x̂| ≈ 11: clipping x̂, or a formula that
# changes past 32 or 64 values, shows on it


def wide_row(rows: int = 0) -> np.ndarray:
    """A row of WIDE values near zero with one far out (its x̂ ≈ 11); ``rows`` > 0: a matrix of that many
    such rows, the far value in a different column of each."""
    rng = np.random.default_rng(SEED + 5)
    x = np.round(rng.normal(0, 1, (max(rows, 1), WIDE)), 3)
    for i in range(len(x)):
        x[i, (17 + 41 * i) % WIDE] = 100.0 * (-1) ** i
    return x if rows else x[0]


def matrices() -> list[tuple[str, np.ndarray]]:
    """The matrices ``layer_norm`` and ``scale_shift`` are checked on: more rows than columns, more
    columns than rows, and square (where a mix-up of the axes still gives the right shape)."""
    rng = np.random.default_rng(SEED + 1)
    found = [
        ("a random 4 × 3 matrix", np.round(rng.normal(0, 1, (4, 3)), 3)),
        ("a random 2 × 5 matrix", np.round(rng.normal(0, 1, (2, 5)), 3)),
        ("a random 3 × 3 matrix", np.round(rng.normal(0, 1, (3, 3)), 3)),
    ]
    with_constant = np.round(rng.normal(0, 1, (3, 4)), 3) + 1000.0
    with_constant[1] = 0.5
    found.append(("a 3 × 4 matrix far from zero, with a constant row", with_constant))
    found.append(("a random 5 × 3 matrix in float32", np.round(rng.normal(0, 2, (5, 3)), 3).astype(np.float32)))
    found.append(
        (
            "a 3 × 6 matrix far from zero in float32 (1000 added)",
            (np.round(rng.normal(0, 1, (3, 6)), 3) + 1000.0).astype(np.float32),
        )
    )
    found.append(("a 1 × 4 matrix (one token)", np.round(rng.normal(0, 1, (1, 4)), 3)))
    found.append(
        (
            "a 2 × 4 matrix far from zero in float64 (100,000,000 added)",
            1e8 + np.array([[0.0, 1.0, 2.0, 3.0], [0.5, -1.0, 2.5, 4.0]]),
        )
    )
    found.append(("a 2 × 3 matrix of small spread (σ² ≈ 1e-4)", np.round(rng.normal(0, 0.01, (2, 3)), 5)))
    found.append((f"a 2 × {WIDE} matrix, one value far out in each row (x̂ ≈ 11 there)", wide_row(2)))
    again = np.round(np.random.default_rng(SEED + 6).normal(0, 1, (4, 3)), 3)
    found.append(("another random 4 × 3 matrix (the same shape as the first)", again))
    return found


def _forward(x, eps):
    x_hat, mean, var, std = layer_norm_forward(np.asarray(x, dtype=np.float64), eps)
    return x_hat, mean, var, std


def _scalar(stat) -> np.ndarray:
    return np.asarray(stat, dtype=np.float64).reshape(())


def cases(step: str, eps: float = DEFAULT_EPS) -> list[Case]:
    """The cases for ``step`` ("mean", "variance", "std", "normalise", "scale_shift" or "layer_norm")."""
    if step in ROW_STEPS:
        found = []
        for label, row in rows():
            x_hat, mean, var, std = _forward(row, eps)
            expected = {"mean": _scalar(mean), "variance": _scalar(var), "std": _scalar(std), "normalise": x_hat}[step]
            args = (row,) if step in ("mean", "variance") else (row, eps)
            found.append(Case(label, args, expected, row.dtype.type, step))
        if step in ("std", "normalise"):  # a larger ε, so that a function ignoring its ε argument shows
            label, row = rows()[0]
            x_hat, _, _, std = _forward(row, 1e-2)
            found.append(
                Case(label + ", with ε = 0.01", (row, 1e-2), _scalar(std) if step == "std" else x_hat, step=step)
            )
        return found
    if step == "layer_norm":
        found = [Case(label, (x, eps), _forward(x, eps)[0], x.dtype.type, step) for label, x in matrices()]
        label, x = next(m for m in matrices() if "small spread" in m[0])  # a larger ε: one ignoring its ε shows
        return found + [Case(label + ", with ε = 0.01", (x, 1e-2), _forward(x, 1e-2)[0], step=step)]
    if step == "scale_shift":
        rng = np.random.default_rng(SEED + 2)
        found = []
        for label, x in matrices()[:3] + [("row 1 of the lesson, normalised", load_residual()[0])]:
            x_hat = _forward(x, eps)[0]
            n = x_hat.shape[-1]
            gamma, beta = rng.uniform(0.5, 3, n), rng.uniform(-1, 1, n)  # every digit: float32 cannot hold them
            if x_hat.ndim == 1:  # a β that nearly cancels γ · x̂ in feature 1: there a rounded γ shows at once
                beta[0] = 1e-3 - gamma[0] * x_hat[0]
                label += ", with an output near zero"
            found.append(
                Case(
                    label.replace("random", "normalised random"), (x_hat, gamma, beta), gamma * x_hat + beta, step=step
                )
            )
        return found
    raise ValueError(f"There is no exercise step called {step!r}; choose one of: {', '.join(FUNCTION_STEPS)}.")


def in_float32(case: Case) -> Case:
    """``case`` with its input rounded to float32, and LayerNorm's answer for that input: what a function
    that computes in float32 should give (ε as given)."""
    args = tuple(np.asarray(a, dtype=np.float32) if isinstance(a, np.ndarray) else a for a in case.args)
    if case.step == "scale_shift":
        x_hat, gamma, beta = (np.asarray(a, dtype=np.float64) for a in args)
        return Case(case.label, args, gamma * x_hat + beta, np.float32, case.step)
    x_hat, mean, var, std = _forward(args[0], args[1] if len(args) > 1 else DEFAULT_EPS)
    statistics = {"mean": mean, "variance": var, "std": std}
    expected = _scalar(statistics[case.step]) if case.step in statistics else x_hat
    return Case(case.label, args, expected, np.float32, case.step)


# ---------------------------------------------------------------------------------------------
# What each mistake gives: the one catalogue, helpers.checking.mistakes, read for the step's quantity.

QUANTITY = {"mean": "mean", "variance": "variance", "std": "std", "normalise": "normalised", "layer_norm": "normalised"}


def _hand_rounded(step, args):
    """What rounding every step to 1 … 4 places by hand gives (a list of arrays)."""
    found = []
    row = np.asarray(args[0], dtype=np.float64)
    eps = args[1] if len(args) > 1 else DEFAULT_EPS
    if row.ndim != 1 or step not in ROW_STEPS:
        return found
    for places in ROUNDING_PLACES:
        try:
            record = layer_norm_steps(row, eps=eps, decimals=places)
        except ValueError:
            continue
        value = {"mean": record.mean, "variance": record.variance, "std": record.std, "normalise": record.normalised}[
            step
        ]
        found.append(np.asarray(value, dtype=np.float64))
    return found


def mistakes(step: str) -> list[Mistake]:
    """The named mistakes for ``step``, single mistakes first (most common first), then two at once,
    then rounding. Each comes from :mod:`helpers.checking.mistakes` with its ``result(args)`` for this step."""
    if step not in FUNCTION_STEPS:
        raise ValueError(f"There is no exercise step called {step!r}; choose one of: {', '.join(FUNCTION_STEPS)}.")
    quantity = "output" if step == "scale_shift" else QUANTITY.get(step, "normalised")
    found = []
    for entry in catalogue.for_quantity(quantity, matrix=step == "layer_norm"):
        if step == "scale_shift" and entry.key == "not-normalised":
            continue  # scale_shift is given x̂: it cannot leave the row unnormalised

        def result(args, entry=entry):
            if step == "scale_shift":
                value = entry.value("output", args[0], gamma=args[1], beta=args[2], x_hat=args[0])
            else:
                value = entry.value(quantity, args[0], args[1] if len(args) > 1 else DEFAULT_EPS)
            if value is None:
                return None
            return np.asarray(value).reshape(()) if step in ("mean", "variance", "std") else np.asarray(value)

        found.append(Mistake(entry.key, entry.name, entry, None if entry.signature else result))
    found.append(Mistake(catalogue.ROUNDING.key, catalogue.ROUNDING.name, catalogue.ROUNDING, None))
    return found


def rounded_results(step: str, case: Case) -> list[np.ndarray]:
    """What a function that rounds (its result, or every step by hand) returns for ``case``."""
    found = [np.round(case.expected, places) for places in ROUNDING_PLACES]
    return found + _hand_rounded(step, case.args)
