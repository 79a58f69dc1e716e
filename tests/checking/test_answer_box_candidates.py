"""The mistakes an answer box tries for a number worked by hand (``known_mistakes``).

From the docstrings: every mistake of the one catalogue that shows in the quantity, computed for the row,
its γ and β and the ε given; never one a learner working by hand cannot make (the float32 one-pass
variance, an ε argument ignored, alone or with another mistake); never a duplicate of the right value
(told apart relative to its size, however small the row's spread); then rounding every step to 1, 2 or 3
places, with the last step rounded and not.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest

from helpers.checking.answers import ROUNDING, WRONG, diagnose, expected_value, known_mistakes

NB06 = {"row": [0.076, -0.313, -0.262], "gamma": [2, 1, 3], "beta": [0, 0.5, -1]}


def keep(value, places):
    return float(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


@pytest.mark.parametrize("eps", [1e-5, 0.25])
def test_no_mistake_a_learner_working_by_hand_cannot_make_is_tried(eps):
    for quantity, index in (("variance", None), ("std", None), ("normalised", 1)):
        keys = [k for k, _, _ in known_mistakes([1.133, -0.299, 0.503], quantity, index=index, eps=eps)]
        assert not [k for k in keys if "eps-ignored" in k.split("+") or k == "one-pass"], keys


def test_the_sentences_are_computed_with_the_eps_given():
    hints = {k: h for k, _, h in known_mistakes([1.133, -0.299, 0.503], "std", eps=0.25)}
    assert "ε = 0.25 moves the std from 0.586016 to 0.770334" in hints["no-eps"]


def test_mistakes_of_a_row_of_tiny_spread_are_told_apart_from_the_right_value():
    row = [0.0, 1e-6, 3e-6]  # variance about 1.6e-12: its mistakes differ from it by far less than 1e-12
    variance = float(np.var(row))
    by_name = {k: v for k, v, _ in known_mistakes(row, "variance")}
    assert by_name["n-1"] == pytest.approx(variance * 3 / 2, rel=1e-9)
    assert by_name["sum-not-divided"] == pytest.approx(variance * 3, rel=1e-9)


def test_the_output_mistakes_use_the_gamma_and_beta_of_the_question():
    q = NB06
    x_hat = expected_value(q["row"], "normalised", 2)
    by_name = {k: v for k, v, _ in known_mistakes(q["row"], "output", index=2, gamma=q["gamma"], beta=q["beta"])}
    assert by_name["forgot-beta"] == pytest.approx(3 * x_hat, rel=1e-12)
    assert by_name["forgot-gamma"] == pytest.approx(x_hat - 1, rel=1e-12)
    assert "per-row" not in by_name  # γ "per row" on one row is a matrix: nothing a learner would type


def _by_hand(row, places, eps=1e-5, gamma=(1.0, 1.0, 1.0), beta=(0.0, 0.0, 0.0)):
    """Each step rounded to ``places``: the last step of each quantity (rounded, unrounded)."""
    n = len(row)
    mean = keep(sum(row) / n, places)
    diffs = [keep(x - mean, places) for x in row]
    squares = [keep(d * d, places) for d in diffs]
    var_raw = sum(squares) / n
    var = keep(var_raw, places)
    std_raw = math.sqrt(var + eps)
    std = keep(std_raw, places)
    x_hat = [keep(d / std, places) for d in diffs]
    return {
        "variance": (var, var_raw),
        "std": (std, std_raw),
        "normalised": [(x_hat[i], diffs[i] / std) for i in range(n)],
        "output": [(keep(gamma[i] * x_hat[i] + beta[i], places), gamma[i] * x_hat[i] + beta[i]) for i in range(n)],
    }


HALVES = {"gamma": [0.5, 1.5, 0.25], "beta": [0.1, -0.2, 0.3]}  # γ · x̂ + β then has more places than x̂


@pytest.mark.parametrize(
    "row, places, affine",
    [
        (NB06["row"], 2, NB06),
        (NB06["row"], 3, NB06),
        (NB06["row"], 2, HALVES),
        ([1.133, -0.299, 0.503], 1, NB06),
        ([1.133, -0.299, 0.503], 2, HALVES),
    ],
)
def test_rounding_every_step_is_tried_with_the_last_step_rounded_and_not(row, places, affine):
    # (notebook 06's row has a std of 0.0 at 1 place: not tried, nobody can divide by it)
    q = {"row": row, "gamma": affine["gamma"], "beta": affine["beta"]}
    hand = _by_hand(q["row"], places, gamma=q["gamma"], beta=q["beta"])
    for quantity, index in (("variance", None), ("std", None), ("normalised", 0), ("normalised", 2), ("output", 2)):
        wanted = hand[quantity] if index is None else hand[quantity][index]
        found = [
            v
            for k, v, _ in known_mistakes(q["row"], quantity, index=index, gamma=q["gamma"], beta=q["beta"])
            if k == "rounding"
        ]
        for value in wanted:
            assert any(v == pytest.approx(value, rel=1e-12, abs=1e-15) for v in found), (quantity, index, value, found)


def test_rounding_every_step_is_tried_with_the_eps_given():
    row = [1.133, -0.299, 0.503]
    std, std_raw = _by_hand(row, 2, eps=0.25)["std"]
    found = [v for k, v, _ in known_mistakes(row, "std", eps=0.25) if k == "rounding"]
    assert any(v == pytest.approx(std_raw, rel=1e-12) for v in found) and std in found


def test_steps_worked_by_hand_with_another_eps_are_right_up_to_rounding():
    # x̂ of 0.794 with ε = 0.25: exact 0.47934, every step at 3 places gives 0.478
    verdict = diagnose([0.25, 0.794, 0.551], "normalised", "0.478", index=1, eps=0.25)
    assert (verdict.kind, verdict.mistake) == (ROUNDING, "last-place")
    assert verdict.hint == (
        "That is what rounding every step to 3 decimal places by hand gives, so it is right up to rounding; "
        "the exact value is 0.47934, 1 unit in the last place away: keep more digits in the steps to get it."
    )


def test_a_mean_rounded_twice_is_not_rounding_by_hand():
    # the mean has one step: 0.2449 rounded to 0.245 and then to 0.25 is a slip, not rounding along the way
    verdict = diagnose([0.2, 0.2898], "mean", "0.25")
    assert verdict.kind == WRONG and verdict.mistake != "last-place"
