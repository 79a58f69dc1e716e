"""1. Row editor: one row, eps, gamma and beta; every stage of LayerNorm updates at once."""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np

from helpers.core.data import parse_number, parse_row, split_row
from helpers.core.layernorm import DEFAULT_EPS, layer_norm_steps
from helpers.core.validation import MAX_DECIMALS, InputError, check_decimals, eps_from_text
from helpers.display import format_values, stage_names, steps_html, steps_text
from helpers.display.number_line import number_line_alt, number_line_svg, number_line_text
from helpers.widgets.accessibility import (
    caption_html,
    result_sentence,
    status_html,
    visually_hidden_html,
)
from helpers.widgets.base import (
    EPS_SLIDER_EXPONENTS,
    LABEL_FITS,
    MAX_VALUE_BOXES,
    LessonWidget,
    as_text,
    message_lines,
    messages_html,
    never_raises,
    note_html,
    number_text,
    refuse_decimal_comma,
)
from helpers.widgets.row_stages import StageFolding, check_controls, check_upto


class RowEditor(StageFolding, LessonWidget):
    """Edit one row, eps, gamma and beta and see every stage of LayerNorm update at once.

    Made by :func:`row_editor`. ``record`` is the last good :class:`~helpers.core.layernorm.LayerNormSteps`;
    ``message`` the current problem in plain words ("" when there is none).
    """

    def __init__(
        self,
        row,
        eps=DEFAULT_EPS,
        gamma=None,
        beta=None,
        decimals=None,
        focus=None,
        plot=False,
        upto=None,
        stages=None,
        controls=None,
    ):
        super().__init__()
        values = parse_row(as_text(row))
        eps = eps_from_text(eps)
        self.upto = check_upto(upto)
        self.focus = stage_names(self.upto if focus is None and self.upto else focus, "focus")
        self.shown_stages = stage_names(stages, "stages") or None
        self.controls = check_controls(controls)
        self.record = layer_norm_steps(values, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
        self._last_row = self.record.input  # the last row typed that was good
        self._syncing = self._typing_in_boxes = False
        self._parsed_rows: dict[str, np.ndarray] = {}

        def text_box(value, description, placeholder="", width="420px"):
            box = widgets.Text(
                value=value,
                description=description,
                placeholder=placeholder,
                continuous_update=False,
                layout=widgets.Layout(width=width),
                **LABEL_FITS,
            )
            box.observe(self._on_field_edit, names="value")
            return box

        self.row_text = text_box(as_text(row), "row x:", "numbers separated by commas or spaces")
        self.value_boxes_row = widgets.HBox()
        self.value_boxes: list[widgets.Text] = []
        self._make_value_boxes()
        low, high = EPS_SLIDER_EXPONENTS
        self.eps_slider = widgets.FloatLogSlider(
            value=min(max(eps, 10.0**low), 10.0**high),
            base=10,
            min=low,
            max=high,
            step=0.1,
            description="ε (log scale):",
            readout_format=".1e",
            continuous_update=False,
            **LABEL_FITS,
        )
        self.eps_slider.observe(self._on_eps_slider, names="value")
        # Said beside the slider when ε is off its scale (0, or above 0.1): the handle then sits at an end, and its
        # own readout would show that end (1.0e-12 while ε = 0), so it is hidden and these words say ε instead.
        self.eps_off_scale = widgets.HTML()
        self._show_eps_on_slider(eps)
        self.eps_text = text_box(number_text(eps), "exact ε:", "e.g. 1e-5", width="200px")
        self.gamma_text = text_box("" if gamma is None else as_text(gamma), "gamma γ:", "empty: 1 for every feature")
        self.beta_text = text_box("" if beta is None else as_text(beta), "beta β:", "empty: 0 for every feature")
        self.by_hand = widgets.Checkbox(
            value=decimals is not None,
            description="by hand, rounding every step to",
            indent=False,
            layout=widgets.Layout(width="auto"),
        )
        # An IntText, not a BoundedIntText: the bounded one clamps 20 to 12 in the browser without a word;
        # here the clamp happens in Python, which says so beside the field (see _on_places).
        self.places = widgets.IntText(
            value=3 if decimals is None else int(decimals),
            description="places",
            layout=widgets.Layout(width="130px"),
        )
        self._places_note = ""
        self.by_hand.observe(self._on_field_edit, names="value")
        self.places.observe(self._on_places, names="value")
        self.messages = {name: widgets.HTML() for name in ("row", "eps", "gamma", "beta", "decimals", "general")}
        self.messages["general"].layout.min_height = "24px"  # no jump when a message appears
        self.table = widgets.HTML()
        # Under the γ and β fields, the output they make: the table's last row is ~400 px further down on a
        # laptop (notebook 06), out of sight while the fields are edited.
        self.output_line = widgets.HTML()
        # The number line: inline SVG (crisp, its words real text, named for a screen reader), redrawn per edit.
        self.plot_view = widgets.HTML(layout=widgets.Layout(max_width="600px")) if plot else None
        # For a screen reader: the result in words in a live region, and the picture's text alternative.
        self.announcement = widgets.HTML()
        self.plot_caption = widgets.HTML() if plot else None

        self.later_toggle = widgets.ToggleButton(
            value=False, description=self._toggle_label(False), layout=widgets.Layout(width="200px")
        )
        self.later_toggle.observe(self._on_field_edit, names="value")

        def line(*children, shown=True):  # a narrow screen puts what does not fit under the field
            return widgets.HBox(
                list(children),
                layout=widgets.Layout(align_items="center", flex_flow="row wrap", display=None if shown else "none"),
            )

        # Before a stage is learned, its control does nothing yet: hide it (upto=None shows everything);
        # ``controls`` keeps only the lines a slide needs.
        self.value_boxes_row.layout.display = None if "values" in self.controls else "none"
        self.children = [
            line(self.row_text, self.messages["row"], shown="row" in self.controls),
            self.value_boxes_row,
            line(self.eps_slider, self.eps_off_scale, self.eps_text, self.messages["eps"], shown=self._shows("eps")),
            line(self.gamma_text, self.messages["gamma"], shown=self._shows("gamma")),
            line(self.beta_text, self.messages["beta"], self.output_line, shown=self._shows("beta")),
            line(self.by_hand, self.places, self.messages["decimals"], shown="by_hand" in self.controls),
            self.messages["general"],
            self.announcement,
            self.table,
            line(self.later_toggle, shown=bool(self._later_stages())),
        ] + ([self.plot_view, self.plot_caption] if plot else [])
        self._render()

    # --- what a person does, in code

    def set_row(self, text_or_values) -> None:
        """Type a row into the paste field (text as pasted, or a list of numbers)."""
        self.row_text.value = as_text(text_or_values)

    def set_eps(self, value) -> None:
        """Type eps into the exact entry (text or a number)."""
        self.eps_text.value = as_text(value)

    def set_gamma(self, values) -> None:
        """Type gamma, one value per feature (None or "" for all 1s)."""
        self.gamma_text.value = "" if values is None else as_text(values)

    def set_beta(self, values) -> None:
        """Type beta, one value per feature (None or "" for all 0s)."""
        self.beta_text.value = "" if values is None else as_text(values)

    @never_raises
    def set_decimals(self, decimals) -> None:
        """Switch "by hand" on with ``decimals`` places (0 to 12), or off with None."""
        if decimals is None:
            self.by_hand.value = False
            return
        try:
            decimals = check_decimals(decimals)
        except InputError as problem:
            self._problems = {**self._problems, "decimals": str(problem)}
            self._show_problems()
            return
        self.places.value = decimals
        self.by_hand.value = True

    # --- handlers

    @never_raises
    def _on_field_edit(self, change=None) -> None:
        if self._syncing:
            return
        pasted = change is not None and change["owner"] is self.row_text and not self._typing_in_boxes
        self._recompute(sync_boxes=pasted)

    @never_raises
    def _on_places(self, change) -> None:
        """Places outside 0 to 12 are clamped, and the field and a note beside it say so until the next edit."""
        if self._syncing:
            return
        typed = change["new"]
        clamped = min(max(int(typed), 0), MAX_DECIMALS)
        self._places_note = (
            f"{typed} places is outside 0 to {MAX_DECIMALS}: using {clamped}." if clamped != typed else ""
        )
        if clamped != typed:
            self._syncing = True
            try:
                self.places.value = clamped
            finally:
                self._syncing = False
        self._recompute()

    def _value_box_problem(self) -> str:
        """The first value box whose text is not a number, in words ("" when every box holds one). A box
        is read on every edit, not only its own: its warning stays until it is corrected."""
        for position, box in enumerate(self.value_boxes, start=1):
            try:
                parse_number(refuse_decimal_comma(box.value))  # one number per box: an empty box must not drop a value
            except ValueError as problem:
                return f"Value {position} {problem}."
        return ""

    @never_raises
    def _on_value_box(self, change) -> None:
        if self._syncing:
            return
        problem = self._value_box_problem()
        if problem:
            self._problems = {**self._problems, "row": problem}
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

    @never_raises
    def _on_eps_slider(self, change) -> None:
        if not self._syncing:
            self.eps_text.value = f"{change['new']:.3g}"

    def _recompute(self, sync_boxes: bool = False) -> None:
        problems = {}
        row = self._read("row", lambda: self._parse_row(self.row_text.value), problems)
        if "row" not in problems and not sync_boxes and self._value_box_problem():
            problems["row"] = self._value_box_problem()  # a box still shows what is not a number
            row = None
        eps = self._read("eps", lambda: eps_from_text(refuse_decimal_comma(self.eps_text.value)), problems)
        if row is not None:
            self._last_row = row
        # A bad row: γ and β are checked against the last row that was good (what the boxes still show).
        in_use = row if row is not None else self._last_row
        gamma = self._read("gamma", lambda: self._per_feature(self.gamma_text.value, "γ", in_use), problems)
        beta = self._read("beta", lambda: self._per_feature(self.beta_text.value, "β", in_use), problems)
        decimals = int(self.places.value) if self.by_hand.value else None
        if not problems:
            try:
                self.record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
            except ValueError as problem:  # an InputError names its field; γ · x̂ + β overflowing has none
                field = getattr(problem, "argument", "general")
                problems[field if field in self.messages else "general"] = str(problem)
        self._problems = problems
        if row is not None and "row" not in problems:
            if sync_boxes or len(row) != len(self.value_boxes):
                self._make_value_boxes()
        if eps is not None and "eps" not in problems:
            self._show_eps_on_slider(eps)
        self._render()

    def _show_eps_on_slider(self, eps: float) -> None:
        """Move the handle to ``eps`` (the slider clamps values outside its range) and make what the slider
        shows agree with the exact-ε field: its readout when ε is on the scale, else words saying ε."""
        low, high = (10.0**e for e in EPS_SLIDER_EXPONENTS)
        self._syncing = True
        try:
            self.eps_slider.value = min(max(eps, low), high)
        finally:
            self._syncing = False
        on_scale = low <= eps <= high
        self.eps_slider.readout = on_scale
        self.eps_off_scale.value = (
            "" if on_scale else f'<span style="font-size:13px">ε = {number_text(eps)}: off the scale</span>'
        )

    @staticmethod
    def _read(name, parse, problems):
        try:
            return parse()
        except ValueError as problem:
            problems[name] = str(problem)
            return None

    def _parse_row(self, text: str) -> np.ndarray:
        if text not in self._parsed_rows:  # a long row is parsed once, not on every edit of eps
            self._parsed_rows = {text: parse_row(refuse_decimal_comma(text))}
        return self._parsed_rows[text]

    @staticmethod
    def _per_feature(text: str, name: str, row):
        if not text.strip():
            return None
        try:
            values = parse_row(refuse_decimal_comma(text))
        except ValueError as problem:
            raise ValueError(f"{name}: {problem}") from None
        if row is not None and len(values) != len(row):
            default = "1s" if name == "γ" else "0s"
            raise ValueError(
                f"{name} needs one value per feature: {len(row)} values; got {len(values)}. "
                f"Leave it empty for all {default}."
            )
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
                        box = widgets.Text(
                            description=f"x{j + 1}",
                            continuous_update=False,
                            layout=widgets.Layout(width="130px"),
                            style={"description_width": "24px"},
                        )
                        box.observe(self._on_value_box, names="value")
                        self.value_boxes.append(box)
                self.value_boxes_row.children = self.value_boxes
            for box, text in zip(self.value_boxes, typed):
                box.value = text
        finally:
            self._syncing = False

    def _show_problems(self) -> None:
        for name, message_widget in self.messages.items():
            message_widget.value = messages_html(self._problems.get(name, ""))
        if self._places_note and "decimals" not in self._problems:
            self.messages["decimals"].value = note_html(self._places_note)

    def _render(self) -> None:
        self._show_problems()
        self.later_toggle.description = self._toggle_label(self.later_toggle.value)
        note = self._folded_note()
        self.table.value = steps_html(self.record, self.focus, self._stages()) + (
            f'<div style="font-size:12px;color:#555">{html.escape(note)}</div>' if note else ""
        )
        self.output_line.value = self._output_line_html()
        problem = next(iter(self._problems.values()), "")
        # The problem is written once, beside its field; the status line says only what the numbers are (the
        # problem is in it too for a screen reader, which reads the live region, but not drawn a second time).
        self.announcement.value = (
            status_html(
                "⚠ The numbers shown are the last good ones: see the message above.", visually_hidden_html(problem)
            )
            if problem
            else status_html(result_sentence(self.record, self._taught()))
        )
        if self.plot_view is not None:
            self.plot_view.value = number_line_svg(self.record)
            self.plot_caption.value = caption_html(number_line_alt(self.record), number_line_text(self.record))

    def _output_line_html(self) -> str:
        """The output beside the γ and β fields: when they are shown in a notebook (a slide's short table sits
        beside its fields already) and the table is long enough to push the output row out of sight."""
        if not self._shows("beta") or self.shown_stages:
            return ""
        places = self.record.decimals if self.record.hand_rounded else 4
        values = ", ".join(format_values(self.record.output, places))
        return (
            f'<div class="layernorm-output-line" style="font-family:ui-monospace,monospace;font-size:13px;'
            f'margin:2px 0 4px 0">output y = γ · x̂ + β = ({html.escape(values)})'
            + (" <i>(last good)</i>" if self._problems else "")
            + "</div>"
        )

    def text(self) -> str:
        note = self._folded_note()
        return "\n".join(
            [
                steps_text(self.record, self.focus, self._stages()),
                *([f"  ({note})"] if note else []),
                *message_lines(self._problems),
            ]
        )


def row_editor(
    row,
    eps=DEFAULT_EPS,
    gamma=None,
    beta=None,
    decimals=None,
    focus=None,
    plot=False,
    upto=None,
    stages=None,
    controls=None,
) -> RowEditor:
    """A row editor: the row (paste field and one box per value), eps (log slider and exact entry),
    gamma and beta per feature, a "by hand" switch; every stage with its formula updates at once.

    ``focus`` names a stage to emphasise, or several: ``"mean"`` or ``("std", "normalised")``;
    ``plot=True`` adds the number line. ``upto`` names the stage a notebook has reached (from
    ``STAGES``, e.g. ``"mean"``): the stages up to it are shown, it is emphasised, the later ones are
    folded behind "show the later steps", and controls that do nothing yet (ε before ``"eps"``,
    γ and β before ``"gamma"``) are hidden; None shows everything.
    For a projected slide, ``stages`` picks the stages the table shows (the rest behind "show every
    step") and ``controls`` the lines of controls, from ``CONTROLS``: ``controls=("row", "eps")``.
    Introduced in notebook 02.
    """
    return RowEditor(
        row,
        eps=eps,
        gamma=gamma,
        beta=beta,
        decimals=decimals,
        focus=focus,
        plot=plot,
        upto=upto,
        stages=stages,
        controls=controls,
    )
