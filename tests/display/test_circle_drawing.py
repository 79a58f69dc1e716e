"""The √3 circle of notebook 07 as the learner sees it: the circle, the feature axes, each row's point
and label, the extra (published) crosses and their labels, the frame, the words, the text form and
the room's picture.

Expected positions and numbers are computed here with plain numpy. Uses matplotlib's Agg backend.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # headless, for this test process only (see test_plots.py)

from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from helpers import plots  # noqa: E402

from conftest import EPS, numpy_layer_norm  # noqa: E402
from conftest import LESSON_X as X  # noqa: E402
from conftest import PUBLISHED_OUTPUT as PUBLISHED  # noqa: E402

pytestmark = pytest.mark.draws  # each renders a figure: `run.py test --fast` leaves them out

U = np.array([1.0, -1.0, 0.0]) / math.sqrt(2)
V = np.array([1.0, 1.0, -2.0]) / math.sqrt(6)
ROOT3 = math.sqrt(3)


def cross(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


def in_plane(points) -> np.ndarray:
    return np.stack([np.asarray(points) @ U, np.asarray(points) @ V], axis=-1)


def row_at(*degrees) -> np.ndarray:
    """Rows of 3 values whose normalised points lie at these angles in the (u, v) plane."""
    return np.array([math.cos(math.radians(d)) * U + math.sin(math.radians(d)) * V for d in degrees])


def drawn(figure):
    figure.canvas.draw()
    return figure.canvas.get_renderer()


def box_in_data(ax, text, renderer):
    """The text's own box (not its leader line), in data units: (x0, y0, x1, y1)."""
    box = Text.get_window_extent(text, renderer)
    (x0, y0), (x1, y1) = ax.transData.inverted().transform([[box.x0, box.y0], [box.x1, box.y1]])
    return x0, y0, x1, y1


def texts_by_name(ax) -> dict:
    return {text.get_text(): text for text in ax.texts}


def line_by_gid(ax, gid):
    found = [line for line in ax.lines if line.get_gid() == gid]
    assert len(found) == 1, f"{len(found)} lines named {gid!r}"
    return found[0]


def point_of(line) -> np.ndarray:
    return np.asarray(line.get_xydata(), dtype=float)[0]


# ---------------------------------------------------------------------------------------------
# plane_coordinates


