"""One catalogue of the mistakes learners make in LayerNorm's steps, read by every checker.

The code checker (:mod:`helpers.exercises`) and the check-your-answer boxes (:mod:`helpers.answer_check`)
both name mistakes from this list, so a mistake has one key, one name and one sentence everywhere.
Each :class:`Mistake` is LayerNorm's formula with one thing done wrong, written as a change to the
formula's settings (divide by n − 1, ε outside the root, the wrong axis, …); :func:`forward` computes
what that formula gives, so a learner's result is matched against what the mistake really produces,
and the sentence a learner reads is computed for the row at hand (how far ε moves *this* std).
Two mistakes at once (n − 1 and a forgotten ε) are :func:`compounds` and are named as both.
Pure maths: numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from helpers.layernorm import DEFAULT_EPS

LESSON_WIDTH = 3  # the lesson's rows have 3 features: the number a hard-coded n usually is
QUANTITIES = ("mean", "variance", "std", "normalised", "output")
MATRIX = "matrix"  # mistakes only a matrix can show (the axes)

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
        return np.atleast_2d(np.asarray(self.x, dtype=np.float64))

    @property
    def variance(self) -> float:
        """The smallest row variance: where ε matters most."""
        return float(np.min(self.rows.var(axis=-1)))

    @property
    def constant(self) -> bool:
        return bool(np.any(np.all(self.rows == self.rows[:, :1], axis=-1)))


@dataclass(frozen=True)
class Mistake:
    """A named mistake. ``key`` (shared by variants of one mistake) for tests and the class page,
    ``name`` in plain words, ``changes`` to the formula's settings, the ``quantities`` where it shows,
    and ``say(context)``, the sentence a learner reads. ``signature`` mistakes give the right value in
    exact arithmetic (the one-pass variance); a checker recognises them by where they fail instead."""

    key: str
    name: str
    changes: tuple
    quantities: tuple
    say: object = field(repr=False, compare=False)
    signature: bool = False
    parts: tuple = ()  # a compound's two mistakes

    def advice(self, context: Context) -> str:
        return self.say(context)

    def value(self, quantity: str, x, eps: float = DEFAULT_EPS, gamma=None, beta=None, x_hat=None):
        """What this mistake gives for ``quantity`` (an array), or None where it cannot run."""
        return forward(x, eps, dict(self.changes), gamma, beta, x_hat).get(quantity)


# ---------------------------------------------------------------------------------------------
# The formula with settings


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


# ---------------------------------------------------------------------------------------------
# The sentences, computed for the case at hand


def _g(value: float) -> str:
    return f"{value:.6g}"


def _n_minus_1(c: Context) -> str:
    return (
        f"LayerNorm's variance divides by n = {c.n}, not by n − 1 = {c.n - 1}. Dividing by n − 1 (the "
        "'unbiased' variance) is the default of torch.var and torch.std: pass unbiased=False (or "
        "correction=0) there; numpy's var and std divide by n unless given ddof=1."
    )


def _eps_moves(c: Context) -> str:
    if c.constant:
        return " Without it a constant row (σ² = 0) divides 0 by 0."
    var = c.variance
    return (
        f" Here σ² = {var:.4g}, and ε = {c.eps:g} moves the std from {_g(np.sqrt(var))} to "
        f"{_g(np.sqrt(var + c.eps))} ({np.sqrt(var + c.eps) / np.sqrt(var) - 1:.1e} of its size)."
    )


def _no_eps(c: Context) -> str:
    return "Add ε to the variance before the square root: √(σ² + ε)." + _eps_moves(c)


def _eps_outside(c: Context) -> str:
    var = c.variance
    return "ε goes inside the square root: √(σ² + ε), not √σ² + ε." + (
        f" Here that is {_g(np.sqrt(var + c.eps))}, against {_g(np.sqrt(var) + c.eps)} with ε outside."
        if not c.constant
        else ""
    )


def _root_eps_outside(c: Context) -> str:
    return (
        f"√(σ² + ε) is not √σ² + √ε: the root of a sum is not the sum of the roots (√ε = "
        f"{np.sqrt(c.eps):.3g} is far larger than ε = {c.eps:g}). Add ε under the root: np.sqrt(var + eps)."
    )


def _width(c: Context) -> str:
    return (
        f"Divide by n = len(row) (or x.shape[-1]), not by {LESSON_WIDTH}: your function must work for rows of "
        f"any length, and this one has {c.n} values."
    )


def _fixed(text: str):
    return lambda _context: text


ROW = ("variance", "std", "normalised", "output")  # every quantity the variance feeds
AFTER_STD = ("normalised", "output")


def _catalogue() -> tuple[Mistake, ...]:
    found = []

    def add(key, name, changes, quantities, say, signature=False):
        found.append(Mistake(key, name, tuple(changes.items()), tuple(quantities), say, signature))

    add(
        "n-1",
        "dividing the sum by n − 1",
        {"mean_div": "n-1"},
        ["mean"],
        lambda c: f"The mean divides the sum by n = {c.n}, the number of values, not by n − 1 = {c.n - 1}.",
    )
    add(
        "sum-not-divided",
        "not dividing the sum by n",
        {"mean_div": "1"},
        ["mean"],
        lambda c: f"That is the sum of the values: divide it by n = {c.n}.",
    )
    add("hard-coded-width", "dividing by 3 whatever the row's length", {"mean_div": "3"}, ["mean"], _width)
    add(
        "median",
        "the median instead of the mean",
        {"centre": "median"},
        ["mean", *ROW, MATRIX],
        _fixed(
            "LayerNorm centres each row on its mean, the sum divided by n (np.mean), not on its middle "
            "value (np.median)."
        ),
    )
    add("n-1", "dividing by n − 1", {"var_div": "n-1"}, [*ROW, MATRIX], _n_minus_1)
    add(
        "sum-not-divided",
        "not dividing the sum of squares by n",
        {"var_div": "1"},
        [*ROW, MATRIX],
        lambda c: f"The variance is the mean of the squared differences: divide their sum by n = {c.n}.",
    )
    add(
        "hard-coded-width",
        "n written as 3 whatever the row's length",
        {"mean_div": "3", "var_div": "3"},
        [*ROW, MATRIX],
        _width,
    )
    add(
        "hard-coded-width",
        "dividing the variance by 3 whatever the row's length",
        {"var_div": "3"},
        ["variance"],
        _width,
    )
    add(
        "mean-not-subtracted",
        "squaring the values, not their differences from the mean",
        {"var_centred": False},
        ["variance", "std"],
        _fixed("Subtract the mean first: square the differences x − μ, not the values x."),
    )
    add(
        "mean-not-subtracted",
        "the mean not subtracted (that is RMSNorm)",
        {"var_centred": False, "numerator_centred": False},
        [*AFTER_STD, MATRIX],
        _fixed(
            "Subtract the mean first, in the variance and in the numerator: (x − μ) / √(σ² + ε). "
            "Dividing x by its root mean square is RMSNorm (notebook 10), not LayerNorm."
        ),
    )
    add(
        "mean-not-subtracted",
        "the mean not subtracted from x",
        {"numerator_centred": False},
        [*AFTER_STD, MATRIX],
        _fixed("Subtract the mean from the value too: (x − μ) / √(σ² + ε), not x / √(σ² + ε)."),
    )
    add(
        "not-squared",
        "averaging distances without squaring them",
        {"square": False},
        [*ROW, MATRIX],
        _fixed("Square each difference x − μ before averaging: the variance is the mean of (x − μ)²."),
    )
    add(
        "one-pass",
        "the one-pass variance E[x²] − E[x]²",
        {"one_pass": True},
        [*ROW, MATRIX],
        _fixed(
            "E[x²] − E[x]² equals the variance in exact arithmetic, but far from zero in float32 both terms "
            "are huge and nearly equal, and subtracting them cancels the digits that matter (notebook 09 "
            "shows it). Subtract the mean first, then square: the mean of (x − μ)²."
        ),
        signature=True,
    )
    add(
        "eps-added",
        "adding ε to the variance",
        {"variance_out": "variance+eps"},
        ["variance"],
        _fixed(
            "ε does not belong in the variance: that is σ² + ε. The variance comes first; ε is added to it "
            "only in the next step, under the square root."
        ),
    )
    add(
        "std-not-variance",
        "taking the square root",
        {"variance_out": "root"},
        ["variance"],
        _fixed("That is the standard deviation: the variance is the step before the square root."),
    )
    eps_steps = ["std", *AFTER_STD, MATRIX]
    add("no-eps", "ε forgotten", {"eps_at": "none"}, eps_steps, _no_eps)
    add("eps-outside-root", "ε outside the square root", {"eps_at": "outside"}, eps_steps, _eps_outside)
    add(
        "root-eps-outside", "√ε added outside the square root", {"eps_at": "root-outside"}, eps_steps, _root_eps_outside
    )
    add(
        "eps-added-to-std",
        "ε added to the std as well",
        {"eps_at": "both"},
        eps_steps,
        _fixed("Add ε once, inside the root: √(σ² + ε), with nothing added after."),
    )
    add(
        "variance-not-std",
        "the variance used instead of the std",
        {"root": False},
        eps_steps,
        _fixed("Take the square root: the standard deviation is √(σ² + ε), not σ² + ε."),
    )
    add(
        "eps-ignored",
        "the eps argument ignored",
        {"eps_value": "default"},
        eps_steps,
        lambda c: f"Use the ε your function is given (here {c.eps:g}), not a fixed 1e-5.",
    )
    add(
        "not-divided",
        "not dividing by the std",
        {"divide": False},
        [*AFTER_STD, MATRIX],
        _fixed("That is x − μ: now divide it by the standard deviation √(σ² + ε)."),
    )
    add(
        "min-max",
        "min–max scaling",
        {"scale": "min-max"},
        [*AFTER_STD, MATRIX],
        _fixed(
            "(x − min) / (max − min) squeezes the row into [0, 1]; LayerNorm subtracts the mean and divides "
            "by the standard deviation: (x − μ) / √(σ² + ε)."
        ),
    )
    axis_words = "Each row is one token: take its mean and variance along axis=-1, with keepdims=True."
    add("wrong-axis", "the wrong axis (columns instead of rows)", {"axis": "column"}, [MATRIX], _fixed(axis_words))
    add("no-axis", "no axis (the whole matrix at once)", {"axis": "all"}, [MATRIX], _fixed(axis_words))
    keep = "Write x.mean(axis=-1, keepdims=True) so that each row's mean stays a column and subtracts from its own row."
    add("lost-keepdims", "lost keepdims", {"axis": "lost-keepdims"}, [MATRIX], _fixed(keep))
    add("lost-keepdims", "lost keepdims", {"axis": "lost-keepdims-2"}, [MATRIX], _fixed(keep))
    gamma_words = "Multiply by γ (gamma) and add β (beta): γ · x̂ + β."
    per_feature = (
        "γ and β are per feature: one per column. γ · x̂ + β lines them up along each row's features with no reshaping."
    )
    add("gamma-beta-swapped", "γ and β swapped", {"affine": "swapped"}, ["output"], _fixed(gamma_words))
    add("per-row", "γ and β applied per row", {"affine": "per-row"}, ["output"], _fixed(per_feature))
    add("per-row", "γ applied per row", {"affine": "gamma-per-row"}, ["output"], _fixed(per_feature))
    add("per-row", "β applied per row", {"affine": "beta-per-row"}, ["output"], _fixed(per_feature))
    add(
        "forgot-gamma",
        "forgot γ",
        {"affine": "no-gamma"},
        ["output"],
        _fixed("Multiply x̂ by γ (gamma) before adding β: γ · x̂ + β."),
    )
    add("forgot-beta", "forgot β", {"affine": "no-beta"}, ["output"], _fixed("Add β (beta) after scaling: γ · x̂ + β."))
    add(
        "forgot-gamma-and-beta",
        "γ and β left out",
        {"affine": "neither"},
        ["output"],
        _fixed("That is x̂, the normalised value: now multiply it by γ and add β."),
    )
    add(
        "scalar-gamma",
        "a scalar γ",
        {"affine": "scalar-gamma"},
        ["output"],
        _fixed("Each feature has its own γ: multiply by the whole vector gamma, not by one number."),
    )
    add(
        "scalar-gamma",
        "a scalar γ and β",
        {"affine": "scalar-both"},
        ["output"],
        _fixed("Each feature has its own γ and β: use the whole vectors."),
    )
    add(
        "shift-not-scaled",
        "β scaled as well",
        {"affine": "beta-scaled"},
        ["output"],
        _fixed("Only x̂ is scaled: γ · x̂ + β, not γ · (x̂ + β)."),
    )
    add(
        "not-normalised",
        "the row not normalised",
        {"affine": "not-normalised"},
        ["output"],
        _fixed("γ and β scale and shift x̂, the normalised row: normalise x first (notebook 05), then γ · x̂ + β."),
    )
    return tuple(found)


MISTAKES = _catalogue()
ROUNDING = Mistake(
    "rounding",
    "rounding along the way",
    (),
    ("variance", "std", "normalised", "output", "mean", MATRIX),
    _fixed("Keep every digit until the end: round only the number you show, not the steps before it."),
)
KEYS = tuple(dict.fromkeys([m.key for m in MISTAKES] + [ROUNDING.key]))  # each mistake once, most common first

# Two mistakes at once that learners make together: one from each of two groups.
_GROUPS = {
    "divisor": ("n-1", "hard-coded-width", "sum-not-divided"),
    "eps": ("no-eps", "eps-outside-root", "root-eps-outside", "eps-added-to-std", "eps-ignored"),
    "centring": ("mean-not-subtracted",),
    "root": ("variance-not-std",),
}


def _group(mistake: Mistake) -> str | None:
    return next((name for name, keys in _GROUPS.items() if mistake.key in keys), None)


def compound(first: Mistake, second: Mistake) -> Mistake:
    """Both mistakes at once: named as both, with both sentences."""
    changes = {**dict(first.changes), **dict(second.changes)}
    quantities = tuple(q for q in first.quantities if q in second.quantities)

    def say(context, first=first, second=second):
        return f"{first.advice(context)} {second.advice(context)}"

    return Mistake(
        f"{first.key}+{second.key}",
        f"{first.name} and {second.name}",
        tuple(changes.items()),
        quantities,
        say,
        parts=(first.key, second.key),
    )


def singles(quantity: str, matrix: bool = False) -> list[Mistake]:
    """The catalogue's mistakes that show in ``quantity`` (a matrix adds the axis mistakes)."""
    return [
        m for m in MISTAKES if quantity in m.quantities or (matrix and MATRIX in m.quantities and quantity in AFTER_STD)
    ]


