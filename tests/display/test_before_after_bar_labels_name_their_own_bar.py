"""Each bar of helpers.plots.before_after carries its own value, written to 3 places above (or below) it.

The picture (notebook 05) shows feature j's value before LayerNorm (x, the left bar) and after (y, the right
bar); up to LABEL_AT_MOST values each bar is labelled with its number. A label belongs to the bar it stands
on: the number written over the blue bar of f2 is x₂, the one over the orange bar is y₂. Expected numbers come
from numpy here, not from the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # headless for this test process only

from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.patches import Rectangle  # noqa: E402

from helpers import plots  # noqa: E402

pytestmark = pytest.mark.draws


def exact_layer_norm(row, eps=1e-5):
    centred = row - row.mean()
    return centred / np.sqrt((centred**2).mean() + eps)


def labels_by_bar(ax, gid):
    """The label text standing on each bar of ``gid``, left to right (matched by the bar's centre)."""
    found = []
    for bar in sorted(
        (a for a in ax.get_children() if isinstance(a, Rectangle) and a.get_gid() == gid), key=Rectangle.get_x
    ):
        centre = bar.get_x() + bar.get_width() / 2
        (text,) = [t.get_text() for t in ax.texts if abs(t.xy[0] - centre) < 1e-9]
        found.append(text)
    return found


@pytest.mark.parametrize("row", [[1.133, -0.299, 0.503], [4.0, -2.5, 0.25, 7.75]])
def test_each_value_is_written_on_its_own_bar(row):
    row = np.asarray(row)
    ax = plots.before_after(row).axes[0]
    assert labels_by_bar(ax, "before") == [f"{v:.3f}" for v in row]
    assert labels_by_bar(ax, "after") == [f"{v:.3f}".replace("-0.000", "0.000") for v in exact_layer_norm(row)]
