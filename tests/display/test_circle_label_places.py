"""Where the √3 circle's labels go (notebook 07 and the lecture's slide): each extra cross's label beside
its own cross, the legend on no label, the room's radius where no row is.

``extra_label_place`` is read from its docstring: the first place, going round the point from the side
facing the centre, whose box holds no marker, overlaps no label placed before and is nearer the point
than any other marker; its box is appended to ``placed``. Expected directions and distances are
computed here with numpy. Uses matplotlib's Agg backend (no display).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.colors import to_hex  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import helpers  # noqa: E402
from helpers import plots  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402

pytestmark = pytest.mark.draws  # each renders a figure: `run.py test --fast` leaves them out

OKABE_ITO = {"#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#000000"}
GREYS = {"#999999", "#bbbbbb", "#777777", "#666666"}


def _turn(point, centre) -> float:
    """Degrees the label at ``centre`` is turned from the direction from ``point`` to (0, 0)."""
    facing = math.atan2(-point[1], -point[0])
    going = math.atan2(centre[1] - point[1], centre[0] - point[0])
    return math.degrees(math.remainder(going - facing, math.tau))


def _holds(box, marker) -> bool:
    return box[0] < marker[0] < box[1] and box[2] < marker[1] < box[3]


def _apart(a, b) -> bool:
    return a[1] < b[0] or b[1] < a[0] or a[3] < b[2] or b[3] < a[2]


def _place(point, text="a", markers=(), placed=None, text_size=8.0):
    """The place and the box ``extra_label_place`` gives, checking that it appends just that box."""
    point = np.asarray(point, dtype=float)
    placed = [] if placed is None else placed
    before = list(placed)
    markers = [np.asarray(m, dtype=float) for m in markers]
    centre = np.asarray(plots.extra_label_place(point, text, markers, placed, text_size), dtype=float)
    assert placed[:-1] == before and len(placed) == len(before) + 1, "its box is appended to placed"
    box = placed[-1]
    assert box[0] < box[1] and box[2] < box[3]
    np.testing.assert_allclose([(box[0] + box[1]) / 2, (box[2] + box[3]) / 2], centre, atol=1e-12)
    return centre, box


# ---------------------------------------------------------------------------------------------
# An extra cross's label (notebook 07's published rows)


def test_an_extra_labels_box_holds_its_drawn_text_and_not_much_more():
    """The box that keeps labels apart is the label as drawn on 07's circle (8-point text): it holds the
    drawn text, so boxes apart are labels apart, and is not much bigger, so labels stay near their crosses."""
    published = helpers.load_published_output()
    ax = plots.normalised_circle(X, extra_points=published, extra_label="published").axes[0]
    ax.figure.draw_without_rendering()
    renderer = ax.figure._get_renderer()
    to_data = ax.transData.inverted()
    for label in (t for t in ax.texts if t.get_text().startswith("published")):
        extent = Text.get_window_extent(label, renderer)
        (x0, y0), (x1, y1) = to_data.transform([[extent.x0, extent.y0], [extent.x1, extent.y1]])
        width, height = x1 - x0, y1 - y0
        _, box = _place((0.0, 2.0), label.get_text(), text_size=label.get_fontsize())
        box_width, box_height = box[1] - box[0], box[3] - box[2]
        assert width <= box_width <= 2 * width, (label.get_text(), width, box_width)
        assert height <= box_height <= 2 * height, (label.get_text(), height, box_height)
    # a longer text or a larger size is a bigger box, in proportion
    _, short = _place((0.0, 2.0), "ab", text_size=8)
    _, long = _place((0.0, 2.0), "abcd", text_size=8)
    _, big = _place((0.0, 2.0), "ab", text_size=16)
    assert long[1] - long[0] == pytest.approx(2 * (short[1] - short[0]))
    assert long[3] - long[2] == pytest.approx(short[3] - short[2])
    assert big[1] - big[0] == pytest.approx(2 * (short[1] - short[0]))
    assert big[3] - big[2] == pytest.approx(2 * (short[3] - short[2]))


@pytest.mark.parametrize(
    "point", [(2.0, 0.0), (1.5, 1.0), (-1.2, 1.6), (-1.8, -0.9), (0.4, -2.1), (0.8, 0.0), (-0.3, -0.5)]
)
def test_a_free_extra_label_sits_on_the_side_facing_the_centre(point):
    """Nothing near: the label goes straight toward (0, 0) from its cross (also for a cross near the
    centre), and its box leaves the cross itself visible. Its own cross is among the markers, as in 07."""
    centre, box = _place(point, "published 1", markers=[point])
    assert _turn(point, centre) == pytest.approx(0.0, abs=1e-9)
    assert not _holds(box, point), "the label hides its own cross"


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("turned", [30, 60, 90, 120, 150])
def test_a_blocked_extra_label_turns_round_its_cross_the_least_it_can(turned, side):
    """Earlier labels fence off the side facing the centre, more on one side than the other: the label
    goes round to the other side, turned no more than the fence makes it (first place going round)."""
    point = np.array([1.2, 0.3])
    facing = math.atan2(-point[1], -point[0])
    fence = []
    for reach in np.arange(0.3, 1.6, 0.02):
        for degrees in np.arange(-(turned - 15), turned + 15.01, 0.5):  # the `side` side fenced 30° further
            if -side * degrees > turned - 15:
                continue
            at = point + reach * np.array(
                [math.cos(facing + math.radians(degrees)), math.sin(facing + math.radians(degrees))]
            )
            fence.append((at[0] - 1e-3, at[0] + 1e-3, at[1] - 1e-3, at[1] + 1e-3))
    placed = list(fence)
    centre, box = _place(point, "a", markers=[point], placed=placed)
    assert all(_apart(box, other) for other in fence), "the label overlaps a label placed before"
    turn = _turn(point, centre)
    assert -side * turn == pytest.approx(turned, abs=15), f"turned {turn:.0f}°, not about {-side * turned}°"


@pytest.mark.parametrize("mirror", [1, -1])
def test_an_extra_labels_box_holds_no_other_marker(mirror):
    """A big label facing the centre would hold a row's point near its far end: it turns away instead."""
    point, other = np.array([2.0 * mirror, 0.0]), np.array([0.6 * mirror, 0.1])
    centre, box = _place(point, "published 1", markers=[point, other], text_size=16)
    assert not _holds(box, other)
    assert abs(_turn(point, centre)) <= 45, "turned further round than it needs"


