"""Pictures of LayerNorm with matplotlib: a row on a number line, before and after, heatmaps, the circle.

Each plot function returns the matplotlib Figure (end the notebook line with ``;`` to show it once)
and draws into ``ax`` when given one. Each has a ``*_text`` companion that gives the same numbers as
aligned text, for screen readers, terminals and anyone who prefers to read them. Colours are the
Okabe–Ito palette, which people with the common kinds of colour blindness can tell apart, and no
plot relies on colour alone. LayerNorm itself comes from ``helpers.core.layernorm``; this module only
draws (and, for the circle, projects points onto the plane they lie in).
The number line lives in ``helpers.plots.number_line`` (the row editor redraws it on every edit) and is
re-exported here. Introduced in notebook 01 (``matrix_heatmaps``); ``number_line`` comes in notebook 02, ``before_after``
in notebook 05, ``normalised_circle`` and ``plane_coordinates`` in notebook 07.
The lecture shows ``normalised_circle_for_the_room``: the circle as a vector picture whose text is the
slide's text size at every screen size (``helpers.plots.room``), where a PNG's text would be fixed.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS, layer_norm
from helpers.display import (
    format_eps,
    format_number,
    format_row,
    format_values,
    pad,
    show_matrix,
    side_by_side,
    text_width,
)
from helpers.plots.number_line import (  # noqa: F401
    LABEL_AT_MOST,
    number_line,
    number_line_alt,
    number_line_text,
)
from helpers.plots.room import RoomFigure, for_the_room, place_labels  # noqa: F401

# Okabe & Ito (2008), "Color Universal Design": distinguishable with any common colour vision.
OKABE_ITO = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "black": "#000000",
}
ROW_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000")
ROW_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
HEATMAP_COLOURS = "PuOr_r"  # purple–orange, diverging around 0, safe for colour-blind readers


def _figure_and_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=figsize, layout="constrained")
    return figure, ax


# ---------------------------------------------------------------------------------------------
# Before and after, feature by feature


def _before_and_after(data, y=None, eps: float = DEFAULT_EPS):
    """Rows before and after as two matrices, from a record, a row or a matrix (``y`` defaults to LayerNorm)."""
    if hasattr(data, "output") and hasattr(data, "input"):  # a LayerNormSteps record
        return data.input[np.newaxis, :], data.output[np.newaxis, :]
    before = np.atleast_2d(np.asarray(data, dtype=np.float64))
    after = layer_norm(before, eps=eps) if y is None else np.atleast_2d(np.asarray(y, dtype=np.float64))
    if before.ndim != 2 or after.shape != before.shape:
        raise ValueError(
            f"before and after need the same shape (rows × features); got {before.shape} and {after.shape}."
        )
    return before, after


def _draw_before_after(ax, before, after, title: str) -> None:
    n = before.size
    features = np.arange(1, n + 1)
    ax.axhline(0, color="black", linewidth=0.8)
    if n <= 24:
        width = 0.38
        bars_before = ax.bar(
            features - width / 2, before, width, color=OKABE_ITO["blue"], label="before: x", gid="before"
        )
        bars_after = ax.bar(
            features + width / 2,
            after,
            width,
            color=OKABE_ITO["orange"],
            hatch="//",
            edgecolor="black",
            linewidth=0.6,
            label="after: y = LayerNorm(x)",
            gid="after",
        )
        if n <= LABEL_AT_MOST:
            for bars, values in ((bars_before, before), (bars_after, after)):
                ax.bar_label(bars, labels=[format_number(v, 3) for v in values], padding=2, fontsize=8)
        ax.set_xticks(features, [f"f{j}" for j in features])
    else:
        ax.plot(
            features,
            before,
            linestyle="none",
            marker="o",
            markersize=3,
            color=OKABE_ITO["blue"],
            label="before: x",
            gid="before",
        )
        ax.plot(
            features,
            after,
            linestyle="none",
            marker="^",
            markersize=3,
            color=OKABE_ITO["orange"],
            label="after: y = LayerNorm(x)",
            gid="after",
        )
    ax.set_xlabel("feature")
    ax.set_ylabel("value")
    ax.set_title(title)


def _spread(values) -> tuple[str, str]:
    """Mean and standard deviation σ of ``values``, formatted: the biased one (divide by n, as LayerNorm
    does; np.std's default), with no eps, since it describes the values, not a LayerNorm step. Titles call
    it σ and never "std", which the series keeps for √(σ² + ε), the number LayerNorm divides by."""
    values = np.asarray(values, dtype=np.float64)
    return format_number(float(np.mean(values))), format_number(float(np.std(values)))


def _divided_by(data) -> str:
    """For a record: what LayerNorm divided by, √(σ² + ε), named apart from σ."""
    if hasattr(data, "output") and hasattr(data, "input"):
        return f"; LayerNorm divided by √(σ² + ε) = {format_number(data.std)}"
    return ""


def before_after(data, y=None, ax=None, eps: float = DEFAULT_EPS):
    """Each feature's value before LayerNorm (x) and after (y), side by side.

    ``data`` is a record from ``layer_norm_steps`` (one row), a row, or a matrix (one panel per row);
    ``y`` is the output to show, by default ``layer_norm(data, eps=eps)``. Titles give each row's mean
    and standard deviation before → after. Introduced in notebook 05.
    """
    if y is not None and hasattr(y, "get_figure"):  # before_after(record, ax) called positionally
        y, ax = None, y
    before, after = _before_and_after(data, y, eps)
    rows = before.shape[0]
    if rows > 1 and ax is not None:
        raise ValueError(f"One axes shows one row; this has {rows} rows. Leave ax out to get one panel per row.")
    if ax is None:
        import matplotlib.pyplot as plt

        columns = min(rows, 3)
        figure, axes = plt.subplots(
            -(-rows // columns),
            columns,
            figsize=(8 if rows == 1 else 4.2 * columns, 3.6 * -(-rows // columns)),
            layout="constrained",
            squeeze=False,
            sharey=True,
        )
        for extra in axes.flat[rows:]:
            extra.set_visible(False)
    else:
        figure, axes = ax.figure, np.array([[ax]])
    top = max(float(np.max(np.abs(before))), float(np.max(np.abs(after))), 1e-12)
    for i, panel in zip(range(rows), axes.flat):
        (mean_before, std_before), (mean_after, std_after) = _spread(before[i]), _spread(after[i])
        spread = f"mean {mean_before} → {mean_after}, σ (no ε) {std_before} → {std_after}"
        if rows == 1 and _divided_by(data):
            spread += "\n" + _divided_by(data).removeprefix("; ")
        _draw_before_after(panel, before[i], after[i], spread if rows == 1 else f"row {i + 1}\n{spread}")
        if rows > 1:
            panel.title.set_fontsize(10)
        panel.set_ylim(-1.3 * top, 1.3 * top)
    axes.flat[0].legend(loc="upper right", fontsize=8)
    if rows > 1 or ax is None:
        figure.suptitle(
            "Before and after LayerNorm, feature by feature" + (" (σ: spread without ε)" if rows > 1 else "")
        )
    return figure


def before_after_text(data, y=None, eps: float = DEFAULT_EPS) -> str:
    """The numbers of :func:`before_after` as text: one line per feature, one block per row."""
    before, after = _before_and_after(data, y, eps)
    n = before.shape[1]
    features = (
        [f"f{j + 1}" for j in range(n)] if n <= 10 else ["f1", "f2", "f3", "…", f"f{n - 2}", f"f{n - 1}", f"f{n}"]
    )
    blocks = []
    for i in range(before.shape[0]):
        rows = [("feature", "before x", "after y")]
        rows += list(zip(features, format_values(before[i]), format_values(after[i])))
        widths = [max(text_width(row[k]) for row in rows) for k in range(3)]
        (mean_before, std_before), (mean_after, std_after) = _spread(before[i]), _spread(after[i])
        heading = ([] if before.shape[0] == 1 else [f"row {i + 1}"]) + [
            f"mean {mean_before} → {mean_after}, σ (spread without ε) {std_before} → {std_after}{_divided_by(data)}"
        ]
        blocks.append(
            "\n".join(
                heading + [f"{pad(a, widths[0])}  {b.rjust(widths[1])}  {c.rjust(widths[2])}" for a, b, c in rows]
            )
        )
    return "\n\n".join(blocks)


# ---------------------------------------------------------------------------------------------
# The matrix in and out


def matrix_heatmaps(x, y=None, titles=("input X", "LayerNorm(X)"), eps: float = DEFAULT_EPS):
    """The matrix before and after LayerNorm as two heatmaps, every cell labelled with its value.

    ``y`` defaults to ``layer_norm(x, eps=eps)``; pass another table (such as the lesson's published
    output) to compare it. Rows are tokens, columns features. Introduced in notebook 01.
    """
    import matplotlib.pyplot as plt

    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = layer_norm(x, eps=eps) if y is None else np.atleast_2d(np.asarray(y, dtype=np.float64))
    rows, columns = x.shape
    width = min(14.0, 2.5 + 2 * 0.9 * columns)
    figure, axes = plt.subplots(1, 2, figsize=(width, 1.2 + 0.55 * rows), layout="constrained")
    for ax, values, title in zip(axes, (x, y), titles):
        places = places_in(values, most=3)  # a table published to 2 places shows 1.40, not 1.400
        limit = float(np.max(np.abs(values))) or 1.0
        image = ax.imshow(values, cmap=HEATMAP_COLOURS, vmin=-limit, vmax=limit, aspect="auto")
        figure.colorbar(image, ax=ax, shrink=0.9, label="value")
        if values.size <= 12 * 12:
            for (i, j), value in np.ndenumerate(values):
                dark = abs(value) > 0.6 * limit
                ax.text(
                    j,
                    i,
                    format_number(value, places),
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if dark else "black",
                )
        ax.set_xticks(range(values.shape[1]), [f"f{j + 1}" for j in range(values.shape[1])])
        ax.set_yticks(range(values.shape[0]), [f"row {i + 1}" for i in range(values.shape[0])])
        ax.set_xlabel("feature")
        ax.set_ylabel("row (token)")
        ax.set_title(title)
    return figure


def matrix_heatmaps_text(x, y=None, titles=("input X", "LayerNorm(X)"), eps: float = DEFAULT_EPS) -> str:
    """The numbers of :func:`matrix_heatmaps` as two aligned tables side by side."""
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = layer_norm(x, eps=eps) if y is None else np.atleast_2d(np.asarray(y, dtype=np.float64))
    return side_by_side(
        show_matrix(x, title=titles[0], places=places_in(x)), show_matrix(y, title=titles[1], places=places_in(y))
    )


def places_in(values, most: int = 4) -> int:
    """The decimal places ``values`` were given with (at most ``most``, at least 1): 2 for a table
    published as 1.40, -1.52, …, so that a picture never adds digits the data does not have."""
    values = np.asarray(values, dtype=np.float64)
    for places in range(1, most):
        scaled = values * 10.0**places
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-6 * np.maximum(1.0, np.abs(scaled))):
            return places
    return most


# ---------------------------------------------------------------------------------------------
# The geometric picture for 3 features

_PLANE_U = np.array([1.0, -1.0, 0.0]) / math.sqrt(2)
_PLANE_V = np.array([1.0, 1.0, -2.0]) / math.sqrt(6)


def plane_coordinates(points) -> np.ndarray:
    """Coordinates (u, v) of 3-feature points in the plane x + y + z = 0, with the orthonormal directions
    u = (1, −1, 0)/√2 and v = (1, 1, −2)/√6. Lengths and angles within the plane are kept. A point off the
    plane is projected onto it. :func:`normalised_circle` draws with it (notebook 07)."""
    points = np.atleast_2d(np.asarray(points, dtype=np.float64))
    return np.stack([points @ _PLANE_U, points @ _PLANE_V], axis=-1)


def normalised_circle(
    matrix, eps: float = DEFAULT_EPS, ax=None, extra_points=None, extra_label: str = "other", text_size=None
):
    """Every normalised row of a 3-feature matrix, seen face-on in the plane x + y + z = 0.

    LayerNorm (γ = 1, β = 0) makes each row sum to 0, so it lies in that plane, and makes its squares
    sum to 3·σ²/(σ² + ε), so it lies at distance √(3·σ²/(σ² + ε)) ≈ √3 from the origin: on a circle
    (a row of equal values has σ² = 0 and stays at the centre). The grey lines are the three feature
    axes seen in the plane. ``extra_points``, rows of 3 values such as a published output table, are
    drawn as they are (not normalised) as crosses in each row's colour, labelled "``extra_label`` 1",
    "``extra_label`` 2", …. Introduced in notebook 07.

    ``text_size`` (points) draws the figure for the room (:func:`normalised_circle_for_the_room`):
    every text at that one size, no title (the slide has it), and each row's label moved to where it
    clears the circle, the other labels and the legend.
    """
    matrix = _three_features(matrix)
    points = plane_coordinates(layer_norm(matrix, eps=eps))
    extras = np.empty((0, 2)) if extra_points is None else plane_coordinates(_three_features(extra_points))
    figure, ax = _figure_and_axes(ax, (6.4, 6.4))
    room = text_size is not None
    label_size, small_size = (text_size, text_size) if room else (9, 8)
    radius = math.sqrt(3)
    from matplotlib.patches import Circle

    ax.add_patch(
        Circle(
            (0, 0),
            radius,
            fill=False,
            color="black",
            linestyle="--",
            linewidth=2.0 if room else 1.2,
            label=f"circle of radius √3 ≈ {format_number(radius, 3)}",
            gid="circle",
        )
    )
    axis_angles = []
    for k in range(3):
        direction = plane_coordinates(np.eye(3)[k])[0]
        direction /= np.linalg.norm(direction)
        axis_angles.append(math.atan2(direction[1], direction[0]))
        ax.plot(
            *np.stack([-2.2 * direction, 2.2 * direction]).T, color="#bbbbbb", linewidth=1.4 if room else 0.8, zorder=0
        )
        ax.annotate(f"f{k + 1} +", 2.3 * direction, ha="center", va="center", fontsize=label_size, color="#666666")
    farthest_label = 0.0
    for i, (u, v) in enumerate(points):
        colour, marker = ROW_COLOURS[i % len(ROW_COLOURS)], ROW_MARKERS[i % len(ROW_MARKERS)]
        ax.plot(
            [u],
            [v],
            linestyle="none",
            marker=marker,
            markersize=text_size * 0.75 if room else 9,
            color=colour,
            markeredgecolor="black",
            label=f"_row {i + 1}",  # labelled beside the point, so not in the legend (which stays small)
            gid=f"row {i + 1}",
        )
        # the label sits outside the circle along the point's own direction, beyond any extra point there
        angle = math.atan2(v, u)
        label_at = max(
            [1.22 * radius]
            + [
                float(np.linalg.norm(p)) + 0.35
                for p in extras
                if abs(math.remainder(math.atan2(p[1], p[0]) - angle, math.tau)) < 0.35
            ]
        )
        if any(abs(math.remainder(a - angle, math.tau)) < 0.3 for a in axis_angles):
            label_at = max(label_at, 2.75)  # beyond the "f k +" label on that axis, not on top of it
        farthest_label = max(farthest_label, label_at)
        ax.annotate(
            f"row {i + 1}",
            (u, v),
            xytext=(label_at * math.cos(angle), label_at * math.sin(angle)),
            ha="center",
            va="center",
            fontsize=label_size,
            arrowprops={"arrowstyle": "-", "color": "#777777", "lw": 1.2 if room else 0.6},
        )
    if extra_points is not None:
        _draw_extra_points(ax, extras, extra_label, small_size)
    ax.plot([0], [0], marker="+", color="black", markersize=text_size * 0.6 if room else 10, linestyle="none")
    if not room:
        limit = max(2.6, farthest_label + 0.35, float(np.max(np.abs(extras), initial=0.0)) + 0.3)
        ax.set_xlim(-limit, limit)
        ax.set_ylim(-limit, limit)
    sized = {"fontsize": text_size} if room else {}
    ax.set_xlabel("u = (x̂₁ − x̂₂) / √2", **sized)
    ax.set_ylabel("v = (x̂₁ + x̂₂ − 2·x̂₃) / √6", **sized)
    if room:
        _lay_out_for_the_room(ax, points, text_size)
        return figure
    ax.set_aspect("equal")
    ax.set_title(
        f"Normalised rows lie on a circle of radius √3 ≈ {format_number(radius, 3)}\n"
        f"in the plane x̂₁ + x̂₂ + x̂₃ = 0 (eps = {format_eps(eps)})"
    )
    _legend_clear_of_labels(ax, points)
    return figure


def _lay_out_for_the_room(ax, points, text_size) -> None:
    """The room's circle: every text ``text_size``; the axes as wide as the figure lets them be (equal
    scales); the radius drawn and labelled where no row is (a legend would be 14 letters wide), and
    each row's label placed clear of everything else."""
    radius = math.sqrt(3)
    ax.tick_params(labelsize=text_size)
    ax.set_xlim(-3.9, 3.9)  # wider than tall, so that labels have room beside the circle
    ax.set_ylim(-2.75, 2.75)
    ax.set_aspect("equal")
    # the radius where it is farthest from every row and every feature's label ("f k +")
    taken = [math.atan2(v, u) for u, v in points] + [math.pi / 6, 5 * math.pi / 6, -math.pi / 2]
    angle = max(
        (math.radians(-60 - 5 * k) for k in range(72)),  # from -60°, between the f3 and f2 axes, round
        key=lambda a: min(abs(math.remainder(a - b, math.tau)) for b in taken) - 1e-3 * abs(a + math.pi / 3),
    )
    end = radius * np.array([math.cos(angle), math.sin(angle)])
    ax.plot([0, end[0]], [0, end[1]], color="black", linewidth=2.0, gid="radius")
    radius_label = ax.annotate(
        f"√3 ≈ {format_number(radius, 3)}",
        end,
        fontsize=text_size,
        arrowprops={"arrowstyle": "-", "color": "#777777", "lw": 1.2},
    )
    texts = {text.get_text(): text for text in ax.texts}
    rows = [texts[f"row {i + 1}"] for i in range(len(points))]
    fixed = [text for text in ax.texts if text not in rows and text is not radius_label]
    place_labels(ax, [*rows, radius_label], [*points, end], keep_out_radius=radius + 0.3, obstacles=fixed)


