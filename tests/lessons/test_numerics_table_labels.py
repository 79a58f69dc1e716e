"""The row and column labels of notebook 09's sweep and invariance tables, written out whole."""

import math
import re

import numpy as np
import pytest

from helpers.lessons.numerics import moments as numerics

ROW_1 = np.array([1.133, -0.299, 0.503])
ROW_5 = np.array([0.6632, 0.7789, 0.6483])


def test_sweep_rows_read_sign_offset_method_and_verdict():
    results = numerics.offset_sweep(ROW_1, offsets=(0, -1_000, 10_000), dtype=np.float32)
    _, labels, columns = numerics.sweep_table(results)
    assert labels == [
        "+0 one-pass ✓",
        "+0 two-pass ✓",
        "+0 Welford ✓",
        "−1,000 one-pass ✗",
        "−1,000 two-pass ✓",
        "−1,000 Welford ✓",
        "+10,000 one-pass ✗",
        "+10,000 two-pass ✓",
        "+10,000 Welford ✓",
    ]
    assert columns == ["variance", "x̂₁", "x̂₂", "x̂₃"]


def test_a_sweep_table_of_one_result_has_one_row_and_a_column_per_feature():
    results = numerics.offset_sweep(np.arange(12.0), offsets=(0.4,), dtype=np.float64)
    values, labels, columns = numerics.sweep_table(results[:1])
    assert labels == ["+0 one-pass ✓"]  # 0.4 shows as 0, and it is not negative
    assert columns == ["variance", *[f"x̂{digits}" for digits in "₁ ₂ ₃ ₄ ₅ ₆ ₇ ₈ ₉ ₁₀ ₁₁ ₁₂".split()]]
    assert values.shape == (1, 13) and values[0, 0] == pytest.approx(np.var(np.arange(12.0)), rel=1e-12)


def test_empty_tables_are_refused_in_a_sentence():
    with pytest.raises(ValueError, match=re.escape("There are no sweep results to tabulate.")) as caught:
        numerics.sweep_table([])
    assert str(caught.value) == "There are no sweep results to tabulate."
    with pytest.raises(ValueError, match=re.escape("There are no cases to tabulate.")) as caught:
        numerics.invariance_table([])
    assert str(caught.value) == "There are no cases to tabulate."


def test_invariance_table_columns_and_labels_are_the_notebooks():
    cases = numerics.shift_scale_invariance(ROW_5, shifts=(0.0, 1000.0), scales=(1.0, 0.1))
    values, labels, columns = numerics.invariance_table(cases)
    assert labels == ["1 · x + 0", "0.1 · x + 0", "1 · x + 1000", "0.1 · x + 1000"]
    assert columns == ["σ² / ε", "ε / (σ² + ε)", "y₁", "y₂", "y₃", "largest change"]
    variance = np.var(ROW_5)
    np.testing.assert_allclose(values[:, 0], [variance / 1e-5, variance / 100 / 1e-5] * 2, rtol=1e-9)
    np.testing.assert_allclose(values[1, 1], 1e-5 / (variance / 100 + 1e-5), rtol=1e-9)


def test_invariance_table_of_one_case_with_eps_zero_shows_an_infinite_ratio():
    cases = numerics.shift_scale_invariance(np.arange(11.0), scales=(2.0,), eps=0.0)
    values, labels, columns = numerics.invariance_table(cases[:1])
    assert labels == ["2 · x + 0"]
    assert columns[2:4] == ["y₁", "y₂"] and columns[-2] == "y₁₁" and len(columns) == 14
    assert values[0, 0] == math.inf and values[0, 1] == 0.0
