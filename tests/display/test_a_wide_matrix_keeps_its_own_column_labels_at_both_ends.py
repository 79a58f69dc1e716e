"""A matrix wider than ELIDE_OVER (10) columns keeps its own labels over the columns it shows (show_matrix).

show_matrix: "``column_labels`` and ``row_labels`` name the columns and rows (default f1, f2, …)"; a long row
"keeps only both ends around …" (EDGE_ITEMS = 3 each side). The last three columns of a 12-column matrix are
its 10th, 11th and 12th, under the labels given for them, never the defaults f10, f11, f12.
"""

from __future__ import annotations

import numpy as np

from helpers.display.matrix import show_matrix

LABELS = [f"c{letter}" for letter in "abcdefghijkl"]  # 12 columns
VALUES = np.arange(24.0).reshape(2, 12)


def test_the_headers_are_the_given_labels_of_the_first_and_last_three_columns():
    view = show_matrix(VALUES, column_labels=LABELS, places=1)
    assert view.table().column_headers == ("ca", "cb", "cc", "…", "cj", "ck", "cl")


def test_each_shown_value_sits_under_its_own_label_in_text_and_html():
    view = show_matrix(VALUES, column_labels=LABELS, row_labels=["first", "second"], places=1)
    header, first, second = str(view).splitlines()
    assert header.split() == ["ca", "cb", "cc", "…", "cj", "ck", "cl"]
    assert first.split() == ["first", "0.0", "1.0", "2.0", "…", "9.0", "10.0", "11.0"]
    assert second.split() == ["second", "12.0", "13.0", "14.0", "…", "21.0", "22.0", "23.0"]
    markup = view._repr_html_()
    assert markup.index(">cl</th>") < markup.index(">first</th>") and "f12" not in markup and "f10" not in markup


def test_without_labels_the_last_three_are_named_by_their_place_from_1():
    assert show_matrix(VALUES).table().column_headers == ("f1", "f2", "f3", "…", "f10", "f11", "f12")
