"""``before_after``'s legend: "in the first corner where it covers no bar and no value label …; upper right if
none is." The corners are tried in the order upper right, upper left, lower right, lower left.
"""

from __future__ import annotations

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.legend import Legend  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from helpers import plots  # noqa: E402

pytestmark = pytest.mark.draws

CODES = {name: code for name, code in Legend.codes.items()}


def panel(*covered):
    """An axes with a legend entry and a bar over each corner named (the axes runs 0 to 1 both ways)."""
    _, ax = plt.subplots(figsize=(6, 3))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.plot([0.5], [0.5], label="before: x")
    places = {"upper right": (0.5, 0.5), "upper left": (0, 0.5), "lower right": (0.5, 0), "lower left": (0, 0)}
    for corner in covered:
        ax.add_patch(Rectangle(places[corner], 0.5, 0.5))
    return ax


def test_with_every_corner_covered_the_legend_goes_upper_right():
    ax = panel("upper right", "upper left", "lower right", "lower left")
    plots._legend_clear_of_bars(ax)
    assert ax.get_legend()._loc == CODES["upper right"]


@pytest.mark.parametrize(
    ("covered", "corner"),
    [
        ((), "upper right"),
        (("upper right",), "upper left"),
        (("upper right", "upper left"), "lower right"),
        (("upper right", "upper left", "lower right"), "lower left"),
    ],
)
def test_the_legend_takes_the_first_corner_that_is_clear(covered, corner):
    ax = panel(*covered)
    plots._legend_clear_of_bars(ax)
    assert ax.get_legend()._loc == CODES[corner]
