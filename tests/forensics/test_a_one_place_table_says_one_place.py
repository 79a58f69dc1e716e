"""A published table printed to one decimal place is described as "1 place", never "1 places": in its title,
its verdict and the note on a type's own rounding (helpers/forensics/display.py, with display's ``counted``)."""

from __future__ import annotations

import numpy as np

from helpers.display import counted, render_text
from helpers.forensics.display import table_fingerprint_view
from helpers.forensics.table import fingerprint_table

X = np.array([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5]])


def test_counted_says_one_place_and_every_other_count_in_the_plural():
    assert [counted(n, "place") for n in (0, 1, 2, 4)] == ["0 places", "1 place", "2 places", "4 places"]


def test_a_one_place_tables_view_says_1_place():
    y = np.round((X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + 1e-5), 1)
    text = render_text(table_fingerprint_view(fingerprint_table(X, y, places=1)))
    assert "(1 place; γ = 1, β = 0)" in text and "to 1 place," in text
    assert "1 places" not in text
