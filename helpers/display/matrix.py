"""Matrices: aligned text in print, an HTML table in Jupyter; blocks of text side by side."""

from __future__ import annotations

import html
from dataclasses import dataclass
from itertools import zip_longest

import numpy as np

from helpers.display.formatting import (
    _CELL,
    _CSS,
    _HIGHLIGHT_STYLE,
    _NUMBER_CELL,
    _SCROLL_CLOSE,
    _SCROLL_OPEN,
    DEFAULT_PLACES,
    EDGE_ITEMS,
    ELIDE_OVER,
    ELLIPSIS,
    _rjust,
    format_values,
    pad,
    text_width,
)


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

    def __str__(self) -> str:
        headers = self._column_headers()
        body = []
        for i in self._row_indices():
            if i is None:
                body.append((ELLIPSIS, [ELLIPSIS] * len(headers)))
            else:
                body.append((self._row_name(i), format_values(self.values[i], self.places)))
        label_width = max(text_width(label) for label, _ in body)
        width = max(text_width(cell) for _, cells in body for cell in cells + headers)
        lines = [self.title] if self.title else []
        lines.append(" " * (label_width + 2) + "  ".join(_rjust(h, width) for h in headers))
        for i, (label, cells) in zip(self._row_indices(), body):
            mark = "  ◀" if i is not None and i == self.highlight_row else ""
            lines.append(f"{pad(label, label_width)}  " + "  ".join(_rjust(c, width) for c in cells) + mark)
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        headers = "".join(f'<th style="{_NUMBER_CELL}">{html.escape(h)}</th>' for h in self._column_headers())
        rows = []
        for i in self._row_indices():
            if i is None:
                cells = "".join(f'<td style="{_NUMBER_CELL}">{ELLIPSIS}</td>' for _ in self._column_headers())
                rows.append(f'<tr><th style="{_CELL}">{ELLIPSIS}</th>{cells}</tr>')
                continue
            style = f' style="{_HIGHLIGHT_STYLE}"' if i == self.highlight_row else ""
            cells = "".join(f'<td style="{_NUMBER_CELL}">{c}</td>' for c in format_values(self.values[i], self.places))
            rows.append(f'<tr{style}><th style="{_CELL};text-align:left">{html.escape(self._row_name(i))}</th>{cells}</tr>')
        title = f'<div style="font-weight:600;margin:4px 0">{html.escape(self.title)}</div>' if self.title else ""
        return (
            f'<div class="layernorm-matrix">{title}{_SCROLL_OPEN}<table style="{_CSS}"><tr><th style="{_CELL}"></th>{headers}</tr>'
            f'{"".join(rows)}</table>{_SCROLL_CLOSE}</div>'
        )


def show_matrix(values, title: str = "", places: int = DEFAULT_PLACES, highlight_row: int | None = None,
                row_label: str = "row", column_labels=None, row_labels=None) -> MatrixView:
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
        raise ValueError(f"{name} needs one label per {what[:-1]}: the matrix has {count} {what}, got {len(labels)} labels.")
    return labels




def side_by_side(*blocks, gap: int = 4) -> str:
    """Blocks of text (or anything that prints, such as two matrix views) side by side, line by line."""
    columns = [str(block).splitlines() for block in blocks]
    widths = [max((text_width(line) for line in lines), default=0) + gap for lines in columns]
    rows = zip_longest(*columns, fillvalue="")
    return "\n".join("".join(pad(line, width) for line, width in zip(row, widths)).rstrip() for row in rows)
