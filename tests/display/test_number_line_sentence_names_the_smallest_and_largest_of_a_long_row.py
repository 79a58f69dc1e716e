"""A row too long to list is described by its count, smallest and largest value (number_line_alt).

"One sentence saying what the picture shows, for a screen reader": up to LABEL_AT_MOST (12) values are listed;
a longer row is "N values from <smallest> to <largest>". A long row need not be in order, so its first and last
values are not its smallest and largest.
"""

from __future__ import annotations

import numpy as np

import helpers
from helpers.display import number_line as nl


def test_a_long_unordered_row_names_its_smallest_and_largest_not_its_ends():
    row = np.array([0.5, 9.25, -3.5, 2.0, 1.0, 4.0, 0.0, -1.0, 3.0, 6.0, 5.0, -2.0, 1.5])  # 13 values
    sentence = nl.number_line_alt(helpers.layer_norm_steps(row))
    assert sentence.startswith("Number line of the row: 13 values from -3.5000 to 9.2500; mean μ ")


def test_twelve_values_are_listed_in_the_rows_order_and_thirteen_are_not():
    twelve = [3.0, -1.0, 2.0, 0.5, 4.0, -2.0, 1.0, 0.0, 5.0, -3.0, 6.0, 2.5]
    listed = nl.number_line_alt(helpers.layer_norm_steps(twelve))
    assert listed.startswith("Number line of the row: values " + ", ".join(f"{v:.4f}" for v in twelve) + "; ")
    summed = nl.number_line_alt(helpers.layer_norm_steps([*twelve, 7.0]))
    assert "13 values from -3.0000 to 7.0000; " in summed and "2.5000" not in summed


def test_the_word_values_is_said_once_whatever_the_rows_length():
    short = nl.number_line_alt(helpers.layer_norm_steps([1.0, 2.0, 4.0]))
    long = nl.number_line_alt(helpers.layer_norm_steps([float(v) for v in range(13)]))
    assert short.startswith("Number line of the row: values 1.0000, 2.0000, 4.0000; mean μ ")
    assert long.startswith("Number line of the row: 13 values from 0.0000 to 12.0000; mean μ ")
