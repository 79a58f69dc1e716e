"""helpers.widgets, headless: build each widget, edit it as a person would, read what it shows.

Runs with ipywidgets 8 (the project's environment) and 7.7.1 (Colab's). Expected numbers are
computed with plain numpy (tests/conftest.py), not through helpers. Every bad input must show a message and leave
the last good numbers on screen; no callback may raise.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples

ipywidgets = pytest.importorskip("ipywidgets")

import helpers  # noqa: E402
from helpers import widgets  # noqa: E402
from helpers.core.layernorm import STAGES  # noqa: E402

from conftest import EPS, numpy_stages  # noqa: E402
from conftest import LESSON_X as X  # noqa: E402
from widget_driver import (  # noqa: E402
    assert_row_shows,
    expected_stages,
    highlighted_labels,
    rows_by_label,
    tables,
    visible_text,
)


def four(value) -> str:
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def assert_shows(shown: str, values) -> None:
    for value in np.ravel(values):
        assert four(value) in shown, f"{four(value)} not in:\n{shown}"


def text_plain_as_displayed(widget) -> str:
    """What Jupyter stores as text/plain when the widget is displayed (both ipywidgets 7 and 8)."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()
    from IPython.display import display

    with capture_output() as captured:
        display(widget)
    output = captured.outputs[0]  # a second output, if any, is helpers.widgets.accessibility's script
    return output.data["text/plain"]


# --- row editor


@pytest.mark.parametrize("row", range(5))
def test_row_editor_shows_every_stage_of_each_lesson_row(row):
    editor = widgets.row_editor(X[row])
    expected = numpy_stages(X[row])
    for shown in (editor.table.value, repr(editor)):
        for name in ("mean", "differences", "squares", "std", "normalised", "output"):
            assert_shows(shown, expected[name])
        # σ² at the places of σ² + ε beside it, so that the sum shown is the sum of what is shown
        assert f"{float(expected['variance']):.6f}" in shown
        assert f"{float(expected['variance']) + 1e-5:.6f}" in shown
    assert editor.message == ""
    np.testing.assert_allclose(editor.record.output, expected["output"], rtol=0, atol=1e-12)


def test_every_stage_is_shown_beside_its_formula():
    text = repr(widgets.row_editor(X[0]))
    for formula in (
        "μ = (x₁ + … + xₙ) / n",
        "x − μ",
        "(x − μ)²",
        "σ² = Σ(x − μ)² / n",
        "√(σ² + ε)",
        "x̂ = (x − μ) / √(σ² + ε)",
        "y = γ · x̂ + β",
    ):
        assert formula in text
    mean_line = next(line for line in text.splitlines() if "μ = (x₁" in line)
    assert mean_line.rstrip().endswith("0.4457")


def test_text_form_is_the_numbers_in_full_not_vbox():
    editor = widgets.row_editor(X[0])
    text = repr(editor)
    assert not text.startswith(("VBox", "RowEditor")) and "children" not in text
    assert len(text) > 110  # ipywidgets would cut its own text form at 110 characters
    assert text_plain_as_displayed(editor) == text
    assert str(editor) == text


@pytest.mark.parametrize(
    "pasted",
    [
        "1.133, -0.299, 0.503",
        "[1.133 -0.299 0.503]",
        "  1.133,-0.299 ,  0.503  ",
        "(1.133; −0.299; 0.503)",
        "1.133\t-0.299\t0.503",
        "[1.133, -0.299, 0.503,]",
    ],
)
def test_the_paste_field_accepts_what_people_paste(pasted):
    editor = widgets.row_editor([1, 2, 3])
    editor.row_text.value = pasted  # exactly what typing into the box does
    assert editor.message == ""
    np.testing.assert_array_equal(editor.record.input, X[0])
    assert [box.value for box in editor.value_boxes] == ["1.133", "-0.299", "0.503"]


@settings(max_examples=examples(40, fast=10), deadline=None)
@given(
    row=st.lists(st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 4)), min_size=1, max_size=20),
    separator=st.sampled_from([", ", ",", " ", "  ", "\t", "; ", " , "]),
    brackets=st.sampled_from(["{}", "[{}]", "({})", " [ {} ] ", "{},"]),
)
def test_any_pasted_row_gives_the_numpy_result(row, separator, brackets):
    editor = widgets.row_editor([1, 2, 3])
    editor.set_row(brackets.format(separator.join(str(v) for v in row)))
    assert editor.message == ""
    np.testing.assert_array_equal(editor.record.input, row)
    expected = numpy_stages(row)["normalised"]
    np.testing.assert_allclose(editor.record.normalised, expected, rtol=1e-9, atol=1e-9)
    assert len(editor.value_boxes) == (len(row) if len(row) <= widgets.MAX_VALUE_BOXES else 0)


def test_set_row_takes_a_list_and_goes_through_the_same_handler():
    editor = widgets.row_editor(X[0])
    editor.set_row(X[3])
    assert editor.row_text.value == "1.601, -0.669, 0.368"
    assert_shows(editor.table.value, numpy_stages(X[3])["normalised"])


def test_editing_one_value_box_recomputes_everything():
    editor = widgets.row_editor(X[0])
    editor.value_boxes[1].value = "0.779"
    row = [1.133, 0.779, 0.503]
    assert editor.row_text.value == "1.133, 0.779, 0.503"
    np.testing.assert_allclose(editor.record.normalised, numpy_stages(row)["normalised"], atol=1e-12)
    assert_shows(repr(editor), numpy_stages(row)["normalised"])


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "Value 2 is empty"),
        ("abc", "Value 2 'abc' is not a number"),
        ("1 2", "Value 2 '1 2' is not a number"),
        ("nan", "NaN"),
    ],
)
def test_a_bad_value_box_shows_a_message_and_keeps_the_row(text, words):
    editor = widgets.row_editor(X[0])
    good = editor.record
    editor.value_boxes[1].value = text
    assert words in editor.messages["row"].value and len(editor.value_boxes) == 3
    assert editor.record is good and editor.row_text.value == "1.133, -0.299, 0.503"
    editor.value_boxes[1].value = "-0.3"
    assert editor.message == "" and editor.record.input[1] == -0.3


