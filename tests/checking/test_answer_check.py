"""helpers.checking.answers: right, right up to rounding, or wrong with a hint aimed at the mistake.

Every mistaken answer below is computed here, independently of helpers, the way a learner making
that mistake would compute it (plain numpy, or rounding by hand with Decimal), then formatted to the
places a learner would type.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.checking.answers import (
    QUANTITIES,
    RIGHT,
    ROUNDING,
    WRONG,
    diagnose,
    expected_value,
    known_mistakes,
    places_to_catch,
    question_text,
    typed_places,
)

from conftest import EPS, examples
from conftest import LESSON_X as X

ROW1, ROW5 = X[0], X[4]


def typed(value: float, places: int = 4) -> str:
    return f"{value:.{places}f}"


def by_hand(value: float, places: int) -> float:
    return float(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def hand_steps(row, places: int):
    """Row's mean, differences, variance, std and normalised values, every step rounded by hand."""
    mean = by_hand(sum(row) / len(row), places)
    differences = [by_hand(x - mean, places) for x in row]
    squares = [by_hand(d * d, places) for d in differences]
    variance = by_hand(sum(squares) / len(row), places)
    std = by_hand((variance + EPS) ** 0.5, places)
    return mean, differences, variance, std, [by_hand(d / std, places) for d in differences]


# --- right answers


@pytest.mark.parametrize("row", range(5))
def test_exact_values_to_four_places_are_right(row):
    x = X[row]
    mean, variance = x.mean(), x.var()
    std = np.sqrt(variance + EPS)
    for quantity, value in (("mean", mean), ("variance", variance), ("std", std)):
        assert diagnose(x, quantity, typed(value)).kind == RIGHT
    for j in range(3):
        assert diagnose(x, "normalised", typed((x[j] - mean) / std), index=j).kind == RIGHT


def test_lesson_hand_digits_for_row_1_are_right_or_right_up_to_rounding():
    # The lesson's pencil-and-paper digits for row 1 (3 places): mean 0.446, variance 0.343, std 0.586.
    assert diagnose(ROW1, "mean", "0.446").kind == RIGHT
    assert diagnose(ROW1, "variance", "0.343").kind == RIGHT
    assert diagnose(ROW1, "std", "0.586").kind == RIGHT
    # 0.057 / 0.586 = 0.0973 → 0.097, one unit off the exact 0.0978 → 0.098.
    verdict = diagnose(ROW1, "normalised", "0.097", index=2)
    assert verdict.kind == ROUNDING and verdict.mistake == "last-place"


def test_a_number_and_its_text_give_the_same_verdict():
    exact_mean = float(ROW1.mean())
    assert diagnose(ROW1, "mean", exact_mean).kind == RIGHT
    assert diagnose(ROW1, "mean", 0.4457).kind == RIGHT
    assert diagnose(ROW1, "mean", "0.4457") == diagnose(ROW1, "mean", 0.4457)


def test_too_few_significant_digits_is_right_up_to_rounding():
    verdict = diagnose(ROW1, "mean", "0.4")
    assert verdict.kind == ROUNDING and "significant" in verdict.hint
    # Row 5's variance 0.00343 kept to 3 places is 0.003: one significant digit.
    verdict = diagnose(ROW5, "variance", "0.003")
    assert verdict.kind == ROUNDING and verdict.mistake == "too-few-digits"
    assert diagnose(ROW5, "variance", typed(ROW5.var(), 5)).kind == RIGHT


# --- each mistake gets its own hint


def test_mean_divided_by_n_minus_1():
    verdict = diagnose(ROW1, "mean", typed(ROW1.sum() / 2))
    assert (verdict.kind, verdict.mistake) == (WRONG, "n-1")
    assert "n − 1 = 2" in verdict.hint and "n = 3" in verdict.hint


def test_mean_given_as_the_sum():
    verdict = diagnose(ROW1, "mean", typed(ROW1.sum()))
    assert (verdict.kind, verdict.mistake) == (WRONG, "sum-not-divided")