def compounds(quantity: str, matrix: bool = False) -> list[Mistake]:
    """Pairs of mistakes from different groups, both showing in ``quantity``."""
    found = []
    chosen = [m for m in singles(quantity, matrix) if _group(m) and not m.signature]
    for i, first in enumerate(chosen):
        for second in chosen[i + 1 :]:
            if _group(first) != _group(second) and not set(dict(first.changes)) & set(dict(second.changes)):
                found.append(compound(first, second))
    return found


def for_quantity(quantity: str, matrix: bool = False) -> list[Mistake]:
    """Every mistake a checker tries for ``quantity``: the single mistakes first, then the compounds."""
    return singles(quantity, matrix) + compounds(quantity, matrix)


# Where one key has a different name in different steps (the mean's n − 1 divides the sum, the
# variance's the squares), the name that fits every step: what the class's live page shows.
LABELS = {
    "n-1": "dividing by n − 1",
    "sum-not-divided": "not dividing by n",
    "hard-coded-width": "n written as 3 whatever the row's length",
    "mean-not-subtracted": "the mean not subtracted",
    "per-row": "γ and β applied per row",
    "scalar-gamma": "a scalar γ",
}


def name_of(key: str) -> str | None:
    """The name of a mistake key for every step (a compound's ``"a+b"`` included), or None for an
    unknown key."""
    parts = key.split("+")
    names = [LABELS.get(part) or next((m.name for m in (*MISTAKES, ROUNDING) if m.key == part), None) for part in parts]
    if None in names or len(parts) > 2 or (len(parts) == 2 and parts[0] == parts[1]):
        return None
    return " and ".join(names)
