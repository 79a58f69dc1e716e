"""What an answer box says, word for word, as lecturer/exercises.md gives it for the notebooks' questions.

The verdicts below are the ones exercises.md lists for notebook 06's output question and notebook 07's
normalised-value question (its generator reads them off the boxes); the rest follow the same sentences for
the other branches of ``diagnose``: the exact value is shown to two more places than typed, at least 5.
"""

from __future__ import annotations

import pytest

from helpers.checking.answers import RIGHT, ROUNDING, WRONG, diagnose

from conftest import LESSON_X as X

# notebook 06: the output y for feature 3 of x = (0.076, -0.313, -0.262) with γ = (2, 1, 3), β = (0, 0.5, -1)
NB06 = {"row": [0.076, -0.313, -0.262], "quantity": "output", "index": 2, "gamma": [2, 1, 3], "beta": [0, 0.5, -1]}
# notebook 07: the normalised value x̂ for feature 3 of x = (0.25, 0.794, 0.551)
NB07 = {"row": [0.25, 0.794, 0.551], "quantity": "normalised", "index": 2}

BY_HAND = (
    "That is what rounding every step to 3 decimal places by hand gives, so it is right up to rounding; "
    "the exact value is {exact}, {units} units in the last place away: keep more digits in the steps to get it."
)
EARLY = (
    "Looks like a known mistake: rounding along the way. It looks like you rounded the steps before this one to "
    "{places}; with this row that changes the answer. Keep every digit until the end: round only the number you show."
)


def _ask(question, answer, places=None):
    q = dict(question)
    return diagnose(q.pop("row"), q.pop("quantity"), answer, places=places, **q)


@pytest.mark.parametrize(
    "question, answer, places, kind, hint",
    [
        (NB06, "-2.662", None, RIGHT, "the output y = γ · x̂ + β is -2.66237 (to 5 places)."),
        (NB06, "-2.665", 2, ROUNDING, BY_HAND.format(exact="-2.66237", units=3)),
        (NB06, "-2.665", None, ROUNDING, BY_HAND.format(exact="-2.66237", units=3)),
        (
            NB06,
            "-2.663",
            2,
            ROUNDING,
            "Right to the 2 decimal places asked for; at the 3 decimal places you typed it rounds to -2.662 "
            "(exactly -2.66237).",
        ),
        (NB06, "-2.590", 2, WRONG, EARLY.format(places="2 decimal places")),
        (
            NB06,
            "-1.786",
            2,
            WRONG,
            "Looks like a known mistake: the row not normalised. γ and β scale and shift x̂, the normalised row: "
            "normalise x first (notebook 05), then γ · x̂ + β.",
        ),
        (NB07, "0.0869", 2, RIGHT, "the normalised value x̂ is 0.086880 (to 6 places)."),
        (NB07, "0.085", None, ROUNDING, BY_HAND.format(exact="0.08688", units=2)),
        (
            NB07,
            "0.0850",
            2,
            ROUNDING,
            "Right to the 2 decimal places asked for; at the 4 decimal places you typed it rounds to 0.0869 "
            "(exactly 0.086880).",
        ),
        (NB07, "0.0848", 2, WRONG, EARLY.format(places="3 decimal places")),
        (NB07, "0.3333", 2, WRONG, EARLY.format(places="1 decimal place")),
    ],
)
def test_the_notebooks_questions_get_the_verdicts_exercises_md_lists(question, answer, places, kind, hint):
    verdict = _ask(question, answer, places)
    assert (verdict.kind, verdict.hint) == (kind, hint)


def test_a_by_hand_answer_one_unit_from_the_rounded_value_says_one_unit():
    # notebook 07's row, the std by hand at 3 places: 0.224 against the exact 0.22253, which is 0.223 at 3 places
    verdict = diagnose([0.25, 0.794, 0.551], "std", "0.224")
    assert (verdict.kind, verdict.mistake) == (ROUNDING, "last-place")
    assert verdict.hint == BY_HAND.format(exact="0.22253", units=1).replace("1 units", "1 unit")


@pytest.mark.parametrize(
    "typed, shown",
    [
        ("0.45", "0.44567 (to 5 places)"),
        ("0.446", "0.44567 (to 5 places)"),
        ("0.4457", "0.445667 (to 6 places)"),
        ("0.445667", "0.44566667 (to 8 places)"),
    ],
)
def test_a_right_answer_shows_the_exact_value_to_two_more_places_at_least_five(typed, shown):
    verdict = diagnose(X[0], "mean", typed)
    assert (verdict.kind, verdict.hint) == (RIGHT, f"the mean μ is {shown}.")


