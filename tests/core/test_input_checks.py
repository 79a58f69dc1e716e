"""helpers.core's refusals and checks, from their docstrings: overflow said in plain words, and the checks the
widgets use (check_matrix, check_row_index, eps_from_text). Moved from tests/core/test_mutmut_core.py (mutmut's
gaps, tools/mutation/mutmut_triage.md).
"""

from __future__ import annotations

import numpy as np
import pytest

import helpers
from helpers.core.layernorm import layer_norm, layer_norm_steps
from helpers.core.validation import InputError, check_matrix, check_row_index, eps_from_text

# ---------------------------------------------------------------------------------------------
# overflow said in plain words


def test_values_whose_squares_overflow_are_refused_with_the_whole_advice():
    with pytest.raises(InputError) as caught:
        layer_norm([1e200, -1e200, 0.0])
    assert str(caught.value) == (
        "The values are too large: their squares overflow float64 (keep them below about 1e+154); "
        "LayerNorm gives almost the same result for the row divided by any positive number, so scale it down first."
    )


def test_a_record_shows_as_its_steps_table_in_jupyter():
    record = layer_norm_steps([1.0, 2.0, 4.0])
    assert record._repr_html_() == helpers.display.steps_html(record)


# ---------------------------------------------------------------------------------------------
# validation: the checks the widgets use (check_matrix, check_row_index, eps_from_text)


def test_check_matrix_returns_a_float64_copy_and_makes_a_row_a_one_row_matrix():
    given = np.array([[1, 2], [3, 4]])
    matrix = check_matrix(given)
    assert matrix.dtype == np.float64 and matrix.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    matrix[0, 0] = 99.0
    assert given[0, 0] == 1  # a copy: editing it leaves the input alone
    row = check_matrix([1.5, 2.5, 3.5])
    assert row.shape == (1, 3) and row.tolist() == [[1.5, 2.5, 3.5]]
    assert check_matrix([[7.0]]).tolist() == [[7.0]]  # one number is a 1 × 1 matrix, not empty


@pytest.mark.parametrize(
    "matrix, shape",
    [(np.zeros((2, 2, 2)), "(2, 2, 2)"), (np.zeros((0, 3)), "(0, 3)"), ([], "(1, 0)"), (5.0, "()")],
)
def test_check_matrix_refuses_what_is_not_a_matrix(matrix, shape):
    with pytest.raises(InputError) as caught:
        check_matrix(matrix)
    assert caught.value.argument == "matrix"
    assert str(caught.value) == f"Give a matrix: rows of numbers, all the same length; got shape {shape}."


def test_check_matrix_refuses_nan_and_ragged_rows_naming_the_matrix():
    with pytest.raises(InputError) as caught:
        check_matrix([[1.0, float("nan")], [0.0, 1.0]])
    assert caught.value.argument == "matrix"
    assert str(caught.value) == "The matrix contains NaN or infinity; LayerNorm needs finite numbers."
    with pytest.raises(InputError) as caught:
        check_matrix([[1.0, 2.0], [3.0]])
    assert caught.value.argument == "matrix"


def test_check_row_index_counts_from_zero_and_refuses_anything_else():
    assert check_row_index(0, 5) == 0
    assert check_row_index(np.int64(4), 5) == 4 and type(check_row_index(np.int64(4), 5)) is int
    for bad in (5, -1, True, 1.0, "1", None):
        with pytest.raises(InputError) as caught:
            check_row_index(bad, 5)
        assert caught.value.argument == "row"
        assert str(caught.value) == f"Pick a row by its index from 0 to 4 (row 1 is index 0); got {bad!r}."


def test_eps_from_text_reads_a_typed_number_with_the_rule_of_check_eps():
    assert eps_from_text("1e-3") == 0.001 and eps_from_text(" 0.01 ") == 0.01
    assert eps_from_text(0) == 0.0 and type(eps_from_text(2)) is float
    with pytest.raises(InputError) as caught:
        eps_from_text("abc")
    assert caught.value.argument == "eps" and str(caught.value) == "eps 'abc' is not a number."
    with pytest.raises(InputError) as caught:
        eps_from_text("-1")
    assert caught.value.argument == "eps" and "0 or larger" in str(caught.value)
