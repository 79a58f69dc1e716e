"""A verdict's numbers as short text (helpers/checking/results.py, values_text), from its docstring: at most
``limit`` values a row (8 by default) and four rows; "…" marks only what was left out."""

from __future__ import annotations

import numpy as np

from helpers.checking.results import values_text


def matrix(rows, columns=2):
    return np.arange(rows * columns, dtype=np.float64).reshape(rows, columns)


def test_four_rows_are_all_shown_and_nothing_is_marked_left_out():
    assert values_text(matrix(4)) == "[[0, 1], [2, 3], [4, 5], [6, 7]]"


def test_a_fifth_row_is_left_out_and_marked():
    assert values_text(matrix(5)) == "[[0, 1], [2, 3], [4, 5], [6, 7], …]"


def test_eight_values_a_row_are_all_shown_and_a_ninth_is_marked():
    assert values_text(np.arange(8.0)) == "[0, 1, 2, 3, 4, 5, 6, 7]"
    assert values_text(np.arange(9.0)) == "[0, 1, 2, 3, 4, 5, 6, 7, …]"
