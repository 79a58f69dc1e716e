"""What a function that computes in float32 should give (helpers.checking.cases.in_float32), from its docstring:
the same case with its input rounded to float32 and LayerNorm's answer for that input, ε as given. The checker
reads it to say "right only to float32's precision" instead of "wrong", so a wrong answer here would turn a
float32 learner's near-✓ into an unexplained ✗. The answers are recomputed from the formula, not copied."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.cases import STEPS, Case, cases, in_float32
from helpers.checking.exercises import _float32_only
from helpers.core.formula import layer_norm_forward


def _float64_cases(step):
    return [case for case in cases(step) if case.dtype == np.float64]


@pytest.mark.parametrize("step", [s for s in STEPS if s not in ("scale_shift", "module")])
def test_a_case_in_float32_is_its_input_rounded_and_layernorms_answer_for_that_input(step):
    quantity = {"mean": 1, "variance": 2, "std": 3}.get(step, 0)  # layer_norm_forward: x̂, mean, var, std
    for case in _float64_cases(step)[:3] + [c for c in cases(step) if "ε = 0.01" in c.label]:
        single = in_float32(case)
        x = np.asarray(case.args[0], dtype=np.float32)
        assert (single.label, single.step, single.dtype) == (case.label, case.step, np.float32)
        assert single.args[0].dtype == np.float32 and np.array_equal(single.args[0], x)
        assert single.args[1:] == case.args[1:]  # ε (a number, not an array) as given
        eps = case.args[1] if len(case.args) > 1 else 1e-5
        right = np.asarray(layer_norm_forward(x.astype(np.float64), eps)[quantity], dtype=np.float64)
        assert single.expected.shape == case.expected.shape
        np.testing.assert_allclose(single.expected, right.reshape(case.expected.shape), rtol=1e-12, atol=0)


def test_a_scale_and_shift_case_in_float32_rounds_each_of_its_three_inputs():
    for case in cases("scale_shift"):
        single = in_float32(case)
        x_hat, gamma, beta = (np.asarray(a, dtype=np.float32) for a in case.args)
        assert (single.label, single.step, single.dtype) == (case.label, "scale_shift", np.float32)
        assert all(a.dtype == np.float32 for a in single.args) and len(single.args) == 3
        right = gamma.astype(np.float64) * x_hat.astype(np.float64) + beta.astype(np.float64)
        np.testing.assert_allclose(single.expected, right, rtol=1e-12, atol=0)
        assert not np.array_equal(single.expected, case.expected)  # every digit of γ: float32 cannot hold them


# ---------------------------------------------------------------- exercises._float32_only, from its docstring


def _normalise_case(row=(0.1, 0.7, 1.3, 2.9), dtype=np.float64, eps=1e-5):
    row = np.asarray(row, dtype=dtype)
    return Case("a row", (row, eps), layer_norm_forward(np.asarray(row, dtype=np.float64), eps)[0], dtype, "normalise")


def test_a_float64_result_rounded_to_float32_or_computed_in_float32_is_float32_precision():
    case = _normalise_case()
    rounded = case.expected.astype(np.float32)
    single = in_float32(case)
    computed = single.expected.astype(np.float32)
    assert _float32_only([(case, rounded)])
    assert _float32_only([(case, computed)])
    assert _float32_only([(case, rounded), (_normalise_case((1.0, 2.0, 4.0)), None)]) is False  # one raised


def test_what_is_not_float32_precision_on_a_float64_input_is_not_called_so():
    case = _normalise_case()
    rounded = case.expected.astype(np.float32)
    assert _float32_only([(_normalise_case(dtype=np.float32), rounded)]) is False  # a float32 case
    assert _float32_only([(case, rounded[:-1])]) is False  # the wrong shape
    assert _float32_only([(case, np.where(np.arange(4) == 1, np.nan, rounded))]) is False  # NaN
    assert _float32_only([(case, rounded.astype(np.float64) + 1e-12)]) is False  # not float32 numbers
    assert _float32_only([(case, (case.expected * 1.01).astype(np.float32))]) is False  # wrong by 1 %
    assert _float32_only([]) is False  # nothing wrong: nothing to call float32


def test_a_result_that_float32_holds_exactly_is_no_sign_alone():
    """A 0 or a 0.5 alone is no sign: exact float32 values equal to the float64 answer tell nothing."""
    exact = Case("a row", (np.array([0.0, 1.0]),), np.array(0.5), np.float64, "mean")
    assert _float32_only([(exact, np.float32(0.5))]) is False
    case = _normalise_case()
    assert _float32_only([(exact, np.float32(0.5)), (case, case.expected.astype(np.float32))])