def test_changing_the_number_of_values_rebuilds_the_boxes():
    editor = widgets.row_editor(X[0])
    editor.set_row("1 2 3 4 5")
    assert len(editor.value_boxes) == 5 and editor.value_boxes_row.children == tuple(editor.value_boxes)
    assert_shows(repr(editor), numpy_stages([1, 2, 3, 4, 5])["normalised"])


def test_eps_exact_entry_and_log_slider():
    editor = widgets.row_editor(X[4])
    editor.set_eps("1e-3")  # Keras' default visibly changes row 5
    assert editor.record.eps == 1e-3 and editor.eps_slider.value == pytest.approx(1e-3)
    assert_shows(repr(editor), numpy_stages(X[4], eps=1e-3)["normalised"])
    editor.eps_slider.value = 1e-8
    assert editor.eps_text.value == "1e-08" and editor.record.eps == 1e-8
    assert_shows(editor.table.value, numpy_stages(X[4], eps=1e-8)["normalised"])
    editor.set_eps(0.5)  # outside the slider: the exact entry still rules, the slider sits at its end
    assert editor.record.eps == 0.5 and editor.eps_slider.value == pytest.approx(0.1)
    assert editor.eps_slider.min == -12 and editor.eps_slider.max == -1


def test_gamma_and_beta_per_feature():
    editor = widgets.row_editor(X[0])
    editor.set_gamma("2, 1, 0.5")
    editor.set_beta([0, 1, 0])
    expected = numpy_stages(X[0], gamma=[2, 1, 0.5], beta=[0, 1, 0])["output"]
    np.testing.assert_allclose(editor.record.output, expected, atol=1e-12)
    assert_shows(repr(editor), expected)
    gamma_line = next(line for line in repr(editor).splitlines() if line.strip().startswith("gamma"))
    assert gamma_line.split()[-3:] == ["2.0000", "1.0000", "0.5000"]
    editor.set_gamma(None)
    editor.set_beta("")
    np.testing.assert_allclose(editor.record.output, numpy_stages(X[0])["output"], atol=1e-12)
    assert "gamma" not in repr(editor)  # back to γ = 1 and β = 0, which need no rows of their own


def test_by_hand_shows_the_lessons_digits_beside_the_exact_ones():
    editor = widgets.row_editor(X[0])
    editor.set_decimals(3)
    assert editor.by_hand.value and editor.places.value == 3 and editor.record.decimals == 3
    text = repr(editor)
    for line_start, digits in (
        ("mean", "0.446"),
        ("differences", "0.687  -0.745   0.057"),
        ("squares", "0.472   0.555   0.003"),
        ("variance", "0.343"),
        ("std", "0.586"),
        ("normalised", "1.172  -1.271   0.097"),
    ):
        line = next(line for line in text.splitlines() if line.strip(" ▶").startswith(line_start))
        assert " ".join(digits.split()) in " ".join(line.split()), line
    assert "exact" in text and "0.44567" in text  # exact values to 5 places beside the hand ones
    editor.set_decimals(None)
    assert editor.record.decimals is None and "exact, shown to 4 places" in repr(editor)


def test_by_hand_marks_where_rounding_changed_the_answer_on_row_5():
    editor = widgets.row_editor(X[4], decimals=3)
    text = repr(editor)
    std_line = next(line for line in text.splitlines() if line.strip().startswith("std"))
    assert "0.055" in std_line and "0.05862" in std_line and "≠ exact" in std_line
    mean_line = next(line for line in text.splitlines() if line.strip().startswith("mean"))
    assert "≠ exact" not in mean_line
    assert "≠ exact" in editor.table.value


@pytest.mark.parametrize("focus", ["mean", ("mean",), ["mean"]])
def test_focus_takes_one_stage_name_or_several_and_marks_only_those(focus):
    editor = widgets.row_editor(X[0], focus=focus)  # a single name must not be read letter by letter
    text = repr(editor)
    assert [line.split()[1] for line in text.splitlines() if line.startswith("  ▶")] == ["mean"]
    shown = [stage for stage in STAGES if stage not in ("gamma", "beta")]  # γ = 1, β = 0: not shown unless asked
    assert all(widgets.STAGE_LABELS[stage][0] in text for stage in shown)
    assert "gamma" not in text and "beta" not in text
    assert editor.table.value.count("font-weight:700") == 1  # the one focused row, in bold


def test_focus_on_gamma_and_beta_shows_them_even_when_they_are_1_and_0():
    editor = widgets.row_editor(X[2], focus=("gamma", "beta", "output"))
    marked = [line.split()[1] for line in repr(editor).splitlines() if line.startswith("  ▶")]
    assert marked == ["gamma", "beta", "output"]
    lines = {line.split()[1]: line.split()[-3:] for line in repr(editor).splitlines() if line.startswith("  ▶")}
    assert lines["gamma"] == ["1.0000"] * 3 and lines["beta"] == ["0.0000"] * 3


def test_focus_on_a_stage_that_does_not_exist_is_refused_in_plain_words():
    with pytest.raises(ValueError, match="focus names stages that do not exist: 'median'; the stages are input"):
        widgets.row_editor(X[0], focus="median")
    with pytest.raises(ValueError, match="do not exist: 'median'"):
        widgets.row_editor(X[0], focus=("mean", "median"))


@pytest.mark.parametrize(
    "typed, boxes",
    [
        ("1, 2, 3", ["1", "2", "3"]),
        ("[1.50 −2 3e-2]", ["1.50", "-2", "3e-2"]),
        ("0.1;0.20;  0.300", ["0.1", "0.20", "0.300"]),
    ],
)
def test_value_boxes_show_each_value_as_it_was_typed(typed, boxes):
    editor = widgets.row_editor(X[0])
    editor.set_row(typed)
    assert [box.value for box in editor.value_boxes] == boxes
    assert editor.row_text.value == typed


