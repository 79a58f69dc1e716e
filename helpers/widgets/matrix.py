"""3. Matrix editor: every row in and out side by side; editing a cell recomputes the output."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np

from helpers.core.data import parse_number
from helpers.core.layernorm import DEFAULT_EPS, frozen_array, layer_norm, layer_norm_steps
from helpers.core.validation import check_matrix, check_row_index, eps_from_text
from helpers.display import format_eps, show_matrix, side_by_side, stage_names, steps_html, steps_text
from helpers.widgets.accessibility import name
from helpers.widgets.base import (
    LABEL_FITS,
    MAX_MATRIX_CELLS,
    MESSAGE_COLOUR,
    LessonWidget,
    as_text,
    message_lines,
    never_raises,
    number_text,
    refuse_decimal_comma,
    sentence,
)


class MatrixEditor(LessonWidget):
    """Every row in and out side by side; editing a cell recomputes the whole output. Made by :func:`matrix_editor`."""

    def __init__(self, matrix, row=0, eps=DEFAULT_EPS, stages=None):
        super().__init__()
        self.add_class("layernorm-matrix-editor")  # the lecture's presenter styles its grid for the room
        self.stages = stage_names(stages, "stages") or None
        self.matrix = check_matrix(matrix)
        rows, columns = self.matrix.shape
        if self.matrix.size > MAX_MATRIX_CELLS:
            raise ValueError(
                f"matrix_editor makes one box per cell, at most {MAX_MATRIX_CELLS}; this matrix has "
                f"{self.matrix.size}. Show a larger one with helpers.show_matrix."
            )
        self.eps = eps_from_text(eps)
        self._row = check_row_index(row, rows)
        self._output = frozen_array(layer_norm(self.matrix, eps=self.eps))
        self.record = layer_norm_steps(self.matrix[self._row], eps=self.eps)
        # Each cell's name is its description, "row 1, feature f1": to the eye the grid's row and column
        # headers say it, so the label is zero-wide (in the page, so read out, but not drawn; the
        # "visually hidden" label). ipywidgets 8 links it to the input (<label for>); 7.7 (Colab) does
        # not, so there the name is also the label's hover text (helpers.widgets.accessibility.name).
        self.cells = [
            [
                name(
                    widgets.Text(
                        value=number_text(v),
                        description=f"row {i + 1}, feature f{j + 1}",
                        continuous_update=False,
                        style={"description_width": "0px"},
                        layout=widgets.Layout(width="90px"),
                    ),
                    f"row {i + 1}, feature f{j + 1}",
                )
                for j, v in enumerate(line)
            ]
            for i, line in enumerate(self.matrix)
        ]
        for line in self.cells:
            for cell in line:
                cell.observe(self._on_cell, names="value")
                cell.add_class("layernorm-cell")
        self.row_labels = [widgets.Label(layout=widgets.Layout(width="76px")) for _ in range(rows)]  # fits "▶ row 10"
        self.row_lines = [widgets.HBox([label, *line]) for label, line in zip(self.row_labels, self.cells)]
        header = widgets.HBox(
            [widgets.Label("", layout=widgets.Layout(width="76px"))]
            + [widgets.Label(f"f{j + 1}", layout=widgets.Layout(width="90px")) for j in range(columns)]
        )
        for label in [*self.row_labels, *header.children]:
            label.add_class("layernorm-grid-label")
        self.row_picker = widgets.Dropdown(
            options=[(f"row {i + 1}", i) for i in range(rows)],
            value=self._row,
            description="current row:",
            layout=widgets.Layout(width="220px"),
            **LABEL_FITS,
        )
        self.row_picker.observe(self._on_row, names="value")
        self.eps_text = widgets.Text(
            value=number_text(self.eps),
            description="ε:",
            continuous_update=False,
            layout=widgets.Layout(width="200px"),
            **LABEL_FITS,
        )
        self.eps_text.observe(self._on_cell, names="value")
        self.message_html = widgets.HTML(layout=widgets.Layout(min_height="24px"))  # no jump when a message appears
        self.output_html = widgets.HTML()
        self.steps_html = widgets.HTML()
        self.children = [
            widgets.HBox(
                [self.row_picker, self.eps_text], layout=widgets.Layout(align_items="center", flex_flow="row wrap")
            ),
            self.message_html,
            widgets.HBox(
                [
                    widgets.VBox([widgets.HTML("<b>input X</b> (edit any cell)"), header, *self.row_lines]),
                    self.output_html,
                ],  # side by side when there is room, else the output below
                layout=widgets.Layout(align_items="flex-start", flex_flow="row wrap", grid_gap="0 16px"),
            ),
            self.steps_html,
        ]
        self._render()

    @property
    def output(self) -> np.ndarray:
        """LayerNorm of the last good matrix (read-only)."""
        return self._output

    @never_raises
    def set_cell(self, i, j, text) -> None:
        """Type ``text`` into the cell at row ``i``, feature ``j`` (both counted from 0)."""
        rows, columns = self.matrix.shape
        whole = [isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in (i, j)]  # True is no row
        if not (all(whole) and 0 <= i < rows and 0 <= j < columns):
            self._problems = {
                "cell": f"There is no cell ({i}, {j}); rows go from 0 to {rows - 1} and features "
                f"from 0 to {columns - 1}."
            }
            self._render()
            return
        self.cells[i][j].value = as_text(text)

    def set_eps(self, value) -> None:
        """Type eps into its entry (text or a number)."""
        self.eps_text.value = as_text(value)

    @never_raises
    def select_row(self, index) -> None:
        """Make row ``index`` (row 1 is index 0) the current row."""
        try:
            self.row_picker.value = check_row_index(index, self.matrix.shape[0])
        except ValueError as problem:
            self._problems = {**self._problems, "row": str(problem)}
            self._render()

    @never_raises
    def _on_cell(self, change=None) -> None:
        problems = {}
        matrix = np.empty_like(self.matrix)
        for i, line in enumerate(self.cells):
            for j, cell in enumerate(line):
                try:
                    matrix[i, j] = parse_number(refuse_decimal_comma(cell.value))
                except ValueError as problem:
                    problems[f"cell {i},{j}"] = sentence(f"row {i + 1}, feature {j + 1}: the cell {problem}")
        try:
            eps = eps_from_text(refuse_decimal_comma(self.eps_text.value))
        except ValueError as problem:
            problems["eps"] = str(problem)
        if not problems:
            try:
                output = layer_norm(matrix, eps=eps)
                row = self._edited_row(change)  # the breakdown follows the row last edited
                record = layer_norm_steps(matrix[row], eps=eps)
            except ValueError as problem:
                problems["matrix"] = str(problem)
            else:
                self.matrix, self.eps, self._output, self.record = matrix, eps, frozen_array(output), record
                self._follow(row)
        self._problems = problems
        self._render()

    def _edited_row(self, change) -> int:
        """The row of the cell just edited, or the current row (an eps edit, or a call from code)."""
        owner = change.get("owner") if isinstance(change, dict) else None
        for i, line in enumerate(self.cells):
            if any(cell is owner for cell in line):
                return i
        return self._row

    def _follow(self, row: int) -> None:
        """Make ``row`` current, moving the drop-down too without recomputing twice."""
        self._row = row
        self._following = True
        try:
            self.row_picker.value = row
        finally:
            self._following = False

    @never_raises
    def _on_row(self, change) -> None:
        if getattr(self, "_following", False):
            return
        self._row = change["new"]
        self._problems = {key: text for key, text in self._problems.items() if key != "row"}
        self.record = layer_norm_steps(self.matrix[self._row], eps=self.eps)
        self._render()

    def _render(self) -> None:
        self._show_problems()
        bad = {key for key in self._problems if key.startswith("cell ")}
        for i, (label, line) in enumerate(zip(self.row_labels, self.cells)):
            label.value = f"▶ row {i + 1}" if i == self._row else f"row {i + 1}"
            self.row_lines[i].layout.border = "2px solid #0072B2" if i == self._row else ""
            for j, cell in enumerate(line):
                cell.layout.border = f"2px solid {MESSAGE_COLOUR}" if f"cell {i},{j}" in bad else ""
        self.output_html.value = show_matrix(
            self._output, title=f"LayerNorm(X), eps = {format_eps(self.eps)}", highlight_row=self._row
        )._repr_html_()
        self.steps_html.value = steps_html(self.record, stages=self.stages)

    def text(self) -> str:
        matrices = side_by_side(
            show_matrix(self.matrix, title="input X", highlight_row=self._row),
            show_matrix(self._output, title=f"LayerNorm(X), eps = {format_eps(self.eps)}", highlight_row=self._row),
        )
        lines = [
            f"Matrix editor: row {self._row + 1} is the current row (◀)",
            matrices,
            "",
            steps_text(self.record, stages=self.stages),
        ]
        return "\n".join(lines + message_lines(self._problems))


def matrix_editor(matrix, row=0, eps=DEFAULT_EPS, stages=None) -> MatrixEditor:
    """Edit a small matrix cell by cell and see LayerNorm of every row beside it, the current row
    highlighted and worked out in full below (``stages`` picks the stages shown there, e.g. for a
    projected slide; None shows all). Introduced in notebook 01.
    """
    return MatrixEditor(matrix, row=row, eps=eps, stages=stages)
