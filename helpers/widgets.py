"""Widgets to play with LayerNorm in a notebook: edit a row, step through a lecture, edit a matrix, check an answer.

Only core ipywidgets, and only what ipywidgets 7.7 (Google Colab) and 8.1 (JupyterLab, Notebook 7)
both have, so the same notebook runs unchanged everywhere. Every widget:

- computes with ``helpers.layernorm`` and shows numbers through ``helpers.display``;
- renders results into HTML values (not printed into an Output), so a stored notebook is the same
  with or without a browser;
- prints as its current numbers in aligned text (``repr``), which is what a terminal, nbval and
  GitHub's notebook viewer show;
- never raises from a callback: bad input shows a message in plain words next to its field and the
  last good numbers stay on screen.

Each widget has methods (``set_row``, ``next``, ``set_cell``, ``check``, ...) that go through the
same handlers as a person's edit, for tests and for notebooks that set values in code.
Introduced in notebook 01 (``matrix_editor``, ``multiple_choice``); ``row_editor`` and
``answer_checker`` come in notebook 02, ``step_explorer`` in notebook 03.
"""

from __future__ import annotations

import functools
import html
import io
import math

import ipywidgets as widgets
import numpy as np

from helpers import answer_check
from helpers.data import parse_number, parse_row, split_row
from helpers.display import (
    STAGE_LABELS,
    filled_formulas_html,
    filled_formulas_text,
    format_eps,
    show_matrix,
    side_by_side,
    stage_names,
    steps_html,
    steps_text,
)
from helpers.layernorm import DEFAULT_EPS, as_float_array, frozen_array, layer_norm, layer_norm_steps

# ipywidgets 8 gives a widget's text form through _repr_mimebundle_, 7.x through _ipython_display_.
IPYWIDGETS_8 = hasattr(widgets.Widget, "_repr_mimebundle_")

MAX_VALUE_BOXES = 12  # rows up to this long get one box per value as well as the paste field
EPS_SLIDER_EXPONENTS = (-12, -1)  # the eps slider runs from 1e-12 to 1e-1
MAX_MATRIX_CELLS = 400  # matrix_editor makes one text box per cell
# The stages the step explorer reveals, in order; "output" is the gamma/beta step.
EXPLORER_STAGES = ("input", "mean", "differences", "squared_differences", "variance", "variance_plus_eps",
                   "std", "normalised", "output")

_MESSAGE_COLOUR = "#a33c00"  # a dark vermillion (Okabe–Ito), always with a ⚠ so colour is not needed
_WIDE = {"style": {"description_width": "initial"}}


# ---------------------------------------------------------------------------------------------
# What every widget here shares


class NumbersBox(widgets.VBox):
    """A VBox whose plain-text form is its current numbers, not ``VBox(children=...)``.

    A subclass defines ``text()``. Every widget here is one; notebooks 09 to 12 build small live tables on it.
    Problems with what was typed are kept in ``_problems`` (field name → plain words) and shown in
    ``message_html``, an HTML widget the subclass places.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._problems: dict[str, str] = {}

    def text(self) -> str:
        raise NotImplementedError

    @property
    def message(self) -> str:
        """The current problems in plain words ("" when there is none)."""
        return " ".join(self._problems.values())

    def _show_problems(self) -> None:
        self.message_html.value = "<br>".join(_message_html(text) for text in self._problems.values())

    def __repr__(self) -> str:
        try:
            return self.text()
        except Exception:  # still being built: a repr must never fail
            return f"{type(self).__name__}()"

    __str__ = __repr__

    # ipywidgets cuts the text form at 110 characters; publish all of it instead.
    if IPYWIDGETS_8:

        def _repr_mimebundle_(self, **kwargs):
            data = super()._repr_mimebundle_(**kwargs) or {}
            data["text/plain"] = repr(self)
            return data

    else:

        def _ipython_display_(self, **kwargs):
            from IPython.display import display

            data = {
                "text/plain": repr(self),
                "application/vnd.jupyter.widget-view+json": {
                    "version_major": 2, "version_minor": 0, "model_id": self._model_id,
                },
            }
            display(data, raw=True)
            self._handle_displayed(**kwargs)


def _never_raises(handler):
    """Wrap a widget callback: an unexpected error becomes a message, never a traceback in the notebook."""

    @functools.wraps(handler)
    def run(self, *args, **kwargs):
        try:
            return handler(self, *args, **kwargs)
        except Exception as problem:  # noqa: BLE001 - a callback must not raise into the notebook
            self._problems = {**getattr(self, "_problems", {}), "general": f"Something went wrong: {problem}"}
            try:
                self._show_problems()
            except Exception:  # noqa: BLE001 - not even showing the message may raise
                pass
            return None

    return run


def _message_html(text: str) -> str:
    return f'<span style="color:{_MESSAGE_COLOUR}">⚠ {html.escape(text, quote=False)}</span>' if text else ""


def _message_lines(problems: dict) -> list[str]:
    if not problems:
        return []
    return [f"⚠ {text}" for text in problems.values()] + ["  (showing the last good result)"]


def _as_text(value) -> str:
    """What a person would have typed for ``value``: text as it is, numbers so they read back exactly."""
    if isinstance(value, str):
        return value
    if np.ndim(value) == 0:
        return _number_text(value)
    return ", ".join(_number_text(v) for v in np.asarray(value, dtype=object).ravel())


def _number_text(value) -> str:
    """The shortest text that reads back as exactly ``value``: ``1`` (not ``1.0``), ``0.503``, ``1e-05``."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        text = repr(float(value) + 0.0)  # + 0.0 turns -0.0 into 0.0
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _check_matrix(matrix) -> np.ndarray:
    array = as_float_array(matrix).astype(np.float64)  # a copy, so editing it leaves ``matrix`` alone
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2 or array.size == 0:
        raise ValueError(f"Give a matrix: rows of numbers, all the same length; got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ValueError("The matrix contains NaN or infinity; LayerNorm needs finite numbers.")
    return array


def _check_row_index(index, rows: int) -> int:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < rows:
        raise ValueError(f"Pick a row by its index from 0 to {rows - 1} (row 1 is index 0); got {index!r}.")
    return int(index)


def _check_eps_value(eps) -> float:
    if isinstance(eps, str):
        eps = _parse_eps(eps)
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.integer, np.floating)):
        given = "nothing (None)" if eps is None else type(eps).__name__
        raise ValueError(f"ε must be a number such as 1e-5; got {given}.")
    eps = float(eps)
    if not math.isfinite(eps) or eps <= 0:
        raise ValueError(f"ε must be greater than 0 (PyTorch uses 1e-5); got {eps:g}.")
    return eps


