"""Which tests each step's assignment has (classroom/grading/plan.py), from its docstrings and the catalogue:
one per named mistake whose quantity is the step's result, each key once under its first name for the step, in
the catalogue's order; a matrix step adds the axes' mistakes; given x̂, nothing before x̂ can go wrong; the
module adds what only a module can get wrong, in a module's words; and last the hidden full check, worth more.
"""

from __future__ import annotations

import pytest

from classroom.grading import plan
from helpers.checking.mistakes import MISTAKES
from helpers.checking.mistakes.outcomes import MODULE_MISTAKES

ROWS = {"mean": "mean", "variance": "variance", "std": "std", "normalise": "normalised"}
AXES = {"wrong-axis", "no-axis", "lost-keepdims"}  # what only a matrix shows


def keys(step: str) -> list[str]:
    return [key for key, _ in plan.mistakes_for(step)]


def first_names(quantities: set[str]) -> dict[str, str]:
    """Each key's first name among the catalogue's mistakes that show in one of ``quantities``."""
    found: dict[str, str] = {}
    for mistake in MISTAKES:
        if quantities & set(mistake.quantities):
            found.setdefault(mistake.key, mistake.name)
    return found


@pytest.mark.parametrize("step", list(ROWS))
def test_a_row_step_tests_each_mistake_of_its_quantity_once_under_its_first_name(step):
    assert dict(plan.mistakes_for(step)) == first_names({ROWS[step]})
    assert keys(step) == list(first_names({ROWS[step]}))  # the catalogue's order
    assert len(keys(step)) == len(set(keys(step)))
    assert not AXES & set(keys(step))


def test_a_mistakes_name_is_the_one_for_the_step_not_another_steps():
    assert dict(plan.mistakes_for("mean"))["n-1"] == "dividing the sum by n − 1"
    assert dict(plan.mistakes_for("variance"))["n-1"] == "dividing by n − 1"
    assert "no-eps" not in keys("mean") and "no-eps" in keys("std")


def test_the_whole_matrix_adds_the_axes_mistakes_to_the_normalised_rows():
    assert keys("layer_norm") == keys("normalise") + [k for k in first_names({"matrix"}) if k in AXES]
    assert AXES <= set(keys("layer_norm"))


def test_given_x_hat_only_what_goes_wrong_after_it_is_tested():
    after = {m.key for m in MISTAKES if "output" in m.quantities and "normalised" not in m.quantities}
    assert set(keys("scale_shift")) == after - {"not-normalised"}
    assert {"gamma-beta-swapped", "forgot-gamma", "forgot-beta", "shift-not-scaled"} <= set(keys("scale_shift"))
    assert not {"n-1", "no-eps", "not-normalised", *AXES} & set(keys("scale_shift"))


def test_the_module_adds_its_own_mistakes_after_the_formulas_in_a_modules_words():
    formula = keys("layer_norm") + ["gamma-beta-swapped"]
    assert keys("module") == formula + [k for k in MODULE_MISTAKES if k not in formula]
    named = dict(plan.mistakes_for("module"))
    assert all(named[key] == name for key, name in MODULE_MISTAKES.items())
    assert named["hard-coded-width"] != dict(plan.mistakes_for("layer_norm"))["hard-coded-width"]
    assert "no-super-init" not in keys("layer_norm")


@pytest.mark.parametrize("step", list(plan.STEPS))
def test_each_step_has_a_test_per_mistake_then_the_hidden_full_check(step):
    tests = plan.tests_for(step)
    assert [(t.grade_id, t.key, t.name, t.points) for t in tests[:-1]] == [
        (f"test_{step}_{key}", key, name, plan.MISTAKE_POINTS) for key, name in plan.mistakes_for(step)
    ]
    hidden = tests[-1]
    assert (hidden.grade_id, hidden.key, hidden.name) == (f"test_{step}_hidden", None, "the full check on unseen cases")
    assert hidden.hidden and not any(t.hidden for t in tests[:-1])
    assert hidden.points == plan.HIDDEN_POINTS > plan.MISTAKE_POINTS
    assert plan.total_points(step) == len(tests) - 1 + plan.HIDDEN_POINTS


def test_each_steps_answer_has_the_name_the_notebook_asks_for():
    names = {step: plan.function_name(step) for step in plan.STEPS}
    assert names == {
        "mean": "mean",
        "variance": "variance",
        "std": "std",
        "normalise": "normalise",
        "scale_shift": "scale_shift",
        "layer_norm": "layer_norm",
        "module": "MyLayerNorm",
    }
    assert [plan.answer_id(step) for step in ("mean", "module")] == ["answer_mean", "answer_module"]
    assert plan.notebook_of("module") == "08"
