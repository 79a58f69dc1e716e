"""The words every widget shares (helpers.widgets.base) and the row editor's text form, exactly.

From the docstrings: a widget still being built shows as ``ClassName()``; a note beside a field starts with ℹ,
and no note is nothing; problems in the text form end with "(showing the last good result)"; a message ends
with one full stop; a number given in code is a finite number or a ValueError naming it in one sentence.
The row editor's text form is its table, the folded-steps note (when steps are folded) and its problems, one per
line; ``set_beta(None)`` empties the β field (all 0s).
"""

from __future__ import annotations

import math

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402
from helpers.widgets.base import (  # noqa: E402
    LessonWidget,
    message_lines,
    note_html,
    number_argument,
    sentence,
)

# --- a widget still being built


class HalfBuilt(LessonWidget):
    def text(self) -> str:
        raise AttributeError("'HalfBuilt' object has no attribute 'record'")


def test_a_widget_still_being_built_shows_as_its_class_name():
    assert repr(HalfBuilt()) == "HalfBuilt()"
    assert str(HalfBuilt()) == "HalfBuilt()"
    assert repr(LessonWidget()) == "LessonWidget()"


# --- notes and messages


def test_a_note_beside_a_field_is_grey_with_an_information_sign():
    assert note_html("20 places is outside 0 to 12: using 12.") == (
        '<span style="color:#333">ℹ 20 places is outside 0 to 12: using 12.</span>'
    )


def test_a_note_keeps_its_quotes_as_typed_and_escapes_markup():
    assert note_html("'0,5' <typed> \"as is\" & kept") == (
        '<span style="color:#333">ℹ \'0,5\' &lt;typed&gt; "as is" &amp; kept</span>'
    )


def test_no_note_is_nothing_at_all():
    assert note_html("") == ""


def test_the_row_editor_notes_clamped_places_beside_the_field():
    editor = widgets.row_editor([1, 2, 3])
    editor.set_decimals(3)
    editor.places.value = 20
    assert (
        editor.messages["decimals"].value == '<span style="color:#333">ℹ 20 places is outside 0 to 12: using 12.</span>'
    )
    assert editor.places.value == 12


def test_problems_in_the_text_form_end_with_showing_the_last_good_result():
    assert message_lines({}) == []
    assert message_lines({"row": "Value 2 'abc' is not a number.", "eps": "ε must be 0 or larger."}) == [
        "⚠ Value 2 'abc' is not a number.",
        "⚠ ε must be 0 or larger.",
        "  (showing the last good result)",
    ]


def test_a_message_ends_with_one_full_stop():
    assert sentence("Your answer is empty; type a number") == "Your answer is empty; type a number."
    assert sentence("Your answer is written with a decimal comma.") == "Your answer is written with a decimal comma."
    assert sentence("") == "."


def test_a_number_question_says_a_decimal_comma_in_one_sentence_with_one_full_stop():
    question = widgets.number_question("The mean of 1, 2, 3?", 2, 0.01)
    assert question.check("0,5") is None
    assert question.message == (
        "Your answer '0,5' is written with a decimal comma: write 0.5 (a point), "
        "or put a space after the comma if these are two values."
    )


# --- numbers given in code


def test_a_number_given_as_text_is_read_as_a_person_writes_it():
    assert number_argument("−0.5", "The answer") == -0.5  # a typographic minus, as copied from a page
    assert number_argument(" 1e-5 ", "The tolerance") == 1e-05
    assert number_argument(2, "The answer") == 2.0


@pytest.mark.parametrize(
    "value, message",
    [
        (math.inf, "The answer must be a finite number; got inf."),
        (-math.inf, "The answer must be a finite number; got -inf."),
        (float("nan"), "The answer must be a finite number; got nan."),
        ("abc", "The answer must be a number; got 'abc'."),
        (None, "The answer must be a number; got None."),
        # infinity or NaN written as text is refused as math.inf and math.nan are, not as "not a number"
        ("inf", "The answer must be a finite number; got 'inf'."),
        ("−Infinity", "The answer must be a finite number; got '−Infinity'."),
        (" nan ", "The answer must be a finite number; got ' nan '."),
        ("infinite", "The answer must be a number; got 'infinite'."),
    ],
)
def test_a_number_given_in_code_that_is_not_finite_is_refused_in_one_sentence(value, message):
    with pytest.raises(ValueError) as raised:
        number_argument(value, "The answer")
    assert str(raised.value) == message


def test_a_number_question_with_an_infinite_answer_is_refused_by_name():
    with pytest.raises(ValueError) as raised:
        widgets.number_question("How large?", math.inf, 0.01)
    assert str(raised.value) == "The answer must be a finite number; got inf."


# --- the row editor's text form and its β field

TABLE = """\
LayerNorm of one row (3 features, eps = 1e-05), exact, shown to 4 places
  input         x                          1.0000    2.0000    3.0000
  mean          μ = (x₁ + … + xₙ) / n      2.0000
  differences   x − μ                     -1.0000    0.0000    1.0000
  squares       (x − μ)²                   1.0000    0.0000    1.0000
  variance      σ² = Σ(x − μ)² / n       0.666667
  epsilon       ε                           1e-05
  variance + ε  σ² + ε                   0.666677
  std           √(σ² + ε)                  0.8165
  normalised    x̂ = (x − μ) / √(σ² + ε)   -1.2247    0.0000    1.2247
  output        y = γ · x̂ + β             -1.2247    0.0000    1.2247"""


def test_the_row_editors_text_form_is_its_table_alone_when_nothing_is_folded():
    assert widgets.row_editor([1, 2, 3]).text() == TABLE


def test_the_row_editors_text_form_lists_its_problem_under_the_last_good_table():
    editor = widgets.row_editor([1, 2, 3])
    editor.set_row("1, abc")
    assert editor.text() == TABLE + "\n⚠ Value 2 'abc' is not a number.\n  (showing the last good result)"
    assert repr(editor) == editor.text()


def test_the_row_editors_text_form_says_which_steps_are_folded():
    assert widgets.row_editor([1, 2, 3], upto="mean").text() == (
        "LayerNorm of one row (3 features, eps = 1e-05), exact, shown to 4 places\n"
        "    input  x                      1.0000  2.0000  3.0000\n"
        "  ▶ mean   μ = (x₁ + … + xₙ) / n  2.0000\n"
        "  (later steps folded (differences, squares, variance, epsilon, variance + ε, std, normalised, output): "
        "press “show the later steps”)"
    )


def test_setting_beta_to_none_empties_its_field_and_shifts_nothing():
    editor = widgets.row_editor([1, 2, 3])
    editor.set_beta([1, 1, 1])
    assert editor.beta_text.value == "1, 1, 1"
    assert editor.record.output.tolist() == pytest.approx([-0.22474, 1.0, 2.22474], abs=1e-5)
    editor.set_beta(None)
    assert editor.beta_text.value == ""
    assert editor.message == ""
    assert editor.text() == TABLE
