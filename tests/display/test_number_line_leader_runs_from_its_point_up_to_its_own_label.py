"""The number line's value labels (helpers.plots.number_line.NumberLine): each label is joined to its value by a
leader, a line at the value itself from just above its point (0.08 above the line) up to just under its own
label (0.04 below it), whichever of the three heights the label was put at - also after a redraw.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test

import helpers  # noqa: E402
from helpers.plots.number_line import NumberLine  # noqa: E402


def check_leaders(line, values):
    segments = [np.asarray(s) for s in line.leaders.get_segments()]
    assert len(segments) == len(line.labels) == len(values)
    for value, label, segment in zip(values, line.labels, segments):
        _, height = label.get_position()
        np.testing.assert_allclose(segment, [[value, 0.08], [value, height - 0.04]], atol=1e-12)
    return sorted({label.get_position()[1] for label in line.labels})


def test_each_leader_reaches_its_own_label_at_whatever_height_it_sits():
    _, ax = plt.subplots(figsize=(8, 2.8), layout="constrained")
    line = NumberLine(ax)
    crowded = [0.0, 0.01, 0.02, 0.03, 5.0]  # labels too close to share a height
    line.update(helpers.layer_norm_steps(crowded))
    heights = check_leaders(line, crowded)
    assert len(heights) >= 2 and set(heights) <= {0.35, 0.65, 0.95}
    apart = [1.133, -0.299, 0.503]
    line.update(helpers.layer_norm_steps(apart))
    check_leaders(line, apart)
