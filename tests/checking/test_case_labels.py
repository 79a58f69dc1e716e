"""Each unseen case is what its label says (helpers/checking/cases.py). The label is what a learner reads after
"input:" in a failed check, so every claim in it must hold for the numbers the function was given: its size
("a row of 7 values", "a 4 × 3 matrix", "one token"), its precision ("in float32"), a constant row, a row far
from zero for its precision, what was added ("1000 added"), a small spread ("σ² ≈ 1e-4"), a larger ε, one value
far out ("x̂ ≈ 11 there"), a row of the lesson's own matrix. Read from the labels, not from a list of them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.checking.cases import STEPS, cases, mistakes
from helpers.core.data import load_residual
from helpers.core.formula import layer_norm_forward

STEPS_WITH_CASES = [step for step in STEPS if step != "module"]


def _input(case):
    """The input the label describes: x (for scale_shift, the x̂ it is given) as a matrix of rows."""
    return np.atleast_2d(np.asarray(case.args[0], dtype=np.float64))


@pytest.mark.parametrize("step", STEPS_WITH_CASES)
def test_each_case_is_what_its_label_says(step):
    for case in cases(step):  # made here, not at import: the cases the checker runs now
        _says_what_it_is(case)


def _says_what_it_is(case):
    label, x = case.label, _input(case)
    assert label == label.lower() and re.match("[a-z]", label), "a label continues the verdict's 'input:' line"
    assert case.expected.dtype == np.float64  # LayerNorm's answer, computed in float64 whatever the input's precision
    assert ("in float32" in label) == (case.dtype == np.float32) == (case.args[0].dtype == np.float32)
    assert ("ε = 0.01" in label) == (len(case.args) == 2 and case.args[1] == 0.01)
    if size := re.search(r"row of (\d+) values", label):
        assert np.shape(case.args[0]) == (int(size[1]),)
    if size := re.search(r"(\d+) × (\d+) matrix", label):
        assert np.shape(case.args[0]) == (int(size[1]), int(size[2]))
    if "one token" in label:
        assert x.shape[0] == 1
    if "constant row" in label:
        assert np.any(np.ptp(x, axis=-1) == 0)
    else:
        assert np.all(np.ptp(x, axis=-1) > 0)
    if re.search(r"\bfar from zero\b", label):
        assert np.any(case.far_rows())
    if added := re.search(r"\(([\d,]+) added", label):
        centre = float(added[1].replace(",", ""))  # what was added to values near zero
        assert np.all(np.abs(x.mean(axis=-1) - centre) < centre / 100), x.mean(axis=-1)
        if to := re.search(r"added to ([\d, ]+)\)", label):  # … and to which values
            assert np.array_equal(x[0] - centre, [float(v) for v in to[1].split(",")])
    if value := re.search(r"every value ([\d.]+)", label):
        assert np.all(x == float(value[1]))
    if "σ² ≈ 1e-4" in label:
        assert np.all((1e-5 < x.var(axis=-1)) & (x.var(axis=-1) < 1e-3)), x.var(axis=-1)
    if "x̂ ≈ 11 there" in label:
        x_hat = layer_norm_forward(x, 1e-5)[0]
        assert np.all(np.abs(np.abs(x_hat).max(axis=-1) - 11) < 0.5), np.abs(x_hat).max(axis=-1)
        assert np.all(np.sum(np.abs(x_hat) > 3, axis=-1) == 1)  # one value far out in each row
    if lesson := re.search(r"row (\d+) of the lesson", label):
        row = load_residual()[int(lesson[1]) - 1]
        if "normalised" in label:
            row = layer_norm_forward(row, 1e-5)[0]
        assert np.array_equal(case.args[0], row)
    if "normalised" in label or case.step == "scale_shift":  # scale_shift is given x̂: rows of mean 0, variance ≈ 1
        assert case.step == "scale_shift" and "normalised" in label
        assert np.allclose(x.mean(axis=-1), 0, atol=1e-12) and np.allclose(x.var(axis=-1), 1, atol=1e-3)
    if "output near zero" in label:
        assert np.min(np.abs(case.expected)) < 2e-3  # a few thousandths


def test_the_cases_are_random_but_the_same_every_time():
    first, again = ([case for step in STEPS_WITH_CASES for case in cases(step)] for _ in range(2))
    assert [case.label for case in again] == [case.label for case in first]
    assert all(np.array_equal(a, b) for x, y in zip(again, first) for a, b in zip(x.args, y.args))


def test_another_matrix_of_the_first_ones_shape_holds_other_values():
    first = next(case.args[0] for case in cases("layer_norm") if "random 4 × 3" in case.label)
    another = next(case.args[0] for case in cases("layer_norm") if case.label.startswith("another"))
    assert another.shape == first.shape and not np.any(another == first)


@pytest.mark.parametrize("step", STEPS_WITH_CASES)
def test_each_case_checks_its_own_step_and_those_given_eps_are_tried_with_a_larger_one(step):
    """A case's step sets its tolerance; a function that ignores its ε argument shows only with another ε."""
    found = cases(step)
    assert {case.step for case in found} == {step}
    if step in ("std", "normalise", "layer_norm"):
        assert any(case.args[1] > 1e-5 for case in found)


@pytest.mark.parametrize("asked", [mistakes, cases], ids=["mistakes", "cases"])
@pytest.mark.parametrize("step", ["meen", "module"])
def test_a_step_without_cases_or_mistakes_is_told_the_functions_steps(asked, step):
    """The module (notebook 08) has neither here (helpers.checking.module_check checks it, with its own mistakes),
    so it is not offered; a misspelt step is told the same list."""
    with pytest.raises(ValueError) as refused:
        asked(step)
    assert str(refused.value) == (
        f"There is no exercise step called {step!r}; choose one of: "
        "mean, variance, std, normalise, scale_shift, layer_norm."
    )