@pytest.mark.parametrize(
    "earlier",
    [(0.5, 1.2, -0.05, 0.05), (1.8, 2.3, -0.05, 0.05), (1.2, 1.3, -0.3, -0.05), (1.2, 1.3, 0.05, 0.3)],
    ids=["from the left", "from the right", "from below", "from above"],
)
def test_an_extra_label_overlaps_no_label_placed_before_whichever_side_it_reaches_in_from(earlier):
    """An earlier label reaching into the place facing the centre: the label goes round, clear of it."""
    point = np.array([2.0, 0.0])
    centre, box = _place(point, "published 1", markers=[point], placed=[earlier])
    assert _apart(box, earlier), "the label overlaps a label placed before"
    assert abs(_turn(point, centre)) <= 45 or np.linalg.norm(centre - point) > 0.6


def test_an_extra_label_is_nearer_its_own_cross_than_a_marker_beside_it():
    """A row's point just inside the cross: the label goes round to where it reads as the cross's own."""
    point, other = np.array([2.0, 0.0]), np.array([1.3, 0.0])
    centre, _ = _place(point, "a", markers=[point, other])
    assert np.linalg.norm(centre - point) < np.linalg.norm(centre - other)
    assert abs(_turn(point, centre)) <= 105, "turned further round than it needs"