@pytest.mark.parametrize("row", range(5))
def test_variance_divided_by_n_minus_1(row):
    verdict = diagnose(X[row], "variance", typed(np.var(X[row], ddof=1)))
    assert (verdict.kind, verdict.mistake) == (WRONG, "n-1")
    assert "n − 1" in verdict.hint


@pytest.mark.parametrize("row", range(5))
def test_std_divided_by_n_minus_1_like_torch_std(row):
    # np.std(ddof=1) has no ε either: two mistakes at once, named as both
    # (where the two round alike at the 4 places typed, n − 1 alone is named: ε cannot show there)
    both, alone = np.std(X[row], ddof=1), np.sqrt(np.var(X[row], ddof=1) + EPS)
    verdict = diagnose(X[row], "std", typed(both))
    assert "torch.std" in verdict.hint and "unbiased=False" in verdict.hint
    if typed(both) != typed(alone):
        assert (verdict.kind, verdict.mistake) == (WRONG, "n-1+no-eps")
        assert "dividing by n − 1 and ε forgotten" in verdict.hint and "√(σ² + ε)" in verdict.hint
    else:
        assert (verdict.kind, verdict.mistake) == (WRONG, "n-1") and "ε" not in verdict.hint
    verdict = diagnose(X[row], "std", typed(np.sqrt(np.var(X[row], ddof=1) + EPS)))
    assert (verdict.kind, verdict.mistake) == (WRONG, "n-1") and "correction=0" in verdict.hint


def test_variance_given_as_the_std():
    verdict = diagnose(ROW1, "variance", typed(np.sqrt(ROW1.var() + EPS)))
    assert (verdict.kind, verdict.mistake) == (WRONG, "std-not-variance")
    assert "standard deviation" in verdict.hint


@pytest.mark.parametrize("row", range(5))
def test_std_given_as_the_variance(row):
    verdict = diagnose(X[row], "std", typed(X[row].var() + EPS, 5))
    assert (verdict.kind, verdict.mistake) == (WRONG, "variance-not-std")
    assert "square root" in verdict.hint
    verdict = diagnose(X[row], "std", typed(X[row].var(), 5))  # the variance itself: no ε and no root
    assert verdict.mistake in ("variance-not-std", "no-eps+variance-not-std") and "square root" in verdict.hint


def test_forgot_the_mean_in_the_variance():
    verdict = diagnose(ROW1, "variance", typed(np.mean(ROW1**2)))
    assert (verdict.kind, verdict.mistake) == (WRONG, "mean-not-subtracted")
    assert "Subtract the mean" in verdict.hint


def test_forgot_the_mean_in_the_std():
    verdict = diagnose(ROW1, "std", typed(np.sqrt(np.mean(ROW1**2) + EPS)))
    assert (verdict.kind, verdict.mistake) == (WRONG, "mean-not-subtracted")


def test_forgot_the_mean_in_the_normalised_value():
    verdict = diagnose(ROW1, "normalised", typed(ROW1[0] / np.sqrt(ROW1.var() + EPS)), index=0)
    assert (verdict.kind, verdict.mistake) == (WRONG, "mean-not-subtracted")


def test_divided_by_the_variance_instead_of_the_std():
    value = (ROW1[1] - ROW1.mean()) / (ROW1.var() + EPS)
    verdict = diagnose(ROW1, "normalised", typed(value), index=1)
    assert (verdict.kind, verdict.mistake) == (WRONG, "variance-not-std")


def test_forgot_eps_matters_only_when_the_variance_is_tiny():
    # Row 1: variance 0.343, so √σ² and √(σ² + ε) agree to 4 places: the answer is right.
    assert diagnose(ROW1, "std", typed(np.std(ROW1))).kind == RIGHT
    # Row 5: variance 0.0034, so leaving ε out shows at the 4th place.
    verdict = diagnose(ROW5, "std", typed(np.std(ROW5)))
    assert (verdict.kind, verdict.mistake) == (WRONG, "no-eps")
    assert "ε" in verdict.hint
    verdict = diagnose(ROW5, "normalised", typed((ROW5[1] - ROW5.mean()) / np.std(ROW5), 4), index=1)
    assert (verdict.kind, verdict.mistake) == (WRONG, "no-eps")


