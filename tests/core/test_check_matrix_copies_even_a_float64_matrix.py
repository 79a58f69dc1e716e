"""check_matrix gives "a float64 copy (... editing it leaves ``matrix`` alone)", also when ``matrix`` already is one.

A float64 array needs no conversion, so a copy made only by converting would hand the caller's own array back:
a widget that edits the matrix it checked would then edit the learner's variable.
"""

from __future__ import annotations

import numpy as np

from helpers.core.validation import check_matrix


def test_a_float64_matrix_comes_back_as_a_copy_the_caller_can_edit_safely():
    given = np.array([[1.0, 2.0], [3.0, 4.0]])
    matrix = check_matrix(given)
    assert matrix is not given and not np.shares_memory(matrix, given)
    matrix[0, 0] = 99.0
    assert given.tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_a_float64_row_comes_back_as_a_one_row_copy():
    given = np.array([1.0, 2.0, 3.0])
    matrix = check_matrix(given)
    matrix[0, 1] = -5.0
    assert given.tolist() == [1.0, 2.0, 3.0]
