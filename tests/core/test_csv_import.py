"""helpers.core.data: anybody's CSV file (semicolons with decimal commas, with and without a header, a header
whose labels hold commas, tabs) reads to the right numbers, and a ragged one gets one sentence.
(Moved from tests/checking/test_checking_behaviour.py, issue 24's behaviour tests.)"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.data import load_matrix, parse_matrix_text

# --- 1. anybody's CSV file ---------------------------------------------------------------------

NUMBERS = [[1.5, -2.25, 3.0], [0.125, 3.0, -4.5]]
READABLE = {
    "semicolons, decimal commas, no header": "1,5;-2,25;3\n0,125;3;-4,5\n",
    "semicolons, decimal commas, a plain header": "a;b;c\n1,5;-2,25;3\n0,125;3;-4,5\n",
    "semicolons, decimal commas, header labels with commas": (
        "feature 1, raw;feature 2, raw;feature 3\n1,5;-2,25;3\n0,125;3;-4,5\n"
    ),
    "semicolons, decimal commas, quoted header with commas": (
        '"feature 1, raw";"feature 2, raw";"feature 3, raw"\n1,5;-2,25;3\n0,125;3;-4,5\n'
    ),
    "semicolons, decimal commas, quoted cells": '"1,5";"-2,25";"3"\n"0,125";"3";"-4,5"\n',
    "semicolons, a decimal comma on the first line only": "1,5;-2,25;3\n0.125;3;-4.5\n",
    "semicolons, decimal commas, spaces after the semicolons": "1,5; -2,25; 3\n0,125; 3; -4,5\n",
    "semicolons, decimal commas, Windows endings and a BOM": "\ufeffx;y;z\r\n1,5;-2,25;3\r\n0,125;3;-4,5\r\n",
    "semicolons, decimal points, header labels with commas": "f1, raw;f2, raw;f3\n1.5;-2.25;3\n0.125;3;-4.5\n",
    "tabs, no header": "1.5\t-2.25\t3\n0.125\t3\t-4.5\n",
    "tabs, a header": "x\ty\tz\n1.5\t-2.25\t3\n0.125\t3\t-4.5\n",
    "tabs, header labels with commas": "feature 1, raw\tfeature 2, raw\tfeature 3\n1.5\t-2.25\t3\n0.125\t3\t-4.5\n",
    "commas, no header": "1.5,-2.25,3\n0.125,3,-4.5\n",
    "commas, quoted header with commas": '"feature 1, raw","feature 2","feature 3"\n1.5,-2.25,3\n0.125,3,-4.5\n',
}


@pytest.mark.parametrize("content", READABLE.values(), ids=READABLE.keys())
def test_a_csv_file_people_save_reads_to_the_right_numbers(tmp_path, content):
    path = tmp_path / "mine.csv"
    path.write_text(content, encoding="utf-8", newline="")
    matrix = load_matrix(path)
    assert matrix.dtype == np.float64
    np.testing.assert_array_equal(matrix, np.array(NUMBERS))


RAGGED = {
    "commas, a short row": ("1.5,2,3\n4,5\n", 2, 2, 3),
    "commas, a long row": ("1.5,2\n4,5,6\n", 2, 3, 2),
    "semicolons with decimal commas, a short row": ("1,5;2,5;3\n4,5;5\n", 2, 2, 3),
    "semicolons with decimal commas, a long row after a header": ("a, raw;b\n1,5;2\n\n3;4,5;6\n", 4, 3, 2),
    "tabs, a short row": ("x\ty\tz\n1\t2\t3\n4\t5\n", 3, 2, 3),
}


@pytest.mark.parametrize(("content", "line", "has", "first"), RAGGED.values(), ids=RAGGED.keys())
def test_a_ragged_file_gets_one_clear_sentence(content, line, has, first):
    with pytest.raises(ValueError) as raised:
        parse_matrix_text(content, source="ragged.csv")
    message = str(raised.value)
    values = f"{has} value{'s' if has != 1 else ''}"
    assert message == (
        f"ragged.csv, line {line}: this row has {values} but the first row has {first}; "
        "every row needs the same number of values."
    )
