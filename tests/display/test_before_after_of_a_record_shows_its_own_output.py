"""``before_after(record)`` and ``before_after_text(record)``: a record from ``layer_norm_steps`` is shown with
its own output - made with its own eps, γ and β, or rounded by hand - not LayerNorm of its input again with
the default eps. Expected values from numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from helpers import plots  # noqa: E402
from helpers.core.layernorm import layer_norm_steps  # noqa: E402

pytestmark = pytest.mark.draws

ROW = np.array([1.133, -0.299, 0.503])
GAMMA, BETA, EPS = np.array([2.0, 1.0, 0.5]), np.array([1.0, 0.0, -1.0]), 0.25


@pytest.fixture(autouse=True)
def close_figures(monkeypatch):
    monkeypatch.setattr(plots, "_legend_clear_of_bars", lambda ax: None)  # not at issue here; four draws
    yield
    plt.close("all")


def expected_output():
    normalised = (ROW - ROW.mean()) / np.sqrt(ROW.var() + EPS)
    return GAMMA * normalised + BETA


def after_heights(figure):
    ax = figure.axes[0]
    return [a.get_height() for a in ax.get_children() if isinstance(a, Rectangle) and a.get_gid() == "after"]


def test_the_bars_after_are_the_records_output_with_its_eps_gamma_and_beta():
    record = layer_norm_steps(ROW, eps=EPS, gamma=GAMMA, beta=BETA)
    np.testing.assert_allclose(after_heights(plots.before_after(record)), expected_output(), atol=1e-12)


def test_the_text_after_column_is_the_records_output():
    record = layer_norm_steps(ROW, eps=EPS, gamma=GAMMA, beta=BETA)
    lines = plots.before_after_text(record).splitlines()
    table = lines[lines.index(next(line for line in lines if line.startswith("feature"))) + 1 :]
    assert [line.split() for line in table] == [
        [f"f{j + 1}", f"{ROW[j]:.4f}", f"{y:.4f}"] for j, y in enumerate(expected_output())
    ]


def test_a_record_rounded_by_hand_shows_its_rounded_output():
    record = layer_norm_steps(ROW, decimals=2)
    np.testing.assert_allclose(after_heights(plots.before_after(record)), record.output)
    assert all(round(float(v), 2) == float(v) for v in after_heights(plots.before_after(record)))