def test_forgot_eps_on_a_nearly_constant_row():
    row = np.array([1.0, 1.001, 0.999])
    verdict = diagnose(row, "std", typed(np.std(row), 6))
    assert verdict.mistake in ("no-eps", "eps-outside-root") and verdict.kind == WRONG


def test_every_step_rounded_by_hand_is_right_up_to_rounding_within_one_percent_or_two_units():
    # One rule (lecturer/exercises.md): every step by hand at the places typed or more, within 1 % of the
    # exact value or 2 units of the last place: ≈.
    row = np.array([0.25, 0.794, 0.551])  # notebook 07's row
    for quantity, index in (("std", None), ("normalised", 0), ("normalised", 1), ("normalised", 2)):
        exact = expected_value(row, quantity, index)
        hand = expected_value(row, quantity, index, decimals=3)
        assert hand != round(exact, 3)
        verdict = diagnose(row, quantity, typed(hand, 3), index=index)
        assert (verdict.kind, verdict.mistake) == (ROUNDING, "last-place"), (quantity, index, verdict)
    *_, normalised = hand_steps(ROW1, 2)
    assert normalised[1] == -1.29  # exact -1.2707: under 2 units of the last place
    verdict = diagnose(ROW1, "normalised", typed(normalised[1], 2), index=1)
    assert (verdict.kind, verdict.mistake) == (ROUNDING, "last-place")


def test_rounding_by_hand_that_moves_the_answer_further_is_named():
    mean, _, variance, std, normalised = hand_steps(ROW5, 3)
    assert (variance, std) == (0.003, 0.055)  # the lesson's hand arithmetic breaks here (exact 0.0586)
    verdict = diagnose(ROW5, "std", typed(std, 3))
    assert (verdict.kind, verdict.mistake) == (WRONG, "rounding")
    assert "3 decimal places" in verdict.hint
    verdict = diagnose(ROW5, "normalised", typed(normalised[0], 2), index=0)  # -0.62, exact -0.574
    assert (verdict.kind, verdict.mistake) == (WRONG, "rounding")


def test_steps_rounded_to_fewer_places_than_typed_are_named_rounding_along_the_way():
    *_, normalised = hand_steps(ROW1, 2)  # steps at 2 places, the answer typed with 3
    verdict = diagnose(ROW1, "normalised", typed(normalised[1], 3), index=1)
    assert (verdict.kind, verdict.mistake) == (WRONG, "rounding"), verdict
    assert "2 decimal places" in verdict.hint


@pytest.mark.parametrize("quantity, index", [("mean", None), ("normalised", 0), ("normalised", 1), ("output", 2)])
def test_a_sign_slip_is_named(quantity, index):
    question = {"gamma": [2.0, 1.0, 3.0], "beta": [0.0, 0.5, -1.0]} if quantity == "output" else {}
    exact = expected_value(ROW1, quantity, index, **question)
    verdict = diagnose(ROW1, quantity, f"{-exact:.4f}", index=index, **question)
    assert (verdict.kind, verdict.mistake) == (WRONG, "sign"), verdict
    right, theirs = ("positive", "negative") if exact > 0 else ("negative", "positive")
    assert "sign slip" in verdict.hint, verdict
    # the sentence describes the answer typed as it is, and the right one as it is
    assert f"your answer is {theirs}" in verdict.hint and f"the right one is {right}" in verdict.hint, verdict
    assert f"answer is {right}" not in verdict.hint, verdict


def test_a_negative_variance_or_std_is_a_sign_slip_with_its_reason():
    for quantity in ("variance", "std"):
        exact = expected_value(ROW1, quantity)
        verdict = diagnose(ROW1, quantity, f"{-exact:.4f}")
        assert verdict.mistake == "sign" and "never negative" in verdict.hint


def test_a_wrong_answer_matching_no_mistake_gets_the_recipe():
    for quantity, index in (("mean", None), ("variance", None), ("std", None), ("normalised", 0)):
        verdict = diagnose(ROW1, quantity, "7.25", index=index)
        assert verdict.kind == WRONG and verdict.mistake is None and verdict.hint.startswith("Not quite.")