def test_a_row_given_as_numbers_is_written_in_its_shortest_form():
    editor = widgets.row_editor([1, 2, 3])
    assert editor.row_text.value == "1, 2, 3" and [box.value for box in editor.value_boxes] == ["1", "2", "3"]
    editor.set_row(np.array([0.1, 2.0, -3.5]))
    assert editor.row_text.value == "0.1, 2, -3.5" and [box.value for box in editor.value_boxes] == ["0.1", "2", "-3.5"]
    assert editor.eps_text.value == "1e-05"
    np.testing.assert_array_equal(editor.record.input, [0.1, 2.0, -3.5])


def test_a_768_value_row_uses_the_paste_field_and_elides_the_middle():
    rng = np.random.default_rng(7)
    row = rng.normal(size=768)
    editor = widgets.row_editor(X[0])
    editor.set_row(row)
    assert editor.value_boxes == [] and editor.message == ""
    expected = numpy_stages(row)
    np.testing.assert_allclose(editor.record.normalised, expected["normalised"], atol=1e-12)
    text = repr(editor)
    assert "768 features" in text and "…" in text
    assert_shows(text, [expected["mean"], expected["std"], *expected["normalised"][:3], *expected["normalised"][-3:]])


BAD_INPUTS = [
    ("set_row", "1.133, abc, 0.503", "row", "Value 2 'abc' is not a number"),
    ("set_row", "", "row", "empty"),
    ("set_row", "   [ ]  ", "row", "empty"),
    ("set_row", "1, nan, 2", "row", "NaN"),
    ("set_row", "1, inf, 2", "row", "infinity"),
    ("set_row", "1e400, 1, 2", "row", "too large"),
    ("set_row", "1e200, 1, 2", "row", "too large"),
    ("set_row", [1.0, float("nan"), 2.0], "row", "NaN"),
    ("set_eps", "-1e-5", "eps", "0 or larger"),
    ("set_eps", "abc", "eps", "not a number"),
    ("set_eps", "", "eps", "empty"),
    ("set_eps", "1e400", "eps", "too large"),
    ("set_eps", float("inf"), "eps", "infinity"),
    ("set_gamma", "1, 2", "gamma", "one value per feature: 3 values; got 2"),
    ("set_gamma", "1, two, 3", "gamma", "not a number"),
    ("set_beta", [0, 0, 0, 0], "beta", "one value per feature: 3 values; got 4"),
    ("set_decimals", 20, "decimals", "whole number from 0 to 12"),
    ("set_decimals", "three", "decimals", "whole number from 0 to 12"),
]


@pytest.mark.parametrize("method, value, field, words", BAD_INPUTS)
def test_bad_input_shows_a_message_next_to_its_field_and_keeps_the_last_good_numbers(method, value, field, words):
    editor = widgets.row_editor(X[0])
    good_record, good_table = editor.record, editor.table.value
    getattr(editor, method)(value)  # must not raise
    assert words in editor.message
    assert words in editor.messages[field].value and "⚠" in editor.messages[field].value
    assert all(not widget.value for name, widget in editor.messages.items() if name != field)
    assert editor.record is good_record and editor.table.value == good_table
    text = repr(editor)
    assert words in text and "last good" in text
    assert_shows(text, numpy_stages(X[0])["normalised"])


@pytest.mark.parametrize("field, method", [("gamma", "set_gamma"), ("beta", "set_beta")])
def test_a_wrong_length_gamma_or_beta_says_what_leaving_it_empty_gives(field, method):
    """The message's advice is true: an empty γ scales by 1 (the output is x̂) and an empty β shifts by 0."""
    editor = widgets.row_editor(X[0])
    getattr(editor, method)("1, 2")
    default = {"gamma": "1s", "beta": "0s"}[field]
    other = {"gamma": "0s", "beta": "1s"}[field]
    shown = editor.messages[field].value
    assert f"Leave it empty for all {default}." in shown and f"all {other}" not in shown, shown
    getattr(editor, method)("")  # as the message advises
    assert editor.message == ""
    np.testing.assert_allclose(editor.record.output, numpy_stages(X[0])["normalised"], atol=1e-12)


def test_fixing_the_bad_field_clears_the_message():
    editor = widgets.row_editor(X[0])
    editor.set_eps("abc")
    editor.set_row("1, x")
    assert (
        "eps" in editor.messages["eps"].value and "Value 2" in editor.messages["row"].value
    )  # both problems, each by its field
    editor.set_eps("1e-5")
    assert "ε" not in editor.message and "Value 2" in editor.message
    editor.set_row(X[1])
    assert editor.message == "" and all(not w.value for w in editor.messages.values())
    assert_shows(editor.table.value, numpy_stages(X[1])["normalised"])


def test_a_new_row_length_with_an_old_gamma_waits_for_gamma():
    editor = widgets.row_editor(X[0], gamma=[1, 2, 3])
    editor.set_row("1 2 3 4")
    assert "γ needs one value per feature: 4 values; got 3" in editor.messages["gamma"].value
    assert editor.record.n == 3
    editor.set_gamma("1 1 2 2")
    assert editor.message == "" and editor.record.n == 4
    expected = numpy_stages([1, 2, 3, 4], gamma=[1, 1, 2, 2])["output"]
    np.testing.assert_allclose(editor.record.output, expected, atol=1e-12)


def test_a_gamma_so_large_that_the_output_overflows_is_a_message():
    editor = widgets.row_editor(X[0])
    good = editor.record
    editor.set_gamma("1.7e308, 1, 1")  # 1.17 · 1.7e308 is past the largest float
    assert "γ · x̂ + β is too large" in editor.message and editor.record is good
    assert "last good" in repr(editor)
    assert_shows(editor.table.value, numpy_stages(X[0])["output"])


