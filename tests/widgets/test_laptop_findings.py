"""What a student found on a laptop (issue 20, the student's paragraph), each from its spec.

- Numbers beside each other agree at the places shown: σ² + ε shown is σ² shown + ε (04: "variance 0.0034",
  "σ² + ε 0.003437"); the same σ² + ε reads the same in the row editor and the step-through (row 5 by hand:
  0.003 in one, 0.003010 in the other); where a shown step is not the sum of what is shown, the table says why.
- By hand at 0 places, x is shown as given: the mean is then the mean of what is shown (not x = 1, 0, 1, mean 0).
- A widget's problem is drawn once (the status line no longer repeats it; a screen reader still hears it).
- The ε slider and the exact-ε field show the same ε (not 1.0e-12 beside ε = 0).
- A decimal comma "0,586" is one clear sentence in every field, and the last good numbers stay.
- Notebook 06: the output is written beside the γ and β fields being edited.
"""

from __future__ import annotations

import re
from decimal import Decimal

import numpy as np
import pytest

from helpers import layer_norm_steps, widgets
from helpers.display import filled_formula, steps_text

from conftest import LESSON_X as X
from widget_driver import visible_text

HIDDEN = re.compile(r'<span style="position:absolute;width:1px;[^"]*">.*?</span>')


def drawn_text(widget) -> str:
    """Every word the widget draws on screen: its HTML parts, visually hidden text left out."""
    parts = []

    def walk(node):
        value = getattr(node, "value", None)
        if isinstance(value, str) and type(node).__name__ == "HTML":
            parts.append(visible_text(HIDDEN.sub("", value)))
        for child in getattr(node, "children", ()):
            walk(child)

    walk(widget)
    return "\n".join(parts)


def cells(text: str, label: str) -> list[str]:
    (line,) = [line for line in text.splitlines() if line.strip(" ▶").startswith(label + "  ")]
    return re.findall(r"-?\d+\.\d+|\d+e-\d+|(?<=\s)\d+(?=\s|$)", line)


# --- numbers beside each other


@pytest.mark.parametrize("row", range(5))
@pytest.mark.parametrize("eps", [1e-5, 1e-3, 1e-8])
@pytest.mark.parametrize("decimals", [None, 3, 0])
def test_the_variance_plus_eps_shown_is_the_variance_shown_plus_eps(row, eps, decimals):
    try:
        record = layer_norm_steps(X[row], eps=eps, decimals=decimals)
    except ValueError:  # at 0 places a row's std may round to 0: refused in words elsewhere
        return
    text = steps_text(record)
    variance, plus = cells(text, "variance")[0], cells(text, "variance + ε")[0]
    assert Decimal(variance) + Decimal(repr(eps)) == Decimal(plus), text
    # the step-through shows the same σ² + ε as the row editor, and its sum is the sum of what it shows
    formula = filled_formula(record, "variance_plus_eps")
    assert formula.endswith(f"= {plus}"), formula
    if record.hand_rounded:
        assert filled_formula(record, "variance").endswith(f"= {variance}")


def test_a_variance_that_is_not_the_mean_of_the_squares_shown_says_why():
    text = steps_text(layer_norm_steps(X[4]))  # 0.0011 + 0.0068 + 0.0024 = 0.0103; / 3 = 0.003433, not 0.003427
    squares = [Decimal(c) for c in cells(text, "squares")]
    variance = Decimal(cells(text, "variance")[0])
    assert round(sum(squares) / 3, 6) != variance
    assert "Rounded only for showing" in text and "(0.0011 + 0.0068 + 0.0024) / 3 = 0.003433" in text


def test_by_hand_at_0_places_shows_x_as_given_so_the_mean_is_the_mean_of_what_is_shown():
    editor = widgets.row_editor(X[0], decimals=0)
    text = repr(editor)
    shown_x = [Decimal(c) for c in cells(text, "input")[:3]]
    assert shown_x == [Decimal("1.133"), Decimal("-0.299"), Decimal("0.503")]
    mean = Decimal(cells(text, "mean")[0])
    assert mean == round(sum(shown_x) / 3, 0)
    explorer = widgets.step_explorer(X, decimals=0)
    explorer.show_all()
    assert "x = (1.133, -0.299, 0.503)" in repr(explorer)


# --- problems drawn once


@pytest.mark.parametrize(
    "make, act, words",
    [
        (lambda: widgets.row_editor(X[0]), lambda w: w.set_row("1, 2, x"), "'x' is not a number"),
        (lambda: widgets.row_editor(X[0]), lambda w: w.set_eps("-1"), "eps"),
        (lambda: widgets.row_editor(X[0]), lambda w: w.set_gamma("1, 2"), "γ needs one value per feature"),
        (lambda: widgets.matrix_editor(X), lambda w: w.set_cell(0, 0, "abc"), "'abc' is not a number"),
        (lambda: widgets.step_explorer(X), lambda w: w.select_row(9), "row"),
        (lambda: widgets.answer_checker(X[0], "mean"), lambda w: w.check("abc"), "'abc' is not a number"),
    ],
)
def test_every_widget_problem_is_drawn_once(make, act, words):
    widget = make()
    act(widget)
    assert widget.message and words in widget.message
    drawn = drawn_text(widget)
    for problem in widget._problems.values():
        assert drawn.count(problem) == 1, drawn
    if hasattr(widget, "announcement"):  # a screen reader still hears the problem in the live region
        assert widget.message in visible_text(widget.announcement.value)


