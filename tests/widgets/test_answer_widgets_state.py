"""What a learner sees in the check-yourself boxes, exactly: the question heading, the field (its label,
its placeholder, its width, when it checks), the Check button, where each part sits, the text form before
and after an answer, and the verdict's HTML with its colour (blue for right, vermillion for wrong).

The boxes are the answer checker (:func:`helpers.widgets.answer_checker`), the number question
(:func:`helpers.widgets.number_question`) and the multiple-choice question
(:func:`helpers.widgets.multiple_choice`); the classes behind them are public too and keep the same
defaults. A browser does not set ``value`` the way a test does: it sends a state message, which
``set_state`` applies here as the kernel would.
"""

from __future__ import annotations

import ipywidgets
import numpy as np
import pytest

from helpers.checking import answers, class_record
from helpers.widgets import (
    MultipleChoice,
    NumberQuestion,
    answer_checker,
    multiple_choice,
    number_question,
)

RIGHT_COLOUR, WRONG_COLOUR = "#005a87", "#a33c00"
MEAN_QUESTION = "What is the mean μ of x = (1.0, 2.0, 3.0, 4.0)?"


# ---------------------------------------------------------------------------------------------
# The answer checker


def test_a_fresh_answer_checker_shows_the_question_a_labelled_field_and_a_check_button():
    box = answer_checker("1, 2, 3, 4", "mean")
    heading, row, verdict = box.children
    assert heading.value == f"<b>Check your answer.</b> {MEAN_QUESTION}"
    assert isinstance(row, ipywidgets.HBox)
    assert row.children == (box.answer_box, box.check_button, box.message_html)
    assert row.layout.align_items == "center"
    field = box.answer_box
    assert (field.value, field.description, field.placeholder) == ("", "your answer:", "e.g. 0.446")
    assert field.continuous_update is False  # checked on Enter, not at every key
    assert field.layout.width == "300px"
    assert field.style.description_width == "initial"  # the whole label "your answer:" shows
    assert (box.check_button.description, box.check_button.layout.width) == ("Check", "80px")
    assert verdict is box.verdict_html and verdict.value == ""
    assert box.message_html.value == ""
    assert box.text() == f"Check your answer: {MEAN_QUESTION}\n  (type your answer and press Enter or Check)"


def test_a_right_answer_shows_the_typed_text_the_tick_and_the_value_in_blue():
    box = answer_checker("1, 2, 3, 4", "mean")
    verdict = box.check("2.5")
    assert verdict is not None and verdict.is_right
    assert box.text() == (
        f"Check your answer: {MEAN_QUESTION}\n  your answer: 2.5\n  ✓ Right: the mean μ is 2.50000 (to 5 places)."
    )
    assert box.verdict_html.value == (
        f'<div style="color:{RIGHT_COLOUR}"><b>✓ Right</b> (2.5): the mean μ is 2.50000 (to 5 places).</div>'
    )


def test_a_wrong_answer_shows_the_cross_and_the_hint_in_vermillion():
    box = answer_checker("1, 2, 3, 4", "mean")
    verdict = box.check("2.4")
    assert verdict is not None and not verdict.is_right
    assert box.text() == (
        f"Check your answer: {MEAN_QUESTION}\n"
        "  your answer: 2.4\n"
        "  ✗ Not yet: Not quite. Add the n values and divide by n."
    )
    assert box.verdict_html.value == (
        f'<div style="color:{WRONG_COLOUR}"><b>✗ Not yet</b> (2.4): Not quite. Add the n values and divide by n.</div>'
    )


def test_pressing_check_on_the_empty_field_says_it_is_empty():
    box = answer_checker("1, 2, 3, 4", "mean")
    assert box.check("") is None  # the field already holds "": this is a press of Check
    assert box.text() == (
        f"Check your answer: {MEAN_QUESTION}\n"
        "  (type your answer and press Enter or Check)\n"
        "⚠ Your answer is empty; type a number."
    )
    assert box.message_html.value == f'<span style="color:{WRONG_COLOUR}">⚠ Your answer is empty; type a number.</span>'
    assert box.verdict_html.value == ""