def test_hand_rounding_that_divides_by_zero_is_a_message():
    editor = widgets.row_editor(X[4])
    editor.set_decimals(1)  # row 5's std rounds to 0.0 at one place
    assert "rounds to 0" in editor.messages["decimals"].value
    assert editor.record.decimals is None


def test_an_unexpected_error_in_a_callback_is_shown_not_raised(monkeypatch):
    editor = widgets.row_editor(X[0])

    def broken(*args, **kwargs):
        raise RuntimeError("the maths broke")

    monkeypatch.setattr(widgets.row, "layer_norm_steps", broken)
    editor.set_row(X[1])  # must not raise
    assert "Something went wrong: the maths broke" in editor.message
    assert "Something went wrong" in editor.messages["general"].value
    assert_shows(editor.table.value, numpy_stages(X[0])["normalised"])


def test_constructor_rejects_bad_arguments_in_plain_words():
    with pytest.raises(ValueError, match="not a number"):
        widgets.row_editor("1, abc")
    with pytest.raises(ValueError, match="0 or larger"):
        widgets.row_editor(X[0], eps=-1)


def test_eps_zero_follows_the_one_rule_everywhere():
    """eps = 0 is allowed, as in layer_norm; a constant row then says why it cannot divide, beside the row."""
    editor = widgets.row_editor(X[0], eps=0)
    assert editor.message == "" and editor.record.eps == 0.0
    assert_shows(editor.table.value, numpy_stages(X[0], eps=0.0)["normalised"])
    editor.set_row("2, 2, 2")
    assert "every value" in editor.messages["row"].value.lower() and "positive eps" in editor.message
    assert editor.messages["eps"].value == ""
    np.testing.assert_array_equal(editor.record.input, X[0])  # the last good row stays


def test_row_editor_with_the_number_line():
    editor = widgets.row_editor(X[0], plot=True)
    first = editor.plot_view.value
    assert first.startswith("<svg") and 'role="img"' in first and editor.plot_view in editor.children
    assert f"{X[0].mean():.4f}" in first  # its numbers are text in the picture
    editor.set_row(X[4])
    changed = editor.plot_view.value
    assert changed != first and f"{X[4].mean():.4f}" in changed
    editor.set_row("oops")
    assert editor.plot_view.value == changed  # the last good picture stays


# --- step explorer


def test_explorer_walks_every_stage_and_back():
    explorer = widgets.step_explorer(X, row=0)
    assert explorer.stage == "input" and explorer.previous_button.disabled
    seen = [explorer.stage]
    for _ in range(len(widgets.EXPLORER_STAGES) + 2):  # two presses past the end do nothing
        explorer.next()
        if explorer.stage != seen[-1]:
            seen.append(explorer.stage)
    assert tuple(seen) == widgets.EXPLORER_STAGES
    assert explorer.next_button.disabled
    for _ in range(len(widgets.EXPLORER_STAGES) + 2):
        explorer.previous()
    assert explorer.stage == "input"


def test_explorer_reveals_one_stage_at_a_time_with_numbers_filled_in():
    explorer = widgets.step_explorer(X, row=0)
    expected = numpy_stages(X[0])
    assert "μ =" not in repr(explorer)
    explorer.next()
    text = repr(explorer)
    assert "μ = (x₁ + … + xₙ) / n = (1.1330 + (-0.2990) + 0.5030) / 3 = 0.4457" in text
    assert "x − μ" not in text
    explorer.next()
    assert "x − μ = (1.1330 − 0.4457, -0.2990 − 0.4457, 0.5030 − 0.4457) = (0.6873, -0.7447, 0.0573)" in repr(explorer)
    for _ in range(3):
        explorer.next()
    assert explorer.stage == "variance_plus_eps"
    assert f"σ² + ε = {expected['variance']:.6f} + 1e-05 = {expected['variance'] + EPS:.6f}" in repr(explorer)
    explorer.next()
    explorer.next()
    assert_shows(explorer.stages_html.value, expected["normalised"])
    assert "step 8 of 9: normalised" in explorer.position_label.value


def test_show_all_reveals_everything_and_can_be_switched_off():
    explorer = widgets.step_explorer(X, row=2)
    explorer.show_all(True)
    text = repr(explorer)
    for stage in widgets.EXPLORER_STAGES:
        assert widgets.STAGE_LABELS[stage][0] in text
    assert_shows(text, numpy_stages(X[2])["output"])
    assert explorer.stage == "input"
    explorer.show_all(False)
    assert "σ²" not in repr(explorer)


def test_explorer_row_choice_keeps_the_stage():
    explorer = widgets.step_explorer(X)
    for _ in range(6):
        explorer.next()
    explorer.select_row(4)
    assert explorer.stage == "std" and explorer.row_picker.value == 4
    assert_shows(repr(explorer), numpy_stages(X[4])["std"])
    assert highlighted_labels(explorer.matrix_html.value) == ["row 5"]  # the matrix labels every row
    assert "row 5, eps" in explorer.stages_html.value and repr(explorer).startswith("Step through LayerNorm: row 5")
    explorer.select_row(9)
    assert "from 0 to 4" in explorer.message and "⚠" in explorer.message_html.value
    assert explorer.row_picker.value == 4
    np.testing.assert_allclose(explorer.record.input, X[4])
    explorer.select_row("two")
    assert "from 0 to 4" in explorer.message
    explorer.select_row(0)
    assert explorer.message == ""


def test_explorer_row_that_cannot_be_rounded_by_hand_keeps_the_last_row():
    explorer = widgets.step_explorer(X, row=0, decimals=2)
    explorer.show_all(True)
    explorer.select_row(4)  # row 5's std rounds to 0 at 2 places
    assert "row 5" in explorer.message and "rounds to 0" in explorer.message
    assert repr(explorer).startswith("Step through LayerNorm: row 1 of 5")
    np.testing.assert_allclose(explorer.record.input, X[0])


def test_explorer_text_form_when_displayed():
    explorer = widgets.step_explorer(X)
    explorer.show_all(True)
    assert text_plain_as_displayed(explorer) == repr(explorer)


