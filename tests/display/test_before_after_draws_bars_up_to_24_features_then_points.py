"""``before_after``: a row of up to 24 features is two bars per feature (before and after, at tick "fj"); a
longer row would be a comb of slivers, so from 25 features each value is a point, and no bar is drawn.
Exactly at the boundary and one feature past it. Expected heights from numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.patches import Rectangle  # noqa: E402

from helpers import plots  # noqa: E402

from conftest import numpy_layer_norm  # noqa: E402

pytestmark = pytest.mark.draws


def bars(ax, gid):
    return [a for a in ax.get_children() if isinstance(a, Rectangle) and a.get_gid() == gid]


def points(ax, gid):
    return [line for line in ax.lines if line.get_gid() == gid]


def test_a_row_of_24_features_is_two_bars_per_feature():
    row = np.sin(np.arange(1.0, 25.0)) * 3 + 1
    _, ax = plt.subplots()
    plots._draw_before_after(ax, row, numpy_layer_norm(row), "title")  # the panel, without the legend's search
    assert len(bars(ax, "before")) == 24 and len(bars(ax, "after")) == 24
    np.testing.assert_allclose([b.get_height() for b in bars(ax, "after")], numpy_layer_norm(row), atol=1e-12)
    assert not points(ax, "before") and not points(ax, "after")
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"f{j}" for j in range(1, 25)]


def test_a_row_of_25_features_is_one_point_per_value_and_no_bar():
    row = np.sin(np.arange(1.0, 26.0)) * 3 + 1
    ax = plots.before_after(row).axes[0]
    assert not bars(ax, "before") and not bars(ax, "after")
    (before,), (after,) = points(ax, "before"), points(ax, "after")
    np.testing.assert_allclose(before.get_xydata(), np.column_stack([np.arange(1, 26), row]))
    np.testing.assert_allclose(after.get_ydata(), numpy_layer_norm(row), atol=1e-12)
