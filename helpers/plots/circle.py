"""The √3 circle of notebook 07: every normalised row of a 3-feature matrix, face-on in the plane
x + y + z = 0, with extra points (a published table) as labelled crosses; and the same for the room."""

from __future__ import annotations

import math

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS, layer_norm
from helpers.display import and_list, format_eps, format_number, format_row, pad, text_width
from helpers.plots.room import RoomFigure, for_the_room, place_labels
from helpers.plots.style import ROW_COLOURS, ROW_MARKERS, figure_and_axes

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
    figure, ax = figure_and_axes(ax, (6.4, 6.4))
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
    row_labels = []  # (centre, text, size) of each row's label, kept clear by the extra points' labels
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
        row_labels.append((label_at * np.array([math.cos(angle), math.sin(angle)]), f"row {i + 1}", label_size))
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
        _draw_extra_points(ax, extras, extra_label, small_size, rows=points, row_labels=row_labels)
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
        # its box from its corner of the axes laid out above: a legend inside the axes moves no other
        # artist, so the figure is not drawn again for each corner (a draw is 0.1 s)
        box = legend.get_window_extent(renderer)
        covered[corner] = sum(box.overlaps(t) for t in texts) + sum(box.contains(*m) for m in marks)
        if not covered[corner]:
            return
    ax.legend(loc=min(covered, key=covered.get), fontsize=8, framealpha=0.9)


def _draw_extra_points(ax, points, label: str, text_size: float = 8, rows=(), row_labels=()) -> None:
    """Crosses in each row's colour, each labelled where its label is nearer its own cross than any other
    marker (the rows' points in ``rows`` or the other crosses) and clear of the rows' labels (their
    centres and sizes in ``row_labels``) and of the labels placed before."""
    markers = [np.asarray(p, dtype=float) for p in (*rows, *points)]
    placed = [_label_box(centre, text, size) for centre, text, size in row_labels]
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
        text = f"{label} {i + 1}"
        label_at = extra_label_place(np.asarray(point, dtype=float), text, markers, placed, text_size)
        ax.annotate(
            text,
            point,
            xytext=label_at,
            ha="center",
            va="center",
            fontsize=text_size,
            arrowprops={"arrowstyle": "-", "color": "#777777", "lw": 0.6},
        )


# A label's size in data units, for a 6.4-inch circle figure whose axes run about ±3 (8-point text).
_CHAR_UNITS, _LINE_UNITS = 0.0105, 0.025  # per point of text size: one character's width, one line's height


def _label_box(centre, text: str, text_size: float) -> tuple[float, float, float, float]:
    half_width, half_height = len(text) * _CHAR_UNITS * text_size / 2, _LINE_UNITS * text_size / 2
    return (centre[0] - half_width, centre[0] + half_width, centre[1] - half_height, centre[1] + half_height)


def extra_label_place(point, text: str, markers, placed: list, text_size: float = 8):
    """Where the label of an extra point goes: the first place, going round the point from the side facing
    the centre, whose box holds no marker, overlaps no label placed before and is nearer ``point`` than any
    other marker. Appends its box to ``placed``. With no such place: the place overlapping no earlier
    label that comes nearest to being nearer ``point`` than any other marker; with none, the side facing
    the centre (below a point within 0.9 of it)."""
    distance = float(np.linalg.norm(point))
    toward_centre = math.atan2(-point[1], -point[0]) if distance > 0 else -math.pi / 2
    others = [m for m in markers if float(np.linalg.norm(m - point)) > 0.25]  # a row on the cross is by it too
    fallback = point * (1 - 0.9 / distance) if distance > 0.9 else point + np.array([0.0, -0.35])
    best, best_margin = fallback, -math.inf  # if nothing is clear: the place farthest from being wrong
    for reach in (0.55, 0.8, 1.05, 1.3):
        for turn in (0, 30, -30, 60, -60, 90, -90, 120, -120, 150, -150, 180):
            angle = toward_centre + math.radians(turn)
            centre = point + reach * np.array([math.cos(angle), math.sin(angle)])
            box = _label_box(centre, text, text_size)
            if max(abs(box[0]), abs(box[1]), abs(box[2]), abs(box[3])) > 2.9:
                continue
            margin = min((float(np.linalg.norm(centre - m)) for m in others), default=math.inf) - reach
            covers = any(box[0] - 0.15 < m[0] < box[1] + 0.15 and box[2] - 0.15 < m[1] < box[3] + 0.15 for m in others)
            apart = all(box[1] < b[0] or b[1] < box[0] or box[3] < b[2] or b[3] < box[2] for b in placed)
            if margin > 0.2 and not covers and apart:
                placed.append(box)
                return centre
            if apart and margin > best_margin:
                best, best_margin = centre, margin
    fallback = best
    placed.append(_label_box(fallback, text, text_size))
    return fallback


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
    lines = [  # two lines: a longer printed line breaks inside a word on a laptop (about 72 characters)
        f"Normalised rows (eps = {format_eps(eps)}) all sum to 0",
        f"and lie at distance about √3 ≈ {format_number(math.sqrt(3))} from 0"
        + (
            f",\nbut for {'row' if len(equal) == 1 else 'rows'} {and_list(equal)} of equal values, at 0:"
            if equal
            else ":"
        ),
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