def test_plane_coordinates_of_a_stack_of_points_give_u_and_v_on_the_last_axis():
    points = np.arange(24.0).reshape(2, 4, 3) - 11.0
    coordinates = plots.plane_coordinates(points)
    assert coordinates.shape == (2, 4, 2)
    np.testing.assert_allclose(coordinates, in_plane(points), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# The circle, the feature axes, the centre, the words


def test_the_circle_is_a_dashed_black_outline_of_radius_root3_named_in_the_legend():
    ax = plots.normalised_circle(X).axes[0]
    (circle,) = [patch for patch in ax.patches if patch.get_gid() == "circle"]
    assert circle.get_radius() == pytest.approx(ROOT3) and tuple(circle.center) == (0, 0)
    assert not circle.get_fill(), "a filled circle hides the axes and the centre inside it"
    assert circle.get_linestyle() == "--" and to_hex(circle.get_edgecolor()) == "#000000"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [f"circle of radius √3 ≈ {ROOT3:.3f}"]


def test_title_names_the_radius_to_three_places_and_the_eps_the_rows_were_normalised_with():
    eps = 0.5
    ax = plots.normalised_circle(X, eps=eps).axes[0]
    assert ax.get_title() == (
        f"Normalised rows lie on a circle of radius √3 ≈ {ROOT3:.3f}\nin the plane x̂₁ + x̂₂ + x̂₃ = 0 (eps = 0.5)"
    )
    y = numpy_layer_norm(X, eps=eps)  # a large eps pulls every row well inside √3
    for i in range(len(X)):
        np.testing.assert_allclose(point_of(line_by_gid(ax, f"row {i + 1}")), in_plane(y[i]), atol=1e-12)


def test_axis_labels_say_what_u_and_v_are():
    ax = plots.normalised_circle(X).axes[0]
    assert ax.get_xlabel() == "u = (x̂₁ − x̂₂) / √2"
    assert ax.get_ylabel() == "v = (x̂₁ + x̂₂ − 2·x̂₃) / √6"
    # the same u and v as the points: feature 1 alone is at (1/√2, 1/√6)
    np.testing.assert_allclose(plots.plane_coordinates([1.0, 0.0, 0.0])[0], [1 / math.sqrt(2), 1 / math.sqrt(6)])


def test_each_feature_axis_is_a_grey_line_through_the_centre_with_its_name_beyond_its_end():
    figure = plots.normalised_circle(X)
    ax = figure.axes[0]
    renderer = drawn(figure)
    guides = [line for line in ax.lines if to_hex(line.get_color()) == "#bbbbbb"]
    assert len(guides) == 3
    names = texts_by_name(ax)
    for k in range(3):
        direction = in_plane(np.eye(3)[k])
        direction /= np.linalg.norm(direction)
        ends = [np.asarray(g.get_xydata(), dtype=float) for g in guides]
        (line,) = [e for e in ends if len(e) == 2 and abs(cross(e[1] - e[0], direction)) < 1e-9]
        np.testing.assert_allclose(line[0], -line[1], atol=1e-12)  # through the centre, as long either way
        reach = float(np.linalg.norm(line[1]))
        assert reach > ROOT3, "the axis ends inside the circle"
        x0, y0, x1, y1 = box_in_data(ax, names[f"f{k + 1} +"], renderer)
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        assert abs(cross(centre, direction)) < 0.02, f"f{k + 1} + is not on its axis"
        assert centre @ direction > reach, f"f{k + 1} + is not beyond the end of its axis"


def test_the_centre_is_marked_with_a_plus():
    ax = plots.normalised_circle(X).axes[0]
    centres = [line for line in ax.lines if line.get_marker() == "+"]
    assert len(centres) == 1 and to_hex(centres[0].get_color()) == "#000000"
    np.testing.assert_array_equal(centres[0].get_xydata(), [[0.0, 0.0]])


def test_the_picture_on_its_own_is_square_so_the_round_circle_fills_it():
    figure = plots.normalised_circle(X)
    width, height = figure.get_size_inches()
    assert width == height


# ---------------------------------------------------------------------------------------------
# Each row: its point, its label


def test_each_row_is_drawn_with_its_own_marker_in_its_own_colour():
    ax = plots.normalised_circle(X).axes[0]
    for i in range(len(X)):
        point = line_by_gid(ax, f"row {i + 1}")
        assert point.get_marker() == plots.ROW_MARKERS[i]
        assert to_hex(point.get_markerfacecolor()) == plots.ROW_COLOURS[i].lower()


def _check_row_labels(figure, points):
    """Each row's label: outside the circle, centred on its point's own ray, joined to the point by a
    leader line shorter than the radius (so that it reads as that point's label)."""
    ax = figure.axes[0]
    renderer = drawn(figure)
    names = texts_by_name(ax)
    for i, point in enumerate(points):
        label = names[f"row {i + 1}"]
        x0, y0, x1, y1 = box_in_data(ax, label, renderer)
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        ray = point / np.linalg.norm(point)
        assert abs(cross(centre, ray)) < 0.02 and centre @ ray > 0, f"row {i + 1}: not on its point's ray"
        nearest = math.hypot(max(x0, 0, -x1), max(y0, 0, -y1))  # the box's point nearest the centre
        assert nearest > ROOT3, f"row {i + 1}: its label touches the circle"
        assert label.arrow_patch is not None, f"row {i + 1}: no leader line"
        np.testing.assert_allclose(label.xy, point, atol=1e-12)  # the leader line ends at its point
        assert np.linalg.norm(centre - point) < ROOT3, f"row {i + 1}: its label is far from its point"


@pytest.mark.parametrize("extra", [None, PUBLISHED], ids=["alone", "published"])
def test_each_row_label_sits_just_outside_the_circle_on_its_points_ray(extra):
    figure = plots.normalised_circle(X, extra_points=extra, extra_label="published")
    _check_row_labels(figure, in_plane(numpy_layer_norm(X)))


def test_a_row_label_steps_beyond_an_extra_cross_on_its_ray():
    rows = row_at(-30, -150)
    cross = 2.6 * in_plane(row_at(-25))[0] / np.linalg.norm(in_plane(row_at(-25))[0])
    extra = cross[0] * U + cross[1] * V  # a point of the plane, drawn as it is
    figure = plots.normalised_circle(rows, extra_points=[extra])
    ax = figure.axes[0]
    label = texts_by_name(ax)["row 1"]
    assert np.linalg.norm(label.xyann) > np.linalg.norm(cross), "row 1's label sits inside the cross on its ray"
    _check_row_labels(figure, in_plane(numpy_layer_norm(rows)))


def test_a_cross_off_a_rows_ray_leaves_the_rows_label_where_it_was():
    rows = row_at(-30, -150)
    alone = texts_by_name(plots.normalised_circle(rows).axes[0])["row 1"].xyann
    off_ray = 2.5 * in_plane(row_at(35))[0] / np.linalg.norm(in_plane(row_at(35))[0])  # 65° from row 1
    extra = off_ray[0] * U + off_ray[1] * V
    beside = texts_by_name(plots.normalised_circle(rows, extra_points=[extra]).axes[0])["row 1"].xyann
    np.testing.assert_allclose(beside, alone)


def test_a_row_label_steps_out_past_a_feature_name_only_on_that_feature_axis():
    rows = row_at(-30, 30)  # row 1 midway between the f3 and f1 axes, row 2 on the f1 axis
    figure = plots.normalised_circle(rows)
    ax = figure.axes[0]
    renderer = drawn(figure)
    names = texts_by_name(ax)
    off_axis, on_axis = (np.linalg.norm(names[f"row {i}"].xyann) for i in (1, 2))
    assert off_axis < on_axis, "a label away from every feature axis need not step out"
    assert not Text.get_window_extent(names["row 2"], renderer).overlaps(
        Text.get_window_extent(names["f1 +"], renderer)
    )
    _check_row_labels(figure, in_plane(numpy_layer_norm(rows)))


# ---------------------------------------------------------------------------------------------
# The frame


def _check_frame(figure, extras=()):
    ax = figure.axes[0]
    renderer = drawn(figure)
    left, right = ax.get_xlim()
    assert left == -right and ax.get_ylim() == (left, right), "the centre is not in the middle of the frame"
    for text in ax.texts:
        box = Text.get_window_extent(text, renderer)
        assert ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1), f"{text.get_text()} is cut"
    for point in extras:
        assert max(abs(point)) < right, f"the cross at {point} is outside the frame"