def test_the_question_names_gamma_beta_and_eps_and_the_verdict_uses_them():
    # y₃ = γ₃ · x̂₃ + β₃ with ε = 0.001: -0.10593; with ε = 1e-05 it is -0.10558, without γ -0.553, without β 0.894.
    row, gamma, beta, eps = np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.5, 1, 2, 4]), np.array([0, 0.5, -1, 0]), 0.001
    expected = ((row - row.mean()) / np.sqrt(row.var() + eps) * gamma + beta)[2]
    assert round(expected, 4) == -0.1059
    question = (
        "What is the output y for feature 3 of x = (1.0, 2.0, 3.0, 4.0) with γ = (0.5, 1, 2, 4) "
        "and β = (0, 0.5, -1, 0) (ε = 0.001)?"
    )
    box = answer_checker("1, 2, 3, 4", "output", index=2, eps="0.001", gamma=list(gamma), beta=list(beta))
    assert box.children[0].value == f"<b>Check your answer.</b> {question}"
    assert box.check("-0.1059").is_right
    assert box.text() == (
        f"Check your answer: {question}\n"
        "  your answer: -0.1059\n"
        "  ✓ Right: the output y = γ · x̂ + β is -0.105930 (to 6 places)."
    )


def test_the_places_asked_for_end_the_question_and_fewer_are_not_accepted():
    question = f"{MEAN_QUESTION} Give at least 3 decimal places."
    box = answer_checker("1, 2, 3, 4", "mean", places=3)
    assert box.children[0].value == f"<b>Check your answer.</b> {question}"
    assert not box.check("2.5").is_right  # the right value, but with 1 place of the 3 asked
    assert box.text() == (
        f"Check your answer: {question}\n"
        "  your answer: 2.5\n"
        "  ✗ Not yet: Give at least 3 decimal places (you gave 1), so that the check can tell a right answer "
        "from a near miss."
    )
    assert box.check("2.500").is_right


def test_an_answer_typed_in_the_browser_is_checked_once_and_recorded_once(monkeypatch):
    recorded = []
    monkeypatch.setattr(class_record, "record_answer", recorded.append)
    box = answer_checker("1, 2, 3, 4", "mean")
    box.answer_box.set_state({"value": "2.5"})  # what the browser's message does
    assert [verdict.is_right for verdict in recorded] == [True]
    assert box.text() == (
        f"Check your answer: {MEAN_QUESTION}\n  your answer: 2.5\n  ✓ Right: the mean μ is 2.50000 (to 5 places)."
    )


# ---------------------------------------------------------------------------------------------
# The number question


@pytest.mark.parametrize("make", [number_question, NumberQuestion], ids=["number_question", "NumberQuestion"])
def test_a_fresh_number_question_shows_the_question_and_a_labelled_field(make):
    question = make("How many values has x = (1, 2, 3, 4)?", 4, 0)
    heading, row, verdict = question.children
    assert heading.value == "<b>Check yourself.</b> How many values has x = (1, 2, 3, 4)?"
    assert isinstance(row, ipywidgets.HBox)
    assert row.children == (question.answer_box, question.message_html)
    field = question.answer_box
    assert (field.value, field.description, field.placeholder) == ("", "your answer:", "a number")
    assert field.tooltip == "your answer"  # what a screen reader says the field is
    assert field.continuous_update is False
    assert field.style.description_width == "initial"
    assert verdict is question.verdict_html and verdict.value == ""
    assert (
        question.text() == "Check yourself: How many values has x = (1, 2, 3, 4)?\n  (type your answer and press Enter)"
    )


@pytest.mark.parametrize("make", [number_question, NumberQuestion], ids=["number_question", "NumberQuestion"])
def test_a_number_question_without_hint_or_explanation_says_just_right_or_not_yet(make):
    question = make("How many values has x = (1, 2, 3, 4)?", 4, 0)
    assert question.check("4") is True
    assert question.text() == "Check yourself: How many values has x = (1, 2, 3, 4)?\n  ✓ Right."
    assert question.verdict_html.value == f'<div style="color:{RIGHT_COLOUR}">✓ Right.</div>'
    assert question.check("5") is False
    assert question.text() == "Check yourself: How many values has x = (1, 2, 3, 4)?\n  ✗ Not yet."
    assert question.verdict_html.value == f'<div style="color:{WRONG_COLOUR}">✗ Not yet.</div>'


def test_a_number_question_shows_its_hint_and_explanation_in_the_verdict_colours():
    question = number_question("What is 1 + 1?", 2, 0.01, hint="Count again.", explanation="One and one.")
    question.check("2.005")
    assert question.verdict_html.value == f'<div style="color:{RIGHT_COLOUR}">✓ Right. One and one.</div>'
    question.check("3")
    assert question.verdict_html.value == f'<div style="color:{WRONG_COLOUR}">✗ Not yet. Count again.</div>'
    question.check("x")
    assert (
        question.text()
        == "Check yourself: What is 1 + 1?\n  (type your answer and press Enter)\n⚠ Your answer 'x' is not a number."
    )


def test_a_tolerance_of_zero_asks_for_the_exact_number():
    question = number_question("How many values has x = (1, 2, 3, 4)?", 4, 0)
    assert [question.check(text) for text in ("4", "4.0", "4.001", "3.999")] == [True, True, False, False]


