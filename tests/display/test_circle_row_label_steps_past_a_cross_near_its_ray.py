"""``normalised_circle``: a row's label sits outside the circle on its point's own ray, at 1.22·√3 - or, when an
extra cross lies near that ray (less than 0.35 rad either side), 0.35 beyond that cross. A cross 0.33 rad off
the ray pushes the label out; one 0.37 rad off leaves it at 1.22·√3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from helpers import plots  # noqa: E402
from helpers.plots import circle  # noqa: E402

pytestmark = pytest.mark.draws

U = np.array([1.0, -1.0, 0.0]) / math.sqrt(2)
V = np.array([1.0, 1.0, -2.0]) / math.sqrt(6)
ROW = math.radians(-30)  # 60° from every feature axis


@pytest.fixture(autouse=True)
def close_figures(monkeypatch):
    monkeypatch.setattr(circle, "_legend_clear_of_labels", lambda ax, points: None)  # not at issue here
    yield
    plt.close("all")


def at(angle, distance):
    return distance * (math.cos(angle) * U + math.sin(angle) * V)


def row_1_label(cross_angle):
    figure = plots.normalised_circle([at(ROW, 1.0), at(ROW + math.pi, 1.0)], extra_points=[at(cross_angle, 2.6)])
    (label,) = [t for t in figure.axes[0].texts if t.get_text() == "row 1"]
    return np.asarray(label.xyann)


@pytest.mark.parametrize("turn", [0.0, 0.33, -0.33])
def test_a_cross_near_the_ray_puts_the_label_035_beyond_it(turn):
    np.testing.assert_allclose(row_1_label(ROW + turn), 2.95 * np.array([math.cos(ROW), math.sin(ROW)]), atol=1e-9)


@pytest.mark.parametrize("turn", [0.37, -0.37])
def test_a_cross_farther_off_the_ray_leaves_the_label_at_122_root3(turn):
    expected = 1.22 * math.sqrt(3) * np.array([math.cos(ROW), math.sin(ROW)])
    np.testing.assert_allclose(row_1_label(ROW + turn), expected, atol=1e-9)
