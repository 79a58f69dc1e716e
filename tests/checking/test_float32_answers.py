"""What a function that computes in float32 should give (helpers.checking.cases.in_float32), from its docstring:
the same case with its input rounded to float32 and LayerNorm's answer for that input, ε as given. The checker
reads it to say "right only to float32's precision" instead of "wrong", so a wrong answer here would turn a
float32 learner's near-✓ into an unexplained ✗. The answers are recomputed from the formula, not copied."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.cases import STEPS, cases, in_float32
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
