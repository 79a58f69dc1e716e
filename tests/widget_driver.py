"""Drive a widget as a learner does and read back the HTML the learner sees.

The widgets render into HTML values; these helpers parse those values (stdlib ``html.parser``, no
browser) into rows of cell texts with their marks (highlighted, focused, "≠ exact"), so a test can
check the numbers and the marks after every action against values computed here in plain numpy,
never by ``helpers``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import numpy as np

HIGHLIGHT = "#dbe9f6"  # the pale blue of the current row / focused stage
FLAG = "#fdf0d5"  # the pale orange of a stage rounding moved


@dataclass
class Row:
    """One <tr>: its cells' text (th and td in order), its style, and the text of the whole row."""

    cells: list[str] = field(default_factory=list)
    style: str = ""

    @property
    def highlighted(self) -> bool:
        return HIGHLIGHT in self.style

    @property
    def flagged(self) -> bool:
        return FLAG in self.style

    @property
    def bold(self) -> bool:
        return "font-weight:700" in self.style

    @property
    def label(self) -> str:
        return self.cells[0] if self.cells else ""

    def numbers(self) -> list[float]:
        """Every number in the row's cells after the label, in order (formula text skipped)."""
        found = []
        for cell in self.cells[1:]:
            if re.fullmatch(r"\s*-?\d+(\.\d+)?(e[-+]?\d+)?\s*", cell):
                found.append(float(cell))
        return found


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables: list[list[Row]] = []
        self._cell: list[str] | None = None
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append(Row(style=attributes.get("style") or ""))
        elif tag in ("td", "th") and self.tables and self.tables[-1]:
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].cells.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def tables(html: str) -> list[list[Row]]:
    """Every table in ``html`` as a list of rows."""
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def visible_text(html: str) -> str:
    """The text a learner reads in ``html`` (tags dropped, entities decoded)."""
    parser = _Tables()
    parser.feed(html)
    return "".join(parser.text)


def rows_by_label(html: str) -> dict[str, Row]:
    """The rows of every table in ``html`` by their first cell, with any "≠ exact" mark dropped."""
    return {row.label.replace("≠ exact", "").strip(): row for table in tables(html) for row in table if row.cells}


def four(value: float) -> str:
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def expected_stages(row, eps=1e-5, gamma=1.0, beta=0.0) -> dict[str, np.ndarray]:
    """Every stage in plain numpy, by the label the step tables give it."""
    row = np.asarray(row, dtype=np.float64)
    mean = row.sum() / row.size
    differences = row - mean
    variance = (differences**2).sum() / row.size
    std = np.sqrt(variance + eps)
    normalised = differences / std
    return {
        "input": row,
        "mean": np.array([mean]),
        "differences": differences,
        "squares": differences**2,
        "variance": np.array([variance]),
        "std": np.array([std]),
        "normalised": normalised,
        "output": np.asarray(gamma) * normalised + np.asarray(beta),
    }


def variance_places(eps: float = 1e-5) -> int:
    """σ² is shown with the places of σ² + ε beside it, enough for ε to be seen: 6 for ε = 1e-5."""
    return max(4, 1 - math.floor(math.log10(eps))) if eps > 0 else 4


def assert_row_shows(row: Row, values, places: int | None = None, eps: float = 1e-5) -> None:
    """The row's number cells are exactly ``values`` shown to ``places`` places (default: 4, and for the
    variance the places of σ² + ε, see :func:`variance_places`)."""
    if places is None:
        places = variance_places(eps) if row.label.startswith("variance") else 4
    shown = row.numbers()
    wanted = [float(f"{v:.{places}f}") for v in np.ravel(values)]
    assert shown[: len(wanted)] == wanted, f"{row.label}: shows {shown}, expected {wanted}"


def highlighted_labels(html: str) -> list[str]:
    """The labels of the highlighted (current / focused) rows."""
    return [row.label for table in tables(html) for row in table if row.highlighted]
