"""A row on a number line as inline SVG: the picture the row editor redraws on every edit.

Built from the record as text, with no raster round trip: crisp at any zoom or on a projector, its words
real text (selectable, read by a screen reader, found by a browser's search), and cheap enough to redo on
every keystroke (benchmarks/bench_widgets.py). The band is mean ± √(σ² + ε), the standard deviation
LayerNorm divides by. Up to 12 values are labelled, each where its label crosses no line and no other label.
Every number is written by :func:`helpers.display.formatting.format_number`, the rule all views share.
The same numbers as text (:func:`number_line_text`) and in one sentence (:func:`number_line_alt`).
"""

from __future__ import annotations

import html
import math

import numpy as np

from helpers.core.tolerance import EDGE
from helpers.display.formatting import MOST_PLACES, format_eps, format_number, format_row, places_for

# Okabe–Ito colours: distinguishable with any common colour vision.
SKY_BLUE, BLUE, BLACK, VERMILLION = "#56B4E9", "#0072B2", "#000000", "#D55E00"
LABEL_AT_MOST = 12  # write every value on the picture up to this many values
TITLE = "The row on a number line"

# The picture's geometry, in CSS pixels (it scales down with max-width:100% on a narrow output).
WIDTH, HEIGHT = 600, 168
PLOT_LEFT, PLOT_RIGHT = 14, WIDTH - 14
AXIS_Y = 116  # the number line
LABEL_BASELINES = (92, 68, 44)  # value labels, lowest first (the heights label_places chooses from)
LABEL_FONT_PX = 11
# Labels are monospace, so their widths are known without measuring glyphs: 0.6 em per character in
# DejaVu Sans Mono and Menlo (Consolas is narrower), with room to spare.
CHARACTER_PX = 0.62 * LABEL_FONT_PX
LABEL_PADDING_PX = 3
MONOSPACE = "ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace"
SANS = "system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif"


def readable(value: float, places: int = 4) -> str:
    """A number for a label: fixed places, or 3 significant digits when fixed places would show only zeros
    (the shared rule, helpers.display.formatting)."""
    return format_number(value, places_for([value], places))


def numbers_title(record) -> str:
    return f"mean μ = {readable(record.mean)}, std √(σ² + ε) = {readable(record.std)}  (eps = {format_eps(record.eps)})"


def label_texts(values) -> list[str]:
    """The value labels: ``x1 = 1.230`` for rows up to LABEL_AT_MOST values, none for longer rows."""
    if len(values) > LABEL_AT_MOST:
        return []
    return [f"x{j + 1} = {readable(value, 3)}" for j, value in enumerate(values)]


def nice_step(span: float, most: int = 6) -> float:
    """A round tick step (1, 2, 2.5 or 5 times a power of ten) giving at most ``most`` ticks over ``span``."""
    raw = span / most
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * power >= raw:
            return factor * power
    return 10 * power


def tick_places(step: float) -> int:
    """Places enough to tell ticks ``step`` apart (2.5 needs one, 0.25 two); past MOST_PLACES, one more than it,
    which :func:`format_number` writes in scientific notation (5.0000e-14), as it writes such values."""
    places = 0
    while places <= MOST_PLACES and abs(round(step * 10**places) - step * 10**places) > EDGE * step * 10**places:
        places += 1
    return places


