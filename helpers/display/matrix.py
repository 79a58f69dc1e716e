"""Matrices: aligned text in print, an HTML table in Jupyter; blocks of text side by side."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import zip_longest

import numpy as np

from helpers.display.formatting import DEFAULT_PLACES, EDGE_ITEMS, ELIDE_OVER, ELLIPSIS, format_values, pad, text_width
from helpers.display.model import Grid, GridRow, render_grid_html, render_grid_text


@dataclass(frozen=True)
class MatrixView:
    """A matrix that prints as aligned text and shows as an HTML table in Jupyter.

    Made by :func:`show_matrix`. Rows are tokens, columns features (as in the lesson).
    """

    values: np.ndarray
    title: str = ""
    places: int = DEFAULT_PLACES
    highlight_row: int | None = None  # counted from 0
    row_label: str = "row"
    column_labels: tuple[str, ...] = ()  # default f1, f2, …
    row_labels: tuple[str, ...] = ()  # default "row 1", "row 2", …

    def _row_name(self, i: int) -> str:
        return self.row_labels[i] if self.row_labels else f"{self.row_label} {i + 1}"

    def _row_indices(self) -> list[int | None]:
        rows = self.values.shape[0]
        if rows > ELIDE_OVER:
            return list(range(EDGE_ITEMS)) + [None] + list(range(rows - EDGE_ITEMS, rows))
        return list(range(rows))

    def _column_headers(self) -> list[str]:
        columns = self.values.shape[1]
        headers = list(self.column_labels) or [f"f{j + 1}" for j in range(columns)]
        if columns > ELIDE_OVER:
            headers = headers[:EDGE_ITEMS] + [ELLIPSIS] + headers[-EDGE_ITEMS:]
        return headers

    def table(self) -> Grid:
        """The matrix described once (labels, cells, the current row); ``str`` and ``_repr_html_`` render it."""
        headers = tuple(self._column_headers())
        rows = []
        for i in self._row_indices():
            if i is None:
                rows.append(GridRow(ELLIPSIS, (ELLIPSIS,) * len(headers), elided=True))
            else:
                rows.append(
                    GridRow(
                        self._row_name(i),
                        tuple(format_values(self.values[i], self.places)),
                        highlighted=i == self.highlight_row,
                    )
                )
        return Grid(self.title, headers, tuple(rows))

    def __str__(self) -> str:
        return render_grid_text(self.table())

    __repr__ = __str__

    def _repr_html_(self) -> str:
        return render_grid_html(self.table())


def show_matrix(
    values,
    title: str = "",
    places: int = DEFAULT_PLACES,
    highlight_row: int | None = None,
    row_label: str = "row",
    column_labels=None,
    row_labels=None,
) -> MatrixView:
    """Wrap a matrix (or a single row) for display: aligned text in print, an HTML table in Jupyter.

    ``column_labels`` and ``row_labels`` name the columns and rows (default f1, f2, … and row 1,
    row 2, …), e.g. ``show_matrix(table, column_labels=["mean", "variance"])``. Introduced in notebook 01.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2:
        raise ValueError(f"show_matrix shows a 2-D matrix; got shape {array.shape}.")
    if 0 in array.shape:
        raise ValueError(f"show_matrix needs at least one row and one column to show; got shape {array.shape}.")
    columns = _labels(column_labels, array.shape[1], "column_labels", "columns")
    rows = _labels(row_labels, array.shape[0], "row_labels", "rows")
    frozen = array.copy()
    frozen.flags.writeable = False
    return MatrixView(frozen, title, places, highlight_row, row_label, columns, rows)


def _labels(labels, count: int, name: str, what: str) -> tuple[str, ...]:
    if labels is None:
        return ()
    labels = tuple(str(label) for label in labels)
    if len(labels) != count:
        raise ValueError(
            f"{name} needs one label per {what[:-1]}: the matrix has {count} {what}, got {len(labels)} labels."
        )
    return labels


def side_by_side(*blocks, gap: int = 4) -> str:
    """Blocks of text (or anything that prints, such as two matrix views) side by side, line by line."""
    columns = [str(block).splitlines() for block in blocks]
    widths = [max((text_width(line) for line in lines), default=0) + gap for lines in columns]
    rows = zip_longest(*columns, fillvalue="")
    return "\n".join("".join(pad(line, width) for line, width in zip(row, widths)).rstrip() for row in rows)
