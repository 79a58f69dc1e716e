"""One catalogue of the mistakes learners make in LayerNorm's steps, read by every checker.

The code checker (:mod:`helpers.checking.exercises`) and the check-your-answer boxes (:mod:`helpers.checking.answers`)
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

from helpers.checking.mistakes.formula import forward
from helpers.checking.mistakes.sentences import (
    Context,
    eps_outside,
    fixed,
    n_minus_1,
    no_eps,
    one_pass,
    root_eps_outside,
    width,
)
from helpers.core.layernorm import DEFAULT_EPS

QUANTITIES = ("mean", "variance", "std", "normalised", "output")
MATRIX = "matrix"  # mistakes only a matrix can show (the axes)


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
    add("hard-coded-width", "dividing by 3 whatever the row's length", {"mean_div": "3"}, ["mean"], width)
    add(
        "median",
        "the median instead of the mean",
        {"centre": "median"},
        ["mean", *ROW, MATRIX],
        fixed(
            "LayerNorm centres each row on its mean, the sum divided by n (np.mean), not on its middle "
            "value (np.median)."
        ),
    )
    add("n-1", "dividing by n − 1", {"var_div": "n-1"}, [*ROW, MATRIX], n_minus_1)
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
        width,
    )
    add(
        "hard-coded-width",
        "dividing the variance by 3 whatever the row's length",
        {"var_div": "3"},
        ["variance"],
        width,
    )
    add(
        "mean-not-subtracted",
        "squaring the values, not their differences from the mean",
        {"var_centred": False},
        ["variance", "std"],
        fixed("Subtract the mean first: square the differences x − μ, not the values x."),
    )
    add(
        "mean-not-subtracted",
        "the mean not subtracted (that is RMSNorm)",
        {"var_centred": False, "numerator_centred": False},
        [*AFTER_STD, MATRIX],
        fixed(
            "Subtract the mean first, in the variance and in the numerator: (x − μ) / √(σ² + ε). "
            "Dividing x by its root mean square is RMSNorm (notebook 10), not LayerNorm."
        ),
    )
    add(
        "mean-not-subtracted",
        "the mean not subtracted from x",
        {"numerator_centred": False},
        [*AFTER_STD, MATRIX],
        fixed("Subtract the mean from the value too: (x − μ) / √(σ² + ε), not x / √(σ² + ε)."),
    )
    add(
        "not-squared",
        "averaging distances without squaring them",
        {"square": False},
        [*ROW, MATRIX],
        fixed("Square each difference x − μ before averaging: the variance is the mean of (x − μ)²."),
    )
    add(
        "one-pass",
        "the one-pass variance E[x²] − E[x]²",
        {"one_pass": True},
        [*ROW, MATRIX],
        one_pass,
        signature=True,
    )
    add(
        "eps-added",
        "adding ε to the variance",
        {"variance_out": "variance+eps"},
        ["variance"],
        fixed(
            "ε does not belong in the variance: that is σ² + ε. The variance comes first; ε is added to it "
            "only in the next step, under the square root."
        ),
    )
    add(
        "std-not-variance",
        "taking the square root",
        {"variance_out": "root"},
        ["variance"],
        fixed("That is the standard deviation: the variance is the step before the square root."),
    )
    eps_steps = ["std", *AFTER_STD, MATRIX]
    add("no-eps", "ε forgotten", {"eps_at": "none"}, eps_steps, no_eps)
    add("eps-outside-root", "ε outside the square root", {"eps_at": "outside"}, eps_steps, eps_outside)
    add("root-eps-outside", "√ε added outside the square root", {"eps_at": "root-outside"}, eps_steps, root_eps_outside)
    add(
        "eps-added-to-std",
        "ε added to the std as well",
        {"eps_at": "both"},
        eps_steps,
        fixed("Add ε once, inside the root: √(σ² + ε), with nothing added after."),
    )
    add(
        "variance-not-std",
        "the variance used instead of the std",
        {"root": False},
        eps_steps,
        fixed("Take the square root: the standard deviation is √(σ² + ε), not σ² + ε."),
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
        fixed("That is x − μ: now divide it by the standard deviation √(σ² + ε)."),
    )
    add(
        "min-max",
        "min–max scaling",
        {"scale": "min-max"},
        [*AFTER_STD, MATRIX],
        fixed(
            "(x − min) / (max − min) squeezes the row into [0, 1]; LayerNorm subtracts the mean and divides "
            "by the standard deviation: (x − μ) / √(σ² + ε)."
        ),
    )
    axis_words = "Each row is one token: take its mean and variance along axis=-1, with keepdims=True."
    add("wrong-axis", "the wrong axis (columns instead of rows)", {"axis": "column"}, [MATRIX], fixed(axis_words))
    add("no-axis", "no axis (the whole matrix at once)", {"axis": "all"}, [MATRIX], fixed(axis_words))
    keep = "Write x.mean(axis=-1, keepdims=True) so that each row's mean stays a column and subtracts from its own row."
    add("lost-keepdims", "lost keepdims", {"axis": "lost-keepdims"}, [MATRIX], fixed(keep))
    add("lost-keepdims", "lost keepdims", {"axis": "lost-keepdims-2"}, [MATRIX], fixed(keep))
    gamma_words = "Multiply by γ (gamma) and add β (beta): γ · x̂ + β."
    per_feature = (
        "γ and β are per feature: one per column. γ · x̂ + β lines them up along each row's features with no reshaping."
    )
    add("gamma-beta-swapped", "γ and β swapped", {"affine": "swapped"}, ["output"], fixed(gamma_words))
    add("per-row", "γ and β applied per row", {"affine": "per-row"}, ["output"], fixed(per_feature))
    add("per-row", "γ applied per row", {"affine": "gamma-per-row"}, ["output"], fixed(per_feature))
    add("per-row", "β applied per row", {"affine": "beta-per-row"}, ["output"], fixed(per_feature))
    add(
        "forgot-gamma",
        "forgot γ",
        {"affine": "no-gamma"},
        ["output"],
        fixed("Multiply x̂ by γ (gamma) before adding β: γ · x̂ + β."),
    )
    add("forgot-beta", "forgot β", {"affine": "no-beta"}, ["output"], fixed("Add β (beta) after scaling: γ · x̂ + β."))
    add(
        "forgot-gamma-and-beta",
        "γ and β left out",
        {"affine": "neither"},
        ["output"],
        fixed("That is x̂, the normalised value: now multiply it by γ and add β."),
    )
    add(
        "scalar-gamma",
        "a scalar γ",
        {"affine": "scalar-gamma"},
        ["output"],
        fixed("Each feature has its own γ: multiply by the whole vector gamma, not by one number."),
    )
    add(
        "scalar-gamma",
        "a scalar γ and β",
        {"affine": "scalar-both"},
        ["output"],
        fixed("Each feature has its own γ and β: use the whole vectors."),
    )
    add(
        "shift-not-scaled",
        "β scaled as well",
        {"affine": "beta-scaled"},
        ["output"],
        fixed("Only x̂ is scaled: γ · x̂ + β, not γ · (x̂ + β)."),
    )
    add(
        "not-normalised",
        "the row not normalised",
        {"affine": "not-normalised"},
        ["output"],
        fixed("γ and β scale and shift x̂, the normalised row: normalise x first (notebook 05), then γ · x̂ + β."),
    )
    return tuple(found)


MISTAKES = _catalogue()
ROUNDING = Mistake(
    "rounding",
    "rounding along the way",
    (),
    ("variance", "std", "normalised", "output", "mean", MATRIX),
    fixed("Keep every digit until the end: round only the number you show, not the steps before it."),
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


def labels() -> dict[str, str]:
    """Every key a checker may record, with the words the lecturer's live page shows: the formula's mistakes
    (two at once included, in every quantity, for a row and a matrix) and the other outcomes
    (:mod:`helpers.checking.mistakes.outcomes`). The catalogue's own words win where a key is in both."""
    from helpers.checking.mistakes.outcomes import ANSWER_OUTCOMES, OUTCOMES

    names = {}
    for quantity in QUANTITIES:
        for matrix in (False, True):
            for mistake in for_quantity(quantity, matrix):
                names.setdefault(mistake.key, name_of(mistake.key))
    names.setdefault(ROUNDING.key, ROUNDING.name)
    return {**OUTCOMES, **ANSWER_OUTCOMES, **names}
