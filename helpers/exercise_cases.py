"""The unseen cases :func:`helpers.exercises.check` runs a learner's function on, and what each named
mistake would give on them. Pure maths: numpy only, no display, no torch.

Every expected value comes from :func:`helpers.formula.layer_norm_forward` (or the hand-rounded
record of :func:`helpers.layernorm.layer_norm_steps`); every mistake is the same formula with one
thing done wrong, so a learner's result is matched against what that mistake really produces.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.data import load_residual
from helpers.formula import layer_norm_forward
from helpers.layernorm import DEFAULT_EPS, layer_norm_steps

SEED = 20240914  # the cases are random, but the same every time
ROW_STEPS = ("mean", "variance", "std", "normalise")
STEPS = (*ROW_STEPS, "scale_shift", "layer_norm", "module")
ROUNDING_PLACES = (1, 2, 3, 4)


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: a description, the arguments, and the right answer."""

    label: str
    args: tuple
    expected: np.ndarray
    dtype: type = np.float64

    @property
    def tolerance(self) -> tuple[float, float]:
        """(relative, absolute) room for floating-point noise at this case's precision."""
        return (1e-4, 1e-5) if self.dtype == np.float32 else (1e-7, 1e-9)


@dataclass(frozen=True)
class Mistake:
    """A named mistake: ``key`` for tests, ``name`` and ``advice`` in plain words for the learner,
    and ``result(case)``, what a function making this mistake returns for ``case`` (None: it fails)."""

    key: str
    name: str
    advice: str
    result: object


def rows() -> list[tuple[str, np.ndarray]]:
    """The rows the single-row steps are checked on, none of them a row the learner has worked."""
    rng = np.random.default_rng(SEED)
    x = load_residual()
    found = [(f"a random row of {n} values", np.round(rng.normal(0, 1, n), 3)) for n in (4, 2, 7)]
    found.append(("row 5 of the lesson's matrix", x[4].copy()))
    found.append(("a constant row (every value the same)", np.full(4, 0.5)))
    found.append(("a row far from zero (1000 added to each value)", np.round(rng.normal(0, 1, 5), 3) + 1000.0))
    found.append(("a random row of 6 values in float32", np.round(rng.normal(0, 2, 6), 3).astype(np.float32)))
    return found


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
            found.append(Case(label, args, expected, row.dtype.type))
        if step in ("std", "normalise"):  # a larger ε, so that a function ignoring its ε argument shows
            label, row = rows()[0]
            x_hat, _, _, std = _forward(row, 1e-2)
            found.append(Case(label + ", with ε = 0.01", (row, 1e-2), _scalar(std) if step == "std" else x_hat))
        return found
    if step == "layer_norm":
        return [Case(label, (x, eps), _forward(x, eps)[0], x.dtype.type) for label, x in matrices()]
    if step == "scale_shift":
        rng = np.random.default_rng(SEED + 2)
        found = []
        for label, x in matrices()[:3] + [("row 1 of the lesson, normalised", load_residual()[0])]:
            x_hat = _forward(x, eps)[0]
            n = x_hat.shape[-1]
            gamma, beta = np.round(rng.uniform(0.5, 3, n), 2), np.round(rng.uniform(-1, 1, n), 2)
            found.append(Case(label.replace("random", "normalised random"), (x_hat, gamma, beta), gamma * x_hat + beta))
        return found
    raise ValueError(f"There is no exercise step called {step!r}; choose one of: {', '.join(STEPS)}.")


# ---------------------------------------------------------------------------------------------
# What each mistake gives. Each function takes the case's arguments and returns an array.


def _stats(x, axis=-1, ddof=0):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=axis, keepdims=True)
    var = ((x - mean) ** 2).sum(axis=axis, keepdims=True) / (x.shape[axis] - ddof)
    return mean, var


LESSON_WIDTH = 3  # the lesson's rows have 3 features: the number a hard-coded n usually is
_WIDTH_ADVICE = (
    "Divide by n = len(row) (or x.shape[-1]), not by 3: your function must work for rows of any "
    "length, and the check also uses rows of other lengths."
)


