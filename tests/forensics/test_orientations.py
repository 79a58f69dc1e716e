"""Notebook 13's orientation translator: each drawing's axis advice, followed literally on the values that
drawing shows, gives every token's own statistic (the one LayerNorm uses), and the drawing marks that way."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.forensics.orientations import Orientations, orientations

X = np.array([[1.0, 2.0, 6.0, -1.0], [0.5, -3.0, 2.5, 4.0], [7.0, 1.0, 1.0, 3.0]])  # 3 tokens × 4 features


def _axes_named(code: str) -> list[int]:
    """Every ``mean(axis=K)`` / ``mean(dim=K)`` / ``axis=K`` the advice gives for numpy or torch."""
    return [int(k) for k in re.findall(r"(?:axis|dim)=(-?\d+)", code)]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_each_panels_axis_gives_every_tokens_own_mean(index):
    panel = orientations(X).panels()[index]
    shown = panel.values if index < 2 else panel.values.reshape(2, *X.shape)  # batch × time × channels
    token_means = X.mean(axis=-1)
    expected = token_means if index < 2 else np.stack([token_means, 2 * token_means])
    # advice after "transpose first (x.T)" is for the transposed drawing, the rest for the drawing as shown
    as_shown, _, transposed = panel.code.partition("transpose first (x.T)")
    assert _axes_named(panel.code), panel.code
    for values, advice in ((shown, as_shown), (shown.T, transposed)):
        for axis in _axes_named(advice):
            np.testing.assert_allclose(values.mean(axis=axis), expected, err_msg=f"{panel.code!r}: axis {axis}")


def test_the_marked_direction_is_the_one_a_statistic_runs_along():
    rows, columns, batch = orientations(X).panels()
    assert (rows.reduce_rows, columns.reduce_rows, batch.reduce_rows) == (True, False, True)
    assert all(isinstance(panel.reduce_rows, bool) for panel in (rows, columns, batch))
    np.testing.assert_array_equal(columns.values, X.T)
    assert columns.row_names == tuple(f"f{j + 1}" for j in range(4))
    assert columns.column_names == tuple(f"token {i + 1}" for i in range(3))


def test_the_three_drawings_read_whole_for_a_small_matrix_of_integers():
    """What notebook 13 prints, word for word: each drawing's title, its names counted from 1, the values at
    3 places (whole numbers too), the second sequence of the batch the first doubled, the mark of one
    LayerNorm's values, and each framework's axis argument."""
    expected = """\
Tokens as rows (PyTorch, this series): LayerNorm reduces along each row
            f1     f2     f3
token 1  1.000  2.000  3.000  ◀ one LayerNorm: this row
token 2  4.000  5.000  7.000
  nn.LayerNorm(normalized_shape=3) · F.layer_norm(x, (3,)) · keras LayerNormalization(axis=-1) · x.mean(dim=-1) · numpy x.mean(axis=-1)

Tokens as columns (some textbooks and visual explainers): the same numbers, reduced down each column
    token 1  token 2
f1    1.000    4.000
f2    2.000    5.000
f3    3.000    7.000
          ▲ one LayerNorm: this column
  here the features are axis 0: x.mean(axis=0), or transpose first (x.T) and use axis=-1

Batch × time × channels, shape (2, 2, 3): the second sequence is the first doubled
           c1      c2      c3
b1 t1   1.000   2.000   3.000  ◀ one LayerNorm: this row
b1 t2   4.000   5.000   7.000
b2 t1   2.000   4.000   6.000
b2 t2   8.000  10.000  14.000
  the last axis (C) is reduced, for every batch and time step: normalized_shape=(C,), axis=-1, dim=-1"""
    shown = str(orientations(np.array([[1, 2, 3], [4, 5, 7]])))
    assert shown.rstrip() == expected
    assert str(Orientations(np.array([[1, 2, 3], [4, 5, 7]]))).rstrip() == expected  # the class's own default
    assert orientations(np.array([[1, 2, 3], [4, 5, 7]]), places=1).places == 1
