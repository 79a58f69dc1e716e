"""helpers.core.data at its edges: what a spreadsheet writes for a missing value, a typo at either end of a
value, a quoted number after a space, a first line that only looks like a header, and notebook 01's question.

From the module's docstrings: a number is a plain decimal as people write it; NaN (a spreadsheet writes it
"NA" or "N/A") and infinity (also "∞") are refused in plain words; a first line is a header only when every
cell is a name; a bad value is named, never dropped.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.data import parse_matrix_text, parse_number, parse_row, smallest_spread_question


@pytest.mark.parametrize("text", ["NA", "na", "N/A", "n/a", "-NA"])
def test_a_spreadsheets_missing_value_is_refused_as_nan(text):
    with pytest.raises(ValueError, match=rf"^'{text}' is not a number \(NaN\); type a real number$"):
        parse_number(text)


@pytest.mark.parametrize("text", ["∞", "-∞", "+∞"])
def test_the_infinity_sign_is_refused_as_infinity(text):
    with pytest.raises(ValueError, match=rf"^'\{text}' is infinity; LayerNorm needs finite numbers$"):
        parse_number(text)


@pytest.mark.parametrize(
    "text, position, typed",
    [("1.5, 2, 3X", 3, "3X"), ("X1.5, 2, 3", 1, "X1.5"), ("1.5, X2, 3", 2, "X2"), ("[1.5, 2X]", 2, "2X")],
)
def test_a_letter_typed_at_either_end_of_a_value_is_named_not_dropped(text, position, typed):
    with pytest.raises(ValueError, match=rf"^Value {position} '{typed}' is not a number\.$"):
        parse_row(text)


def test_quoted_numbers_after_a_space_are_read():
    """Editors write '"1.5", "2"': the space after the comma is not part of the quoted cell."""
    matrix = parse_matrix_text('"x", "y"\n"1.5", "2"\n3, "-4"\n')
    np.testing.assert_array_equal(matrix, [[1.5, 2.0], [3.0, -4.0]])


def test_a_bad_cell_of_text_with_no_source_named_is_in_the_text():
    with pytest.raises(ValueError, match=r"^the text, line 2, column 1: the cell 'x' is not a number\.?$"):
        parse_matrix_text("1\nx\n")


@pytest.mark.parametrize(
    "first_line, cell",
    [
        ("NaN,NaN", "NaN"),
        ("NA,NA", "NA"),
        ("n/a,n/a", "n/a"),
        ("inf,inf", "inf"),
        ("-inf,-inf", "-inf"),
        ("Infinity,+Infinity", "Infinity"),
    ],
)
def test_a_first_line_of_nan_or_infinity_is_data_to_refuse_not_a_header_to_drop(first_line, cell):
    with pytest.raises(ValueError, match=rf"^the text, line 1, column 1: the cell '{cell}' is (not a number|infinity)"):
        parse_matrix_text(f"{first_line}\n1,2\n")


def test_a_first_line_with_an_empty_cell_is_not_a_header():
    """Every cell of a header is a name; an empty one is not, so the line is data and its word is reported."""
    with pytest.raises(ValueError, match=r"^the text, line 1, column 1: the cell 'name' is not a number"):
        parse_matrix_text("name,\n1,2\n")


def test_the_spread_question_asks_about_tokens_and_hints_at_the_pencil_way():
    question = smallest_spread_question([[1.0, 2.0, 3.0], [1.0, 1.1, 0.9]])
    assert question["question"] == "Which token has the smallest spread?"
    assert question["hint"] == "For each row, compare its largest and smallest value."
