"""The √3 circle of more rows than there are row colours (7, Okabe–Ito) and markers: row 8 is drawn as row 1
is, row 9 as row 2 - every row still drawn, each cross in its own row's colour - rather than failing.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_hex  # noqa: E402

from helpers import plots  # noqa: E402
from helpers.plots import circle  # noqa: E402

pytestmark = pytest.mark.draws

NINE = np.array([[np.cos(a), np.sin(a), -np.cos(a) - np.sin(a)] for a in np.linspace(0.1, 6.0, 9)]) + [0.5, 0, 0]


@pytest.fixture(autouse=True)
def close_figures(monkeypatch):
    # the legend's corner is not at issue here, and finding it draws the figure (a third of a second)
    monkeypatch.setattr(circle, "_legend_clear_of_labels", lambda ax, points: None)
    yield
    plt.close("all")


def by_gid(ax, gid):
    (found,) = [line for line in ax.lines if line.get_gid() == gid]
    return found


def test_rows_8_and_9_take_the_colour_and_marker_of_rows_1_and_2():
    ax = plots.normalised_circle(NINE, extra_points=NINE[:, [1, 2, 0]] * 0.5, extra_label="p").axes[0]
    for i in range(9):
        point = by_gid(ax, f"row {i + 1}")
        assert to_hex(point.get_markerfacecolor()) == plots.ROW_COLOURS[i % 7].lower()
        assert point.get_marker() == plots.ROW_MARKERS[i % 7]
        cross = by_gid(ax, f"p {i + 1}")
        assert to_hex(cross.get_markeredgecolor()) == plots.ROW_COLOURS[i % 7].lower()
    assert by_gid(ax, "row 8").get_marker() == by_gid(ax, "row 1").get_marker() == "o"
    assert to_hex(by_gid(ax, "row 9").get_markerfacecolor()) == "#e69f00"