def _legend_clear_of_labels(ax, points) -> None:
    """The legend in the first corner where it covers no label and no point (else where it covers fewest):
    matplotlib's loc="best" sees the markers but not the annotations, and would hide a row's label."""
    from matplotlib.text import Text

    figure = ax.figure
    renderer = figure.canvas.get_renderer() if hasattr(figure.canvas, "get_renderer") else figure._get_renderer()
    figure.draw_without_rendering()  # the equal aspect moves the axes when drawn: measure after that
    texts = [Text.get_window_extent(text, renderer) for text in ax.texts]  # without an annotation's leader line
    marks = ax.transData.transform(np.asarray(points).reshape(-1, 2))
    covered = {}
    for corner in ("upper left", "upper right", "lower left", "lower right"):
        legend = ax.legend(loc=corner, fontsize=8, framealpha=0.9)
        figure.draw_without_rendering()  # a legend finds its place when drawn
        box = legend.get_window_extent(renderer)
        covered[corner] = sum(box.overlaps(t) for t in texts) + sum(box.contains(*m) for m in marks)
        if not covered[corner]:
            return
    ax.legend(loc=min(covered, key=covered.get), fontsize=8, framealpha=0.9)


def _draw_extra_points(ax, points, label: str, text_size: float = 8) -> None:
    """Crosses in each row's colour, each labelled nearer the centre than its point (the row labels sit outside)."""
    for i, point in enumerate(points):
        ax.plot(
            *point,
            marker="X",
            markersize=12,
            markerfacecolor="white",
            linestyle="none",
            markeredgecolor=ROW_COLOURS[i % len(ROW_COLOURS)],
            markeredgewidth=2,
            zorder=1,
            label=f"{label} rows" if i == 0 else None,
            gid=f"{label} {i + 1}",
        )
        distance = float(np.linalg.norm(point))
        label_at = point * (1 - 0.9 / distance) if distance > 0.9 else point + np.array([0.0, -0.35])
        ax.annotate(
            f"{label} {i + 1}",
            point,
            xytext=label_at,
            ha="center",
            fontsize=text_size,
            arrowprops={"arrowstyle": "-", "color": "#777777", "lw": 0.6},
        )


