"""Which tests each step's assignment has: one per named mistake that applies to the step, plus the
hidden full check. Read from the one catalogue, ``helpers.checking.mistakes`` (keys, names and
quantities), never copied.
"""

from __future__ import annotations

from dataclasses import dataclass

from helpers.checking.mistakes import MISTAKES

# The graded steps: notebook, the step's name for check(), the answer's name, the quantity it computes.
STEPS = {
    "mean": ("02", "mean", "mean"),
    "variance": ("03", "variance", "variance"),
    "std": ("04", "std", "std"),
    "normalise": ("05", "normalise", "normalised"),
    "scale_shift": ("06", "scale_shift", "output"),
    "layer_norm": ("07", "layer_norm", "normalised"),
}
MATRIX_STEPS = ("layer_norm",)  # a matrix adds the mistakes only a matrix shows (the axes)
GIVEN_X_HAT = ("scale_shift",)  # given x̂: no normalising mistake, nor "the row not normalised", can happen
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
    catalogue's order (most common first); a key's first name for this step."""
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
    return list(found.items())


def tests_for(step: str) -> list[Test]:
    """The step's graded tests: the named mistakes, then the hidden full check."""
    tests = [Test(f"test_{step}_{key}", key, name, MISTAKE_POINTS) for key, name in mistakes_for(step)]
    return tests + [Test(f"test_{step}_hidden", None, "the full check on unseen cases", HIDDEN_POINTS)]


def total_points(step: str) -> int:
    return sum(test.points for test in tests_for(step))