def test_a_number_typed_in_the_browser_gets_its_verdict_and_no_warning():
    question = number_question("What is 1 + 1?", 2, 0.01)
    question.answer_box.set_state({"value": "2"})  # what the browser's message does
    assert question.text() == "Check yourself: What is 1 + 1?\n  ✓ Right."
    assert question.message_html.value == ""


# ---------------------------------------------------------------------------------------------
# The multiple-choice question


@pytest.mark.parametrize("make", [multiple_choice, MultipleChoice], ids=["multiple_choice", "MultipleChoice"])
def test_a_fresh_multiple_choice_shows_the_question_and_the_options_none_chosen(make):
    question = make("Which divides by n?", ["the mean", "the sum"], "the mean")
    heading, buttons, message, verdict = question.children
    assert heading.value == "<b>Check yourself.</b> Which divides by n?"
    assert buttons is question.buttons and isinstance(buttons, ipywidgets.RadioButtons)
    assert (buttons.options, buttons.value) == (("the mean", "the sum"), None)
    assert buttons.layout.width == "auto"  # long options are not cut
    assert (message, verdict) == (question.message_html, question.verdict_html)
    assert (message.value, verdict.value) == ("", "")
    assert question.text() == "Check yourself: Which divides by n?\n  ( ) the mean\n  ( ) the sum\n  (choose an answer)"


@pytest.mark.parametrize("make", [multiple_choice, MultipleChoice], ids=["multiple_choice", "MultipleChoice"])
def test_a_multiple_choice_without_explanation_or_hint_says_just_right_or_not_this_one(make):
    question = make("Which divides by n?", ["the mean", "the sum"], "the mean")
    question.choose("the mean")
    assert question.text() == "Check yourself: Which divides by n?\n  (•) the mean\n  ( ) the sum\n  ✓ Right: the mean."
    assert question.verdict_html.value == f'<div style="color:{RIGHT_COLOUR}">✓ Right: the mean.</div>'
    question.choose("the sum")
    assert (
        question.text()
        == "Check yourself: Which divides by n?\n  ( ) the mean\n  (•) the sum\n  ✗ Not this one: “the sum”."
    )
    assert question.verdict_html.value == f'<div style="color:{WRONG_COLOUR}">✗ Not this one: “the sum”.</div>'


def test_an_answer_that_is_not_an_option_is_refused_naming_the_options():
    with pytest.raises(ValueError) as refused:
        multiple_choice("Which divides by n?", ["the mean", "the sum"], "the variance")
    assert str(refused.value) == "The answer 'the variance' is not one of the options: the mean, the sum."


@pytest.mark.parametrize(("index", "verdict"), [(0, "✓ Right: the mean."), (1, "✗ Not this one: “the sum”.")])
def test_a_click_in_the_browser_gives_the_verdict_on_the_option_clicked(index, verdict):
    question = multiple_choice("Which divides by n?", ["the mean", "the sum"], "the mean")
    question.buttons.set_state({"index": index})  # the browser sends the index of the option clicked
    assert question.text().splitlines()[-1] == f"  {verdict}"
    assert question.choice == ["the mean", "the sum"][index]


def test_a_check_that_fails_leaves_no_earlier_verdict_standing(monkeypatch):
    # Typing "1e-400" did this (a check to 400 places overflows the rounding): the ✓ for 2.5 stayed
    # under "Something went wrong", and the text form said "your answer: 2.5 ✓ Right" for 1e-400.
    box = answer_checker("1, 2, 3, 4", "mean")
    assert box.check("2.5").is_right

    def broken(*args, **kwargs):
        raise RuntimeError("the check broke")

    monkeypatch.setattr(answers, "diagnose", broken)
    assert box.check("2.6") is None
    assert box.verdict_html.value == ""
    assert box.text() == (
        f"Check your answer: {MEAN_QUESTION}\n"
        "  (type your answer and press Enter or Check)\n"
        "⚠ Something went wrong: the check broke"
    )


def test_an_answer_written_with_hundreds_of_places_gets_its_verdict():
    # 1e-400 is written with 400 places: comparing at 400 places overflowed the rounding, and the learner read
    # "Something went wrong: [<class 'decimal.InvalidOperation'>]". As a float it is 0: wrong for the mean 2.5.
    box = answer_checker("1, 2, 3, 4", "mean")
    assert not box.check("1e-400").is_right
    assert box.text() == (
        f"Check your answer: {MEAN_QUESTION}\n  your answer: 1e-400\n  ✗ Not yet: Not quite. Add the n values and divide by n."
    )
    assert box.check("2.5" + "0" * 400).is_right
