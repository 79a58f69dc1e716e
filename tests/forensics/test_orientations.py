"""Notebook 13's orientation translator: each drawing's axis advice, followed literally on the values that
drawing shows, gives every token's own statistic (the one LayerNorm uses), and the drawing marks that way."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.forensics.orientations import orientations

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
    named = _axes_named(panel.code)
    assert named, panel.code
    for axis in named:
        # "transpose first (x.T) and use axis=-1" names the axis of the transposed drawing
        values = shown.T if "x.T" in panel.code and axis == -1 and index == 1 else shown
        np.testing.assert_allclose(values.mean(axis=axis), expected, err_msg=f"{panel.code!r}: axis {axis}")


def test_the_marked_direction_is_the_one_a_statistic_runs_along():
    rows, columns, batch = orientations(X).panels()
    assert rows.reduce_rows and not columns.reduce_rows and batch.reduce_rows
    np.testing.assert_array_equal(columns.values, X.T)
    assert columns.row_names == tuple(f"f{j + 1}" for j in range(4))
    assert columns.column_names == tuple(f"token {i + 1}" for i in range(3))