# --- the ε slider and the exact-ε field


@pytest.mark.parametrize("eps, on_scale", [(0, False), (0.5, False), (1e-13, False), (1e-3, True), (1e-12, True)])
def test_the_eps_slider_shows_the_eps_of_the_exact_field(eps, on_scale):
    editor = widgets.row_editor(X[0])
    editor.set_eps(eps)
    assert editor.record.eps == eps and float(editor.eps_text.value) == eps
    assert editor.eps_slider.readout == on_scale
    if on_scale:
        assert editor.eps_slider.value == pytest.approx(eps) and editor.eps_off_scale.value == ""
    else:  # the handle sits at an end of the scale; its readout would name that end, so words say ε instead
        assert f"ε = {editor.eps_text.value}" in visible_text(editor.eps_off_scale.value)
    editor.set_eps("1e-5")
    assert editor.eps_slider.readout and editor.eps_off_scale.value == ""


# --- a decimal comma


def _fields():
    return [
        ("row", lambda: widgets.row_editor(X[0]), lambda w: w.set_row("0,586, 1, 2"), lambda w: w.record.input),
        ("eps", lambda: widgets.row_editor(X[0]), lambda w: w.set_eps("0,001"), lambda w: w.record.eps),
        ("γ", lambda: widgets.row_editor(X[0]), lambda w: w.set_gamma("1,5, 1, 1"), lambda w: w.record.gamma),
        (
            "value box",
            lambda: widgets.row_editor(X[0]),
            lambda w: setattr(w.value_boxes[0], "value", "0,586"),
            lambda w: w.record.input,
        ),
        ("cell", lambda: widgets.matrix_editor(X), lambda w: w.set_cell(0, 0, "0,586"), lambda w: w.output),
        ("matrix ε", lambda: widgets.matrix_editor(X), lambda w: w.set_eps("0,001"), lambda w: w.eps),
        ("answer", lambda: widgets.answer_checker(X[0], "std"), lambda w: w.check("0,586"), lambda w: w.verdict),
        ("question", lambda: widgets.number_question("2 + 2?", 4, 0), lambda w: w.check("4,0"), lambda w: w.typed),
    ]


@pytest.mark.parametrize("field, make, type_comma, state", _fields(), ids=[f[0] for f in _fields()])
def test_a_decimal_comma_is_one_clear_sentence_and_the_last_good_numbers_stay(field, make, type_comma, state):
    widget = make()
    before = np.array(state(widget), dtype=object) if state(widget) is not None else None
    type_comma(widget)
    assert "decimal comma" in widget.message and widget.message.count("decimal comma") == 1, widget.message
    assert re.search(r"write (0\.586|0\.001|1\.5|4\.0) \(a point\)", widget.message), widget.message
    after = state(widget)
    if before is None:
        assert after is None
    else:
        np.testing.assert_array_equal(np.array(after, dtype=object), before)


def test_commas_that_cannot_be_decimal_commas_still_separate_values():
    editor = widgets.row_editor(X[0])
    for typed, values in (("1,2,3", [1, 2, 3]), ("0.5,0.25,1", [0.5, 0.25, 1]), ("1, 2, 3", [1, 2, 3])):
        editor.set_row(typed)
        assert editor.message == "" and list(editor.record.input) == values


# --- notebook 06: the result beside the fields being edited


def test_the_output_is_written_beside_the_gamma_and_beta_fields():
    editor = widgets.row_editor(X[2], focus=("gamma", "beta", "output"))
    editor.set_gamma("2, 1, 0")
    editor.set_beta("0, 0, 0.5")
    beta_line = next(child for child in editor.children if editor.beta_text in getattr(child, "children", ()))
    assert editor.output_line in beta_line.children
    shown = visible_text(editor.output_line.value)
    assert shown == "output y = γ · x̂ + β = (" + ", ".join(f"{v:.4f}" for v in editor.record.output) + ")"
    editor.set_beta("0, 0, x")  # a problem: the last good output, said so
    assert "(last good)" in visible_text(editor.output_line.value)
    slide = widgets.row_editor(
        X[0], stages=("normalised", "gamma", "beta", "output"), controls=("values", "gamma", "beta")
    )
    assert slide.output_line.value == ""  # a slide's short table already sits beside its fields


# --- notebooks 09, 10, 12: a live table's controls keep their words


def test_a_live_tables_control_labels_are_as_wide_as_their_words():
    from ipywidgets import Dropdown, FloatLogSlider

    from helpers import show_matrix

    chosen = Dropdown(options=["a"], description="x", style={"description_width": "30px"})
    controls = {
        "rate": FloatLogSlider(value=1e-3, min=-5, max=-1, description="learning rate"),
        "kind": Dropdown(options=["float32", "float64"], description="implementation"),
        "chosen": chosen,
    }
    widgets.live_table(lambda **values: show_matrix([[1.0]]), **controls)
    assert controls["rate"].style.description_width == "initial"  # not 80 px: "learning rate" was cut on a laptop
    assert controls["kind"].style.description_width == "initial"
    assert chosen.style.description_width == "30px"  # a width the notebook chose is kept