def _number_argument(value, name: str) -> float:
    """A finite number given in code (or as text), or a ValueError naming ``name``."""
    try:
        number = parse_number(value) if isinstance(value, str) else float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number; got {value!r}.") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number; got {value!r}.")
    return number


def _parse_eps(text: str) -> float:
    """eps as typed into a box, or a ValueError saying what is wrong with it."""
    try:
        return parse_number(text)
    except ValueError as problem:
        raise ValueError(f"ε {problem}.") from None


# ---------------------------------------------------------------------------------------------
# 1. Row editor


class RowEditor(NumbersBox):
    """Edit one row, eps, gamma and beta and see every stage of LayerNorm update at once.

    Made by :func:`row_editor`. ``record`` is the last good :class:`~helpers.layernorm.LayerNormSteps`;
    ``message`` the current problem in plain words ("" when there is none).
    """

    def __init__(self, row, eps=DEFAULT_EPS, gamma=None, beta=None, decimals=None, focus=None, plot=False):
        super().__init__()
        values = parse_row(_as_text(row))
        eps = _check_eps_value(eps)
        self.focus = stage_names(focus, "focus")
        self.record = layer_norm_steps(values, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
        self._syncing = self._typing_in_boxes = False
        self._parsed_rows: dict[str, np.ndarray] = {}

        def text_box(value, description, placeholder="", width="420px"):
            box = widgets.Text(value=value, description=description, placeholder=placeholder,
                               continuous_update=False, layout=widgets.Layout(width=width), **_WIDE)
            box.observe(self._on_field_edit, names="value")
            return box

        self.row_text = text_box(_as_text(row), "row x:", "numbers separated by commas or spaces")
        self.value_boxes_row = widgets.HBox()
        self.value_boxes: list[widgets.Text] = []
        self._make_value_boxes()
        low, high = EPS_SLIDER_EXPONENTS
        self.eps_slider = widgets.FloatLogSlider(
            value=min(max(eps, 10.0**low), 10.0**high), base=10, min=low, max=high, step=0.1,
            description="ε (log scale):", readout_format=".1e", continuous_update=False, **_WIDE)
        self.eps_slider.observe(self._on_eps_slider, names="value")
        self.eps_text = text_box(_number_text(eps), "exact ε:", "e.g. 1e-5", width="200px")
        self.gamma_text = text_box("" if gamma is None else _as_text(gamma), "gamma γ:", "empty: 1 for every feature")
        self.beta_text = text_box("" if beta is None else _as_text(beta), "beta β:", "empty: 0 for every feature")
        self.by_hand = widgets.Checkbox(value=decimals is not None, description="by hand, rounding every step to",
                                        indent=False, layout=widgets.Layout(width="auto"))
        self.places = widgets.BoundedIntText(value=3 if decimals is None else int(decimals), min=0, max=12,
                                             description="places", layout=widgets.Layout(width="130px"))
        self.by_hand.observe(self._on_field_edit, names="value")
        self.places.observe(self._on_field_edit, names="value")
        self.messages = {name: widgets.HTML() for name in ("row", "eps", "gamma", "beta", "decimals", "general")}
        self.table = widgets.HTML()
        self.plot_image = widgets.Image(format="png", layout=widgets.Layout(width="600px")) if plot else None
        self._picture = _NumberLinePicture() if plot else None

        def line(*children):
            return widgets.HBox(list(children), layout=widgets.Layout(align_items="center"))

        self.children = [
            line(self.row_text, self.messages["row"]),
            self.value_boxes_row,
            line(self.eps_slider, self.eps_text, self.messages["eps"]),
            line(self.gamma_text, self.messages["gamma"]),
            line(self.beta_text, self.messages["beta"]),
            line(self.by_hand, self.places, self.messages["decimals"]),
            self.messages["general"],
            self.table,
        ] + ([self.plot_image] if plot else [])
        self._render()

    # --- what a person does, in code

    def set_row(self, text_or_values) -> None:
        """Type a row into the paste field (text as pasted, or a list of numbers)."""
        self.row_text.value = _as_text(text_or_values)

    def set_eps(self, value) -> None:
        """Type eps into the exact entry (text or a number)."""
        self.eps_text.value = _as_text(value)

    def set_gamma(self, values) -> None:
        """Type gamma, one value per feature (None or "" for all 1s)."""
        self.gamma_text.value = "" if values is None else _as_text(values)

    def set_beta(self, values) -> None:
        """Type beta, one value per feature (None or "" for all 0s)."""
        self.beta_text.value = "" if values is None else _as_text(values)

    @_never_raises
    def set_decimals(self, decimals) -> None:
        """Switch "by hand" on with ``decimals`` places (0 to 12), or off with None."""
        if decimals is None:
            self.by_hand.value = False
            return
        if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or not 0 <= decimals <= 12:
            self._problems = {**self._problems, "decimals": f"places must be a whole number from 0 to 12; got {decimals!r}."}
            self._show_problems()
            return
        self.places.value = int(decimals)
        self.by_hand.value = True

    # --- handlers

    @_never_raises
    def _on_field_edit(self, change=None) -> None:
        if self._syncing:
            return
        pasted = change is not None and change["owner"] is self.row_text and not self._typing_in_boxes
        self._recompute(sync_boxes=pasted)

    @_never_raises
    def _on_value_box(self, change) -> None:
        if self._syncing:
            return
        for position, box in enumerate(self.value_boxes, start=1):
            try:
                parse_number(box.value)  # one number per box: an empty box must not drop a value
            except ValueError as problem:
                self._problems = {**self._problems, "row": f"Value {position} {problem}."}
                self._render()
                return
        joined = ", ".join(box.value.strip() for box in self.value_boxes)
        if joined == self.row_text.value:  # typed back to what it was: no change event, so recompute here
            self._recompute()
            return
        self._typing_in_boxes = True
        try:
            self.row_text.value = joined
        finally:
            self._typing_in_boxes = False

    @_never_raises
    def _on_eps_slider(self, change) -> None:
        if not self._syncing:
            self.eps_text.value = f"{change['new']:.3g}"

    def _recompute(self, sync_boxes: bool = False) -> None:
        problems = {}
        row = self._read("row", lambda: self._parse_row(self.row_text.value), problems)
        eps = self._read("eps", lambda: _check_eps_value(self.eps_text.value), problems)
        gamma = self._read("gamma", lambda: self._per_feature(self.gamma_text.value, "γ", row), problems)
        beta = self._read("beta", lambda: self._per_feature(self.beta_text.value, "β", row), problems)
        decimals = int(self.places.value) if self.by_hand.value else None
        if not problems:
            try:
                self.record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
            except ValueError as problem:
                problems[self._blame(row, eps, decimals)] = str(problem)
        self._problems = problems
        if row is not None and "row" not in problems:
            if sync_boxes or len(row) != len(self.value_boxes):
                self._make_value_boxes()
        if eps is not None and "eps" not in problems:
            self._syncing = True
            try:
                self.eps_slider.value = eps  # the slider clamps values outside its range
            finally:
                self._syncing = False
        self._render()

    @staticmethod
    def _blame(row, eps, decimals) -> str:
        """The field a failed computation is about: the row itself, the places kept by hand, or
        neither ("general", e.g. γ or β so large that γ · x̂ + β overflows)."""
        for field, places in (("row", None), ("decimals", decimals)):
            try:
                layer_norm_steps(row, eps=eps, decimals=places)
            except ValueError:
                return field
        return "general"

    @staticmethod
    def _read(name, parse, problems):
        try:
            return parse()
        except ValueError as problem:
            problems[name] = str(problem)
            return None

    def _parse_row(self, text: str) -> np.ndarray:
        if text not in self._parsed_rows:  # a long row is parsed once, not on every edit of eps
            self._parsed_rows = {text: parse_row(text)}
        return self._parsed_rows[text]

    @staticmethod
    def _per_feature(text: str, name: str, row):
        if not text.strip():
            return None
        try:
            values = parse_row(text)
        except ValueError as problem:
            raise ValueError(f"{name}: {problem}") from None
        if row is not None and len(values) != len(row):
            default = "1s" if name == "γ" else "0s"
            raise ValueError(f"{name} needs one value per feature: {len(row)} values; got {len(values)}. "
                             f"Leave it empty for all {default}.")
        return values

    def _make_value_boxes(self) -> None:
        """One small box per value (rows up to MAX_VALUE_BOXES long), showing each value of the paste
        field as it was typed there."""
        typed = split_row(self.row_text.value)
        self._syncing = True
        try:
            if len(typed) != len(self.value_boxes):
                for box in self.value_boxes:
                    box.close()
                self.value_boxes = []
                if len(typed) <= MAX_VALUE_BOXES:
                    for j in range(len(typed)):
                        box = widgets.Text(description=f"x{j + 1}", continuous_update=False,
                                           layout=widgets.Layout(width="130px"), style={"description_width": "24px"})
                        box.observe(self._on_value_box, names="value")
                        self.value_boxes.append(box)
                self.value_boxes_row.children = self.value_boxes
            for box, text in zip(self.value_boxes, typed):
                box.value = text
        finally:
            self._syncing = False

    def _show_problems(self) -> None:
        for name, message_widget in self.messages.items():
            message_widget.value = _message_html(self._problems.get(name, ""))

    def _render(self) -> None:
        self._show_problems()
        self.table.value = steps_html(self.record, self.focus)
        if self.plot_image is not None:
            self.plot_image.value = self._picture.png(self.record)

    def text(self) -> str:
        return "\n".join([steps_text(self.record, self.focus), *_message_lines(self._problems)])


class _NumberLinePicture:
    """The number line of a record as PNG bytes, redrawn on one reused Figure (outside pyplot, so
    nothing piles up and nothing is shown twice). Reusing the Figure keeps a redraw under 100 ms."""

    def __init__(self):
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(7.5, 2.6), dpi=80)

    def png(self, record) -> bytes:
        from helpers.plots import number_line

        self.figure.clear()  # this also resets the margins, so set them each time
        self.figure.subplots_adjust(left=0.06, right=0.98, bottom=0.24, top=0.88)
        number_line(record, ax=self.figure.add_subplot())
        buffer = io.BytesIO()
        # light compression: a little larger, much faster to encode
        self.figure.savefig(buffer, format="png", metadata={"Software": None}, pil_kwargs={"compress_level": 1})
        return buffer.getvalue()


