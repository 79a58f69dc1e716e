"""What a module's verdict judged (classroom/grading/plan.py, judged), from its docstring: a module's check stops
at its first problem, building every width first; so a formula's mistake (or a gradient's) judged every width's
build and run and the formula's other mistakes, but not the gradients nor its own ε; its own ε's mistakes come
last and judged everything; anything else judged only its own test. A row or matrix step judged everything."""

from __future__ import annotations

import pytest

from classroom.grading import plan

FORMULA = "n-1"  # a formula's mistake


@pytest.mark.parametrize("named", [{FORMULA}, {"initial-values"}, {"gamma-beta"}, {FORMULA, "no-eps"}])
def test_a_formula_or_gradient_mistake_judged_every_build_test(named):
    for key in plan.MODULE_BUILT:
        assert plan.judged("module", named, key), key


@pytest.mark.parametrize("named", [{FORMULA}, {"initial-values"}])
def test_it_judged_the_formulas_other_mistakes_but_not_what_comes_after_or_stops_early(named):
    assert plan.judged("module", named, "no-eps") and plan.judged("module", named, "median")
    for key in (*plan.MODULE_LAST, *plan.MODULE_EARLY):
        assert not plan.judged("module", named, key), key
    assert not plan.judged("module", {FORMULA}, "initial-values")


def test_its_own_eps_mistakes_judged_everything():
    for key in (*plan.MODULE_BUILT, *plan.MODULE_GRADIENTS, FORMULA):
        assert plan.judged("module", {"eps-ignored"}, key)


def test_a_build_mistake_judged_only_its_own_test():
    assert plan.judged("module", {"no-super-init"}, "no-super-init")
    assert not plan.judged("module", {"no-super-init"}, "no-parameters")
    assert not plan.judged("module", {"no-super-init"}, FORMULA)


def test_a_row_or_matrix_step_judged_everything():
    assert plan.judged("layer_norm", {FORMULA}, "no-eps") and plan.judged("variance", {"n-1"}, "one-pass")
