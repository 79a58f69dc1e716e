"""Notebook 09's float16 helpers at the edge of float16's range (65504): a finite row float16 cannot hold is told
so in those words, not as NaN or infinity the learner never typed; a constant row's float16 overflow is quiet."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from helpers.lessons.numerics.errors import float16_stage_errors
from helpers.lessons.numerics.lowprec import constant_row_float16


@pytest.mark.parametrize("largest", [65520.0, 70000.0, -1e6])
def test_a_finite_row_past_float16s_range_is_told_so(largest):
    with pytest.raises(ValueError) as problem:
        float16_stage_errors([1.0, largest, 3.0])
    assert str(problem.value) == (
        f"float16 cannot hold {abs(largest):g}: its largest number is 65504, so the row would be stored as infinity."
    )


def test_a_row_just_inside_float16s_range_is_measured():
    """65519 rounds to 65504 (float16's largest), not to infinity: it is stored, and measured."""
    assert np.float16(65519.0) == 65504.0
    errors = float16_stage_errors([1.0, 65519.0, 3.0])
    assert all(np.isfinite(value) for value in errors.alone.values())


def test_a_row_holding_nan_is_still_told_it_holds_nan():
    with pytest.raises(ValueError, match="NaN or infinity"):
        float16_stage_errors([1.0, np.nan, 3.0])


def test_a_constant_row_whose_float16_sum_overflows_is_nan_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = constant_row_float16(1e-5, value=20000.0)  # 4 × 20000 > 65504: the float16 sum is infinity
    assert out.dtype == np.float64 and np.all(np.isnan(out))
