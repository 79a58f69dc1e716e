"""The orientation translator of notebook 13: one matrix drawn with the tokens as rows, as columns, and
inside a batch × time × channels tensor, with the values one LayerNorm statistic uses marked and each
framework's axis argument. What each panel holds; ``helpers.forensics.display`` draws it (text and HTML,
as ``helpers.display.model`` Grids). Introduced in notebook 13.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core import views


@dataclass(frozen=True)
class Panel:
    """One drawing of the matrix: its values as shown, and which way one LayerNorm statistic runs."""

    title: str
    values: np.ndarray
    reduce_rows: bool  # True: a statistic uses one row (the first is marked); False: one column
    row_names: tuple[str, ...]
    column_names: tuple[str, ...]
    code: str  # each framework's axis argument for this drawing


class Orientations:
    """One matrix drawn three ways, with the axis LayerNorm reduces over marked. Made by :func:`orientations`."""

    def __init__(self, x, places: int = 3):
        self.x, self.places = np.asarray(x, dtype=np.float64), places

    def panels(self) -> tuple[Panel, ...]:
        rows, columns = self.x.shape
        tokens = tuple(f"token {i + 1}" for i in range(rows))
        features = tuple(f"f{j + 1}" for j in range(columns))
        return (
            Panel(
                "Tokens as rows (PyTorch, this series): LayerNorm reduces along each row",
                self.x,
                True,
                tokens,
                features,
                (
                    f"nn.LayerNorm(normalized_shape={columns}) · F.layer_norm(x, ({columns},)) · "
                    "keras LayerNormalization(axis=-1) · x.mean(dim=-1) · numpy x.mean(axis=-1)"
                ),
            ),
            Panel(
                "Tokens as columns (some textbooks and visual explainers): the same numbers, reduced down each column",
                self.x.T,
                False,
                features,
                tokens,
                "here the features are axis 0: x.mean(axis=0), or transpose first (x.T) and use axis=-1",
            ),
            Panel(
                f"Batch × time × channels, shape (2, {rows}, {columns}): the second sequence is the first doubled",
                np.vstack([self.x, 2 * self.x]),
                True,
                tuple(f"b{b + 1} t{i + 1}" for b in range(2) for i in range(rows)),
                tuple(f"c{j + 1}" for j in range(columns)),
                "the last axis (C) is reduced, for every batch and time step: normalized_shape=(C,), axis=-1, dim=-1",
            ),
        )

    def __str__(self) -> str:
        return views.text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


def orientations(x, places: int = 3) -> Orientations:
    """The orientation translator of notebook 13: tokens as rows, as columns, and inside batch × time × channels."""
    return Orientations(x, places)
