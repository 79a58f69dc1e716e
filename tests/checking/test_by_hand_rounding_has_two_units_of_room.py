"""How far an answer worked by hand may drift (helpers/checking/answers.py, ``diagnose``, and
lecturer/exercises.md): every step rounded to the places typed is right up to rounding "while that keeps it within
1 % of the exact value or 2 units of its last place"; further off it is named as rounding along the way.

Row (1.65, 0.22, 1.55), x̂ of feature 2. Exactly: μ = 1.14, σ² = (0.51² + 0.92² + 0.41²) / 3 = 1.2746 / 3, so
x̂₂ = −0.92 / √(σ² + ε) ≈ −1.41142. By hand to 2 places: squares 0.26, 0.85, 0.17, σ² = 1.28 / 3 → 0.43,
√(0.43 + ε) → 0.66, x̂₂ = −0.92 / 0.66 → −1.39: 0.0214 from the exact value, more than 2 units of 0.01 and more
than 1 % (0.0141)."""

from __future__ import annotations

import math

from helpers.checking.answers import WRONG, diagnose, expected_value

ROW = [1.65, 0.22, 1.55]
EPS = 1e-5
EXACT = -0.92 / math.sqrt(1.2746 / 3 + EPS)


def test_the_numbers_are_those_worked_above():
    assert math.isclose(expected_value(ROW, "normalised", 1), EXACT, rel_tol=1e-12)
    by_hand = round(-0.92 / round(math.sqrt(round((0.26 + 0.85 + 0.17) / 3, 2) + EPS), 2), 2)
    assert by_hand == -1.39 == round(expected_value(ROW, "normalised", 1, decimals=2), 2)
    off = abs(-1.39 - EXACT)
    assert 2 * 0.01 < off < 3 * 0.01 and off > 0.01 * abs(EXACT)


def test_a_by_hand_answer_past_two_units_and_one_percent_is_rounding_along_the_way():
    verdict = diagnose(ROW, "normalised", "-1.39", index=1)
    assert (verdict.kind, verdict.mistake) == (WRONG, "rounding"), verdict
    assert "you rounded the steps before this one to 2 decimal places" in verdict.hint
