"""The orientation translator of notebook 13: one matrix drawn with the tokens as rows, as columns, and
inside a batch × time × channels tensor, with the values one LayerNorm statistic uses highlighted and
each framework's axis argument. Display only (text and HTML). Introduced in notebook 13.
"""

from __future__ import annotations

import html

import numpy as np

from helpers.display import format_number
from helpers.display.formatting import scroll_box
from helpers.forensics.display import _CELL, _CSS, _REDUCED


class Orientations:
    """One matrix drawn three ways, with the axis LayerNorm reduces over highlighted. Made by :func:`orientations`."""

    def __init__(self, x, places: int = 3):
        self.x, self.places = np.asarray(x, dtype=np.float64), places

    def _grid(self, values, reduce_rows: bool, row_names, column_names) -> tuple[str, str]:
        cells = [[format_number(v, self.places) for v in row] for row in values]
        width = max(len(c) for row in cells for c in row + list(column_names))
        label = max(len(n) for n in row_names)
        text = [" " * (label + 2) + "  ".join(c.rjust(width) for c in column_names)]
        text += [
            f"{name.ljust(label)}  " + "  ".join(c.rjust(width) for c in row)
            for name, row in zip(row_names, cells, strict=True)
        ]
        if reduce_rows:
            text[1] += "  ◀ one LayerNorm: this row"
        else:
            text.append(" " * (label + 2 + width - 1) + "▲ one LayerNorm: this column")
        head = "".join(f'<th style="{_CELL}">{html.escape(c)}</th>' for c in column_names)
        body = ""
        for i, (name, row) in enumerate(zip(row_names, cells, strict=True)):
            tds = "".join(
                f'<td style="{_CELL}{";" + _REDUCED if (i == 0 if reduce_rows else j == 0) else ""}">{c}</td>'
                for j, c in enumerate(row)
            )
            body += f'<tr><th style="{_CELL}">{html.escape(name)}</th>{tds}</tr>'
        return "\n".join(text), f'<table style="{_CSS}"><tr><td></td>{head}</tr>{body}</table>'

    def _panels(self):
        rows, columns = self.x.shape
        tokens = [f"token {i + 1}" for i in range(rows)]
        features = [f"f{j + 1}" for j in range(columns)]
        return (
            (
                "Tokens as rows (PyTorch, this series): LayerNorm reduces along each row",
                self._grid(self.x, True, tokens, features),
                (
                    f"nn.LayerNorm(normalized_shape={columns}) · F.layer_norm(x, ({columns},)) · "
                    "keras LayerNormalization(axis=-1) · x.mean(dim=-1) · numpy x.mean(axis=-1)"
                ),
            ),
            (
                "Tokens as columns (some textbooks and visual explainers): the same numbers, reduced down each column",
                self._grid(self.x.T, False, features, tokens),
                "here the features are axis 0: x.mean(axis=0), or transpose first (x.T) and use axis=-1",
            ),
            (
                f"Batch × time × channels, shape (2, {rows}, {columns}): the second sequence is the first doubled",
                self._grid(
                    np.vstack([self.x, 2 * self.x]),
                    True,
                    [f"b{b + 1} t{i + 1}" for b in range(2) for i in range(rows)],
                    [f"c{j + 1}" for j in range(columns)],
                ),
                "the last axis (C) is reduced, for every batch and time step: normalized_shape=(C,), axis=-1, dim=-1",
            ),
        )

    def __str__(self) -> str:
        parts = []
        for title, (text, _), code in self._panels():
            parts += [title, text, f"  {code}", ""]
        return "\n".join(parts).rstrip()

    __repr__ = __str__

    def _repr_html_(self) -> str:
        parts = []
        for title, (_, table), code in self._panels():
            parts.append(
                f'<div style="font-weight:600;margin:8px 0 4px">{html.escape(title)}</div>{scroll_box(table, title)}'
                f'<div style="font-size:13px">Highlighted: the values one LayerNorm statistic uses. '
                f"{html.escape(code)}</div>"
            )
        return f'<div class="layernorm-orientations">{"".join(parts)}</div>'


def orientations(x, places: int = 3) -> Orientations:
    """The orientation translator of notebook 13: tokens as rows, as columns, and inside batch × time × channels."""
    return Orientations(x, places)
