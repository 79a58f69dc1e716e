"""What a function that rounds gives (helpers/checking/cases.py, rounded_results), from its docstrings: its exact
result rounded to 1 … 4 places, and, for a step of one row, every step rounded by hand to 1 … 4 places
(helpers.core.layernorm.layer_norm_steps with ``decimals``, at the case's own ε). A learner who rounds as on paper
must be told "rounding", not "wrong": each of these forms must be among those the checker accepts as rounding."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.cases import cases, mistakes, rounded_results
from helpers.core.layernorm import DEFAULT_EPS, layer_norm_steps

QUANTITY = {"mean": "mean", "variance": "variance", "std": "std", "normalise": "normalised"}


def _held(form, forms) -> bool:
    return any(np.shape(f) == np.shape(form) and np.array_equal(f, form) for f in forms)


@pytest.mark.parametrize("step", ["mean", "normalise"])  # a step without ε and one with it
def test_every_step_rounded_by_hand_at_one_to_four_places_is_a_rounded_form(step):
    hand_forms = 0
    for case in cases(step):
        forms = rounded_results(step, case)
        eps = case.args[1] if len(case.args) > 1 else DEFAULT_EPS
        for places in (1, 2, 3, 4):
            assert _held(np.round(case.expected, places), forms), (case.label, places)
            try:
                record = layer_norm_steps(case.args[0], eps=eps, decimals=places)
            except ValueError:  # the std rounds to 0 at so few places: no one can divide by it
                continue
            hand = np.asarray(getattr(record, QUANTITY[step]), dtype=np.float64).reshape(case.expected.shape)
            assert _held(hand, forms), (case.label, places)
            hand_forms += 1
    assert hand_forms > 3 * len(cases(step))


def test_a_row_whose_std_rounds_to_zero_at_few_places_still_has_its_hand_rounded_forms_at_more():
    small = next(case for case in cases("normalise") if "small spread" in case.label and case.args[1] == DEFAULT_EPS)
    with pytest.raises(ValueError):
        layer_norm_steps(small.args[0], eps=small.args[1], decimals=1)
    record = layer_norm_steps(small.args[0], eps=small.args[1], decimals=4)
    assert _held(np.asarray(record.normalised), rounded_results("normalise", small))


def test_a_mistakes_advice_is_worked_on_the_epsilon_it_is_given():
    """cases.Mistake.advice(x, eps): the catalogue's sentence, computed from x and this ε (here the eps-ignored
    mistake's, which names the ε the function was given)."""
    ignored = next(m for m in mistakes("std") if m.key == "eps-ignored")
    assert "(here 0.01)" in ignored.advice([1, 2, 3, 4], eps=0.01)
    assert "(here 1e-05)" in ignored.advice([1, 2, 3, 4])


def test_a_scale_and_shift_has_only_its_result_rounded_even_for_one_row():
    """Rounding every step by hand is for the steps of one row; scale_shift is given x̂ (a row or a matrix)."""
    for case in cases("scale_shift"):
        forms = rounded_results("scale_shift", case)
        assert len(forms) == 4 and all(_held(np.round(case.expected, p), forms) for p in (1, 2, 3, 4)), case.label