@pytest.mark.parametrize("point", [(2.0, 0.0), (-1.0, 1.2), (0.3, -1.5)])
def test_with_no_place_clear_of_earlier_labels_the_label_goes_between_its_cross_and_the_centre(point):
    """Everything round the cross taken by earlier labels: the label falls back to the side facing the
    centre, between its cross and (0, 0)."""
    point = np.asarray(point)
    centre, _ = _place(point, "published 1", markers=[point], placed=[(-10.0, 10.0, -10.0, 10.0)])
    assert _turn(point, centre) == pytest.approx(0.0, abs=1e-9)
    assert 0 < np.linalg.norm(centre - point) < np.linalg.norm(point), "not between the cross and the centre"


def test_with_no_clear_place_the_label_still_reads_as_its_own_crosss():
    """A row's point just inside a cross by the frame: no place is clear by the full margin, and the
    label goes where it is still nearer its own cross, clear of the labels placed before."""
    point, other = np.array([2.5, 0.0]), np.array([2.2, 0.0])
    centre, box = _place(point, "a", markers=[point, other])
    assert np.linalg.norm(centre - point) < np.linalg.norm(centre - other)
    # the best such places taken by earlier labels: the next best, still clear of them
    earlier = [(2.7, 2.85, 0.4, 0.55), (2.7, 2.85, -0.55, -0.4)]
    placed = list(earlier)
    centre, box = _place(point, "a", markers=[point, other], placed=placed)
    assert all(_apart(box, e) for e in earlier), "the label overlaps an earlier label"
    assert np.linalg.norm(centre - point) < np.linalg.norm(centre - other)


@pytest.mark.parametrize("seed", range(4))
def test_every_label_of_the_circle_with_crosses_far_out_stays_inside_the_frame(seed):
    """Published rows far from the centre (and near it): every label of 07's circle is inside the frame,
    on no other label, and each cross's label is nearer its own cross than any other marker."""
    rng = np.random.default_rng(seed)
    extra = rng.normal(size=(5, 3)) * 1.4
    extra[0] = [2.2, -2.2, 0.0]  # far out along u, about 3.1 from the centre
    ax = plots.normalised_circle(X, extra_points=extra, extra_label="p").axes[0]
    ax.figure.draw_without_rendering()
    renderer = ax.figure._get_renderer()
    boxes = [(t.get_text(), Text.get_window_extent(t, renderer)) for t in ax.texts]
    for name, box in boxes:
        assert ax.bbox.contains(box.x0, box.y0) and ax.bbox.contains(box.x1, box.y1), f"{name} is cut by the frame"
    clashes = [(a, b) for k, (a, box_a) in enumerate(boxes) for b, box_b in boxes[k + 1 :] if box_a.overlaps(box_b)]
    assert not clashes, f"labels on top of each other: {clashes}"


# ---------------------------------------------------------------------------------------------
# The legend: in a corner where it covers no label


def _angle_rows(degrees) -> np.ndarray:
    """3-feature rows whose normalised points lie at the given angles in the (u, v) plane."""
    u, v = np.array([1, -1, 0]) / math.sqrt(2), np.array([1, 1, -2]) / math.sqrt(6)
    return np.array([math.cos(math.radians(a)) * u + math.sin(math.radians(a)) * v for a in degrees]) * 2 + 5


def _legend_covers(ax) -> tuple[int, dict]:
    """How many texts and row points the legend covers, where it is and in each corner."""
    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure._get_renderer()
    texts = [Text.get_window_extent(t, renderer) for t in ax.texts]
    points = [
        ax.transData.transform((line.get_xdata()[0], line.get_ydata()[0]))
        for line in ax.lines
        if (line.get_gid() or "").startswith("row ")
    ]

    def count(box):
        return sum(box.overlaps(t) for t in texts) + sum(box.contains(*p) for p in points)

    legend = ax.get_legend()
    entries = [t.get_text() for t in legend.get_texts()]
    here = count(legend.get_window_extent(renderer))
    size = legend.get_texts()[0].get_fontsize()  # the same legend, moved to each corner
    corners = {}
    for corner in ("upper left", "upper right", "lower left", "lower right"):
        corners[corner] = count(ax.legend(loc=corner, fontsize=size).get_window_extent(renderer))
    assert entries[0] == "circle of radius √3 ≈ 1.732"
    return here, corners