class NumberLineLayout:
    """Where everything of one record goes, in pixels: the model both the SVG and the tests read."""

    def __init__(self, record):
        values = np.asarray(record.input, dtype=np.float64)
        mean, std = float(record.mean), float(record.std)
        self.values, self.mean, self.std = values, mean, std
        # Positions are worked out on values divided by the largest magnitude, so 1e300s do not overflow.
        scale = max(float(np.max(np.abs(values))), abs(mean) + std) or 1.0
        self.scale = scale
        low = min(float(values.min()), mean - std) / scale
        high = max(float(values.max()), mean + std) / scale
        span = high - low or 1.0
        self.texts = label_texts(values)
        plot_width = PLOT_RIGHT - PLOT_LEFT
        widths_px = [len(text) * CHARACTER_PX for text in self.texts]
        widest = (max(widths_px, default=0.0) + 2 * LABEL_PADDING_PX) / plot_width
        margin = span * max(0.06, widest / (1 - 2 * widest) if widest < 0.4 else 0.12)
        self.low, self.high = low - margin, high + margin  # in units of scale
        self.px_per_unit = plot_width / (self.high - self.low)
        self.points_px = self.x(values)
        self.lines_px = tuple(float(v) for v in self.x(np.array([mean - std, mean, mean + std])))
        self.labels = []  # (text, x of its value, baseline y, text-anchor)
        if self.texts:
            limits = (float(PLOT_LEFT), float(PLOT_RIGHT))
            points = [float(p) for p in self.points_px]
            places = (
                label_places(points, widths_px, LABEL_PADDING_PX, self.lines_px, limits)
                or label_places(points, widths_px, 0.0, self.lines_px, limits)
                or staggered_label_places(points)
            )
            anchors = {"center": "middle", "left": "start", "right": "end"}
            self.labels = [
                (text, x, LABEL_BASELINES[height], anchors[align])
                for text, x, (height, align) in zip(self.texts, points, places)
            ]

    def x(self, values):
        return PLOT_LEFT + (np.asarray(values, dtype=np.float64) / self.scale - self.low) * self.px_per_unit

    def ticks(self) -> list[tuple[float, str]]:
        """Round values along the axis and their labels in the shared number format; a label that would
        stick out of the picture is left out."""
        low, high = self.low * self.scale, self.high * self.scale
        step = nice_step(high - low) if math.isfinite(high - low) else nice_step(self.high - self.low) * self.scale
        places = tick_places(step)
        ticks = []
        for k in range(math.ceil(low / step), math.floor(high / step) + 1):
            text = format_number(k * step, places)
            x = float(self.x(k * step))
            half = len(text) * 0.62 * 10.5 / 2
            if half <= x <= WIDTH - half:
                ticks.append((x, text))
        return ticks


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def number_line_svg(record) -> str:
    """The number line of ``record`` as an inline ``<svg>``: a picture with a name (role="img", aria-label
    and <title> say what it shows), its text real text."""
    layout = NumberLineLayout(record)
    alt = number_line_alt(record)
    left, mean_x, right = layout.lines_px
    parts = [
        f'<svg class="layernorm-number-line" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{_e(alt)}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'style="max-width:100%;height:auto;display:block;font-family:{SANS}">',
        f"<title>{_e(alt)}</title>",
        f'<text x="{PLOT_LEFT}" y="16" font-size="13" fill="#222">{_e(numbers_title(record))}</text>',
        f'<rect x="{left:.1f}" y="26" width="{max(right - left, 0.5):.1f}" height="{AXIS_Y + 6 - 26}" '
        f'fill="{SKY_BLUE}" fill-opacity="0.25"/>',
    ]
    for edge in (left, right):
        parts.append(
            f'<line x1="{edge:.1f}" y1="26" x2="{edge:.1f}" y2="{AXIS_Y + 6}" stroke="{BLUE}" '
            'stroke-width="1.2" stroke-dasharray="5 3"/>'
        )
    parts.append(
        f'<line x1="{mean_x:.1f}" y1="26" x2="{mean_x:.1f}" y2="{AXIS_Y + 6}" stroke="{BLACK}" stroke-width="2"/>'
    )
    parts.append(
        f'<line x1="{PLOT_LEFT}" y1="{AXIS_Y}" x2="{PLOT_RIGHT}" y2="{AXIS_Y}" stroke="#999" stroke-width="0.8"/>'
    )
    tick_marks, tick_labels = [], []
    for x, text in layout.ticks():
        tick_marks.append(f"M{x:.1f} {AXIS_Y}v5")
        tick_labels.append(f'<text x="{x:.1f}" y="{AXIS_Y + 17}">{_e(text)}</text>')
    parts.append(f'<path d="{"".join(tick_marks)}" stroke="#555" stroke-width="1"/>')
    parts.append(
        f'<g font-size="10.5" fill="#333" text-anchor="middle" font-family="{MONOSPACE}">{"".join(tick_labels)}</g>'
    )
    if layout.labels:
        leaders = "".join(f"M{x:.1f} {AXIS_Y - 6}V{y + 3}" for _, x, y, _ in layout.labels)
        parts.append(f'<path d="{leaders}" stroke="#777" stroke-width="0.8"/>')
        parts.append(f'<g font-size="{LABEL_FONT_PX}" fill="#222" font-family="{MONOSPACE}">')
        parts.extend(
            f'<text class="value-label" x="{x:.1f}" y="{y}" text-anchor="{anchor}">{_e(text)}</text>'
            for text, x, y, anchor in layout.labels
        )
        parts.append("</g>")
    parts.append(_points_path(layout.points_px, small=len(layout.values) > LABEL_AT_MOST))
    parts.append(_legend())
    parts.append("</svg>")
    return "".join(parts)


