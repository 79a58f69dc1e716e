"""2. Step-through explorer: reveal one stage of LayerNorm at a time for a chosen row."""

from __future__ import annotations

import ipywidgets as widgets

from helpers.core.layernorm import DEFAULT_EPS, layer_norm_steps
from helpers.core.validation import check_matrix, check_row_index, eps_from_text
from helpers.display import (
    STAGE_LABELS,
    filled_formulas_html,
    filled_formulas_text,
    format_eps,
    mode_text,
    show_matrix,
)
from helpers.widgets.base import (
    EXPLORER_STAGES,
    LessonWidget,
    message_lines,
    never_raises,
)


class StepExplorer(LessonWidget):
    """Reveal one stage of LayerNorm at a time for a chosen row. Made by :func:`step_explorer`."""

    def __init__(self, matrix, row=0, eps=DEFAULT_EPS, gamma=None, beta=None, decimals=None):
        super().__init__()
        self.matrix = check_matrix(matrix)
        self.eps = eps_from_text(eps)
        self._gamma, self._beta, self._decimals = gamma, beta, decimals
        row = check_row_index(row, self.matrix.shape[0])
        self.record = layer_norm_steps(self.matrix[row], eps=self.eps, gamma=gamma, beta=beta, decimals=decimals)
        self._shown_row = row  # the row of ``record`` (the picker may hold a row that failed)
        self._position = 0
        self.row_picker = widgets.Dropdown(
            options=[(f"row {i + 1}", i) for i in range(self.matrix.shape[0])],
            value=row,
            description="row:",
            layout=widgets.Layout(width="160px"),
        )
        self.previous_button = widgets.Button(description="◀ Previous", layout=widgets.Layout(width="110px"))
        self.next_button = widgets.Button(description="Next ▶", layout=widgets.Layout(width="110px"))
        self.show_all_toggle = widgets.ToggleButton(
            value=False, description="show all", layout=widgets.Layout(width="100px")
        )
        self.position_label = widgets.Label(layout=widgets.Layout(width="auto"))  # never cut off: it wraps below
        self.message_html = widgets.HTML(layout=widgets.Layout(min_height="24px"))  # no jump when a message appears
        self.matrix_html = widgets.HTML()
        self.stages_html = widgets.HTML()
        self.row_picker.observe(self._on_row, names="value")
        self.previous_button.on_click(self._on_previous)
        self.next_button.on_click(self._on_next)
        self.show_all_toggle.observe(self._on_show_all, names="value")
        self.children = [
            widgets.HBox(
                [self.row_picker, self.previous_button, self.next_button, self.show_all_toggle, self.position_label],
                layout=widgets.Layout(align_items="center", flex_flow="row wrap"),
            ),
            self.message_html,
            self.matrix_html,
            self.stages_html,
        ]
        self._render()

    @property
    def stage(self) -> str:
        """The stage shown last (one of ``EXPLORER_STAGES``)."""
        return EXPLORER_STAGES[self._position]

    def next(self) -> None:
        """Press Next: reveal the next stage (nothing while Next is disabled, as for a person)."""
        self.next_button.click()

    def previous(self) -> None:
        """Press Previous: hide the last stage shown (nothing while Previous is disabled)."""
        self.previous_button.click()

    def show_all(self, flag: bool = True) -> None:
        """Switch "show all" on or off."""
        self.show_all_toggle.value = bool(flag)

    @never_raises
    def select_row(self, index) -> None:
        """Pick a row of the matrix by its index (row 1 is index 0)."""
        try:
            index = check_row_index(index, self.matrix.shape[0])
        except ValueError as problem:
            self._problems = {"row": str(problem)}
            self._render()
            return
        self.row_picker.value = index

    @never_raises
    def _on_row(self, change) -> None:
        try:
            self.record = layer_norm_steps(
                self.matrix[change["new"]], eps=self.eps, gamma=self._gamma, beta=self._beta, decimals=self._decimals
            )
            self._shown_row, self._problems = change["new"], {}
        except ValueError as problem:
            self._problems = {"row": f"row {change['new'] + 1}: {problem}"}
        self._render()

    # A disabled button does nothing when a person clicks it; ``Button.click()`` from code runs the handlers
    # all the same, so each handler checks first: code and tests then press the buttons as a person does.
    @never_raises
    def _on_next(self, _button=None) -> None:
        if self.next_button.disabled:
            return
        self._position = min(self._position + 1, len(EXPLORER_STAGES) - 1)
        self._render()

    @never_raises
    def _on_previous(self, _button=None) -> None:
        if self.previous_button.disabled:
            return
        self._position = max(self._position - 1, 0)
        self._render()

    @never_raises
    def _on_show_all(self, change) -> None:
        # The toggle says what pressing it does: show all the steps, or go back to one step at a time.
        self.show_all_toggle.description = "step by step" if change["new"] else "show all"
        self._render()

    def _visible(self) -> tuple[str, ...]:
        """The stages shown: those revealed so far, or all of them with "show all" on."""
        last = len(EXPLORER_STAGES) - 1 if self.show_all_toggle.value else self._position
        return EXPLORER_STAGES[: last + 1]

    def _position_text(self) -> str:
        if self.show_all_toggle.value:
            return f"all {len(EXPLORER_STAGES)} steps shown"
        step = f"step {self._position + 1} of {len(EXPLORER_STAGES)}: {STAGE_LABELS[self.stage][0]}"
        if self._position + 1 < len(EXPLORER_STAGES):
            step += f" (next: {STAGE_LABELS[EXPLORER_STAGES[self._position + 1]][0]})"
        return step

    def _render(self) -> None:
        self._show_problems()
        self.previous_button.disabled = self._position == 0
        self.next_button.disabled = self._position == len(EXPLORER_STAGES) - 1
        self.position_label.value = self._position_text()
        row = self._shown_row
        self.matrix_html.value = show_matrix(self.matrix, title="X (rows are tokens)", highlight_row=row)._repr_html_()
        self.stages_html.value = filled_formulas_html(
            self.record,
            self._visible(),
            focus=self.stage,
            title=f"row {row + 1}, eps = {format_eps(self.eps)}, {mode_text(self.record)}",
        )

    def text(self) -> str:
        title = (
            f"Step through LayerNorm: row {self._shown_row + 1} of {self.matrix.shape[0]}, "
            f"eps = {format_eps(self.eps)}, {mode_text(self.record)}; {self._position_text()}"
        )
        lines = [title, filled_formulas_text(self.record, self._visible(), focus=self.stage)]
        return "\n".join(lines + message_lines(self._problems))


def step_explorer(matrix, row=0, eps=DEFAULT_EPS, gamma=None, beta=None, decimals=None) -> StepExplorer:
    """A lecture explorer: pick a row of ``matrix``; Next and Previous reveal one stage at a time, each with
    its formula and the numbers filled in; "show all" reveals every stage. Introduced in notebook 03.
    """
    return StepExplorer(matrix, row=row, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
