"""A row on a number line as a matplotlib Figure, for a notebook cell (notebook 02 introduces it).

The row editor draws the same picture as inline SVG on every edit (helpers.display.number_line), which
also holds what both share: the label texts and places, the text twin and the one-sentence description.
"""

from __future__ import annotations

import numpy as np

from helpers.core.tolerance import EDGE
from helpers.display.formatting import format_number
from helpers.display.number_line import (  # noqa: F401 - re-exported: helpers.plots.number_line_text …
    BLACK,
    BLUE,
    LABEL_AT_MOST,
    SKY_BLUE,
    TITLE,
    VERMILLION,
    label_places,
    label_texts,
    number_line_alt,
    number_line_text,
    numbers_title,
    readable,
    staggered_label_places,
    tick_places,
)

LABEL_FONT_SIZE = 9
_LABEL_HEIGHTS = (0.35, 0.65, 0.95)  # where value labels sit above the number line (which is at 0)
_LABEL_PADDING_POINTS = 3  # space kept free on each side of a label, where there is room for it


class NumberLine:
    """The artists of one number line in ``ax``, made once; :meth:`update` moves them to a new record.

    The band is mean ± √(σ² + ε), the standard deviation LayerNorm divides by. Up to 12 values are
    labelled, each where its label crosses no line and no other label.
    """

    def __init__(self, ax):
        from matplotlib.collections import LineCollection

        self.ax = ax
        self.band = ax.axvspan(0, 1, color=SKY_BLUE, alpha=0.25, label="mean ± 1 std")
        self.edges = [ax.axvline(0, color=BLUE, linestyle="--", linewidth=1.2) for _ in range(2)]
        self.mean_line = ax.axvline(0, color=BLACK, linewidth=2, label="mean μ", gid="mean")
        ax.axhline(0, color="#999999", linewidth=0.8, zorder=0)
        (self.points,) = ax.plot(
            [],
            [],
            linestyle="none",
            marker="o",
            markersize=8,
            color=VERMILLION,
            markeredgecolor="black",
            label="values x",
            gid="values",
        )
        self.leaders = LineCollection([], colors="#777777", linewidths=0.8)
        ax.add_collection(self.leaders, autolim=False)
        self.labels = []
        ax.set_ylim(-0.5, 1.35)
        ax.set_yticks([])
        ax.set_xlabel("value")
        ax.set_ylabel("row x")
        # Tick labels by the rule every view shares (1.0e+150, not matplotlib's offset "1e150" in a corner).
        from matplotlib.ticker import FuncFormatter

        def tick_label(value, _position):
            ticks = ax.xaxis.get_majorticklocs()
            step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else abs(value) or 1.0
            return format_number(value if abs(value) > step * EDGE else 0.0, tick_places(step))

        ax.xaxis.set_major_formatter(FuncFormatter(tick_label))
        # The legend sits below the line, where no label goes; it never changes.
        ax.legend(loc="lower right", fontsize=8, ncols=3, framealpha=0.9)

    def update(self, record) -> None:
        ax = self.ax
        values, mean, std = np.asarray(record.input, dtype=np.float64), float(record.mean), float(record.std)
        self.band.set_x(mean - std)
        self.band.set_width(2 * std)
        for line, edge in zip(self.edges, (mean - std, mean + std)):
            line.set_xdata([edge, edge])
        self.mean_line.set_xdata([mean, mean])
        self.points.set_data(values, np.zeros_like(values))
        low = min(float(values.min()), mean - std)
        high = max(float(values.max()), mean + std)
        span = high - low or 1.0
        texts = label_texts(values)
        widths, padding = label_widths(ax, texts)
        widest = max(widths, default=0.0) + 2 * padding
        margin = span * max(0.12, widest / (1 - 2 * widest) if widest < 0.4 else 0.12)
        limits = (low - margin, high + margin)
        ax.set_xlim(*limits)
        for label in self.labels:
            label.remove()
        self.labels = []
        segments = []
        if texts:
            scale = limits[1] - limits[0]  # fractions of the axes' width to data units
            lines = (mean - std, mean, mean + std)
            data_widths = [width * scale for width in widths]
            places = (
                label_places(values, data_widths, padding * scale, lines, limits)
                or label_places(values, data_widths, 0.0, lines, limits)
                or staggered_label_places(values)
            )
            for value, text, (row, align) in zip(values, texts, places):
                height = _LABEL_HEIGHTS[row]
                segments.append([(value, 0.08), (value, height - 0.04)])
                self.labels.append(ax.text(value, height, text, ha=align, fontsize=LABEL_FONT_SIZE))
        self.leaders.set_segments(segments)
        title = f"{TITLE}: {numbers_title(record)}"
        if _title_width(title) > 0.95 * ax.figure.get_figwidth() * 72:  # past the figure's edges: two lines
            title = f"{TITLE}:\n{numbers_title(record)}"
        ax.set_title(title)


def number_line(record, ax=None):
    """The row's values on a number line, with the mean and one standard deviation either side marked.

    The standard deviation is the one LayerNorm divides by, √(σ² + ε). Up to 12 values are labelled,
    each where its label crosses no line and no other label. Returns the Figure; draws into ``ax``
    when given one. Introduced in notebook 02.
    """
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(8, 2.8), layout="constrained")
    NumberLine(ax).update(record)
    return ax.figure


def _text_width(text: str, size) -> float:
    """``text``'s width in points at font ``size`` (points, or a name such as "large"), from the font's advance
    widths, laid out as matplotlib lays them out: no glyph outlines needed."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    return text_to_path.get_text_width_height_descent(text, FontProperties(size=size), ismath=False)[0]


def _title_width(title: str) -> float:
    """The title's width in points, at the size matplotlib draws an axes' title."""
    import matplotlib

    return _text_width(title, matplotlib.rcParams["axes.titlesize"])


def label_widths(ax, labels) -> tuple[list[float], float]:
    """Each label's width and the padding beside it, as fractions of the axes' width."""
    axes_points = ax.get_position().width * ax.figure.get_figwidth() * 72
    return [_text_width(label, LABEL_FONT_SIZE) / axes_points for label in labels], _LABEL_PADDING_POINTS / axes_points
