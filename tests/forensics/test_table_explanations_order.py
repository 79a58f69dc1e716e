"""The order a printed table's explanations are offered in (helpers.forensics.table.fingerprint_table): best
first, those that explain every line, then by how many lines they explain, and among equals the statistics
over the rows (PyTorch's) before those over the columns, each axis's conventions in their own order."""

from __future__ import annotations

import numpy as np

from helpers.core.published_table import CONVENTIONS
from helpers.forensics.table import fingerprint_table

X = np.array([[1.0, 2.0, 4.0], [3.0, -1.0, 0.5], [2.0, 2.5, -3.0]])


def _layer_norm(x, axis):
    u = x - x.mean(axis, keepdims=True)
    return u / np.sqrt((u * u).mean(axis, keepdims=True) + 1e-5)


def test_with_nothing_explained_the_rows_come_first_in_the_conventions_order():
    y = np.array([[0.1, 0.2, 0.3], [0.5, 0.5, -0.2], [0.9, -0.8, 0.7]])  # no LayerNorm of X, either way
    found = fingerprint_table(X, y)
    assert [(e.axis, e.convention) for e in found.explanations] == [
        (axis, convention) for axis in ("rows", "columns") for convention in CONVENTIONS
    ]
    assert all(e.rows == () and e.total == 3 for e in found.explanations)


def test_a_convention_over_the_columns_that_explains_every_line_comes_first():
    found = fingerprint_table(X, np.round(_layer_norm(X, 0), 4))
    first = found.explanations[0]
    assert (first.axis, first.convention) == ("columns", CONVENTIONS[0])
    assert first.rows == (1, 2, 3) and first.explains_all
    assert found.explained_by[0] is first
    assert all(e.axis == "columns" for e in found.explained_by)