def test_explorer_on_a_long_row_elides():
    rng = np.random.default_rng(3)
    explorer = widgets.step_explorer(rng.normal(size=(2, 768)))
    explorer.show_all(True)
    assert "…" in repr(explorer) and "/ 768" in repr(explorer)


# --- matrix editor


def test_matrix_editor_shows_all_rows_in_and_out():
    editor = widgets.matrix_editor(X)
    expected = np.vstack([numpy_stages(row)["output"] for row in X])
    np.testing.assert_allclose(editor.output, expected, atol=1e-12)
    text = repr(editor)
    assert_shows(text, expected)
    assert_shows(text, X)
    assert_shows(editor.output_html.value, expected)
    assert text_plain_as_displayed(editor) == text


def test_editing_a_cell_recomputes_the_whole_output():
    editor = widgets.matrix_editor(X)
    editor.set_cell(0, 0, "2.5")
    changed = X.copy()
    changed[0, 0] = 2.5
    expected = np.vstack([numpy_stages(row)["output"] for row in changed])
    np.testing.assert_allclose(editor.output, expected, atol=1e-12)
    assert_shows(repr(editor), expected[0])
    editor.cells[3][2].value = "-1"  # typing into the box
    changed[3, 2] = -1
    np.testing.assert_allclose(editor.output[3], numpy_stages(changed[3])["output"], atol=1e-12)


def test_matrix_editor_highlights_the_current_row():
    editor = widgets.matrix_editor(X, row=1)
    marked = [line for line in repr(editor).splitlines() if "◀" in line and line.startswith("row")]
    assert len(marked) == 1 and marked[0].startswith("row 2")
    editor.select_row(2)
    marked = [line for line in repr(editor).splitlines() if "◀" in line and line.startswith("row")]
    assert marked[0].startswith("row 3") and editor.row_labels[2].value == "▶ row 3"
    assert editor.row_lines[2].layout.border and not editor.row_lines[1].layout.border
    np.testing.assert_allclose(editor.record.input, X[2])
    assert_shows(editor.steps_html.value, numpy_stages(X[2])["normalised"])


@pytest.mark.parametrize(
    "text, words",
    [
        ("abc", "'abc' is not a number"),
        ("", "empty"),
        ("nan", "NaN"),
        ("inf", "infinity"),
        ("1e400", "too large"),
        ("1e200", "too large"),
        ("1 2", "not a number"),
    ],
)
def test_a_bad_cell_is_named_and_the_last_good_output_stays(text, words):
    editor = widgets.matrix_editor(X)
    good = editor.output.copy()
    editor.set_cell(1, 2, text)
    assert words in editor.message
    if words != "too large" or text == "1e400":
        assert "row 2, feature 3" in editor.message
        assert editor.cells[1][2].layout.border
    np.testing.assert_array_equal(editor.output, good)
    assert "last good" in repr(editor)
    editor.set_cell(1, 2, "0.143")
    assert editor.message == "" and not editor.cells[1][2].layout.border


def test_matrix_editor_bad_row_cell_and_eps():
    editor = widgets.matrix_editor(X)
    editor.select_row(5)
    assert "from 0 to 4" in editor.message and editor.row_picker.value == 0
    editor.set_cell(7, 0, "1")
    assert "no cell (7, 0)" in editor.message
    editor.set_eps("-1")
    assert "0 or larger" in editor.message
    editor.set_eps("1e-3")
    assert editor.message == ""
    np.testing.assert_allclose(editor.output[4], numpy_stages(X[4], eps=1e-3)["output"], atol=1e-12)
    with pytest.raises(ValueError, match="at most"):
        widgets.matrix_editor(np.zeros((30, 30)))


# --- answer checker


def test_answer_checker_verdicts():
    checker = widgets.answer_checker(X[1], "mean")
    mean = X[1].mean()
    verdict = checker.check(f"{mean:.4f}")
    assert verdict.kind == "right" and "✓ Right" in checker.verdict_html.value
    verdict = checker.check(f"{X[1].sum() / 2:.4f}")
    assert verdict.kind == "wrong" and verdict.mistake == "n-1"
    assert "✗" in checker.verdict_html.value and "n − 1" in checker.verdict_html.value
    text = repr(checker)
    assert "What is the mean μ of x = (-0.176, 0.911, 0.143)?" in text and "n − 1" in text
    assert checker.check(f"{X[1].sum() / 2:.4f}").mistake == "n-1"  # the same text again: Check pressed again


def test_answer_checker_shows_a_wrong_answer_in_the_warning_colour_and_a_right_one_not():
    """The verdict's colour follows the verdict: a ✗ in the colour every warning uses, a ✓ in another."""
    import re

    from helpers.widgets.base import MESSAGE_COLOUR

    def colour(html_text):
        return re.search(r"color:\s*(#[0-9a-fA-F]{6})", html_text).group(1).lower()

    checker = widgets.answer_checker(X[1], "mean")
    for answer, right in ((f"{X[1].mean():.4f}", True), (f"{X[1].sum() / 2:.4f}", False), ("0.9", False)):
        verdict = checker.check(answer)
        assert verdict.is_right is right
        assert (colour(checker.verdict_html.value) == MESSAGE_COLOUR.lower()) is not right, (answer, verdict.kind)


def test_answer_checker_bad_text_clears_the_last_verdict():
    # Issue 9: after a bad entry, the old "✓ Right" must not stay visible under the new warning.
    checker = widgets.answer_checker(X[2], "variance")
    assert checker.check(f"{X[2].var():.4f}").kind == "right" and "✓" in checker.verdict_html.value
    for bad in ("abc", "", "nan", "1e400"):
        assert checker.check(bad) is None
        assert checker.message.startswith(("Your answer", "'")) and "number" in checker.message
        assert "⚠" in checker.message_html.value
        assert checker.verdict is None and checker.verdict_html.value == "" and "✓" not in repr(checker)
    assert checker.check(f"{np.var(X[2], ddof=1):.4f}").mistake == "n-1"
    assert checker.message == ""