def _far_below() -> np.ndarray:
    """A point of the plane 3.5 from the centre, straight down: on no ray of the lesson's rows."""
    far = 3.5 * in_plane(row_at(-90))[0] / np.linalg.norm(in_plane(row_at(-90))[0])
    return far[0] * U + far[1] * V


@pytest.mark.parametrize("extra", [None, PUBLISHED, _far_below()[None]], ids=["alone", "published", "far"])
def test_the_frame_is_centred_and_holds_every_label_and_every_cross(extra):
    _check_frame(plots.normalised_circle(X, extra_points=extra), () if extra is None else in_plane(extra))


# ---------------------------------------------------------------------------------------------
# Extra points (notebook 07: the published table)


def test_extra_points_are_named_other_unless_told_and_have_one_legend_entry():
    ax = plots.normalised_circle(X, extra_points=PUBLISHED).axes[0]
    assert sorted(t.get_text() for t in ax.texts if t.get_text().startswith("other")) == [
        f"other {i}" for i in range(1, 6)
    ]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [f"circle of radius √3 ≈ {ROOT3:.3f}", "other rows"]
    one = plots.normalised_circle(X, extra_points=PUBLISHED[:1], extra_label="published").axes[0]
    assert [t.get_text() for t in one.get_legend().get_texts()][-1] == "published rows"


