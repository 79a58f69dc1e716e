"""Minus signs copied from web pages and documents read as "-" (helpers.core.data).

_MINUS_LOOKALIKES: "Minus signs that arrive when people copy numbers from web pages and documents": the minus
sign U+2212, the en dash U+2013, the figure dash U+2012, the small hyphen-minus U+FE63 and the fullwidth
hyphen-minus U+FF0D. parse_number, parse_row and split_row read each as "-"; so does a CSV cell.
"""

from __future__ import annotations

import pytest

from helpers.core.data import parse_matrix_text, parse_number, parse_row, split_row

LOOKALIKES = ["\u2212", "\u2013", "\u2012", "\ufe63", "\uff0d"]


@pytest.mark.parametrize("minus", LOOKALIKES)
def test_a_number_with_a_lookalike_minus_is_negative(minus):
    assert parse_number(f"{minus}0.299") == -0.299
    assert parse_number(f"1e{minus}5") == 1e-5


@pytest.mark.parametrize("minus", LOOKALIKES)
def test_a_pasted_row_and_a_csv_cell_read_it_too(minus):
    assert parse_row(f"[1.133, {minus}0.299, 0.503]").tolist() == [1.133, -0.299, 0.503]
    assert split_row(f"{minus}2.50 3") == ["-2.50", "3"]
    assert parse_matrix_text(f"1,{minus}2\n").tolist() == [[1.0, -2.0]]