def test_answer_checker_for_normalised_and_std():
    checker = widgets.answer_checker(X[4], "normalised", index=0)
    assert "feature 1" in repr(checker)
    assert checker.check("-0.62").mistake == "rounding"
    checker = widgets.answer_checker(X[3], "std")
    assert checker.check(f"{np.sqrt(X[3].var() + EPS):.3f}").kind == "right"
    assert text_plain_as_displayed(checker) == repr(checker)
    with pytest.raises(ValueError):
        widgets.answer_checker(X[0], "median")


# --- multiple choice


def test_multiple_choice_right_wrong_and_not_an_option():
    question = widgets.multiple_choice(
        "Which row has the smallest spread?",
        ["row 1", "row 5"],
        "row 5",
        explanation="Its three values are close.",
        hint="Compare the gaps.",
    )
    assert "(choose an answer)" in repr(question) and question.choice is None
    question.choose("row 1")
    assert "✗ Not this one: “row 1”. Compare the gaps." in repr(question) and "(•) row 1" in repr(question)
    question.choose("row 5")
    assert "✓ Right: row 5. Its three values are close." in question.verdict_html.value
    question.choose("row 9")  # must not raise
    assert "not one of the options" in question.message and "⚠" in question.message_html.value
    assert question.choice == "row 5" and "✓ Right" in repr(question)
    question.buttons.value = "row 1"  # a click clears the message
    assert question.message == "" and question.choice == "row 1"
    assert text_plain_as_displayed(question) == repr(question)
    with pytest.raises(ValueError, match="not one of the options"):
        widgets.multiple_choice("?", ["a", "b"], "c")


# --- only the API ipywidgets 7.7 and 8.1 share


def test_only_core_widgets_shared_by_ipywidgets_7_and_8_are_used():
    import inspect

    source = inspect.getsource(widgets)
    used = set(re.findall(r"widgets\.([A-Z]\w+)\(", source))
    shared = {
        "Text",
        "FloatLogSlider",
        "BoundedIntText",
        "IntText",
        "Dropdown",
        "ToggleButton",
        "Checkbox",
        "Button",
        "HTML",
        "Label",
        "HBox",
        "VBox",
        "Layout",
        "Image",
        "RadioButtons",
    }
    assert used <= shared, used - shared
    for avoided in ("Stack", "TagsInput", "description_allow_html", "on_submit", "Output(", "tooltip"):
        assert avoided not in source


def test_multiple_choice_says_right_or_wrong_and_prints_its_state():
    question = widgets.multiple_choice(
        "Which row spreads least?",
        ["row 1", "row 5"],
        "row 5",
        explanation="Its values are almost equal.",
        hint="Compare each row's ends.",
    )
    assert "(choose an answer)" in repr(question)
    question.choose("row 1")
    assert question.choice == "row 1"
    assert repr(question).splitlines()[1:] == [
        "  (•) row 1",
        "  ( ) row 5",
        "  ✗ Not this one: “row 1”. Compare each row's ends.",
    ]
    question.choose("row 5")
    assert repr(question).splitlines()[-1] == "  ✓ Right: row 5. Its values are almost equal."
    assert "Right: row 5" in question.verdict_html.value
    with pytest.raises(ValueError, match="is not one of the options"):
        widgets.multiple_choice("?", ["a", "b"], "c")


def test_live_table_remakes_its_table_on_every_change_and_keeps_the_last_good_one():
    from ipywidgets import FloatText

    def scaled_row(scale):
        if scale <= 0:
            raise ValueError("The scale must be positive.")
        return helpers.show_matrix(helpers.layer_norm(np.array([1.0, 2.0, 4.0]) * scale), title=f"scale {scale:g}")

    control = FloatText(value=1.0)
    table = widgets.live_table(scaled_row, scale=control)
    expected = helpers.show_matrix(helpers.layer_norm(np.array([2.0, 4.0, 8.0])), title="scale 2")
    control.value = 2.0
    assert repr(table) == str(expected)
    assert table.table_html.value == expected._repr_html_()
    control.value = -1.0
    assert table.message == "The scale must be positive."
    assert str(expected) in repr(table) and "⚠ The scale must be positive." in repr(table)
    control.value = 2.0
    assert table.message == "" and repr(table) == str(expected)


def test_number_question_judges_typed_answers_and_explains_bad_text():
    question = widgets.number_question(
        "What is 1/σ for row 1?",
        1 / np.sqrt(X[0].var() + EPS),
        tolerance=5e-4,
        hint="Divide 1 by the standard deviation, 0.58602.",
    )
    assert "(type your answer" in repr(question)
    assert question.check("1.7064") is True and "✓ Right" in repr(question)
    assert question.check("1.71") is False and "✗ Not yet. Divide 1 by the standard deviation" in repr(question)
    assert question.check("one point seven") is None
    assert question.message == "Your answer 'one point seven' is not a number."
    with pytest.raises(ValueError, match="tolerance must be a number 0 or larger"):
        widgets.number_question("?", 1.0, tolerance=-1)


# --- review fixes


def test_typing_the_original_value_back_into_a_box_clears_the_message():
    editor = widgets.row_editor(X[0])
    good = editor.record
    editor.value_boxes[1].value = "abc"
    assert "Value 2" in editor.message
    editor.value_boxes[1].value = "-0.299"  # the paste field never changed, so it fires no event
    assert editor.message == "" and editor.messages["row"].value == ""
    assert editor.row_text.value == "1.133, -0.299, 0.503"
    np.testing.assert_allclose(editor.record.normalised, good.normalised, rtol=0, atol=0)


