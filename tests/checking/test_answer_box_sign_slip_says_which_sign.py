"""A sign slip in a check-your-answer box (helpers/checking/answers.py, ``_sign_slip``): the hint says which sign
the answer has and which the right one has, and gives the tip for the quantity asked (its _SIGN_TIPS). The row
(1, 2, 4): μ = 7/3, σ² = 14/9, √(σ² + ε) ≈ 1.2472, x̂₁ = (1 − 7/3) / √(14/9 + ε) ≈ −1.0690."""

from __future__ import annotations

import math

import pytest

from helpers.checking.answers import WRONG, diagnose

ROW = [1.0, 2.0, 4.0]
EPS = 1e-5
MEAN, VARIANCE = 7 / 3, 14 / 9
STD = math.sqrt(VARIANCE + EPS)
X_HAT = [(v - MEAN) / STD for v in ROW]


def slip(quantity, typed, **kwargs):
    verdict = diagnose(ROW, quantity, typed, **kwargs)
    assert (verdict.kind, verdict.mistake) == (WRONG, "sign"), verdict
    return verdict.hint


@pytest.mark.parametrize(
    ("quantity", "right", "tip"),
    [
        ("mean", MEAN, "Check the sign of each value as you add them up."),
        ("variance", VARIANCE, "A variance is a mean of squares: it is never negative."),
        ("std", STD, "A standard deviation is a square root: it is never negative."),
    ],
)
def test_a_negative_answer_to_a_positive_quantity_says_so_with_its_tip(quantity, right, tip):
    assert slip(quantity, f"{-right:.3f}") == (
        f"A sign slip: your answer is negative, but the right one is positive (the size is right). {tip}"
    )


def test_a_positive_answer_to_a_negative_normalised_value_says_so():
    assert X_HAT[0] < 0
    assert slip("normalised", f"{-X_HAT[0]:.3f}", index=0) == (
        "A sign slip: your answer is positive, but the right one is negative (the size is right). "
        "x̂ = (x − μ) / √(σ² + ε): a value above the mean gives a positive x̂, one below it a negative x̂."
    )


def test_a_negative_answer_to_a_positive_normalised_value_says_so():
    assert X_HAT[2] > 0
    assert slip("normalised", f"{-X_HAT[2]:.3f}", index=2).startswith(
        "A sign slip: your answer is negative, but the right one is positive (the size is right). x̂ = (x − μ)"
    )


def test_an_output_with_the_wrong_sign_gets_the_outputs_tip():
    gamma, beta = [2.0, 1.0, 1.0], [0.5, 0.0, 0.0]
    right = gamma[0] * X_HAT[0] + beta[0]  # about −1.638
    assert right < 0
    assert slip("output", f"{-right:.3f}", index=0, gamma=gamma, beta=beta) == (
        "A sign slip: your answer is positive, but the right one is negative (the size is right). "
        "y = γ · x̂ + β: check the sign of x̂ first (x − μ, not μ − x), then of γ · x̂ and β."
    )
