"""``matrix_heatmaps`` of rows of equal values: LayerNorm makes every value 0, and the output's heatmap still
has a scale (−1 to 1, zero in the middle, so every cell is the middle colour), with each cell written "0.0"
in black; the input's own scale is ± its largest value, its cells white on the dark ends.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test

from helpers import plots  # noqa: E402


def test_rows_of_equal_values_give_an_output_heatmap_from_minus_1_to_1_written_in_black():
    x = np.array([[5.0, 5.0, 5.0], [-2.0, -2.0, -2.0]])
    left, right = (ax for ax in plots.matrix_heatmaps(x).axes if ax.images)
    (image,) = right.images
    assert (image.norm.vmin, image.norm.vmax) == (-1.0, 1.0)
    np.testing.assert_array_equal(image.get_array(), np.zeros((2, 3)))
    assert [(t.get_text(), t.get_color()) for t in right.texts] == [("0.0", "black")] * 6
    (image,) = left.images
    assert (image.norm.vmin, image.norm.vmax) == (-5.0, 5.0)
    assert [(t.get_text(), t.get_color()) for t in left.texts] == [("5.0", "white")] * 3 + [("-2.0", "black")] * 3