def test_the_std_recipe_followed_in_its_own_order_gives_the_std():
    """The recipe a wrong std gets, done in the order it says (add ε, take the root), gives √(σ² + ε): with
    ε = 0.1 the other order, √σ² + ε, is far from it."""
    import math

    eps = 0.1
    hint = diagnose(ROW1, "std", "7.25", eps=eps).hint
    operations = {"add ε": lambda v: v + eps, "square root": math.sqrt}
    named = sorted((hint.index(words), words) for words in operations if words in hint)
    assert len(named) == 2, f"the recipe should say both steps: {hint}"
    value = float(np.var(ROW1))  # "Find the variance (divide by n)"
    for _, words in named:
        value = operations[words](value)
    assert value == pytest.approx(expected_value(ROW1, "std", eps=eps), rel=1e-12), hint


# --- bad input


@pytest.mark.parametrize("text", ["", "abc", "nan", "inf", "1e400", "0.4.4"])
def test_an_answer_that_is_not_a_number_raises_a_plain_value_error(text):
    with pytest.raises(ValueError) as problem:
        diagnose(ROW1, "mean", text)
    assert "Traceback" not in str(problem.value) and str(problem.value)


def test_bad_quantity_and_index():
    with pytest.raises(ValueError, match="no quantity"):
        diagnose(ROW1, "median", "0.4")
    with pytest.raises(ValueError, match="index=0"):
        diagnose(ROW1, "normalised", "0.4")
    with pytest.raises(ValueError, match="from 0 to 2"):
        diagnose(ROW1, "normalised", "0.4", index=3)
    assert diagnose(ROW1, "normalized", typed((ROW1[0] - ROW1.mean()) / np.sqrt(ROW1.var() + EPS)), index=0).is_right


def test_typed_places():
    assert [typed_places(t) for t in ("0.4460", "4.5e-3", "2", "-0.3", "1e-05", "−0.25", "3.")] == [4, 4, 0, 1, 5, 2, 0]


def test_question_names_the_quantity_the_row_and_eps():
    assert question_text(ROW1, "mean") == "What is the mean μ of x = (1.133, -0.299, 0.503)?"
    assert "feature 2" in question_text(ROW1, "normalised", index=1) and "ε = 1e-05" in question_text(ROW1, "std")


def test_every_quantity_is_checkable():
    for quantity in QUANTITIES:
        index = 0 if quantity in ("normalised", "output") else None
        assert diagnose(ROW1, quantity, "0.5", index=index, gamma=[2, 1, 3], beta=[0, 0.5, -1]).kind in (
            RIGHT,
            ROUNDING,
            WRONG,
        )


@settings(max_examples=examples(60, fast=15), deadline=None)
@given(
    row=st.lists(st.floats(-100, 100, allow_nan=False).map(lambda v: round(v, 3)), min_size=2, max_size=8),
    places=st.integers(3, 9),
)
def test_the_exact_value_rounded_to_any_places_is_never_wrong(row, places):
    x = np.array(row)
    std = np.sqrt(x.var() + EPS)
    for quantity, value in (
        ("mean", x.mean()),
        ("variance", x.var()),
        ("std", std),
        ("normalised", (x[0] - x.mean()) / std),
    ):
        verdict = diagnose(x, quantity, typed(value, places), index=0 if quantity == "normalised" else None)
        assert verdict.kind != WRONG, (quantity, verdict)


# --- review fixes


@pytest.mark.parametrize("answer", [None, [1], "", object()])
def test_an_answer_that_is_not_one_number_is_a_plain_value_error(answer):
    with pytest.raises(ValueError) as problem:
        diagnose(X[0], "mean", answer)
    assert "0x" not in str(problem.value) and ("number" in str(problem.value) or "empty" in str(problem.value))