def _points_path(points_px, small: bool) -> str:
    """Every value as a dot, in one path (a 768-value row is one element, dots at the same pixel drawn once)."""
    radius = 3.0 if small else 4.5
    xs = np.unique(np.round(np.asarray(points_px) * 2) / 2)
    dot = f"m{-radius} 0a{radius} {radius} 0 1 0 {2 * radius} 0a{radius} {radius} 0 1 0 {-2 * radius} 0"
    path = "".join(f"M{x:.1f} {AXIS_Y}{dot}" for x in xs)
    opacity = ' fill-opacity="0.6"' if small else ""
    return (
        f'<path class="values" data-count="{len(points_px)}" d="{path}" fill="{VERMILLION}"{opacity} '
        'stroke="#000" stroke-width="0.8"/>'
    )


def _legend() -> str:
    y = HEIGHT - 10
    return (
        f'<g font-size="11" fill="#222">'
        f'<circle cx="{PLOT_LEFT + 6}" cy="{y - 4}" r="4.5" fill="{VERMILLION}" stroke="#000" stroke-width="0.8"/>'
        f'<text x="{PLOT_LEFT + 15}" y="{y}">values x</text>'
        f'<line x1="{PLOT_LEFT + 90}" y1="{y - 9}" x2="{PLOT_LEFT + 90}" y2="{y + 1}" stroke="{BLACK}" stroke-width="2"/>'
        f'<text x="{PLOT_LEFT + 97}" y="{y}">mean μ</text>'
        f'<rect x="{PLOT_LEFT + 160}" y="{y - 10}" width="16" height="11" fill="{SKY_BLUE}" fill-opacity="0.25" '
        f'stroke="{BLUE}" stroke-dasharray="3 2"/>'
        f'<text x="{PLOT_LEFT + 182}" y="{y}">mean ± 1 std √(σ² + ε)</text></g>'
    )


def number_line_text(record) -> str:
    """The numbers of the number line as text."""
    mean, std = record.mean, record.std
    inside = int(np.sum(np.abs(np.asarray(record.input) - mean) <= std))
    return "\n".join(
        [
            f"values x:       {format_row(record.input)}",
            f"mean μ:         {format_number(mean)}",
            f"std √(σ² + ε):  {format_number(std)}   (eps = {format_eps(record.eps)})",
            f"mean ± 1 std:   {format_number(mean - std)} to {format_number(mean + std)}, "
            f"holding {inside} of {len(record.input)} values",
        ]
    )


def number_line_alt(record) -> str:
    """One sentence saying what the picture shows, for a screen reader (an image's alt text)."""
    values = record.input
    shown = (
        "values " + ", ".join(format_number(v) for v in values)
        if len(values) <= LABEL_AT_MOST
        else f"{len(values)} values from {format_number(float(np.min(values)))} to {format_number(float(np.max(values)))}"
    )
    inside = int(np.sum(np.abs(np.asarray(values) - record.mean) <= record.std))
    return (
        f"Number line of the row: {shown}; mean μ {format_number(record.mean)}; band of one "
        f"standard deviation √(σ² + ε) = {format_number(record.std)} either side, from "
        f"{format_number(record.mean - record.std)} to {format_number(record.mean + record.std)}, "
        f"holding {inside} of {len(values)} values."
    )


def label_places(values, widths, padding, lines, limits, most_tries: int = 20_000):
    """A height (an index into the label rows, lowest first) and an alignment (centred over its value, or
    starting or ending at it) for each value's label, such that no label crosses a vertical line in
    ``lines``, another label, or another value's leader line, and every label stays inside ``limits``.
    Widths and padding are in the values' units. None when no such places are found."""
    order = np.argsort(values, kind="stable")
    heights = range(len(LABEL_BASELINES))
    choices = [(height, align) for align in ("center", "left", "right") for height in heights]
    placed: dict[int, tuple[int, str, float, float]] = {}  # value index: height, alignment, left, right
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


def staggered_label_places(values) -> list[tuple[int, str]]:
    """Labels centred over their values, neighbours on different heights (when nothing better fits)."""
    order = np.argsort(values, kind="stable")
    heights = np.empty(len(values), dtype=int)
    heights[order] = [k % len(LABEL_BASELINES) for k in range(len(values))]
    return [(int(height), "center") for height in heights]
