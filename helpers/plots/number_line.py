"""A row on a number line: the picture drawn once, then moved for every new row (fast enough to follow a slider).

``number_line(record)`` returns a matplotlib Figure, as the other plots in :mod:`helpers.plots` do
(notebook 02 introduces it). ``NumberLinePicture`` is what the row editor redraws on every edit: one
Figure whose artists are made once and moved, with the parts that never change (frame, legend, axis
title) kept as a finished background, so an edit only draws what moved and encodes the PNG. Where the
time went before (profiled in benchmarks/bench_widgets.py): rebuilding the axes and their ticks (~20 %),
measuring label widths from glyph outlines (~15 %) and drawing every text again (~50 %); the PNG
encoding itself was about 3 %.
"""

from __future__ import annotations

import io

import numpy as np

from helpers.display import format_eps, format_number, format_row

# Okabe–Ito colours (see helpers.plots): distinguishable with any common colour vision.
SKY_BLUE, BLUE, BLACK, VERMILLION = "#56B4E9", "#0072B2", "#000000", "#D55E00"
LABEL_AT_MOST = 12  # write every value on the plot up to this many values
LABEL_FONT_SIZE = 9
_LABEL_HEIGHTS = (0.35, 0.65, 0.95)  # where value labels sit above the number line (which is at 0)
_LABEL_PADDING_POINTS = 3  # space kept free on each side of a label, where there is room for it


def readable(value: float, places: int = 4) -> str:
    """A number for a label: fixed places, or 3 significant digits when fixed places would show only zeros."""
    value = float(value)
    if value != 0 and abs(value) < 10.0 ** (1 - places):
        return f"{value:.2e}"
    return format_number(value, places)


TITLE = "The row on a number line"


def numbers_title(record) -> str:
    return f"mean μ = {readable(record.mean)}, std √(σ² + ε) = {readable(record.std)}  (eps = {format_eps(record.eps)})"


class NumberLine:
    """The artists of one number line in ``ax``, made once; :meth:`update` moves them to a new record.

    The band is mean ± √(σ² + ε), the standard deviation LayerNorm divides by. Up to 12 values are
    labelled, each where its label crosses no line and no other label.
    """

    def __init__(self, ax, animated: bool = False):
        """With ``animated``, the artists that change are left out of a normal draw and the title has
        no numbers, so it is drawn once: the numbers go beside the picture (see NumberLinePicture)."""
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
        # The legend sits below the line, where no label goes; it never changes.
        ax.legend(loc="lower right", fontsize=8, ncols=3, framealpha=0.9)
        self.animated = animated
        if animated:
            from matplotlib.ticker import MaxNLocator

            ax.set_title(f"{TITLE}: mean μ and one std √(σ² + ε) either side")
            ax.xaxis.set_major_locator(MaxNLocator(nbins=6, steps=[1, 2, 2.5, 5, 10]))  # fewer labels to draw
        self.moving = [self.band, *self.edges, self.mean_line, self.points, self.leaders, ax.xaxis, ax.get_legend()]
        for artist in self.moving:
            artist.set_animated(animated)

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
        texts = (
            [f"x{j + 1} = {readable(value, 3)}" for j, value in enumerate(values)]
            if len(values) <= LABEL_AT_MOST
            else []
        )
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
            for value, text, (height, align) in zip(values, texts, places):
                segments.append([(value, 0.08), (value, height - 0.04)])
                self.labels.append(
                    ax.text(value, height, text, ha=align, fontsize=LABEL_FONT_SIZE, animated=self.animated)
                )
        self.leaders.set_segments(segments)
        if not self.animated:
            ax.set_title(f"{TITLE}: {numbers_title(record)}")


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


def number_line_text(record) -> str:
    """The numbers of :func:`number_line` as text."""
    mean, std = record.mean, record.std
    return "\n".join(
        [
            f"values x:       {format_row(record.input)}",
            f"mean μ:         {format_number(mean)}",
            f"std √(σ² + ε):  {format_number(std)}   (eps = {format_eps(record.eps)})",
            f"mean ± 1 std:   {format_number(mean - std)} to {format_number(mean + std)}",
        ]
    )


def number_line_alt(record) -> str:
    """One sentence saying what the picture shows, for a screen reader (an image's alt text)."""
    values = record.input
    shown = (
        ", ".join(format_number(v) for v in values)
        if len(values) <= LABEL_AT_MOST
        else f"{len(values)} values from {format_number(float(np.min(values)))} to {format_number(float(np.max(values)))}"
    )
    inside = int(np.sum(np.abs(np.asarray(values) - record.mean) <= record.std))
    return (
        f"Number line of the row: values {shown}; mean μ {format_number(record.mean)}; band of one "
        f"standard deviation √(σ² + ε) = {format_number(record.std)} either side, from "
        f"{format_number(record.mean - record.std)} to {format_number(record.mean + record.std)}, "
        f"holding {inside} of {len(values)} values."
    )


