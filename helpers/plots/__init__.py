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

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS, layer_norm
from helpers.display import (
    format_number,
    format_values,
    pad,
    show_matrix,
    side_by_side,
    text_width,
)
from helpers.plots.circle import (  # noqa: F401
    ROOM_SIZE_EM,
    ROOM_TEXT,
    extra_label_place,
    normalised_circle,
    normalised_circle_for_the_room,
    normalised_circle_text,
    plane_coordinates,
)
from helpers.plots.number_line import (  # noqa: F401
    LABEL_AT_MOST,
    number_line,
    number_line_alt,
    number_line_text,
)
from helpers.plots.room import RoomFigure, for_the_room, place_labels  # noqa: F401
from helpers.plots.style import (  # noqa: F401
    HEATMAP_COLOURS,
    OKABE_ITO,
    ROW_COLOURS,
    ROW_MARKERS,
    figure_and_axes,
)

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


LEGEND_CORNERS = ("upper right", "upper left", "lower right", "lower left")


def _legend_clear_of_bars(ax) -> None:
    """The legend in the first corner where it covers no bar and no value label (a row whose last value is
    its largest has its tallest bar and that bar's label in the upper right); upper right if none is."""
    renderer = ax.figure._get_renderer()
    for corner in LEGEND_CORNERS:
        box = ax.legend(loc=corner, fontsize=8)
        ax.figure.draw_without_rendering()
        box = box.get_window_extent(renderer)
        if not any(a.get_window_extent(renderer).overlaps(box) for a in [*ax.patches, *ax.texts] if a.get_visible()):
            return
    ax.legend(loc=LEGEND_CORNERS[0], fontsize=8)


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
    _legend_clear_of_bars(axes.flat[0])
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
            f"mean {mean_before} → {mean_after}, σ (spread without ε) {std_before} → {std_after}"
        ]
        # on a line of its own: a laptop's output is about 72 characters wide, and a longer printed line
        # breaks inside a word ("divi|ded")
        heading += [_divided_by(data).removeprefix("; ")] if _divided_by(data) else []
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
    published as 1.40, -1.52, …, so that a picture never adds digits the data does not have (nor drops
    any: 100000.25 has 2). The tolerance is float noise only, relative: float32's (a float32 table given
    as 1.133 still has 3)."""
    values = np.asarray(values, dtype=np.float64)
    for places in range(1, most):
        scaled = values * 10.0**places
        if np.all(np.abs(scaled - np.round(scaled)) <= 1e-7 * np.maximum(1.0, np.abs(scaled))):
            return places
    return most
