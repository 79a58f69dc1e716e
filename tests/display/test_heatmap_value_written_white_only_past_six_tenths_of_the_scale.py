"""``matrix_heatmaps`` writes each cell's value in white only where the cell is dark: its value farther than
six tenths of the heatmap's limit (± the largest absolute value) from 0, either side; at six tenths exactly,
and anywhere nearer 0, the value is written in black.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test

from helpers import plots  # noqa: E402


def test_white_past_six_tenths_of_the_limit_black_at_it_and_nearer_0():
    x = np.array([[10.0, 6.5, 6.0, 5.5, 0.0], [-10.0, -6.5, -6.0, -5.5, 2.0]])
    figure = plots.matrix_heatmaps(x, y=x / 10)
    for ax in (a for a in figure.axes if a.images):
        colours = [t.get_color() for t in ax.texts]
        assert colours == ["white", "white", "black", "black", "black"] * 2
