"""The step explorer as a learner sees it: every control's label, value and size when it opens, what the
position line, the buttons and the text form say after each press, and the row, eps, γ and β shown.

Expected numbers are worked out here in plain numpy (conftest.numpy_stages) from the lesson's matrix.
"""

from __future__ import annotations

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from conftest import numpy_stages  # noqa: E402
from widget_driver import highlighted_labels, tables, visible_text  # noqa: E402

STEP_NAMES = ["input", "mean", "differences", "squares", "variance", "variance + ε", "std", "normalised", "output"]


def four(value) -> str:
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def term(value) -> str:
    """A value inside a sum as the formulas write it: a negative one in brackets."""
    return f"({four(value)})" if value < 0 else four(value)


def vector(values) -> str:
    return "(" + ", ".join(four(v) for v in values) + ")"


def formula_lines(row, shown, focus):
    """The text form's lines for the first stages of ``row`` (input, mean, differences), ▶ at ``focus``."""
    stages = numpy_stages(row)
    mean = stages["mean"]
    formulas = {
        "input": f"x = {vector(row)}",
        "mean": f"μ = (x₁ + … + xₙ) / n = ({' + '.join(term(v) for v in row)}) / {len(row)} = {four(mean)}",
        "differences": f"x − μ = ({', '.join(f'{four(v)} − {four(mean)}' for v in row)}) = "
        f"{vector(stages['differences'])}",
    }
    names = list(formulas)[:shown]
    width = max(len(name) for name in names)
    return [f"  {'▶' if name == focus else ' '} {name:<{width}}  {formulas[name]}" for name in names]


def title_of(html: str) -> str:
    """The words a view shows above its table."""
    return visible_text(html.split("<table", 1)[0])


def toolbar(explorer):
    return explorer.children[0]


def test_a_new_explorer_opens_on_row_1_step_1_with_every_control_labelled_and_sized():
    explorer = widgets.StepExplorer(X)  # the class itself, as step_explorer makes it
    bar = toolbar(explorer)
    assert list(explorer.children) == [bar, explorer.message_html, explorer.matrix_html, explorer.stages_html]
    assert list(bar.children) == [
        explorer.row_picker,
        explorer.previous_button,
        explorer.next_button,
        explorer.show_all_toggle,
        explorer.position_label,
    ]
    assert (bar.layout.align_items, bar.layout.flex_flow) == ("center", "row wrap")  # wraps on a laptop
    picker = explorer.row_picker
    assert picker.options == tuple((f"row {i + 1}", i) for i in range(5))
    assert (picker.value, picker.label, picker.description, picker.layout.width) == (0, "row 1", "row:", "160px")
    previous, following = explorer.previous_button, explorer.next_button
    assert (previous.description, previous.layout.width, previous.disabled) == ("◀ Previous", "110px", True)
    assert (following.description, following.layout.width, following.disabled) == ("Next ▶", "110px", False)
    toggle = explorer.show_all_toggle
    assert (toggle.value, toggle.description, toggle.layout.width) == (False, "show all", "100px")
    assert explorer.position_label.value == "step 1 of 9: input (next: mean)"
    assert explorer.position_label.layout.width == "auto"  # never cut off
    assert explorer.message_html.value == "" and explorer.message_html.layout.min_height == "24px"
    assert title_of(explorer.matrix_html.value) == "X (rows are tokens)"
    assert highlighted_labels(explorer.matrix_html.value) == ["row 1"]
    assert repr(explorer) == "\n".join(
        ["Step through LayerNorm: row 1 of 5, eps = 1e-05, exact; step 1 of 9: input (next: mean)"]
        + formula_lines(X[0], 1, focus="input")
    )


def test_the_explorer_opens_on_the_row_it_is_given():
    explorer = widgets.step_explorer(X, row=2)
    assert (explorer.row_picker.value, explorer.row_picker.label) == (2, "row 3")
    assert highlighted_labels(explorer.matrix_html.value) == ["row 3"]
    assert title_of(explorer.matrix_html.value) == "X (rows are tokens)"
    assert title_of(explorer.stages_html.value) == "row 3, eps = 1e-05, exact"
    assert repr(explorer).splitlines()[0].startswith("Step through LayerNorm: row 3 of 5, eps = 1e-05, exact;")


