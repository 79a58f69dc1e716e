"""``before_after``'s legend goes "in the first corner where it covers no bar and no value label": a value
label alone in the upper right (a bar's label sticking out above the bars) sends it on to the upper left, as a
bar would. Corners tried: upper right, upper left, lower right, lower left.
"""

from __future__ import annotations

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.legend import Legend  # noqa: E402

from helpers import plots  # noqa: E402

pytestmark = pytest.mark.draws


def panel_with_a_label_upper_right():
    """An axes running 0 to 1 both ways, no bar anywhere, a value label in its upper right corner."""
    _, ax = plt.subplots(figsize=(6, 3))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.plot([0.5], [0.5], label="before: x")
    ax.text(0.97, 0.95, "12.345", ha="right", va="top", fontsize=14)
    return ax


def test_a_value_label_in_the_upper_right_sends_the_legend_upper_left():
    ax = panel_with_a_label_upper_right()
    plots._legend_clear_of_bars(ax)
    assert ax.get_legend()._loc == Legend.codes["upper left"]