@pytest.mark.parametrize("decimals", [None, 3])
def test_gamma_overflow_is_shown_as_a_general_message_not_beside_the_row_or_places(decimals):
    editor = widgets.row_editor(X[0], decimals=decimals)
    good = editor.record
    editor.set_gamma("1.7e308, 1.7e308, 1.7e308")
    assert "too large to store" in editor.messages["general"].value
    assert editor.messages["row"].value == "" and editor.messages["decimals"].value == ""
    assert editor.record is good


def test_places_too_few_for_the_std_is_still_shown_beside_places():
    editor = widgets.row_editor([1.0, 1.0001, 1.0002])
    editor.set_decimals(1)
    assert "standard deviation rounds to 0" in editor.messages["decimals"].value
    assert editor.messages["row"].value == "" and editor.messages["general"].value == ""


def test_ragged_matrix_none_eps_and_bad_question_numbers_are_plain_value_errors():
    for make in (widgets.step_explorer, widgets.matrix_editor):
        with pytest.raises(ValueError, match="not a rectangular array of numbers"):
            make([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match=r"eps must be a number 0 or larger.*got nothing \(None\)"):
        widgets.row_editor(X[0], eps=None)
    with pytest.raises(ValueError, match="The answer must be a number; got 'abc'"):
        widgets.number_question("?", answer="abc", tolerance=0.1)
    with pytest.raises(ValueError, match="The tolerance must be a number; got 'abc'"):
        widgets.number_question("?", answer=1.0, tolerance="abc")
    with pytest.raises(ValueError, match="The tolerance must be a number 0 or larger"):
        widgets.number_question("?", answer=1.0, tolerance=-1)


def test_every_widget_shares_one_message_and_one_way_to_show_it():
    for cls in (
        widgets.StepExplorer,
        widgets.MatrixEditor,
        widgets.AnswerChecker,
        widgets.MultipleChoice,
        widgets.LiveTable,
        widgets.NumberQuestion,
    ):
        assert "message" not in vars(cls) and "_show_problems" not in vars(cls), cls.__name__
    assert "_show_problems" in vars(widgets.RowEditor)  # one message per field
    assert not hasattr(widgets, "diagnose")
    question = widgets.number_question("?", answer="1.5", tolerance=0.1)
    question.check("x")
    assert "⚠" in question.message_html.value and question.message.startswith("Your answer")
    assert question.check("1.55") is True and question.message_html.value == ""


# --- the row editor follows the notebook: upto=<stage> (driven and read back as HTML)


@pytest.mark.parametrize(
    ("upto", "shown", "controls"),
    [
        ("mean", ["input", "mean"], {"eps": False, "gamma": False}),
        ("variance", ["input", "mean", "differences", "squares", "variance"], {"eps": False, "gamma": False}),
        (
            "std",
            ["input", "mean", "differences", "squares", "variance", "epsilon", "variance + ε", "std"],
            {"eps": True, "gamma": False},
        ),
        ("output", None, {"eps": True, "gamma": True}),
    ],
)
def test_row_editor_upto_shows_the_stages_learned_and_hides_idle_controls(upto, shown, controls):
    editor = widgets.row_editor(X[4], upto=upto)
    rows = rows_by_label(editor.table.value)
    if shown is not None:
        assert list(rows) == shown
        assert "show the later steps" in editor.table.value and "later steps folded" in repr(editor)
    assert highlighted_labels(editor.table.value) == [upto]
    expected = expected_stages(X[4])
    for label, row in rows.items():
        if label in expected:
            assert_row_shows(row, expected[label])
    eps_line, gamma_line = editor.children[2], editor.children[3]
    assert (eps_line.layout.display != "none") == controls["eps"]
    assert (gamma_line.layout.display != "none") == controls["gamma"]
    editor.set_row("1, 2, 4")  # the folded view follows an edit
    rows = rows_by_label(editor.table.value)
    assert_row_shows(rows["mean"], [7 / 3])
    if shown is not None:
        assert list(rows) == shown
        editor.later_toggle.value = True  # "show the later steps" unfolds every stage
        rows = rows_by_label(editor.table.value)
        assert_row_shows(rows["normalised"], expected_stages([1, 2, 4])["normalised"])
        assert "later steps folded" not in editor.table.value


def test_row_editor_upto_refuses_an_unknown_stage():
    with pytest.raises(ValueError, match="upto names a stage that does not exist: 'average'"):
        widgets.row_editor(X[0], upto="average")


# --- scripted actions, each followed by a read of the HTML the learner sees (issue 15 §5)


def test_matrix_editor_breakdown_and_drop_down_follow_the_row_last_edited():
    editor = widgets.matrix_editor(X)
    changed = X.copy()
    for i, j, value in ((4, 1, "0.5"), (2, 0, "-1"), (4, 2, "0")):
        editor.set_cell(i, j, value)
        changed[i, j] = float(value)
        assert editor.row_picker.value == i and editor.row_labels[i].value == f"▶ row {i + 1}"
        assert highlighted_labels(editor.output_html.value) == [f"row {i + 1}"]
        expected = expected_stages(changed[i])
        rows = rows_by_label(editor.steps_html.value)
        for label in ("input", "mean", "differences", "variance", "std", "normalised"):
            assert_row_shows(rows[label], expected[label])
        output_rows = {row.label: row for row in tables(editor.output_html.value)[0]}
        for k in range(5):
            assert_row_shows(output_rows[f"row {k + 1}"], expected_stages(changed[k])["output"])
    editor.set_eps("1e-3")  # an eps edit keeps the current row
    assert editor.row_picker.value == 4
    assert_row_shows(rows_by_label(editor.steps_html.value)["std"], expected_stages(changed[4], eps=1e-3)["std"])
    editor.set_cell(1, 1, "abc")  # a bad cell: a message, and the breakdown stays on the last good row
    assert editor.row_picker.value == 4 and "row 2, feature 2" in visible_text(editor.message_html.value)


def test_explorer_title_stage_and_marks_follow_every_action():
    explorer = widgets.step_explorer(X)
    for _ in range(6):
        explorer.next()
    assert explorer.stage == "std" and explorer.position_label.value.startswith("step 7 of 9")
    for row in (4, 1):
        explorer.select_row(row)
        expected = expected_stages(X[row])
        html = explorer.stages_html.value
        assert f"row {row + 1}, eps" in visible_text(html)
        assert highlighted_labels(explorer.matrix_html.value) == [f"row {row + 1}"]
        assert highlighted_labels(html) == ["std"]
        (std_row,) = [r for r in tables(html)[0] if r.label == "std"]
        assert std_row.cells[1].endswith(f"= {four(expected['std'][0])}")  # the std, not the variance
        assert f"row {row + 1} of 5" in repr(explorer)
    explorer.show_all(True)
    assert (
        not re.search(r"step \d+ of", explorer.position_label.value) and "all 9 steps" in explorer.position_label.value
    )
    assert "step 7 of 9" not in repr(explorer)
    assert [r.label for r in tables(explorer.stages_html.value)[0]][-1] == "output"
    explorer.select_row(9)  # a bad row: a message; the reserved line keeps the widget from jumping
    assert explorer.message_html.layout.min_height and "from 0 to 4" in visible_text(explorer.message_html.value)


def test_explorer_says_when_it_rounds_by_hand_and_flags_drift():
    explorer = widgets.step_explorer(X, row=4, decimals=3)
    explorer.show_all(True)
    for shown in (visible_text(explorer.stages_html.value), repr(explorer)):
        assert "rounded by hand to 3 places (halves away from zero)" in shown
        assert "≠ exact" in shown
    exact = widgets.step_explorer(X, row=4)
    assert "rounded by hand" not in repr(exact) and ", exact;" in repr(exact)
    flagged = [row.label for row in tables(explorer.stages_html.value)[0] if row.flagged]
    assert "normalised" in flagged  # row 5 by hand ends at −0.618 where the truth is −0.5743


def test_number_question_is_right_within_its_tolerance_and_no_further():
    question = widgets.number_question("What is 1?", answer=1.0, tolerance=0.25)  # exact in binary
    assert question.check("1.25") is True and question.check("0.75") is True
    assert question.check("1.3") is False and question.check("0.7") is False
    assert "✗" in visible_text(question.verdict_html.value)


def test_the_places_field_says_when_it_clamps():
    editor = widgets.row_editor(X[0], decimals=3)
    editor.places.value = 20
    assert editor.places.value == 12 and editor.record.decimals == 12
    assert "20 places is outside 0 to 12: using 12" in editor.messages["decimals"].value
    editor.places.value = -1
    assert editor.places.value == 0 and "using 0" in editor.messages["decimals"].value
    editor.places.value = 4
    assert editor.messages["decimals"].value == "" and editor.record.decimals == 4


@pytest.mark.parametrize(
    "kwargs, closed, opened",
    [
        ({"upto": "mean"}, "show the later steps", "hide the later steps"),
        ({"stages": ("input", "std")}, "show every step", "show fewer steps"),
    ],
)
def test_the_fold_toggle_says_what_pressing_it_does(kwargs, closed, opened):
    editor = widgets.row_editor(X[0], **kwargs)
    assert editor.later_toggle.description == closed
    editor.later_toggle.value = True
    assert editor.later_toggle.description == opened and "folded" not in repr(editor)
    editor.later_toggle.value = False
    assert editor.later_toggle.description == closed


def said(editor) -> str:
    return re.sub(r"<[^>]+>", "", editor.announcement.value)


def test_the_status_line_says_only_what_the_notebook_has_taught():
    mean_only = said(widgets.row_editor(X[0], upto="mean"))  # notebook 02
    assert f"mean now {X[0].mean():.4f}" in mean_only
    assert "standard deviation" not in mean_only and "output" not in mean_only and "x̂" not in mean_only
    up_to_std = said(widgets.row_editor(X[0], upto="std"))  # notebook 04
    assert "standard deviation now" in up_to_std and "output" not in up_to_std and "x̂" not in up_to_std
    assert "output now" in said(widgets.row_editor(X[0]))  # 06 and 08: everything


def test_notebook_05s_editor_shows_the_variance_of_x_hat_closing_on_1_as_eps_shrinks():
    editor = widgets.row_editor(X[4], upto="normalised")  # as notebook 05 shows it
    shown = []
    for eps in (1e-2, 1e-5, 1e-12):
        editor.set_eps(eps)
        variance = X[4].var() / (X[4].var() + eps)
        match = re.search(r"variance of x̂ now (\d\.\d{6})", said(editor))
        assert match and match.group(1) == f"{variance:.6f}", said(editor)
        shown.append(float(match.group(1)))
    assert shown[0] < shown[1] < shown[2] == 1.0


def test_the_explorers_show_all_toggle_says_what_pressing_it_does():
    explorer = widgets.step_explorer(X, row=0)
    assert explorer.show_all_toggle.description == "show all"
    explorer.show_all()
    assert explorer.show_all_toggle.description == "step by step" and "all 9 steps shown" in repr(explorer)
    explorer.show_all(False)
    assert explorer.show_all_toggle.description == "show all"


@pytest.mark.parametrize(
    "row, mean",
    [("1e200, 2e200, 4e200", "2.3333e+200"), ("1e-300, 2e-300, 4e-300", "2.3333e-300")],
)
def test_the_row_editor_reads_at_any_magnitude(row, mean):
    """Issue 33: a row of 1e200s printed a 200-digit mean; 1e-300 showed as 0.000000000000000."""
    editor = widgets.row_editor([1.0, 2.0, 4.0], plot=True)
    editor.set_row(row)
    if editor.message:  # 1e200² overflows: said in one sentence, the last good row stays
        assert "too large" in editor.message
        editor.set_row(row.replace("e200", "e150"))
        mean = mean.replace("e+200", "e+150")
    shown = [editor.table.value, said(editor), editor.plot_view.value, repr(editor)]
    for view in shown:
        assert mean in view, view[:300]
        assert "0.000000000000000" not in view and not re.search(r"\d{20}", view)
