"""The step explorer after picking a row it cannot work out (row 5 of the lesson's matrix, by hand at 2 places:
its std rounds to 0): the row picker holds row 5, but the matrix above the steps keeps marking the row whose
steps are shown (row 1), and the steps' title names that row - so the marked row and the numbers agree.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from widget_driver import highlighted_labels  # noqa: E402


def test_a_row_that_fails_leaves_the_last_good_row_marked_and_titled():
    explorer = widgets.step_explorer(X, row=0, decimals=2)
    explorer.select_row(4)
    assert explorer.row_picker.value == 4 and "row 5" in explorer.message
    assert highlighted_labels(explorer.matrix_html.value) == ["row 1"]
    assert "row 1, eps = 1e-05" in explorer.stages_html.value
    assert "row 5, eps" not in explorer.stages_html.value


def test_picking_a_good_row_after_it_marks_that_row():
    explorer = widgets.step_explorer(X, row=0, decimals=2)
    explorer.select_row(4)
    explorer.select_row(2)
    assert explorer.message == ""
    assert highlighted_labels(explorer.matrix_html.value) == ["row 3"]
    assert "row 3, eps = 1e-05" in explorer.stages_html.value