def row_editor(row, eps=DEFAULT_EPS, gamma=None, beta=None, decimals=None, focus=None, plot=False) -> RowEditor:
    """A row editor: the row (paste field and one box per value), eps (log slider and exact entry),
    gamma and beta per feature, a "by hand" switch; every stage with its formula updates at once.

    ``focus`` names a stage to emphasise, or several: ``"mean"`` or ``("std", "normalised")``;
    ``plot=True`` adds the number line.
    Introduced in notebook 02.
    """
    return RowEditor(row, eps=eps, gamma=gamma, beta=beta, decimals=decimals, focus=focus, plot=plot)


# ---------------------------------------------------------------------------------------------
# 2. Step-through explorer


class StepExplorer(NumbersBox):
    """Reveal one stage of LayerNorm at a time for a chosen row. Made by :func:`step_explorer`."""

    def __init__(self, matrix, row=0, eps=DEFAULT_EPS, gamma=None, beta=None, decimals=None):
        super().__init__()
        self.matrix = _check_matrix(matrix)
        self.eps = _check_eps_value(eps)
        self._gamma, self._beta, self._decimals = gamma, beta, decimals
        row = _check_row_index(row, self.matrix.shape[0])
        self.record = layer_norm_steps(self.matrix[row], eps=self.eps, gamma=gamma, beta=beta, decimals=decimals)
        self._shown_row = row  # the row of ``record`` (the picker may hold a row that failed)
        self._position = 0
        self.row_picker = widgets.Dropdown(options=[(f"row {i + 1}", i) for i in range(self.matrix.shape[0])],
                                           value=row, description="row:", layout=widgets.Layout(width="160px"))
        self.previous_button = widgets.Button(description="◀ Previous", layout=widgets.Layout(width="110px"))
        self.next_button = widgets.Button(description="Next ▶", layout=widgets.Layout(width="110px"))
        self.show_all_toggle = widgets.ToggleButton(value=False, description="show all",
                                                    layout=widgets.Layout(width="100px"))
        self.position_label = widgets.Label()
        self.message_html = widgets.HTML()
        self.matrix_html = widgets.HTML()
        self.stages_html = widgets.HTML()
        self.row_picker.observe(self._on_row, names="value")
        self.previous_button.on_click(self._on_previous)
        self.next_button.on_click(self._on_next)
        self.show_all_toggle.observe(self._on_show_all, names="value")
        self.children = [
            widgets.HBox([self.row_picker, self.previous_button, self.next_button, self.show_all_toggle,
                          self.position_label], layout=widgets.Layout(align_items="center")),
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
        """Press Next: reveal the next stage."""
        self.next_button.click()

    def previous(self) -> None:
        """Press Previous: hide the last stage shown."""
        self.previous_button.click()

    def show_all(self, flag: bool = True) -> None:
        """Switch "show all" on or off."""
        self.show_all_toggle.value = bool(flag)

    @_never_raises
    def select_row(self, index) -> None:
        """Pick a row of the matrix by its index (row 1 is index 0)."""
        try:
            index = _check_row_index(index, self.matrix.shape[0])
        except ValueError as problem:
            self._problems = {"row": str(problem)}
            self._render()
            return
        self.row_picker.value = index

    @_never_raises
    def _on_row(self, change) -> None:
        try:
            self.record = layer_norm_steps(self.matrix[change["new"]], eps=self.eps, gamma=self._gamma,
                                           beta=self._beta, decimals=self._decimals)
            self._shown_row, self._problems = change["new"], {}
        except ValueError as problem:
            self._problems = {"row": f"row {change['new'] + 1}: {problem}"}
        self._render()

    @_never_raises
    def _on_next(self, _button=None) -> None:
        self._position = min(self._position + 1, len(EXPLORER_STAGES) - 1)
        self._render()

    @_never_raises
    def _on_previous(self, _button=None) -> None:
        self._position = max(self._position - 1, 0)
        self._render()

    @_never_raises
    def _on_show_all(self, change) -> None:
        self._render()

    def _visible(self) -> tuple[str, ...]:
        """The stages shown: those revealed so far, or all of them with "show all" on."""
        last = len(EXPLORER_STAGES) - 1 if self.show_all_toggle.value else self._position
        return EXPLORER_STAGES[:last + 1]

    def _position_text(self) -> str:
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
        self.stages_html.value = filled_formulas_html(self.record, self._visible(), focus=self.stage,
                                                      title=f"row {row + 1}, eps = {format_eps(self.eps)}")

    def text(self) -> str:
        title = (f"Step through LayerNorm: row {self._shown_row + 1} of {self.matrix.shape[0]}, "
                 f"eps = {format_eps(self.eps)}; {self._position_text()}")
        lines = [title, filled_formulas_text(self.record, self._visible(), focus=self.stage)]
        return "\n".join(lines + _message_lines(self._problems))


def step_explorer(matrix, row=0, eps=DEFAULT_EPS, gamma=None, beta=None, decimals=None) -> StepExplorer:
    """A lecture explorer: pick a row of ``matrix``; Next and Previous reveal one stage at a time, each with
    its formula and the numbers filled in; "show all" reveals every stage. Introduced in notebook 03.
    """
    return StepExplorer(matrix, row=row, eps=eps, gamma=gamma, beta=beta, decimals=decimals)


# ---------------------------------------------------------------------------------------------
# 3. Matrix view


class MatrixEditor(NumbersBox):
    """Every row in and out side by side; editing a cell recomputes the whole output. Made by :func:`matrix_editor`."""

    def __init__(self, matrix, row=0, eps=DEFAULT_EPS):
        super().__init__()
        self.matrix = _check_matrix(matrix)
        rows, columns = self.matrix.shape
        if self.matrix.size > MAX_MATRIX_CELLS:
            raise ValueError(f"matrix_editor makes one box per cell, at most {MAX_MATRIX_CELLS}; this matrix has "
                             f"{self.matrix.size}. Show a larger one with helpers.show_matrix.")
        self.eps = _check_eps_value(eps)
        self._row = _check_row_index(row, rows)
        self._output = frozen_array(layer_norm(self.matrix, eps=self.eps))
        self.record = layer_norm_steps(self.matrix[self._row], eps=self.eps)
        self.cells = [[widgets.Text(value=_number_text(v), continuous_update=False,
                                    layout=widgets.Layout(width="90px")) for v in line] for line in self.matrix]
        for line in self.cells:
            for cell in line:
                cell.observe(self._on_cell, names="value")
        self.row_labels = [widgets.Label(layout=widgets.Layout(width="60px")) for _ in range(rows)]
        self.row_lines = [widgets.HBox([label, *line]) for label, line in zip(self.row_labels, self.cells)]
        header = widgets.HBox([widgets.Label("", layout=widgets.Layout(width="60px"))] + [
            widgets.Label(f"f{j + 1}", layout=widgets.Layout(width="90px")) for j in range(columns)])
        self.row_picker = widgets.Dropdown(options=[(f"row {i + 1}", i) for i in range(rows)], value=self._row,
                                           description="current row:", layout=widgets.Layout(width="220px"), **_WIDE)
        self.row_picker.observe(self._on_row, names="value")
        self.eps_text = widgets.Text(value=_number_text(self.eps), description="ε:", continuous_update=False,
                                     layout=widgets.Layout(width="200px"), **_WIDE)
        self.eps_text.observe(self._on_cell, names="value")
        self.message_html = widgets.HTML()
        self.output_html = widgets.HTML()
        self.steps_html = widgets.HTML()
        self.children = [
            widgets.HBox([self.row_picker, self.eps_text], layout=widgets.Layout(align_items="center")),
            self.message_html,
            widgets.HBox([widgets.VBox([widgets.HTML("<b>input X</b> (edit any cell)"), header, *self.row_lines]),
                          self.output_html], layout=widgets.Layout(align_items="flex-start")),
            self.steps_html,
        ]
        self._render()

    @property
    def output(self) -> np.ndarray:
        """LayerNorm of the last good matrix (read-only)."""
        return self._output

    @_never_raises
    def set_cell(self, i, j, text) -> None:
        """Type ``text`` into the cell at row ``i``, feature ``j`` (both counted from 0)."""
        rows, columns = self.matrix.shape
        if not (isinstance(i, (int, np.integer)) and isinstance(j, (int, np.integer))
                and 0 <= i < rows and 0 <= j < columns):
            self._problems = {"cell": f"There is no cell ({i}, {j}); rows go from 0 to {rows - 1} and features "
                                      f"from 0 to {columns - 1}."}
            self._render()
            return
        self.cells[i][j].value = _as_text(text)

    def set_eps(self, value) -> None:
        """Type eps into its entry (text or a number)."""
        self.eps_text.value = _as_text(value)

    @_never_raises
    def select_row(self, index) -> None:
        """Make row ``index`` (row 1 is index 0) the current row."""
        try:
            self.row_picker.value = _check_row_index(index, self.matrix.shape[0])
        except ValueError as problem:
            self._problems = {**self._problems, "row": str(problem)}
            self._render()

    @_never_raises
    def _on_cell(self, change=None) -> None:
        problems = {}
        matrix = np.empty_like(self.matrix)
        for i, line in enumerate(self.cells):
            for j, cell in enumerate(line):
                try:
                    matrix[i, j] = parse_number(cell.value)
                except ValueError as problem:
                    problems[f"cell {i},{j}"] = f"row {i + 1}, feature {j + 1}: the cell {problem}."
        try:
            eps = _check_eps_value(self.eps_text.value)
        except ValueError as problem:
            problems["eps"] = str(problem)
        if not problems:
            try:
                output = layer_norm(matrix, eps=eps)
                record = layer_norm_steps(matrix[self._row], eps=eps)
            except ValueError as problem:
                problems["matrix"] = str(problem)
            else:
                self.matrix, self.eps, self._output, self.record = matrix, eps, frozen_array(output), record
        self._problems = problems
        self._render()

    @_never_raises
    def _on_row(self, change) -> None:
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
                cell.layout.border = f"2px solid {_MESSAGE_COLOUR}" if f"cell {i},{j}" in bad else ""
        self.output_html.value = show_matrix(self._output, title=f"LayerNorm(X), eps = {format_eps(self.eps)}",
                                             highlight_row=self._row)._repr_html_()
        self.steps_html.value = steps_html(self.record)

    def text(self) -> str:
        matrices = side_by_side(show_matrix(self.matrix, title="input X", highlight_row=self._row),
                                show_matrix(self._output, title=f"LayerNorm(X), eps = {format_eps(self.eps)}",
                                            highlight_row=self._row))
        lines = [f"Matrix editor: row {self._row + 1} is the current row (◀)", matrices, "", steps_text(self.record)]
        return "\n".join(lines + _message_lines(self._problems))


def matrix_editor(matrix, row=0, eps=DEFAULT_EPS) -> MatrixEditor:
    """Edit a small matrix cell by cell and see LayerNorm of every row beside it, the current row
    highlighted and worked out in full below. Introduced in notebook 01.
    """
    return MatrixEditor(matrix, row=row, eps=eps)


# ---------------------------------------------------------------------------------------------
# 4. Check your answer


class AnswerChecker(NumbersBox):
    """Type a value you computed and be told at once whether it is right. Made by :func:`answer_checker`."""

    _KIND_MARKS = {answer_check.RIGHT: "✓ Right", answer_check.ROUNDING: "≈ Right up to rounding",
                   answer_check.WRONG: "✗ Not yet"}

    def __init__(self, row, quantity, index=None, eps=DEFAULT_EPS):
        super().__init__()
        self.row = parse_row(_as_text(row))
        self.eps = _check_eps_value(eps)
        self.question = answer_check.question_text(self.row, quantity, index, self.eps)
        self.quantity, self.index = quantity, index
        self.verdict: answer_check.Verdict | None = None
        self._answer_text = ""
        self.answer_box = widgets.Text(description="your answer:", placeholder="e.g. 0.446", continuous_update=False,
                                       layout=widgets.Layout(width="300px"), **_WIDE)
        self.check_button = widgets.Button(description="Check", layout=widgets.Layout(width="80px"))
        self.message_html = widgets.HTML()
        self.verdict_html = widgets.HTML()
        self.answer_box.observe(self._on_answer, names="value")
        self.check_button.on_click(self._on_answer)
        self.children = [
            widgets.HTML(f"<b>Check your answer.</b> {html.escape(self.question)}"),
            widgets.HBox([self.answer_box, self.check_button, self.message_html],
                         layout=widgets.Layout(align_items="center")),
            self.verdict_html,
        ]

    def check(self, text):
        """Type ``text`` and press Check. Returns the verdict, or None when the text is not a number."""
        if self.answer_box.value == _as_text(text):
            self.check_button.click()
        else:
            self.answer_box.value = _as_text(text)
        return None if self._problems else self.verdict

    @_never_raises
    def _on_answer(self, _change=None) -> None:
        text = self.answer_box.value
        try:
            verdict = answer_check.diagnose(self.row, self.quantity, text, index=self.index, eps=self.eps)
        except ValueError as problem:
            message = str(problem)
            self._problems = {"answer": message if message[0].isupper() else f"Your answer {message}."}
        else:
            self.verdict, self._answer_text, self._problems = verdict, text.strip(), {}
        self._render()

    def _render(self) -> None:
        self._show_problems()
        if self.verdict is not None:
            colour = "#005a87" if self.verdict.is_right else _MESSAGE_COLOUR
            self.verdict_html.value = (f'<div style="color:{colour}"><b>{self._KIND_MARKS[self.verdict.kind]}</b> '
                                       f"({html.escape(self._answer_text)}): {html.escape(self.verdict.hint)}</div>")

    def text(self) -> str:
        lines = [f"Check your answer: {self.question}"]
        if self.verdict is not None:
            lines.append(f"  your answer: {self._answer_text}")
            lines.append(f"  {self._KIND_MARKS[self.verdict.kind]}: {self.verdict.hint}")
        else:
            lines.append("  (type your answer and press Enter or Check)")
        return "\n".join(lines + _message_lines(self._problems))


def answer_checker(row, quantity, index=None, eps=DEFAULT_EPS) -> AnswerChecker:
    """A check-your-answer box for ``quantity`` ("mean", "variance", "std" or "normalised", with ``index``
    counted from 0 picking the value) of ``row``; the verdict comes from :func:`helpers.answer_check.diagnose`.
    Introduced in notebook 02.
    """
    return AnswerChecker(row, quantity, index=index, eps=eps)


# ---------------------------------------------------------------------------------------------
# 5. A question with a few answers to choose from


class _Question(NumbersBox):
    """What the check-yourself questions share: a verdict under the question, with ``explanation``
    after a right answer and ``hint`` after a wrong one. A subclass says whether the question is
    ``answered`` and ``right``, and how its verdict begins (``_verdict_start``)."""

    answered: bool
    right: bool

    def _verdict_start(self) -> str:
        raise NotImplementedError

    def _verdict(self) -> str:
        if not self.answered:
            return ""
        mark, words = ("✓", self.explanation) if self.right else ("✗", self.hint)
        return f"{mark} {self._verdict_start()}. {words}".strip()

    def _render(self) -> None:
        self._show_problems()
        colour = "#005a87" if self.right else _MESSAGE_COLOUR
        self.verdict_html.value = f'<div style="color:{colour}">{html.escape(self._verdict())}</div>'


class MultipleChoice(_Question):
    """Choose one answer and be told at once whether it is right. Made by :func:`multiple_choice`."""

    def __init__(self, question, options, answer, explanation="", hint=""):
        super().__init__()
        self.options = [str(option) for option in options]
        if str(answer) not in self.options:
            raise ValueError(f"The answer {answer!r} is not one of the options: {', '.join(self.options)}.")
        self.question, self.answer = str(question), str(answer)
        self.explanation, self.hint = str(explanation), str(hint)
        self.choice: str | None = None
        self.message_html = widgets.HTML()
        self.buttons = widgets.RadioButtons(options=self.options, value=None, layout=widgets.Layout(width="auto"))
        self.buttons.observe(self._on_choice, names="value")
        self.verdict_html = widgets.HTML()
        self.children = [widgets.HTML(f"<b>Check yourself.</b> {html.escape(self.question)}"), self.buttons,
                         self.message_html, self.verdict_html]

    @_never_raises
    def choose(self, option) -> None:
        """Choose ``option``, as a click would (an option not on the list shows a message)."""
        if str(option) not in self.options:
            self._problems = {"choice": f"{option!r} is not one of the options: {', '.join(self.options)}."}
            self._show_problems()
            return
        self.buttons.value = str(option)

    @_never_raises
    def _on_choice(self, change) -> None:
        self.choice, self._problems = change["new"], {}
        self._render()

    @property
    def answered(self) -> bool:
        return self.choice is not None

    @property
    def right(self) -> bool:
        return self.choice is not None and self.choice == self.answer

    def _verdict_start(self) -> str:
        return f"Right: {self.answer}" if self.right else f"Not {self.choice}"

    def text(self) -> str:
        lines = [f"Check yourself: {self.question}"]
        lines += [f"  {'(•)' if option == self.choice else '( )'} {option}" for option in self.options]
        lines.append(f"  {self._verdict()}" if self.choice is not None else "  (choose an answer)")
        return "\n".join(lines + [f"⚠ {text}" for text in self._problems.values()])


def multiple_choice(question, options, answer, explanation="", hint="") -> MultipleChoice:
    """A check-yourself question with ``options`` to choose from; ``explanation`` follows a right answer,
    ``hint`` a wrong one. For questions :func:`answer_checker` cannot ask. Introduced in notebook 01.
    """
    return MultipleChoice(question, options, answer, explanation=explanation, hint=hint)


# ---------------------------------------------------------------------------------------------
# 6. A live table: any controls above any table that helpers can show


class LiveTable(NumbersBox):
    """Controls above a table that is made again whenever a control changes. Made by :func:`live_table`."""

    def __init__(self, make_table, **controls):
        super().__init__()
        self.make_table, self.controls = make_table, controls
        self.message_html = widgets.HTML()
        self.table_html = widgets.HTML()
        self.current = self.make_table(**self.values())  # a bad start raises here, in the notebook cell
        for control in controls.values():
            control.observe(self._on_control, names="value")
        self.children = [*controls.values(), self.message_html, self.table_html]
        self._render()

    def values(self) -> dict:
        """The controls' current values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    @_never_raises
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


def live_table(make_table, **controls) -> LiveTable:
    """Show ``make_table(**values)`` below the given ipywidgets controls, made again on every change.

    ``make_table`` returns anything with ``_repr_html_`` and ``str`` (e.g. :func:`helpers.show_matrix`);
    a ``ValueError`` it raises is shown as a message and the last good table stays. Introduced in
    notebook 09, e.g. ``live_table(sweep_one, offset=FloatLogSlider(...), dtype=Dropdown(...))``.
    """
    return LiveTable(make_table, **controls)


# ---------------------------------------------------------------------------------------------
# 7. A check-yourself question whose answer is any one number


class NumberQuestion(_Question):
    """Type one number and be told whether it is right. Made by :func:`number_question`."""

    def __init__(self, question, answer, tolerance, hint="", explanation=""):
        super().__init__()
        answer, tolerance = _number_argument(answer, "The answer"), _number_argument(tolerance, "The tolerance")
        if tolerance < 0:
            raise ValueError(f"The tolerance must be a number 0 or larger; got {tolerance:g}.")
        self.question, self.answer, self.tolerance = str(question), answer, tolerance
        self.hint, self.explanation = str(hint), str(explanation)
        self.typed: float | None = None
        self.answer_box = widgets.Text(placeholder="your answer", continuous_update=False)
        self.answer_box.observe(self._on_answer, names="value")
        self.message_html, self.verdict_html = widgets.HTML(), widgets.HTML()
        self.children = [widgets.HTML(f"<b>Check yourself.</b> {html.escape(self.question)}"),
                         widgets.HBox([self.answer_box, self.message_html]), self.verdict_html]

    def check(self, text) -> bool | None:
        """Check ``text`` as if typed into the box: True if right, False if wrong, None if not a number."""
        self.answer_box.value = str(text)
        return None if self.typed is None else self.right

    @property
    def answered(self) -> bool:
        return self.typed is not None

    @property
    def right(self) -> bool:
        return self.typed is not None and abs(self.typed - self.answer) <= self.tolerance

    @_never_raises
    def _on_answer(self, change) -> None:
        try:
            self.typed, self._problems = parse_number(change["new"]), {}
        except ValueError as problem:
            self.typed, self._problems = None, {"answer": f"Your answer {problem}."}
        self._render()

    def _verdict_start(self) -> str:
        return "Right" if self.right else "Not yet"

    def text(self) -> str:
        verdict = self._verdict() or "(type your answer and press Enter)"
        return "\n".join([f"Check yourself: {self.question}", f"  {verdict}"]
                         + [f"⚠ {text}" for text in self._problems.values()])


def number_question(question, answer, tolerance, hint="", explanation="") -> NumberQuestion:
    """A check-yourself question whose answer is one number, right within ``tolerance``.

    For questions :func:`answer_checker` cannot ask; ``hint`` follows a wrong answer, ``explanation``
    a right one. Introduced in notebook 11.
    """
    return NumberQuestion(question, answer, tolerance, hint=hint, explanation=explanation)
