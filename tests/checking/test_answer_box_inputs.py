"""What an answer box takes in and what its verdict records (helpers.checking.answers' docstrings).

``diagnose`` refuses in plain words what is not one finite number, a ``places`` that is not a whole
number 0 or more, an unknown quantity or a bad index; every public function works with the ε it is
given (not the default); a verdict records the quantity, the number typed, the exact value and the
places typed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.checking.answers import (
    RIGHT,
    WRONG,
    diagnose,
    expected_value,
    known_mistakes,
    places_to_catch,
    question_text,
    typed_places,
)

from conftest import LESSON_X as X

ROW1 = X[0]  # (1.133, -0.299, 0.503)
EPS = 0.25  # far from the default 1e-5: a function that drops it gives another value


@pytest.mark.parametrize("text", ["twelve", "1/2", "0,5", "pi"])
def test_text_that_is_not_a_written_number_has_no_decimal_places(text):
    assert typed_places(text) == 0


@pytest.mark.parametrize("places", [True, 2.5, "3", -1])
def test_places_asked_must_be_a_whole_number_zero_or_more(places):
    with pytest.raises(ValueError, match=r"places must be a whole number of decimal places, 0 or more; got"):
        diagnose(ROW1, "mean", "0.446", places=places)


def test_zero_places_asked_is_a_question_about_whole_numbers():
    assert diagnose([1.0, 2.0, 4.5], "mean", "3", places=0).kind == RIGHT  # exact 2.5: rounds to 3


@pytest.mark.parametrize(
    "answer, words",
    [(None, "got nothing (None)."), ([1], "got list."), (object(), "got object."), (True, "got bool.")],
)
def test_an_answer_that_is_not_one_number_says_what_it_got(answer, words):
    with pytest.raises(ValueError) as problem:
        diagnose(ROW1, "mean", answer)
    assert str(problem.value) == f"The answer must be one number (or the text typed for it); {words}"


@pytest.mark.parametrize("answer", [math.inf, -math.inf, math.nan])
def test_an_infinite_answer_is_named_in_the_message(answer):
    with pytest.raises(ValueError) as problem:
        diagnose(ROW1, "mean", answer)
    assert str(problem.value) == f"{answer} is not a finite number."


def test_a_verdict_records_the_quantity_the_number_typed_the_exact_value_and_the_places():
    exact = expected_value(ROW1, "normalised", 1)
    verdict = diagnose(ROW1, "normalized", "-1.2708", index=1)
    assert (verdict.quantity, verdict.answer, verdict.places) == ("normalised", -1.2708, 4)
    assert verdict.expected == exact


def test_every_function_uses_the_eps_it_is_given():
    row = np.asarray(ROW1, dtype=np.float64)
    variance = float(np.mean((row - row.mean()) ** 2))
    std = math.sqrt(variance + EPS)
    assert expected_value(ROW1, "std", eps=EPS) == pytest.approx(std, rel=1e-15)
    assert diagnose(ROW1, "std", f"{std:.4f}", eps=EPS).kind == RIGHT
    assert diagnose(ROW1, "std", f"{math.sqrt(variance + 1e-5):.4f}", eps=EPS).kind == WRONG
    by_name = {name: value for name, value, _ in known_mistakes(ROW1, "std", eps=EPS)}
    assert by_name["eps-outside-root"] == pytest.approx(math.sqrt(variance) + EPS, rel=1e-12)
    # the rounded-early candidates are worked with the same ε: at 3 places every step of this row
    assert expected_value(ROW1, "std", eps=EPS, decimals=3) in [v for k, v, _ in known_mistakes(ROW1, "std", eps=EPS)]


@pytest.mark.parametrize("eps", [-1e-5, math.nan, math.inf])
def test_every_function_refuses_the_eps_a_layer_norm_refuses(eps):
    for call in (
        lambda: question_text(ROW1, "std", eps=eps),
        lambda: known_mistakes(ROW1, "std", eps=eps),
        lambda: expected_value(ROW1, "std", eps=eps),
        lambda: diagnose(ROW1, "std", "0.5", eps=eps),
    ):
        with pytest.raises(ValueError):
            call()


def test_a_missing_index_says_how_to_give_one():
    with pytest.raises(ValueError) as problem:
        diagnose([0.1, 0.2, 0.3, 0.4], "normalised", "0.5")
    assert str(problem.value) == "Say which normalised value to check: index=0 for the first feature, up to 3."


@pytest.mark.parametrize("index", [True, 1.0, "1", -1, 4])
def test_an_index_must_be_a_whole_number_inside_the_row(index):
    with pytest.raises(ValueError) as problem:
        diagnose([0.1, 0.2, 0.3, 0.4], "normalised", "0.5", index=index)
    assert str(problem.value) == (f"index must be a whole number from 0 to 3 (the row has 4 values); got {index!r}.")


def test_an_unknown_quantity_lists_the_five_there_are():
    with pytest.raises(ValueError) as problem:
        diagnose(ROW1, "median", "0.5")
    assert str(problem.value) == (
        "There is no quantity called 'median'; choose one of: mean, variance, std, normalised, output."
    )


def test_places_to_catch_names_every_mistake_that_no_places_can_catch():
    with pytest.raises(ValueError) as problem:
        places_to_catch([0.1, 0.2, 0.4], "std", ("no-eps", "eps-outside-root"), eps=1e-30, most=6)
    assert str(problem.value) == (
        "Up to 6 decimal places, no-eps, eps-outside-root give the same digits as the right answer."
    )
