"""When a case is "far from zero" (helpers.checking.cases.Case), from its docstring: |μ| ≥ 100 σ in float32 and
|μ| ≥ 30 σ in float64, the distances where the one-pass variance E[x²] − E[x]² loses its digits in each
precision. Whether it is decides the checker's advice about the one-pass formula, so both edges are checked in
both precisions (the numbers are the docstring's, written out, not the module's constants)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.cases import Case


@pytest.mark.parametrize("dtype, times_sigma", [(np.float64, 30.0), (np.float32, 100.0)])
@pytest.mark.parametrize("share", [0.5, 0.98, 1.02, 3.0])
def test_a_row_is_far_from_zero_when_its_mean_is_the_precisions_number_of_stds_away(dtype, times_sigma, share):
    row = np.array([-1.0, 0.0, 1.0, 2.0])
    x = row - row.mean() + share * times_sigma * row.std()  # |μ| = share × times_sigma × σ
    case = Case("a row off zero", (x, 1e-5), np.zeros_like(x), dtype=dtype, step="normalise")
    far = share >= 1
    assert case.far_from_zero is far, (dtype.__name__, share)
    assert bool(case.far_rows()[0]) is far


def test_a_constant_row_is_not_far_from_zero_in_float64_however_far_it_is():
    case = Case("a constant row", (np.full(3, 1e6), 1e-5), np.zeros(3), dtype=np.float64, step="normalise")
    assert case.far_from_zero is False


def test_far_rows_are_read_row_by_row():
    x = np.array([[1000.0, 1001.0, 1002.0, 1003.0], [0.0, 1.0, 2.0, 3.0], [1000.0, 1000.1, 1000.2, 1000.3]])
    for dtype in (np.float64, np.float32):
        case = Case("three rows", (x.astype(dtype), 1e-5), np.zeros_like(x), dtype=dtype, step="layer_norm")
        assert case.far_rows().tolist() == [True, False, True], dtype.__name__  # the last: σ ≈ 0.11, |μ| = 1000


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_constant_row_is_far_only_where_its_square_is_not_exact_in_the_precision(dtype):
    """10000.3² needs more digits than float32 or float64 holds: there E[x²] − E[x]² is not exactly 0; 0.5² is."""
    x = np.array([[10000.3, 10000.3, 10000.3], [0.5, 0.5, 0.5], [1000.0, 1001.0, 1002.0]], dtype=dtype)
    case = Case("constant rows", (x, 1e-5), np.zeros(x.shape), dtype=dtype, step="layer_norm")
    assert case.far_rows().tolist() == [True, False, True]
