"""6. A live table: any controls above any table that helpers can show."""

from __future__ import annotations

import ipywidgets as widgets

from helpers.widgets.base import LessonWidget, never_raises


class LiveTable(LessonWidget):
    """Controls above a table that is made again whenever a control changes. Made by :func:`live_table`."""

    def __init__(self, make_table, **controls):
        super().__init__()
        self.make_table, self.controls = make_table, controls
        self.message_html = widgets.HTML()
        self.table_html = widgets.HTML()
        self.current = self.make_table(**self.values())  # a bad start raises here, in the notebook cell
        for control in controls.values():
            control.observe(self._on_control, names="value")
            _label_fits(control)
        self.children = [*controls.values(), self.message_html, self.table_html]
        self._render()

    def values(self) -> dict:
        """The controls' current values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    @never_raises
    def _on_control(self, _change=None) -> None:
        try:
            self.current, self._problems = self.make_table(**self.values()), {}
        except ValueError as problem:
            self._problems = {"table": str(problem)}
        self._render()

    def _render(self) -> None:
        self._show_problems()
        self.table_html.value = self.current._repr_html_()

    def text(self) -> str:
        return "\n".join([str(self.current)] + [f"⚠ {text}" for text in self._problems.values()])


def _label_fits(control) -> None:
    """A control's description as wide as its words: ipywidgets' default 80 px cut "learning rate" and
    "implementation" on a laptop. A width the notebook chose is kept."""
    style = getattr(control, "style", None)
    if getattr(control, "description", "") and style is not None and hasattr(style, "description_width"):
        if not style.description_width:
            style.description_width = "initial"


def live_table(make_table, **controls) -> LiveTable:
    """Show ``make_table(**values)`` below the given ipywidgets controls, made again on every change.

    ``make_table`` returns anything with ``_repr_html_`` and ``str`` (e.g. :func:`helpers.show_matrix`);
    a ``ValueError`` it raises is shown as a message and the last good table stays. Introduced in
    notebook 09, e.g. ``live_table(sweep_one, offset=FloatLogSlider(...), dtype=Dropdown(...))``.
    """
    return LiveTable(make_table, **controls)