def test_next_and_previous_move_one_step_and_say_where_the_learner_is():
    explorer = widgets.step_explorer(X)
    for step in range(1, 10):
        following = f" (next: {STEP_NAMES[step]})" if step < 9 else ""
        assert explorer.position_label.value == f"step {step} of 9: {STEP_NAMES[step - 1]}{following}"
        assert explorer.previous_button.disabled == (step == 1)
        assert explorer.next_button.disabled == (step == 9)
        explorer.next()
    assert explorer.position_label.value == "step 9 of 9: output"  # Next at the end does nothing
    for step in range(9, 0, -1):
        assert explorer.position_label.value.startswith(f"step {step} of 9: {STEP_NAMES[step - 1]}")
        explorer.previous()
    assert explorer.position_label.value == "step 1 of 9: input (next: mean)"


def test_the_text_form_marks_the_step_just_revealed():
    explorer = widgets.step_explorer(X)
    explorer.next()
    explorer.next()
    title = "Step through LayerNorm: row 1 of 5, eps = 1e-05, exact; step 3 of 9: differences (next: squares)"
    assert repr(explorer) == "\n".join([title, *formula_lines(X[0], 3, focus="differences")])
    explorer.previous()
    title = "Step through LayerNorm: row 1 of 5, eps = 1e-05, exact; step 2 of 9: mean (next: differences)"
    assert repr(explorer) == "\n".join([title, *formula_lines(X[0], 2, focus="mean")])


def test_show_all_says_so_and_keeps_the_mark_on_the_step_reached():
    explorer = widgets.step_explorer(X, row=1)
    explorer.next()
    explorer.show_all()
    assert explorer.show_all_toggle.description == "step by step"
    assert explorer.position_label.value == "all 9 steps shown"
    lines = repr(explorer).splitlines()
    assert lines[0] == "Step through LayerNorm: row 2 of 5, eps = 1e-05, exact; all 9 steps shown"
    assert [line[:4] for line in lines[1:]] == ["    ", "  ▶ "] + ["    "] * 7  # the mean is the step reached
    assert [line[4:].split("  ")[0] for line in lines[1:]] == STEP_NAMES
    explorer.show_all(False)
    assert explorer.show_all_toggle.description == "show all"
    assert explorer.position_label.value == "step 2 of 9: mean (next: differences)"


def test_eps_gamma_and_beta_given_are_in_what_is_first_shown():
    gamma, beta = np.array([2.0, 0.5, -1.0]), np.array([1.0, 0.0, 0.25])
    explorer = widgets.step_explorer(X, row=1, eps=0.1, gamma=gamma, beta=beta)
    explorer.show_all()
    stages = numpy_stages(X[1], eps=0.1, gamma=gamma, beta=beta)
    lines = repr(explorer).splitlines()
    assert lines[0] == "Step through LayerNorm: row 2 of 5, eps = 0.1, exact; all 9 steps shown"
    std_line = f"    std           √(σ² + ε) = √{four(stages['variance'] + 0.1)} = {four(stages['std'])}"
    assert lines[7] == std_line
    assert lines[9].startswith("    output        y = γ · x̂ + β = (2.0000 · ")
    assert lines[9].endswith(f" = {vector(stages['output'])}")
    shown = tables(explorer.stages_html.value)[0]
    assert shown[-1].label == "output" and shown[-1].cells[1].endswith(f"= {vector(stages['output'])}")
    assert title_of(explorer.stages_html.value) == "row 2, eps = 0.1, exact"


def test_a_bad_row_is_explained_under_the_last_good_row():
    explorer = widgets.step_explorer(X, row=1)
    explorer.next()
    before = repr(explorer)
    explorer.select_row(9)
    sentence = "Pick a row by its index from 0 to 4 (row 1 is index 0); got 9."
    assert explorer.message_html.value == f'<span style="color:#a33c00">⚠ {sentence}</span>'
    assert repr(explorer) == "\n".join([before, f"⚠ {sentence}", "  (showing the last good result)"])
    assert (explorer.row_picker.value, explorer.position_label.value) == (1, "step 2 of 9: mean (next: differences)")
    explorer.select_row(3)
    assert explorer.message_html.value == "" and repr(explorer).startswith("Step through LayerNorm: row 4 of 5,")


def test_picking_a_row_never_flashes_a_warning():
    explorer = widgets.step_explorer(X)
    shown = []
    explorer.message_html.observe(lambda change: shown.append(change["new"]), names="value")
    explorer.select_row(3)
    explorer.row_picker.value = 1  # as the learner picks it in the drop-down
    assert shown == [] and explorer.message == ""
    assert highlighted_labels(explorer.matrix_html.value) == ["row 2"]
