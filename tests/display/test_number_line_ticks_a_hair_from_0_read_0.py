"""The number line's tick labels (helpers.plots.number_line): a tick matplotlib places at float noise beside 0
(1e139 on a line of 1e150s) is written as 0 - a value within EDGE (a billionth) of a step of 0 counts as 0,
exactly at that edge included - while a value just past it is written as itself, by the shared number rule.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

import helpers  # noqa: E402
from helpers import plots  # noqa: E402


@pytest.fixture(scope="module")
def huge():
    """The formatter and the tick step of a number line of values about 1e150 (ticks 5e149 apart)."""
    figure = plots.number_line(helpers.layer_norm_steps(np.array([1e150, 2e150, 3.5e150])))
    ax = figure.axes[0]
    ticks = ax.xaxis.get_majorticklocs()
    yield ax.xaxis.get_major_formatter(), abs(ticks[1] - ticks[0])
    plt.close(figure)


def test_a_tick_at_float_noise_beside_0_reads_0(huge):
    formatter, step = huge
    assert step == pytest.approx(5e149)
    assert formatter(0.0, 0) == "0"
    assert formatter(step * 1e-11, 0) == "0"
    assert formatter(-step * 1e-11, 0) == "0"
    assert formatter(step * 1e-9, 0) == "0"  # exactly at the edge: still 0


def test_a_value_past_the_edge_is_written_as_itself(huge):
    formatter, step = huge
    assert formatter(step * 2e-9, 0) == "1.0e+141"
    assert formatter(step, 0) == "5.0e+149"
    assert formatter(-2 * step, 0) == "-1.0e+150"
