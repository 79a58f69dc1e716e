"""Which tests each step's assignment has: one per named mistake that applies to the step, plus the
hidden full check. Read from the one catalogue, ``helpers.checking.mistakes`` (keys, names and
quantities), never copied.
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.checking.mistakes import MISTAKES
from helpers.checking.mistakes.outcomes import MODULE_MISTAKES

# The graded steps: notebook, the step's name for check(), the answer's name, the quantity it computes.
STEPS = {
    "mean": ("02", "mean", "mean"),
    "variance": ("03", "variance", "variance"),
    "std": ("04", "std", "std"),
    "normalise": ("05", "normalise", "normalised"),
    "scale_shift": ("06", "scale_shift", "output"),
    "layer_norm": ("07", "layer_norm", "normalised"),
    "module": ("08", "MyLayerNorm", "normalised"),  # a torch.nn.Module class, checked as check("module", …)
}
MATRIX_STEPS = ("layer_norm", "module")  # a matrix adds the mistakes only a matrix shows (the axes)
# The answer is a class; its own mistakes (outcomes.MODULE_MISTAKES) are tested too.
MODULE_STEPS = ("module",)
GIVEN_X_HAT = ("scale_shift",)  # given x̂: no normalising mistake, nor "the row not normalised", can happen
# A module's check stops at its first problem, in this order (helpers/checking/module_check.py): every width
# built and run (its parameters, its forward: no torch layer norm, its input left alone), then width by width
# its outputs against LayerNorm's (the formula's mistakes, all of which show at the first width but the
# hard-coded width) and its gradients, and last its own ε. A verdict judges only what comes before it.
MODULE_BUILT = (
    "no-super-init",
    "no-parameters",
    "parameter-shape",
    "scalar-gamma",
    "torch-layer-norm",
    "mutates-input",
)
MODULE_GRADIENTS = ("initial-values", "gamma-beta")
MODULE_LAST = ("no-eps-argument", "eps-ignored")
# Named where the check stops early, or late: judged alone ("not-differentiable": a forward that returns
# numpy, while built, or gradients that do not flow; "hard-coded-width": a width that fails to build, or
# a formula right only at the first width).
MODULE_EARLY = ("hard-coded-width", "not-differentiable")
MISTAKE_POINTS = 1
HIDDEN_POINTS = 2


@dataclass(frozen=True)
class Test:
    """One graded test cell: ``grade_id`` (nbgrader's), the mistake ``key`` (None: the hidden full
    check), its ``name`` in plain words and its ``points``."""

    grade_id: str
    key: str | None
    name: str
    points: int

    @property
    def hidden(self) -> bool:
        return self.key is None


def notebook_of(step: str) -> str:
    return STEPS[step][0]


def function_name(step: str) -> str:
    return STEPS[step][1]


def answer_id(step: str) -> str:
    return f"answer_{step}"


def mistakes_for(step: str) -> list[tuple[str, str]]:
    """(key, name) of each named mistake that shows in ``step``'s result, each key once, in the
    catalogue's order (most common first); a key's first name for this step. A module adds what only
    a module can get wrong, after the formula's mistakes."""
    found = dict(_formula_mistakes(step))
    if step in MODULE_STEPS:
        found.update(MODULE_MISTAKES)  # in a module's words where a key is the formula's too
    return list(found.items())


def _formula_mistakes(step: str) -> list[tuple[str, str]]:
    quantity = STEPS[step][2]
    matrix = step in MATRIX_STEPS
    found: dict[str, str] = {}
    for mistake in MISTAKES:
        shows = quantity in mistake.quantities or (
            matrix and "matrix" in mistake.quantities and quantity in ("normalised", "output")
        )
        if step in GIVEN_X_HAT:  # only what happens after x̂: shows in the output, not in x̂ itself
            shows = shows and "normalised" not in mistake.quantities and mistake.key != "not-normalised"
        if shows:
            found.setdefault(mistake.key, mistake.name)
    if step in MODULE_STEPS:  # named by the module check when every output is 1 (γ = 1, β = 0 swapped)
        found.setdefault("gamma-beta-swapped", MODULE_MISTAKES["gamma-beta-swapped"])
    return list(found.items())


def judged(step: str, named: set[str], key: str) -> bool:
    """Whether a verdict naming the mistakes ``named`` (and no other) judged the test of mistake ``key``.
    A row or matrix step: always (its values were all compared). A module: its own ε's mistakes come last,
    so they judged everything; a formula's mistake or a gradient's judged every width's build and run and
    the formula's other mistakes (all show at the first width, but the hard-coded width); anything else
    stopped the check before the rest, so it judged only its own test."""
    if step not in MODULE_STEPS or key in named or named <= set(MODULE_LAST):
        return True
    formula = {k for k, _ in _formula_mistakes(step)} - set(MODULE_LAST) - set(MODULE_EARLY)
    if named and named <= formula | set(MODULE_GRADIENTS):
        return key in formula or key in MODULE_BUILT
    return False


def tests_for(step: str) -> list[Test]:
    """The step's graded tests: the named mistakes, then the hidden full check."""
    tests = [Test(f"test_{step}_{key}", key, name, MISTAKE_POINTS) for key, name in mistakes_for(step)]
    return tests + [Test(f"test_{step}_hidden", None, "the full check on unseen cases", HIDDEN_POINTS)]


def total_points(step: str) -> int:
    return sum(test.points for test in tests_for(step))