def test_each_cross_shows_only_its_rows_colour_and_never_hides_a_rows_point():
    ax = plots.normalised_circle(X, extra_points=PUBLISHED, extra_label="published").axes[0]
    order = {id(a): k for k, a in enumerate(sorted(ax.get_children(), key=lambda a: a.get_zorder()))}
    rows = [line_by_gid(ax, f"row {i + 1}") for i in range(len(X))]
    for i in range(len(PUBLISHED)):
        cross = line_by_gid(ax, f"published {i + 1}")
        assert to_hex(cross.get_markerfacecolor()) in {"#ffffff", plots.ROW_COLOURS[i].lower()}
        assert to_hex(cross.get_markeredgecolor()) == plots.ROW_COLOURS[i].lower()
        # published 3 lies 0.02 from row 3: row 3's triangle must be drawn over the cross, not under it
        assert all(order[id(row)] > order[id(cross)] for row in rows), f"published {i + 1} is drawn over a row"


def test_each_extra_label_has_a_leader_line_to_its_cross():
    ax = plots.normalised_circle(X, extra_points=PUBLISHED, extra_label="published").axes[0]
    for i in range(len(PUBLISHED)):
        label = texts_by_name(ax)[f"published {i + 1}"]
        assert label.arrow_patch is not None
        np.testing.assert_allclose(label.xy, in_plane(PUBLISHED[i]), atol=1e-12)


@pytest.mark.parametrize("seed", [21, 45])
def test_extra_labels_never_cover_a_rows_label(seed):
    """Other tables: the published rows scattered at random, some labels crowding a row's label."""
    extra = PUBLISHED + np.random.default_rng(seed).normal(scale=0.3, size=PUBLISHED.shape)
    figure = plots.normalised_circle(X, extra_points=extra, extra_label="published")
    ax = figure.axes[0]
    renderer = drawn(figure)
    boxes = {t.get_text(): Text.get_window_extent(t, renderer) for t in ax.texts}
    clashes = [
        (row, other)
        for row in boxes
        if row.startswith("row ")
        for other in boxes
        if other.startswith("published ") and boxes[row].overlaps(boxes[other])
    ]
    assert not clashes


def test_extra_labels_centred_on_a_place_nearer_their_own_cross():
    figure = plots.normalised_circle(X, extra_points=PUBLISHED, extra_label="published")
    ax = figure.axes[0]
    renderer = drawn(figure)
    markers = [in_plane(r) for r in PUBLISHED] + [in_plane(r) for r in numpy_layer_norm(X)]
    for i in range(len(PUBLISHED)):
        x0, y0, x1, y1 = box_in_data(ax, texts_by_name(ax)[f"published {i + 1}"], renderer)
        centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        own = markers[i]
        mine = np.linalg.norm(centre - own)
        for point in markers:
            if np.linalg.norm(point - own) > 0.25:
                assert np.linalg.norm(centre - point) > mine, f"published {i + 1} reads as another marker's"


def test_at_a_given_text_size_every_text_has_that_size_extra_labels_too():
    ax = plots.normalised_circle(row_at(-30), extra_points=PUBLISHED[:1], text_size=plots.ROOM_TEXT).axes[0]
    assert {t.get_text(): t.get_fontsize() for t in ax.texts} == {
        t.get_text(): plots.ROOM_TEXT for t in ax.texts
    } and any(t.get_text() == "other 1" for t in ax.texts)


# ---------------------------------------------------------------------------------------------
# The text form


def _number(value: float) -> str:
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def _expected_table(named):
    head = ("row", "values", "sum", "distance from 0")
    cells = [head] + [
        (name, "  ".join(_number(v).rjust(7) for v in row), _number(np.sum(row)), _number(np.linalg.norm(row)))
        for name, row in named
    ]
    widths = [max(len(c[k]) for c in cells) for k in range(4)]
    return [
        f"  {c[0]:<{widths[0]}}  {c[1]:<{widths[1]}}  {c[2]:>{widths[2]}}  {c[3]:>{widths[3]}}".rstrip() for c in cells
    ]