def normalised_circle_text(matrix, eps: float = DEFAULT_EPS, extra_points=None, extra_label: str = "other") -> str:
    """The numbers of :func:`normalised_circle`: each normalised row (and each extra point), its sum and
    its distance from 0."""
    normalised = layer_norm(_three_features(matrix), eps=eps)
    rows = [("row", "values", "sum", "distance from 0")]
    named = [(f"row {i + 1}", row) for i, row in enumerate(normalised)]
    if extra_points is not None:
        named += [(f"{extra_label} {i + 1}", row) for i, row in enumerate(_three_features(extra_points))]
    for name, row in named:
        rows.append(
            (
                name,
                format_row(row, width=7),
                format_number(float(np.sum(row))),
                format_number(float(np.linalg.norm(row))),
            )
        )
    widths = [max(text_width(row[k]) for row in rows) for k in range(4)]
    # a row of equal values normalises to 0: it lies at the centre, not on the circle
    equal = [str(i + 1) for i, row in enumerate(_three_features(matrix)) if np.ptp(row) == 0]
    lines = [
        f"Normalised rows (eps = {format_eps(eps)}) all sum to 0 and lie at distance about "
        f"√3 ≈ {format_number(math.sqrt(3))} from 0"
        + (f", but for row {', '.join(equal)} of equal values, at 0:" if equal else ":")
    ]
    lines += [
        "  "
        + "  ".join(
            pad(cell, width) if k < 2 else cell.rjust(width) for k, (cell, width) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]
    return "\n".join(lines)


# The room's circle: its text is ROOM_TEXT points, the SVG's unit, shown as 1 em of the slide (see
# helpers.plots.room); the figure is ROOM_SIZE_EM of that, to fit under a heading and two lines of
# text on a 16:9 screen (30 em tall at the lecture's 1280 × 720 and 1920 × 1080, and in the handout).
ROOM_TEXT = 24
ROOM_SIZE_EM = (26, 17)


def normalised_circle_for_the_room(matrix, eps: float = DEFAULT_EPS) -> RoomFigure:
    """:func:`normalised_circle` drawn for a lecture slide: a vector picture whose every text is the
    slide's text size at every screen size, live in Voilà and in the offline slides. Shown where only
    text can be, it is :func:`normalised_circle_text`; a screen reader says where each row lies."""
    from matplotlib.figure import Figure

    width, height = ROOM_SIZE_EM
    figure = Figure(figsize=(width * ROOM_TEXT / 72, height * ROOM_TEXT / 72), layout="constrained")
    normalised_circle(matrix, eps=eps, ax=figure.subplots(), text_size=ROOM_TEXT)
    normalised = layer_norm(_three_features(matrix), eps=eps)
    distances = ", ".join(
        f"row {i + 1} at distance {format_number(float(np.linalg.norm(row)))} from 0"
        for i, row in enumerate(normalised)
    )
    description = (
        f"The normalised rows (eps = {format_eps(eps)}) seen in the plane where their three values sum to 0: "
        f"{distances}; the dashed circle has radius √3 ≈ {format_number(math.sqrt(3), 3)}."
    )
    return for_the_room(figure, normalised_circle_text(matrix, eps=eps), description)


def _three_features(matrix) -> np.ndarray:
    matrix = np.atleast_2d(np.asarray(matrix, dtype=np.float64))
    if matrix.ndim != 2 or matrix.shape[1] != 3:
        raise ValueError(f"The circle picture needs exactly 3 features per row; got shape {matrix.shape}.")
    return matrix
