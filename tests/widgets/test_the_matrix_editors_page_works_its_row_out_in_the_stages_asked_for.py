"""``matrix_editor(..., stages=...)``: the current row "worked out in full below (``stages`` picks the stages
shown there, e.g. for a projected slide; None shows all)" - in the page (the HTML a learner sees), as in the text
form, from the start and after an edit or a change of row.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from widget_driver import four, rows_by_label  # noqa: E402

EVERY_STAGE = ["input", "mean", "differences", "squares", "variance", "epsilon", "variance + ε", "std"]
EVERY_STAGE += ["normalised", "output"]


def test_the_page_shows_only_the_stages_asked_for_through_edits_and_row_changes():
    editor = widgets.matrix_editor(X, stages=("std", "normalised"))
    assert list(rows_by_label(editor.steps_html.value)) == ["std", "normalised"]
    editor.set_cell(0, 0, "2.5")
    std = rows_by_label(editor.steps_html.value)["std"]
    row = [2.5, X[0][1], X[0][2]]
    mean = sum(row) / 3
    assert four((sum((v - mean) ** 2 for v in row) / 3 + 1e-5) ** 0.5) in std.cells
    editor.select_row(3)
    assert list(rows_by_label(editor.steps_html.value)) == ["std", "normalised"]
    assert four((X[3].var() + 1e-5) ** 0.5) in rows_by_label(editor.steps_html.value)["std"].cells


def test_without_stages_the_page_shows_every_stage():
    editor = widgets.matrix_editor(X)
    assert list(rows_by_label(editor.steps_html.value)) == EVERY_STAGE
