"""The matrix editor's text form and current row as a learner follows them: the input and LayerNorm(X) side by
side, the current row marked ◀ in both and named in the first line, after picking a row and editing a cell.

Expected numbers are worked out here in plain numpy (conftest.numpy_layer_norm) from the lesson's matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402
from helpers.widgets import matrix as matrix_module  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from conftest import numpy_layer_norm, numpy_stages  # noqa: E402
from widget_driver import highlighted_labels, rows_by_label  # noqa: E402

GAP = "    "  # between the input and the output


def four(value) -> str:
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def matrix_lines(title, values, current):
    """One matrix as the text form prints it: its title, the feature names, one line per row, ◀ at ``current``."""
    columns = values.shape[1]
    lines = [title, " " * 5 + "".join(f"{f'f{j + 1}':>9}" for j in range(columns))]
    for i, line in enumerate(values):
        lines.append(f"row {i + 1}" + "".join(f"{four(v):>9}" for v in line) + ("  ◀" if i == current else ""))
    return lines


def head(matrix, current, eps_text="1e-05"):
    """The text form's first lines: which row is current, then the input and LayerNorm(X) side by side."""
    left = matrix_lines("input X", matrix, current)
    right = matrix_lines(f"LayerNorm(X), eps = {eps_text}", numpy_layer_norm(matrix), current)
    width = max(len(line) for line in left)
    side_by_side = [f"{a:<{width}}{GAP}{b}" for a, b in zip(left, right)]
    return [f"Matrix editor: row {current + 1} is the current row (◀)", *side_by_side]


def shown_head(editor):
    return repr(editor).splitlines()[: 3 + X.shape[0]]


def test_the_text_form_puts_input_and_output_side_by_side_with_the_current_row_marked():
    editor = widgets.matrix_editor(X, row=3)
    assert shown_head(editor) == head(X, current=3)
    editor.select_row(0)
    assert shown_head(editor) == head(X, current=0)
    assert repr(editor).splitlines()[3 + X.shape[0]] == ""  # a blank line before the worked-out row


def test_editing_a_cell_makes_its_row_current_in_the_text_form_and_the_grid():
    editor = widgets.matrix_editor(X, row=0)
    editor.cells[2][1].value = "-2.5"  # typed into row 3, feature f2
    changed = np.array(X)
    changed[2, 1] = -2.5
    assert shown_head(editor) == head(changed, current=2)
    assert editor.row_picker.value == 2 and editor.row_picker.label == "row 3"
    assert [label.value for label in editor.row_labels] == ["row 1", "row 2", "▶ row 3", "row 4", "row 5"]
    assert highlighted_labels(editor.output_html.value) == ["row 3"]
    shown = [float(v) for v in rows_by_label(editor.steps_html.value)["input"].cells[2:5]]
    assert shown == [0.766, -2.5, -0.518]
    np.testing.assert_allclose(editor.record.output, numpy_stages(changed[2])["output"], atol=1e-12)


def test_eps_typed_is_in_the_text_forms_output_title():
    editor = widgets.matrix_editor(X, row=1)
    editor.set_eps("0.1")
    left = matrix_lines("input X", X, 1)
    right = matrix_lines("LayerNorm(X), eps = 0.1", numpy_layer_norm(X, eps=0.1), 1)
    width = max(len(line) for line in left)
    assert shown_head(editor)[1:] == [f"{a:<{width}}{GAP}{b}" for a, b in zip(left, right)]


def test_editing_a_cell_in_another_row_works_that_row_out_once(monkeypatch):
    """_follow moves the drop-down to the edited row without the drop-down's handler working it out again."""
    editor = widgets.matrix_editor(X, row=0)
    worked_out = []
    real = matrix_module.layer_norm_steps

    def counting(row, **kwargs):
        worked_out.append(list(row))
        return real(row, **kwargs)

    monkeypatch.setattr(matrix_module, "layer_norm_steps", counting)
    editor.set_cell(4, 0, "1.5")
    assert worked_out == [[1.5, 0.779, 0.648]]
    assert editor.row_picker.value == 4 and editor.message == ""
    editor.row_picker.value = 1  # picking a row works it out once too
    assert worked_out[1:] == [list(X[1])]


@pytest.mark.parametrize("cell", [(True, 0), (0, False), (1.0, 0), (-1, 0), (5, 0), (0, 3)])
def test_a_cell_that_is_not_one_of_the_grids_is_refused_in_one_sentence_and_nothing_changes(cell):
    editor = widgets.matrix_editor(X, row=1)
    before = (shown_head(editor), editor.matrix.copy(), [[c.value for c in row] for row in editor.cells])
    editor.set_cell(*cell, "9")
    i, j = cell
    assert editor.message == (
        f"There is no cell ({i}, {j}); rows go from 0 to 4 and features from 0 to 2."
    )  # a bool is no index: select_row refuses True too
    assert (shown_head(editor), editor.matrix.tolist(), [[c.value for c in row] for row in editor.cells]) == (
        before[0],
        before[1].tolist(),
        before[2],
    )
