"""``before_after`` of a matrix: "one panel per row", laid out three to a line (4.2 inches wide and 3.6 tall
each), the unused places of the last line left empty; one row alone is one panel 8 by
3.6 inches.
"""

from __future__ import annotations

import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from helpers import plots  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402

pytestmark = pytest.mark.draws


@pytest.fixture(autouse=True)
def close_figures(monkeypatch):
    # the legend's corner is not at issue here, and finding it draws the figure four times (a second)
    monkeypatch.setattr(plots, "_legend_clear_of_bars", lambda ax: None)
    yield
    plt.close("all")


def grid(figure):
    """(lines, columns) of the panel grid, and each visible panel's (line, column), in the order drawn."""
    specs = [ax.get_subplotspec() for ax in figure.axes if ax.get_visible()]
    lines, columns = specs[0].get_gridspec().get_geometry()
    return (lines, columns), [(spec.rowspan.start, spec.colspan.start) for spec in specs]


@pytest.mark.parametrize(
    ("rows", "shape", "size"),
    [(1, (1, 1), (8.0, 3.6)), (2, (1, 2), (8.4, 3.6)), (3, (1, 3), (12.6, 3.6)), (5, (2, 3), (12.6, 7.2))],
)
def test_panels_stand_three_to_a_line_in_reading_order(rows, shape, size):
    figure = plots.before_after(X[:rows])
    found_shape, places = grid(figure)
    assert found_shape == shape
    assert places == [(i // 3, i % 3) for i in range(rows)]
    assert tuple(figure.get_size_inches()) == pytest.approx(size)
    assert len(figure.axes) == shape[0] * shape[1]  # the places left over are there, and hidden
    assert sum(not ax.get_visible() for ax in figure.axes) == shape[0] * shape[1] - rows