@pytest.mark.parametrize("asked, typed", [(1, "0"), (2, "0.1"), (3, "0.09")])
def test_fewer_places_than_asked_says_how_many_to_give(asked, typed):
    verdict = diagnose(NB07["row"], "normalised", typed, index=2, places=asked)
    need = "1 decimal place" if asked == 1 else f"{asked} decimal places"
    assert (verdict.kind, verdict.mistake) == (WRONG, "too-few-places")
    assert verdict.hint == (
        f"Give at least {need} (you gave {asked - 1}), so that the check can tell a right answer from a near miss."
    )


def test_too_few_significant_digits_says_right_to_the_places_kept():
    verdict = diagnose(X[0], "mean", "0.4")
    assert verdict.hint == (
        "Right to the 1 decimal place you kept, but that leaves fewer than two significant digits: "
        "the exact value is 0.44567. Keep more places."
    )


def test_digits_cut_off_say_what_rounding_gives():
    verdict = diagnose(X[1], "mean", "0.292", places=3)  # exact 0.29267
    assert verdict.hint == (
        "0.29267 to 3 decimal places is 0.293: it looks like you cut the digits off instead of rounding "
        "(a next digit of 5 or more moves the last one away from zero)."
    )


def test_one_unit_off_a_value_with_more_than_one_step_is_rounding_along_the_way():
    # row (0, 0.5): variance exactly 0.0625; 0.0624 is one unit in the last place off, not cut off
    verdict = diagnose([0.0, 0.5], "variance", "0.0624")
    assert (verdict.kind, verdict.mistake) == (ROUNDING, "last-place")
    assert (
        verdict.hint
        == "Off by one in the last place, which rounding along the way explains: the exact value is 0.062500."
    )


def test_one_unit_off_a_mean_is_not_rounding_along_the_way():
    # the mean has one step: rounding it is rounding the answer, so one unit off is not explained by rounding
    verdict = diagnose([0.0, 0.5], "mean", "0.24")  # exact 0.25
    assert verdict.kind == WRONG and verdict.mistake != "last-place"
    assert verdict.hint.startswith("Not quite.")


def test_a_mistake_with_the_digits_of_rounding_by_hand_says_both():
    # exercises.md's rule: when a known mistake gives the very same digits, the box names the mistake and
    # says that rounding by hand gives them too. Here min–max scaling gives x̂ = 1 for the row's largest value,
    # and so does working every step to 3 places by hand (the exact value is 0.99540)
    verdict = diagnose([-0.042, -0.55, -0.176], "normalised", "1.000", index=0)
    assert (verdict.kind, verdict.mistake) == (WRONG, "min-max")
    assert verdict.hint.endswith(
        "(x − μ) / √(σ² + ε). (Rounding every step to 3 decimal places by hand gives these digits too: "
        "if that is what you did, keep more digits in the steps.)"
    )


@pytest.mark.parametrize(
    "row, index, typed, hint",
    [
        # x̂ 0.32919: steps at 2 places give 0.35, which is 0.4 at the 1 place typed (one more place)
        (
            [-0.01, 0.28, 0.4],
            1,
            "0.4",
            "That is what rounding every step to 2 decimal places by hand gives, so it is right up to rounding; "
            "the exact value is 0.32919: keep more digits in the steps to get it.",
        ),
        # x̂ 0.99368: steps at 4 places give 0.98 at the 2 places typed (two more places)
        (
            [-0.268, -0.324],
            0,
            "0.98",
            "That is what rounding every step to 4 decimal places by hand gives, so it is right up to rounding; "
            "the exact value is 0.99368, 1 unit in the last place away: keep more digits in the steps to get it.",
        ),
        # only steps at 5 places give 1.00 (three more places): one unit off, not worked by hand
        (
            [-0.268, -0.324],
            0,
            "1.00",
            "Off by one in the last place, which rounding along the way explains: the exact value is 0.99368.",
        ),
        # x̂ 0.99594: only steps at 5 places give 0.99 (three more places): the digits are cut off
        (
            [-0.83, -0.9],
            0,
            "0.99",
            "0.99594 to 2 decimal places is 1.00: it looks like you cut the digits off instead of rounding "
            "(a next digit of 5 or more moves the last one away from zero).",
        ),
    ],
)
def test_steps_kept_to_one_or_two_more_places_than_typed_count_as_by_hand_three_do_not(row, index, typed, hint):
    assert diagnose(row, "normalised", typed, index=index).hint == hint


def test_rounding_along_the_way_is_said_once():
    # x̂ of -0.8 is -1.2247; every step at 1 place gives -1.4: rounding along the way, with no note that
    # rounding by hand gives these digits too (it is the same explanation)
    verdict = diagnose([0.6, -0.1, -0.8], "normalised", "-1.4", index=2)
    assert (verdict.kind, verdict.mistake, verdict.hint) == (WRONG, "rounding", EARLY.format(places="1 decimal place"))