def test_expected_value_and_known_mistakes_are_public():
    from helpers.checking.answers import expected_value, known_mistakes

    row = np.asarray(X[0])
    assert expected_value(row, "variance") == pytest.approx(np.var(row), rel=1e-15)
    assert expected_value(row, "normalised", index=1) == pytest.approx(
        (row[1] - row.mean()) / np.sqrt(np.var(row) + EPS), rel=1e-14
    )
    assert expected_value(row, "std", decimals=3) == 0.586  # the lesson's pencil value
    mistakes = known_mistakes(row, "variance")
    by_name = {name: value for name, value, _ in mistakes}
    assert by_name["n-1"] == pytest.approx(np.var(row, ddof=1), rel=1e-14)
    for name, value, _hint in mistakes:
        if name != "rounding":
            assert diagnose(row, "variance", f"{value:.6f}").mistake == name, name
    with pytest.raises(ValueError, match="Say which normalised value"):
        known_mistakes(row, "normalised")


# --- issue 9: feedback that agrees with the lessons


def test_more_places_than_asked_are_accepted_when_right_at_the_places_asked():
    # Row 2's std is 0.4562217; "0.45621" is right to the 4 places asked, and ε (20,000 times smaller
    # than the variance) must not be blamed.
    verdict = diagnose(X[1], "std", "0.45621", places=4)
    assert verdict.is_right and verdict.mistake == "extra-places" and "ε" not in verdict.hint
    assert diagnose(X[1], "std", "0.4562", places=4).kind == RIGHT


def test_an_answer_that_rounds_correctly_at_the_places_asked_is_right():
    verdict = diagnose(X[3], "normalised", "-0.07", index=2, places=2)  # exact -0.0704
    assert verdict.kind == RIGHT and "more places" not in verdict.hint


def test_fewer_places_than_asked_are_not_accepted():
    verdict = diagnose(X[3], "normalised", "-0.1", index=2, places=2)
    assert verdict.kind == WRONG and verdict.mistake == "too-few-places" and "at least 2 decimal places" in verdict.hint


def test_a_one_step_mean_cut_off_is_not_blamed_on_rounding_along_the_way():
    verdict = diagnose(X[1], "mean", "0.292", places=3)  # exact 0.29267
    assert verdict.kind == WRONG and verdict.mistake == "cut-off"
    assert "along the way" not in verdict.hint and "0.293" in verdict.hint


def test_places_must_be_a_whole_number():
    with pytest.raises(ValueError, match="places"):
        diagnose(ROW1, "mean", "0.446", places=-1)


def test_variance_plus_eps_with_extra_places_is_named_not_accepted():
    row = np.round(np.random.default_rng(3).uniform(-1, 1, size=3), 3)  # notebook 03's question
    with_eps = expected_value(row, "variance") + EPS
    verdict = diagnose(row, "variance", f"{with_eps:.5f}", eps=EPS, places=3)
    assert verdict.kind == WRONG and verdict.mistake == "eps-added", verdict
    assert "ε does not belong in the variance" in verdict.hint


def _notebook_question_rows():
    import torch

    torch.manual_seed(0)  # notebook 08's batch; its token question takes sequence 2, token 3
    token = np.round(torch.randn(2, 5, 3, dtype=torch.float64)[1, 2].numpy(), 3)
    seeded = [np.round(np.random.default_rng(seed).uniform(-1, 1, size=3), 3) for seed in range(40)]
    return [(token, ("no-eps", "n-1"))] + [(row, ("no-eps",)) for row in seeded]


def test_the_places_asked_for_the_std_catch_a_forgotten_eps():
    pytest.importorskip("torch")
    for row, mistakes in _notebook_question_rows():
        places = places_to_catch(row, "std", mistakes, eps=EPS, least=4)
        assert places >= 4
        for name, value, _ in known_mistakes(row, "std", eps=EPS):
            if name in mistakes:
                typed = f"{value:.{places}f}"
                verdict = diagnose(row, "std", typed, eps=EPS, places=places)
                assert verdict.kind == WRONG and verdict.mistake == name, (row, typed, verdict)
        right = f"{expected_value(row, 'std', eps=EPS):.{places}f}"
        assert diagnose(row, "std", right, eps=EPS, places=places).kind == RIGHT


def test_places_to_catch_says_so_when_no_places_can():
    with pytest.raises(ValueError, match="no mistake called"):
        places_to_catch([0.1, 0.2, 0.4], "std", ("swapped",))
    with pytest.raises(ValueError, match="same digits"):
        places_to_catch([0.1, 0.2, 0.4], "std", ("no-eps",), eps=1e-30, most=6)
