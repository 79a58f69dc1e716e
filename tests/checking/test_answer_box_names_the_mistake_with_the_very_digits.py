"""Which mistake a check-your-answer box names when several are near the answer (helpers/checking/answers.py,
``diagnose``): "a mistake with the answer's very digits first, single mistakes before two at once, then the
nearest". Row (0.914, −0.02, −1.249), its std to 2 places:

- right: √(σ² + ε) ≈ 0.8858 → 0.89;
- the mean not subtracted: √(mean(x²) + ε) ≈ 0.8936 → 0.89, within one unit of 0.90 but not its digits;
- that and √ε added outside the root: √mean(x²) + √ε ≈ 0.8968 → 0.90, the answer's very digits."""

from __future__ import annotations

import math

from helpers.checking.answers import WRONG, diagnose

ROW = [0.914, -0.02, -1.249]
EPS = 1e-5
MEAN_SQUARE = sum(v * v for v in ROW) / 3
MEAN = sum(ROW) / 3
VARIANCE = sum((v - MEAN) ** 2 for v in ROW) / 3


def test_the_values_are_as_the_docstring_says():
    assert f"{math.sqrt(VARIANCE + EPS):.2f}" == "0.89"
    assert f"{math.sqrt(MEAN_SQUARE + EPS):.2f}" == "0.89"
    assert abs(math.sqrt(MEAN_SQUARE + EPS) - 0.90) < 0.01
    assert f"{math.sqrt(MEAN_SQUARE) + math.sqrt(EPS):.2f}" == "0.90"


def test_two_mistakes_with_the_answers_very_digits_are_named_before_one_that_is_only_near():
    verdict = diagnose(ROW, "std", "0.90")
    assert (verdict.kind, verdict.mistake) == (WRONG, "mean-not-subtracted+root-eps-outside"), verdict
    assert verdict.hint.startswith(
        "Looks like a known mistake: squaring the values, not their differences from the mean and "
        "√ε added outside the square root."
    ), verdict.hint
