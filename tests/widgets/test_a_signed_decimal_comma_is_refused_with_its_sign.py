"""``refuse_decimal_comma`` (helpers.widgets.base): "A decimal comma: digits, one comma, digits …
("0,586", "-1,5")" - a value with a sign, a plus or a typographic minus (as copied from a page) is one number
written with a decimal comma too, refused in one sentence that gives it back with a point, sign and all.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402
from helpers.widgets.base import refuse_decimal_comma  # noqa: E402


@pytest.mark.parametrize(("word", "with_a_point"), [("-1,5", "-1.5"), ("+0,25", "+0.25"), ("−0,586", "−0.586")])
def test_a_signed_value_with_a_decimal_comma_is_refused_with_its_sign(word, with_a_point):
    with pytest.raises(ValueError) as refused:
        refuse_decimal_comma(f"1.5 {word} 2")
    assert str(refused.value) == (
        f"'{word}' is written with a decimal comma: write {with_a_point} (a point), "
        "or put a space after the comma if these are two values."
    )


def test_the_row_editor_names_the_signed_value_and_keeps_the_last_good_row():
    editor = widgets.row_editor([1.0, 2.0, 4.0])
    editor.set_row("1.5; -0,25; 2")
    assert editor.message.startswith("'-0,25' is written with a decimal comma: write -0.25 (a point)")
    assert list(editor.record.input) == [1.0, 2.0, 4.0]


def test_a_number_question_refuses_a_negative_decimal_comma_rather_than_judging_it():
    question = widgets.number_question("The smallest value of x̂?", -1.5, 0.01)
    assert question.check("-1,5") is None
    assert question.message.startswith("Your answer '-1,5' is written with a decimal comma: write -1.5")