@pytest.mark.parametrize(
    ("angles", "size"),
    [
        ([96, 100, 104], None),  # the upper left taken by labels pushed out near the top
        ([76, 80, 84, 96, 100, 104], None),  # both upper corners taken
        ([76, 80, 84, 96, 100, 104, -84, -80, -76, -96, -100, -104], 4.0),  # every corner: fewest covered
        ([-76, -80, -84, 96, 100, 104, 76, 80, 84], 4.0),
    ],
)
def test_the_legend_covers_no_label_or_else_the_fewest(angles, size):
    """matplotlib's loc="best" sees the points but not the labels: the circle puts its legend in a corner
    where it covers no label and no point, or where it covers fewest."""
    ax = plt.subplots(figsize=(size, size))[1] if size else None
    rows = _angle_rows(angles)
    extra = rows * 1.35 - 5 * 1.35 + 5  # crosses beyond the rows, pushing the labels out
    figure = plots.normalised_circle(rows, extra_points=extra, extra_label="p", ax=ax)
    here, corners = _legend_covers(figure.axes[0])
    assert here == min(corners.values()), (here, corners)


# ---------------------------------------------------------------------------------------------
# The room's circle: the radius drawn and labelled where no row is


def _room_axes(matrix):
    width, height = plots.ROOM_SIZE_EM
    figure = Figure(figsize=(width * plots.ROOM_TEXT / 72, height * plots.ROOM_TEXT / 72), layout="constrained")
    ax = figure.subplots()
    plots.normalised_circle(matrix, ax=ax, text_size=plots.ROOM_TEXT)
    return ax


def _clearance(direction, taken) -> float:
    return min(abs(math.remainder(direction - t, math.tau)) for t in taken)


ROOM_MATRICES = {
    "lesson": X,
    "rows toward f1 and f2": _angle_rows([20, 40, 140, 160]),
    "rows below": _angle_rows([-20, -60, -120, -160, 100]),
    "two rows": _angle_rows([-100, 10]),
    "rows round f3": _angle_rows([-70, -110, 60, 120]),
}


@pytest.mark.parametrize("name", ROOM_MATRICES)
def test_the_rooms_radius_is_drawn_where_no_row_and_no_feature_label_is(name):
    """The room's circle has no legend: a black radius from the centre to the circle, labelled
    "√3 ≈ 1.732" by a leader line, in the direction farthest from every row and every "f k +" label."""
    matrix = ROOM_MATRICES[name]
    ax = _room_axes(matrix)
    (line,) = [line for line in ax.lines if line.get_gid() == "radius"]
    start, end = line.get_xydata()
    np.testing.assert_allclose(start, [0, 0], atol=1e-12)
    assert np.linalg.norm(end) == pytest.approx(math.sqrt(3))
    assert to_hex(line.get_color()) in OKABE_ITO | GREYS
    (label,) = [t for t in ax.texts if t.get_text() == "√3 ≈ 1.732"]
    np.testing.assert_allclose(label.xy, end)
    assert label.arrow_patch is not None, "the radius' label has no leader line to the radius"
    # every row's direction and each feature's axis direction (where its "f k +" label is), with numpy
    points = plots.plane_coordinates(helpers.layer_norm(matrix))
    axes = plots.plane_coordinates(np.eye(3))
    taken = [math.atan2(v, u) for u, v in points] + [math.atan2(v, u) for u, v in axes]
    best = max(_clearance(math.radians(d / 10), taken) for d in range(3600))
    drawn = _clearance(math.atan2(end[1], end[0]), taken)
    assert math.degrees(drawn) >= math.degrees(best) - 5, f"radius {math.degrees(drawn):.0f}° from a row or label"


def test_the_rooms_circle_is_centred_in_a_frame_wider_than_tall():
    """The room's frame: equal scales, the centre in the middle, wider than tall for the labels beside
    the circle, and room above and below the circle for the top and bottom labels."""
    ax = _room_axes(X)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert ax.get_aspect() == 1.0
    assert x0 == -x1 and y0 == -y1
    assert x1 > y1 > math.sqrt(3) * 1.4