def _stats_of_width(x, width=LESSON_WIDTH):
    """Mean and variance with n written as the lesson's width, whatever the row's length."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.sum(axis=-1, keepdims=True) / width
    return mean, ((x - mean) ** 2).sum(axis=-1, keepdims=True) / width


def _normalise_variants(x, eps):
    """name → the normalised x under each mistake that is also possible for a single row."""
    x = np.asarray(x, dtype=np.float64)
    mean, var = _stats(x)
    diff = x - mean
    with np.errstate(all="ignore"):
        return {
            "n-1": diff / np.sqrt(_stats(x, ddof=1)[1] + eps) if x.shape[-1] > 1 else None,
            "eps-outside-root": diff / (np.sqrt(var) + eps),
            "no-eps": diff / np.sqrt(var),
            "eps-added-to-std": diff / (np.sqrt(var + eps) + eps),
            "mean-not-subtracted": x / np.sqrt(var + eps),
            "variance-not-std": diff / (var + eps),
            "eps-ignored": diff / np.sqrt(var + DEFAULT_EPS),
            "hard-coded-width": (x - _stats_of_width(x)[0]) / np.sqrt(_stats_of_width(x)[1] + eps),
        }


def _std_variants(x, eps):
    x = np.asarray(x, dtype=np.float64)
    mean, var = _stats(x)
    with np.errstate(all="ignore"):
        return {
            "n-1": np.sqrt(_stats(x, ddof=1)[1] + eps) if x.size > 1 else None,
            "eps-outside-root": np.sqrt(var) + eps,
            "no-eps": np.sqrt(var),
            "eps-added-to-std": np.sqrt(var + eps) + eps,
            "mean-not-subtracted": np.sqrt((x * x).mean(keepdims=True) + eps),
            "variance-not-std": var + eps,
            "eps-ignored": np.sqrt(var + DEFAULT_EPS),
            "hard-coded-width": np.sqrt(_stats_of_width(x)[1] + eps),
        }


def _matrix_variants(x, eps):
    """name → what ``layer_norm(x, eps)`` gives under each mistake with the axes of a matrix."""
    x = np.asarray(x, dtype=np.float64)
    found = _normalise_variants(x, eps)
    mean_c, var_c = _stats(x, axis=0)
    found["wrong-axis"] = (x - mean_c) / np.sqrt(var_c + eps)
    whole_mean, whole_var = x.mean(), x.var()
    found["no-axis"] = (x - whole_mean) / np.sqrt(whole_var + eps)
    mean, var = x.mean(axis=-1), x.var(axis=-1)  # keepdims lost: (m,) against (m, n)
    found["lost-keepdims"] = (x - mean) / np.sqrt(var + eps) if x.shape[0] == x.shape[-1] else None
    found["lost-keepdims-2"] = None
    if x.shape[0] == x.shape[-1]:
        diff = x - mean
        found["lost-keepdims-2"] = diff / np.sqrt((diff * diff).mean(axis=-1) + eps)
    return found


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
    """The named mistakes for ``step``, most common first."""

    def row_stat(pick):
        return lambda args: pick(*args)

    found: list[Mistake] = []
    add = lambda key, name, advice, result: found.append(Mistake(key, name, advice, result))  # noqa: E731
    if step == "mean":
        add(
            "n-1",
            "dividing by n − 1",
            "The mean divides the sum by n, the number of values.",
            row_stat(lambda row: np.asarray(np.sum(row, dtype=np.float64) / (len(row) - 1)) if len(row) > 1 else None),
        )
        add(
            "sum-not-divided",
            "not dividing the sum by n",
            "Divide the sum of the values by n.",
            row_stat(lambda row: np.asarray(np.sum(row, dtype=np.float64))),
        )
        add(
            "hard-coded-width",
            "dividing by 3 whatever the row's length",
            _WIDTH_ADVICE,
            row_stat(lambda row: np.asarray(np.sum(row, dtype=np.float64) / LESSON_WIDTH)),
        )
    elif step == "variance":
        add(
            "n-1",
            "dividing by n − 1",
            "LayerNorm's variance divides by n (numpy's default, ddof=0), not n − 1.",
            row_stat(lambda row: _stats(row, ddof=1)[1].reshape(()) if len(row) > 1 else None),
        )
        add(
            "mean-not-subtracted",
            "not subtracting the mean",
            "Square the differences x − μ, not the values x.",
            row_stat(lambda row: np.asarray(np.mean(np.square(row, dtype=np.float64)))),
        )
        add(
            "eps-added",
            "adding ε to the variance",
            "The variance itself has no ε; ε comes in the next step.",
            row_stat(lambda row: _stats(row)[1].reshape(()) + DEFAULT_EPS),
        )
        add(
            "sum-not-divided",
            "forgot to divide by n",
            "The variance is the mean of the squared differences: divide their sum by n.",
            row_stat(lambda row: _stats(row)[1].reshape(()) * len(row)),
        )
        add(
            "std-not-variance",
            "taking the square root",
            "The variance is the step before the square root.",
            row_stat(lambda row: np.sqrt(_stats(row)[1]).reshape(())),
        )
        add(
            "hard-coded-width",
            "dividing by 3 whatever the row's length",
            _WIDTH_ADVICE,
            row_stat(lambda row: _stats_of_width(row)[1].reshape(())),
        )
        add(
            "hard-coded-width",
            "dividing the variance by 3 whatever the row's length",
            _WIDTH_ADVICE,
            row_stat(lambda row: (((row - np.mean(row, dtype=np.float64)) ** 2).sum() / LESSON_WIDTH).reshape(())),
        )
        add(
            "not-squared",
            "averaging distances without squaring them",
            "Square each difference x − μ.",
            row_stat(lambda row: np.asarray(np.mean(np.abs(row - np.mean(row, dtype=np.float64))))),
        )
    elif step in ("std", "normalise", "layer_norm"):
        variants = {"std": _std_variants, "normalise": _normalise_variants, "layer_norm": _matrix_variants}[step]
        names = {
            "n-1": (
                "dividing by n − 1",
                "LayerNorm's variance divides by n (numpy's default ddof=0); "
                "torch.var and torch.std divide by n − 1 unless told otherwise.",
            ),
            "eps-outside-root": (
                "ε outside the square root",
                "Write √(σ² + ε), not √(σ²) + ε: ε goes inside the root.",
            ),
            "no-eps": (
                "ε forgotten",
                "Add ε to the variance before the square root: √(σ² + ε). Without it a constant row divides 0 by 0.",
            ),
            "eps-added-to-std": (
                "ε added to the std as well",
                "Add ε once, inside the root: √(σ² + ε), with nothing added after.",
            ),
            "mean-not-subtracted": ("the mean not subtracted", "Subtract the mean first: x − μ."),
            "variance-not-std": ("the variance used instead of the std", "Take the square root: √(σ² + ε)."),
            "eps-ignored": ("the eps argument ignored", "Use the ε your function is given, not a fixed 1e-5."),
            "wrong-axis": (
                "the wrong axis (columns instead of rows)",
                "Each row is one token: take the mean and variance along axis=-1 (across each row).",
            ),
            "no-axis": (
                "no axis (the whole matrix at once)",
                "Give axis=-1, so each row gets its own mean and variance.",
            ),
            "hard-coded-width": ("n written as 3 whatever the row's length", _WIDTH_ADVICE),
            "lost-keepdims": (
                "lost keepdims",
                "Write x.mean(axis=-1, keepdims=True) so that each row's mean "
                "stays a column and subtracts from its own row.",
            ),
        }
        keys = [
            "n-1",
            "eps-outside-root",
            "no-eps",
            "eps-added-to-std",
            "mean-not-subtracted",
            "variance-not-std",
            "eps-ignored",
            "hard-coded-width",
        ]
        if step == "layer_norm":
            keys += ["wrong-axis", "no-axis", "lost-keepdims", "lost-keepdims-2"]
        for key in keys:
            name, advice = names[key.replace("-2", "")]

            def result(args, key=key, variants=variants):
                value = variants(np.asarray(args[0], dtype=np.float64), args[1])[key]
                return None if value is None else np.asarray(value).reshape(np.shape(value) if step != "std" else ())

            add(key.replace("-2", ""), name, advice, result)
    elif step == "scale_shift":
        add(
            "gamma-beta-swapped",
            "γ and β swapped",
            "Multiply by γ (gamma) and add β (beta): γ · x̂ + β.",
            lambda args: args[2] * args[0] + args[1],
        )
        per_feature = (
            "γ and β are per feature: one per column. γ · x̂ + β lines them up along each row's "
            "features with no reshaping."
        )
        add(
            "per-row",
            "γ and β applied per row",
            per_feature,
            lambda args: args[1][:, None] * args[0] + args[2][:, None],
        )
        add("per-row", "γ applied per row", per_feature, lambda args: args[1][:, None] * args[0] + args[2])
        add("per-row", "β applied per row", per_feature, lambda args: args[1] * args[0] + args[2][:, None])
        add(
            "forgot-gamma",
            "forgot γ",
            "Multiply x̂ by γ (gamma) before adding β: γ · x̂ + β.",
            lambda args: args[0] + args[2],
        )
        add("forgot-beta", "forgot β", "Add β (beta) after scaling: γ · x̂ + β.", lambda args: args[1] * args[0])
        add(
            "scalar-gamma",
            "a scalar γ",
            "Each feature has its own γ: multiply by the whole vector gamma, not by one number.",
            lambda args: args[1][0] * args[0] + args[2],
        )
        add(
            "scalar-gamma",
            "a scalar γ and β",
            "Each feature has its own γ and β: use the whole vectors.",
            lambda args: args[1][0] * args[0] + args[2][0],
        )
        add(
            "shift-not-scaled",
            "β scaled as well",
            "Only x̂ is scaled: γ · x̂ + β, not γ · (x̂ + β).",
            lambda args: args[1] * (args[0] + args[2]),
        )
    else:
        raise ValueError(f"There is no exercise step called {step!r}; choose one of: {', '.join(STEPS)}.")
    if step != "scale_shift":
        add(
            "rounding",
            "rounding inside the function",
            "Keep every digit: return the unrounded value, and round only when you show it.",
            None,
        )
    return found


def rounded_results(step: str, case: Case) -> list[np.ndarray]:
    """What a function that rounds (its result, or every step by hand) returns for ``case``."""
    found = [np.round(case.expected, places) for places in ROUNDING_PLACES]
    return found + _hand_rounded(step, case.args)