class NumberLinePicture:
    """The number line of a record as PNG bytes, for the row editor: one Figure outside pyplot (so nothing
    piles up and nothing is shown twice), its unchanging parts drawn once and kept as a background."""

    def __init__(self, figsize=(7.5, 2.6), dpi: int = 80):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=figsize, dpi=dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.figure.subplots_adjust(left=0.06, right=0.98, bottom=0.24, top=0.88)
        self.line = NumberLine(self.figure.add_subplot(), animated=True)
        # The axis title never moves: written once on the figure, not redrawn with the ticks each time.
        self.line.ax.set_xlabel("")
        self.figure.text(0.52, 0.045, "value", ha="center", va="bottom", fontsize=plt_rc("axes.labelsize"))
        self._background = self._legend = None

    def _draw_backgrounds(self) -> None:
        """The figure without what moves, and the legend's pixels (opaque, so they do not depend on what
        is beneath), kept so that an edit copies them instead of drawing the legend's texts again."""
        legend = self.line.ax.get_legend()
        legend.get_frame().set_alpha(1.0)
        legend.set_animated(False)
        self.canvas.draw()
        box = legend.get_window_extent(self.canvas.get_renderer()).padded(1)
        self._legend = self.canvas.copy_from_bbox(box)
        legend.set_animated(True)
        self.canvas.draw()
        self._background = self.canvas.copy_from_bbox(self.figure.bbox)

    def png(self, record) -> bytes:
        import matplotlib

        self.line.update(record)
        # Unhinted glyphs: a little faster to draw, and the label widths are measured unhinted too.
        with matplotlib.rc_context({"text.hinting": "no_hinting"}):
            return self._png()

    def _png(self) -> bytes:
        from PIL import Image

        if self._background is None:
            self._draw_backgrounds()
        self.canvas.restore_region(self._background)
        renderer = self.canvas.get_renderer()
        legend = self.line.ax.get_legend()
        for artist in sorted([*self.line.moving, *self.line.labels], key=lambda a: a.get_zorder()):
            if artist is not legend:
                artist.draw(renderer)
        self.canvas.restore_region(self._legend)  # on top of whatever moved beneath it
        for spine in self.line.ax.spines.values():
            spine.draw(renderer)
        width, height = self.canvas.get_width_height()
        buffer = io.BytesIO()
        # light compression: a little larger, much faster to encode; no metadata, so equal pictures are equal bytes
        Image.frombuffer("RGBA", (width, height), self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1).save(
            buffer, format="png", compress_level=1
        )
        return buffer.getvalue()

    def draw(self) -> None:
        """Draw everything the normal way (for tests that measure where the labels are)."""
        for artist in [*self.line.moving, *self.line.labels]:
            artist.set_animated(False)
        self.canvas.draw()


def plt_rc(name: str):
    import matplotlib

    return matplotlib.rcParams[name]


def label_widths(ax, labels) -> tuple[list[float], float]:
    """Each label's width and the padding beside it, as fractions of the axes' width (from the font's
    advance widths, laid out as matplotlib lays them out: no glyph outlines needed)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    axes_points = ax.get_position().width * ax.figure.get_figwidth() * 72
    font = FontProperties(size=LABEL_FONT_SIZE)
    widths = [
        text_to_path.get_text_width_height_descent(label, font, ismath=False)[0] / axes_points for label in labels
    ]
    return widths, _LABEL_PADDING_POINTS / axes_points


def label_places(values, widths, padding, lines, limits, most_tries: int = 20_000):
    """A height and an alignment (centred over its value, or starting or ending at it) for each value's
    label, such that no label crosses a vertical line in ``lines``, another label, or another value's
    leader line, and every label stays inside ``limits``. Widths and padding are in data units.
    None when no such places are found."""
    order = np.argsort(values, kind="stable")
    choices = [(height, align) for align in ("center", "left", "right") for height in _LABEL_HEIGHTS]
    placed: dict[int, tuple[float, str, float, float]] = {}  # value index: height, alignment, left, right
    tries = 0

    def extent(i, align) -> tuple[float, float]:
        start = {"center": values[i] - widths[i] / 2, "left": values[i], "right": values[i] - widths[i]}[align]
        return start - padding, start + widths[i] + padding

    def free(i, height, left, right) -> bool:
        if left < limits[0] or right > limits[1] or any(left < line < right for line in lines):
            return False
        for j, (other_height, _, other_left, other_right) in placed.items():
            if other_height == height and left < other_right and other_left < right:
                return False  # the two labels would overlap
            if other_height < height and other_left < values[i] < other_right:
                return False  # this value's leader line would cross the lower label
            if other_height > height and left < values[j] < right:
                return False  # the other value's leader line would cross this label
        return True

    def place(k) -> bool:  # labels from left to right, undoing a choice that leaves no room for the rest
        nonlocal tries
        if k == len(order):
            return True
        i = order[k]
        for height, align in choices:
            tries += 1
            left, right = extent(i, align)
            if tries <= most_tries and free(i, height, left, right):
                placed[i] = (height, align, left, right)
                if place(k + 1):
                    return True
                del placed[i]
        return False

    return [placed[i][:2] for i in range(len(values))] if place(0) else None


def staggered_label_places(values) -> list[tuple[float, str]]:
    """Labels centred over their values, neighbours on different heights (when nothing better fits)."""
    order = np.argsort(values, kind="stable")
    heights = np.empty(len(values))
    heights[order] = [_LABEL_HEIGHTS[k % len(_LABEL_HEIGHTS)] for k in range(len(values))]
    return [(height, "center") for height in heights]