def test_text_form_is_the_table_of_every_normalised_row_and_extra_point():
    eps = 0.5
    y = numpy_layer_norm(X, eps=eps)
    text = plots.normalised_circle_text(X, eps=eps, extra_points=PUBLISHED)
    named = [(f"row {i + 1}", row) for i, row in enumerate(y)]
    named += [(f"other {i + 1}", row) for i, row in enumerate(PUBLISHED)]
    assert text.split("\n") == [
        "Normalised rows (eps = 0.5) all sum to 0",
        f"and lie at distance about √3 ≈ {ROOT3:.4f} from 0:",
        *_expected_table(named),
    ]


def test_text_form_names_every_row_of_equal_values_at_the_centre():
    matrix = np.array([X[0], [2.0, 2.0, 2.0], [-1.0, -1.0, -1.0]])
    text = plots.normalised_circle_text(matrix, extra_points=PUBLISHED[:1], extra_label="published")
    named = [(f"row {i + 1}", row) for i, row in enumerate(numpy_layer_norm(matrix, eps=EPS))]
    assert text.split("\n") == [
        "Normalised rows (eps = 1e-05) all sum to 0",
        f"and lie at distance about √3 ≈ {ROOT3:.4f} from 0,",
        "but for rows 2 and 3 of equal values, at 0:",
        *_expected_table([*named, ("published 1", PUBLISHED[0])]),
    ]


# ---------------------------------------------------------------------------------------------
# The room's picture


def _svg_numbers(path_d: str) -> np.ndarray:
    return np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path_d)]).reshape(-1, 2)


def test_room_picture_of_a_large_eps_says_and_draws_that_eps_as_tall_as_the_slide_allows():
    import html

    eps = 0.5
    room = plots.normalised_circle_for_the_room(X, eps=eps)
    y = numpy_layer_norm(X, eps=eps)
    distances = ", ".join(f"row {i + 1} at distance {np.linalg.norm(r):.4f} from 0" for i, r in enumerate(y))
    assert room.description == (
        "The normalised rows (eps = 0.5) seen in the plane where their three values sum to 0: "
        f"{distances}; the dashed circle has radius √3 ≈ {ROOT3:.3f}."
    )
    assert repr(room) == plots.normalised_circle_text(X, eps=eps)
    svg = room.svg
    assert room.description in html.unescape(svg)
    circle = _svg_numbers(re.search(r'<g id="[^"]*-circle">\s*<path d="([^"]+)"', svg).group(1))
    (left, top), (right, bottom) = circle.min(axis=0), circle.max(axis=0)
    centre, per_unit = np.array([(left + right) / 2, (top + bottom) / 2]), (right - left) / (2 * ROOT3)
    for i in range(len(X)):
        use = re.search(rf'<g id="[^"]*-row-{i + 1}">.*?<use [^>]*x="([0-9.-]+)" y="([0-9.-]+)"', svg, re.S)
        at = (np.array([float(use.group(1)), float(use.group(2))]) - centre) / per_unit
        np.testing.assert_allclose([at[0], -at[1]], in_plane(y[i]), atol=1e-4)
    # as tall as the slide leaves room for (ROOM_SIZE_EM): the circle as large as it can be
    height_em = float(re.search(r"height: ([0-9.]+)em", svg).group(1))
    assert plots.ROOM_SIZE_EM[1] - 0.1 < height_em <= plots.ROOM_SIZE_EM[1]


def test_three_rows_of_equal_values_are_named_as_a_list():
    matrix = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0], [0.5, 0.5, 0.5], [-1.0, -1.0, -1.0]])
    text = plots.normalised_circle_text(matrix)
    assert text.split("\n")[2] == "but for rows 1, 3 and 4 of equal values, at 0:"
