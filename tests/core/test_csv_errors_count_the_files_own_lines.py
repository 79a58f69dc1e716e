"""A CSV error names the line as the file numbers it (helpers.core.data.parse_matrix_text), blank lines included.

load_matrix accepts blank lines and a header line, and "raises ValueError naming the line and column": the line
a person finds in their editor, counted from 1 over every line of the file, not over the rows of numbers.
"""

from __future__ import annotations

import pytest

from helpers.core.data import parse_matrix_text


@pytest.mark.parametrize(
    "text, message",
    [
        ("1,2\n\n3,x\n", "the text, line 3, column 2: the cell 'x' is not a number."),
        ("a,b\n\n1,2\n\n3,x\n", "the text, line 5, column 2: the cell 'x' is not a number."),
        ("1,2\r\n\r\n\r\nx,4\r\n", "the text, line 4, column 1: the cell 'x' is not a number."),
        ("\n\n1;2\n3;nan\n", "the text, line 4, column 2: the cell 'nan' is not a number (NaN); type a real number."),
    ],
)
def test_a_bad_cell_after_blank_lines_names_the_files_own_line(text, message):
    with pytest.raises(ValueError) as caught:
        parse_matrix_text(text)
    assert str(caught.value) == message


def test_a_ragged_row_after_blank_lines_names_the_files_own_line():
    with pytest.raises(ValueError) as caught:
        parse_matrix_text("1,2,3\n\n\n4,5\n", source="m.csv")
    assert str(caught.value) == (
        "m.csv, line 4: this row has 2 values but the first row has 3; every row needs the same number of values."
    )


def test_blank_lines_and_a_header_leave_the_rows_in_order():
    assert parse_matrix_text("x,y\n\n1,2\n\n3,4\n").tolist() == [[1.0, 2.0], [3.0, 4.0]]
