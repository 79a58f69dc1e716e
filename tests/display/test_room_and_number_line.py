"""helpers.plots.room (the room's SVG pictures and the label placer), helpers.plots.number_line and
helpers.plots.style: what the learner sees, from the docstrings.

Expected geometry is computed here with plain numpy (distances by dense sampling, crossings by solving
the two segments' equations); the SVG is read with an XML parser, as a browser would.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # headless, for this test process only (see tests/display/test_plots.py)

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.transforms import Bbox  # noqa: E402

import helpers  # noqa: E402
from helpers import plots  # noqa: E402
from helpers.plots import room  # noqa: E402
from helpers.plots.number_line import label_widths  # noqa: E402
from helpers.plots.style import figure_and_axes  # noqa: E402

from conftest import EPS  # noqa: E402
from conftest import LESSON_X as X  # noqa: E402

pytestmark = pytest.mark.draws  # most render a figure: `run.py test --fast` leaves them out

SVG = "{http://www.w3.org/2000/svg}"


# ---------------------------------------------------------------------------------------------
# The label placer's geometry, against numpy


def numpy_distance_to_segment(start, end, samples: int = 20_001) -> float:
    t = np.linspace(0.0, 1.0, samples)[:, None]
    points = np.asarray(start) + t * (np.asarray(end) - np.asarray(start))
    return float(np.min(np.hypot(points[:, 0], points[:, 1])))


def test_closest_to_origin_is_the_distance_from_0_to_the_nearest_point_of_the_segment():
    rng = np.random.default_rng(7)
    cases = [tuple(map(tuple, rng.uniform(-3, 3, size=(2, 2)))) for _ in range(200)]
    cases += [
        ((-0.5, 1.0), (0.5, 1.0)),  # length exactly 1, nearest point in the middle
        ((1.0, 2.0), (1.0, 2.0)),  # a segment of no length: its one point
        ((1.0, 0.0), (3.0, 0.0)),  # the nearest point is the start
        ((3.0, 1.0), (1.5, 0.5)),  # the nearest point is the end
        ((-2.0, -1.0), (2.0, -1.0)),
    ]
    for start, end in cases:
        expected = numpy_distance_to_segment(start, end)
        assert room._closest_to_origin(start, end) == pytest.approx(expected, abs=2e-4), (start, end)


def numpy_segments_cross(a, b, c, d) -> bool:
    """Whether the two segments meet at one point inside both (not at an end, not along a shared line)."""
    a, b, c, d = (np.asarray(p, dtype=float) for p in (a, b, c, d))
    matrix = np.column_stack([b - a, c - d])
    if abs(np.linalg.det(matrix)) < 1e-12:
        return False
    s, t = np.linalg.solve(matrix, c - a)
    return 1e-9 < s < 1 - 1e-9 and 1e-9 < t < 1 - 1e-9


@pytest.mark.parametrize("scale", [0.1, 1.0, 10.0])
def test_segments_cross_exactly_when_they_meet_inside_both(scale):
    rng = np.random.default_rng(3)
    crossing = 0
    for _ in range(400):
        a, b, c, d = (tuple(p) for p in rng.uniform(-1, 1, size=(4, 2)) * scale)
        expected = numpy_segments_cross(a, b, c, d)
        crossing += expected
        assert room._segments_cross(a, b, c, d) is expected, (a, b, c, d)
    assert 40 < crossing < 360  # both answers are tried


def test_segments_that_only_touch_or_share_an_end_do_not_cross():
    s = 0.1  # small numbers, so a product of two sides is under 1
    assert not room._segments_cross((0, 0), (2 * s, 0), (s, 0), (s, s))  # one ends on the other
    assert not room._segments_cross((0, 0), (s, 0), (s, -s), (s, s))
    assert not room._segments_cross((s, 0), (s, s), (0, 0), (2 * s, 0))
    assert not room._segments_cross((0, 0), (s, s), (s, s), (2 * s, 0))  # a shared end
    assert not room._segments_cross((0, 0), (2 * s, 0), (s, 0), (3 * s, 0))  # along one line
    assert room._segments_cross((0, 0), (2 * s, 2 * s), (0, 2 * s), (2 * s, 0))


def test_a_segment_crosses_a_box_it_passes_through_or_ends_in_and_no_other():
    box = Bbox.from_extents(1.9, 0.9, 2.1, 1.1)
    assert room._crosses((0.5, 0.3), (3.5, 1.7), box)  # through its middle
    assert room._crosses((3.5, 1.7), (0.5, 0.3), box)  # either way
    assert room._crosses((0.4, 2.6), (3.6, -0.6), box)  # falling
    assert room._crosses((-1.0, 1.0), (2.0, 1.0), box)  # ends inside it
    assert room._crosses((1.0, -0.5), (2.0, 1.0), box)  # ends inside it, from below
    assert not room._crosses((0.5, 0.3), (1.85, 0.93), box)  # stops just short of it
    assert not room._crosses((-1.0, 1.0), (1.88, 1.0), box)
    assert not room._crosses((0.5, 1.5), (3.5, 1.5), box)  # passes above it
    assert not room._crosses((2.5, -1.0), (2.5, 3.0), box)  # passes beside it
    assert not room._crosses((0.0, 0.0), (0.0, 5.0), Bbox.from_extents(0.5, 2.0, 1.0, 3.0))


def test_nearest_distance_is_from_0_to_the_nearest_point_of_the_box():
    rng = np.random.default_rng(5)
    for _ in range(200):
        x0, x1 = np.sort(rng.uniform(-3, 3, size=2))
        y0, y1 = np.sort(rng.uniform(-3, 3, size=2))
        xs, ys = np.meshgrid(np.linspace(x0, x1, 301), np.linspace(y0, y1, 301))
        inside = x0 <= 0 <= x1 and y0 <= 0 <= y1
        expected = 0.0 if inside else float(np.min(np.hypot(xs, ys)))
        got = room._nearest_distance(Bbox.from_extents(x0, y0, x1, y1))
        assert got == pytest.approx(expected, abs=0.02), (x0, y0, x1, y1)
    assert room._nearest_distance(Bbox.from_extents(0.2, 0.3, 0.5, 0.6)) == pytest.approx(math.hypot(0.2, 0.3))
    assert room._nearest_distance(Bbox.from_extents(-0.5, -0.6, -0.2, -0.3)) == pytest.approx(math.hypot(0.2, 0.3))
    assert room._nearest_distance(Bbox.from_extents(0.2, -1.0, 0.5, 1.0)) == pytest.approx(0.2)
    assert room._nearest_distance(Bbox.from_extents(-1.0, 0.3, 1.0, 0.6)) == pytest.approx(0.3)


# ---------------------------------------------------------------------------------------------
# A figure drawn for the room: SVG with its text as text, sized in the page's em


def small_figure(title="A picture", gid="row 1"):
    """A figure with what matplotlib writes ids, clip paths (url(#…)) and markers (href="#…") for."""
    figure = Figure(figsize=(3, 2))
    ax = figure.subplots()
    ax.plot([0, 1, 2], [0, 1, 4], marker="o", gid=gid)
    ax.set_title(title, fontsize=14)
    ax.set_xlabel("x", fontsize=9)
    return figure


def parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_the_same_figure_always_gives_the_same_svg_bytes():
    figure = small_figure()
    first = room.svg_of(figure)
    assert room.svg_of(figure) == first
    assert room.svg_of(small_figure()) == first  # an equal figure drawn anew: no date, fixed ids
    assert "<text" in first and "font-size" in first  # its text kept as text


def test_svg_of_keeps_a_text_that_sticks_out_of_the_figure_whole():
    figure = Figure(figsize=(3, 2))
    figure.text(0.8, 0.5, "a label past the right edge", fontsize=10)
    svg = room.svg_of(figure)
    width = float(re.search(r'viewBox="0 0 ([0-9.]+) ', svg)[1])
    renderer = figure._get_renderer()
    (text,) = figure.texts
    text_points = text.get_window_extent(renderer).width * 72 / figure.dpi
    left = float(re.search(r'<text [^>]*\bx="([0-9.-]+)"', svg)[1])
    assert 0 <= left and left + text_points <= width + 0.5, "the picture cuts the text at the figure's edge"


def test_a_figure_with_no_text_cannot_be_sized_by_its_text():
    with pytest.raises(ValueError, match="^the figure has no text to size the picture by$"):
        room.smallest_text('<svg viewBox="0 0 10 10"><path d="M 0 0 L 1 1"/></svg>')


def test_room_svg_is_one_well_formed_svg_element_for_a_screen_reader():
    description = 'Rows 1 & 2 lie "on" the circle, <not> inside; it\'s √3'
    body = room.room_svg(room.svg_of(small_figure()), description)
    assert body.startswith("<svg") and body.endswith("</svg>")
    element = parsed(body)  # no stray text, no broken attribute
    assert element.tag == SVG + "svg"
    assert element.get("role") == "img"
    assert element.get("aria-label") == description  # exactly, whatever its quotes and ampersands
    assert element.find(SVG + "metadata") is None
    for node in element.iter():
        if node.tag not in (SVG + "text", SVG + "tspan", SVG + "style"):
            assert not (node.text or "").strip() and not (node.tail or "").strip(), f"stray text in {node.tag}"
    style = dict(part.split(":", 1) for part in element.get("style").split(";") if part.strip())
    style = {key.strip(): value.strip() for key, value in style.items()}
    assert style["display"] == "block" and style["max-width"] == "none"
    assert style["width"].endswith("em") and style["height"].endswith("em")


def test_room_svg_keeps_every_texts_size_against_the_pages_style_sheets():
    body = room.room_svg(room.svg_of(small_figure()), "words")
    texts = parsed(body).findall(f".//{SVG}text")
    assert len(texts) >= 3
    sizes = set()
    for text in texts:
        declarations = [part.strip() for part in text.get("style").split(";") if part.strip()]
        (size,) = [d for d in declarations if d.startswith("font-size")]
        number = re.fullmatch(r"font-size: ?([0-9.]+)px !important", size)
        assert number, size
        sizes.add(float(number[1]))
    assert min(sizes) == float(parsed(body).get("data-text-unit"))


def test_room_svg_ids_are_its_own_and_every_reference_finds_its_id():
    first = room.room_svg(room.svg_of(small_figure()), "one")
    second = room.room_svg(room.svg_of(small_figure("Another picture")), "two")
    for body in (first, second):
        ids = re.findall(r'\bid="([^"]+)"', body)
        assert ids and len(ids) == len(set(ids)) and not any(" " in i for i in ids)
        references = re.findall(r"url\(#([^)]+)\)", body) + re.findall(r'href="#([^"]+)"', body)
        assert references, "the test figure has clip paths and markers"
        assert set(references) <= set(ids), "a reference to an id the picture lacks"
        clips = re.findall(r'clip-path="([^"]*)"', body)
        assert clips and all(re.fullmatch(r"url\(#([^)]+)\)", clip)[1] in ids for clip in clips), "a lost clip path"
        (picture,) = [i for i in ids if i.endswith("picture")]
        assert parsed(body).get("id") == picture
        assert any(i.endswith("-row-1") for i in ids), "the gid 'row 1' as an id without a space"
    assert not set(re.findall(r'\bid="([^"]+)"', first)) & set(re.findall(r'\bid="([^"]+)"', second)), (
        "two pictures on one page share an id"
    )


def test_room_svg_style_sheet_reaches_only_its_own_picture():
    body = room.room_svg(room.svg_of(small_figure()), "words")
    element = parsed(body)
    (sheet,) = element.iter(SVG + "style")
    rules = re.findall(r"([^{}]+)\{[^}]*\}", sheet.text)
    assert rules
    for selector in rules:
        assert selector.strip().startswith(f"#{element.get('id')} "), f"a rule for the whole page: {selector}"


def test_for_the_room_says_the_text_twin_in_one_line_to_a_screen_reader():
    text = "The circle of radius √3.\n  Row 1 at (0.1, 1.7)\n\nRow 2 at the centre."
    picture = room.for_the_room(small_figure(), text)
    assert picture.description == "The circle of radius √3. Row 1 at (0.1, 1.7) Row 2 at the centre."
    assert repr(picture) == picture.text == text
    assert parsed(picture.svg).get("aria-label") == picture.description
    assert picture._repr_html_() == f'<div class="layernorm-room-figure">{picture.svg}</div>'
    given = room.for_the_room(small_figure(), text, "Five rows on a circle.")
    assert given.description == "Five rows on a circle." and parsed(given.svg).get("aria-label") == given.description


# ---------------------------------------------------------------------------------------------
# The number line (notebook 02): what is drawn, where, and what it is called

ROW_PADDING_FAILS = np.array([-1.27, -0.62, 0.04])  # three labels fit only with no space beside them
ROW_NOTHING_FITS = np.array([1.04, 1.4, 1.15, -2.37, 1.23])  # four labels on top of each other


def drawn_number_line(row, ax=None):
    figure = plots.number_line(helpers.layer_norm_steps(np.asarray(row, dtype=float)), ax=ax)
    figure.canvas.draw()
    return figure, figure.axes[0]


def value_points(ax):
    (points,) = [line for line in ax.lines if line.get_gid() == "values"]
    return points


def test_number_line_names_its_axis_and_its_legend_names_band_mean_and_values():
    figure, ax = drawn_number_line(X[0])
    assert ax.get_xlabel() == "value" and ax.get_ylabel() == "row x"
    legend = ax.get_legend()
    assert sorted(t.get_text() for t in legend.get_texts()) == ["mean ± 1 std", "mean μ", "values x"]
    plt.close(figure)


@pytest.mark.parametrize("row", [X[0], X[3], ROW_PADDING_FAILS, np.array([0.0, 0.0, 0.0, 10.0])])
def test_number_line_legend_sits_below_the_line_clear_of_every_point_and_label(row):
    figure, ax = drawn_number_line(row)
    renderer = figure.canvas.get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    line_y = ax.transData.transform((0, 0))[1]
    assert legend.y1 < line_y, "the legend is not below the number line"
    for label in ax.texts:
        box = label.get_window_extent(renderer)
        assert not legend.overlaps(box), f"the legend covers {label.get_text()}"
        assert ax.bbox.y0 <= box.y0 and box.y1 <= ax.bbox.y1, f"{label.get_text()} is cut by the frame"
        assert ax.bbox.x0 <= box.x0 and box.x1 <= ax.bbox.x1, f"{label.get_text()} is cut by the frame"
    for x in np.asarray(row, dtype=float):
        px, py = ax.transData.transform((x, 0))
        assert ax.bbox.contains(px, py), f"the value {x} is outside the frame"
        assert not legend.contains(px, py), f"the legend covers the value {x}"
    plt.close(figure)


def test_number_line_values_are_round_markers_on_a_horizontal_line_with_nothing_joining_them():
    figure, ax = drawn_number_line(X[1])
    points = value_points(ax)
    assert points.get_marker() == "o", "the values are not drawn as points"
    assert points.get_linestyle() in ("None", "none", ""), "a line joins the values"
    np.testing.assert_array_equal(points.get_ydata(), np.zeros(3))
    horizontal = [
        line for line in ax.lines if line is not points and len(set(np.asarray(line.get_ydata(), dtype=float))) == 1
    ]
    assert horizontal and all(float(line.get_ydata()[0]) == 0.0 for line in horizontal), (
        "the number line does not pass through the values"
    )
    plt.close(figure)


@pytest.mark.parametrize(
    "row", [[0.0, 0.0, 0.0, 10.0], [0.0, 10.0, 10.0, 10.0], [0.0] * 30 + [10.0], [10.0] * 30 + [0.0]]
)
def test_number_line_shows_the_whole_band_even_past_every_value(row):
    """Most values at one end: one std from the mean reaches past the other end's value (31 values: no labels,
    so no label's width widens the frame)."""
    x = np.asarray(row)
    mean, std = x.mean(), np.sqrt(x.var() + EPS)
    assert mean - std < x.min() or mean + std > x.max()  # the band reaches past a value
    figure, ax = drawn_number_line(x)
    left, right = ax.get_xlim()
    assert left < mean - std and mean + std < right, "an edge of the band is outside the frame"
    assert left < x.min() and x.max() < right
    plt.close(figure)


@pytest.mark.parametrize("row", [X[0], X[2], ROW_PADDING_FAILS])
def test_number_line_leader_lines_go_straight_up_from_each_value_to_just_under_its_label(row):
    figure, ax = drawn_number_line(row)
    (leaders,) = [c for c in ax.collections if c.get_segments() is not None and len(c.get_segments())]
    segments = leaders.get_segments()
    assert len(segments) == len(ax.texts) == len(row)
    for value, segment, label in zip(np.asarray(row, dtype=float), segments, ax.texts):
        (x0, y0), (x1, y1) = segment
        assert x0 == x1 == value == label.get_position()[0]
        assert 0 < y0 < y1 < label.get_position()[1], "the leader line does not run from the value up to its label"
    plt.close(figure)


def test_number_line_label_widths_are_the_widths_the_labels_are_drawn_with():
    """At a high resolution, where the drawn glyphs' hinting moves their widths by well under 1 %."""
    figure, ax = plt.subplots(figsize=(8, 2.8), layout="constrained", dpi=300)
    drawn_number_line(X[4], ax=ax)
    renderer = figure.canvas.get_renderer()
    texts = [label.get_text() for label in ax.texts]
    widths, padding = label_widths(ax, texts)
    drawn = [label.get_window_extent(renderer).width / ax.bbox.width for label in ax.texts]
    np.testing.assert_allclose(widths, drawn, rtol=0.008)
    assert padding == pytest.approx(3 / (ax.bbox.width * 72 / figure.dpi), rel=1e-6)  # 3 points, as a fraction
    plt.close(figure)


def label_clearances(ax, figure):
    """For each label: the least room, in points, between it and any vertical line or other label at its height."""
    renderer = figure.canvas.get_renderer()
    points_per_pixel = 72 / figure.dpi
    boxes = [label.get_window_extent(renderer) for label in ax.texts]
    vertical = [line for line in ax.lines if line.get_gid() != "values" and len(set(line.get_xdata())) == 1]
    assert len(vertical) == 3  # the mean and the band's two edges
    lines = [ax.transData.transform((line.get_xdata()[0], 0))[0] for line in vertical]
    lines = [x for x in lines if ax.bbox.x0 < x < ax.bbox.x1]
    room_left = []
    for k, box in enumerate(boxes):
        gaps = [min(abs(box.x0 - x), abs(box.x1 - x)) for x in lines if not box.x0 < x < box.x1]
        assert len(gaps) == len(lines), f"{ax.texts[k].get_text()} crosses a line"
        for other in boxes[:k] + boxes[k + 1 :]:
            if other.y0 < box.y1 and box.y0 < other.y1:  # the same height
                assert not box.overlaps(other), "two labels overlap"
                gaps.append(max(other.x0 - box.x1, box.x0 - other.x1))
        room_left.append(min(gaps) * points_per_pixel)
    return room_left


@pytest.mark.parametrize("row", range(5))
def test_number_line_keeps_room_beside_each_label_where_there_is_room(row):
    figure, ax = drawn_number_line(X[row])
    assert min(label_clearances(ax, figure)) >= 3 - 0.2  # the padding, less a rounding of the glyphs
    plt.close(figure)


def test_number_line_labels_clear_lines_and_each_other_with_no_room_to_spare():
    figure, ax = drawn_number_line(ROW_PADDING_FAILS)
    assert min(label_clearances(ax, figure)) >= 0
    plt.close(figure)


def test_number_line_labels_that_cannot_clear_each_other_sit_on_alternate_heights():
    figure, ax = drawn_number_line(ROW_NOTHING_FITS)
    order = np.argsort(ROW_NOTHING_FITS, kind="stable")
    heights = [ax.texts[k].get_position()[1] for k in order]
    assert all(a != b for a, b in zip(heights, heights[1:])), "two neighbours' labels at one height"
    assert all(label.get_horizontalalignment() == "center" for label in ax.texts)
    plt.close(figure)


def test_number_line_band_lets_the_number_line_show_through():
    figure, ax = drawn_number_line(X[0])
    image = np.asarray(figure.canvas.buffer_rgba())[:, :, :3].astype(int)
    x = np.asarray(X[0], dtype=float)
    mean, std = x.mean(), np.sqrt(x.var() + EPS)
    inside = mean - std / 2 if not np.any(np.abs(x - (mean - std / 2)) < std / 8) else mean + std / 2
    px, py = ax.transData.transform((inside, 0))
    row_of_line = image.shape[0] - int(round(py))
    column = int(round(px))
    on_line = image[row_of_line - 1 : row_of_line + 2, column]
    above = image[row_of_line - 12, column]  # in the band, off the line
    assert np.abs(on_line - above).sum(axis=1).max() > 30, "the band hides the number line"
    plt.close(figure)


def test_number_line_ticks_read_as_their_values():
    figure, ax = drawn_number_line([-0.02, -0.04, 0.04])
    locations = ax.xaxis.get_majorticklocs()
    step = locations[1] - locations[0]
    written = [label.get_text().replace("−", "-") for label in ax.get_xticklabels()]
    assert len(set(written)) == len(written)
    np.testing.assert_allclose([float(w) for w in written], locations, atol=step / 100)
    plt.close(figure)


def texts_inside_the_figure(figure):
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for ax in figure.axes:
        ticks = [tick.label1 for axis in (ax.xaxis, ax.yaxis) for tick in axis.get_major_ticks() if tick.get_visible()]
        shown = [tick for tick in ticks if tick.get_visible() and ax.bbox.overlaps(tick.get_window_extent(renderer))]
        for text in [ax.xaxis.label, ax.yaxis.label, ax.title, *shown]:
            if text.get_text():
                box = text.get_window_extent(renderer)
                assert figure.bbox.x0 <= box.x0 and box.x1 <= figure.bbox.x1, f"{text.get_text()!r} is cut"
                assert figure.bbox.y0 <= box.y0 and box.y1 <= figure.bbox.y1, f"{text.get_text()!r} is cut"


@pytest.mark.parametrize("row", [X[0], X[3]])
def test_number_line_title_and_axis_names_are_inside_its_figure(row):
    figure, _ = drawn_number_line(row)
    texts_inside_the_figure(figure)
    plt.close(figure)


@pytest.mark.parametrize(
    "row", [[-1e150, 2e150, 3.5e150], [-123456.789, -234567.891, -345678.912], [-1234.5678, 0.001, 98765.4321]]
)
def test_number_line_title_of_long_numbers_is_whole_inside_its_figure(row):
    figure, ax = drawn_number_line(np.array(row))
    texts_inside_the_figure(figure)
    record = helpers.layer_norm_steps(np.array(row))
    from helpers.display.number_line import numbers_title

    assert ax.get_title().replace(":\n", ": ") == f"The row on a number line: {numbers_title(record)}"
    plt.close(figure)


def test_figure_and_axes_makes_a_figure_of_the_size_asked_with_its_labels_inside():
    figure, ax = figure_and_axes(None, (3.0, 2.0))
    np.testing.assert_allclose(figure.get_size_inches(), (3.0, 2.0))
    ax.plot([-123456.0, 123456.0], [-98765.0, 98765.0])
    ax.set_xlabel("feature j")
    ax.set_ylabel("value per feature")
    ax.set_title("A title")
    texts_inside_the_figure(figure)
    plt.close(figure)
    given = plt.subplots()[1]
    assert figure_and_axes(given, (3.0, 2.0)) == (given.figure, given)


# ---------------------------------------------------------------------------------------------
# place_labels: each label nearest its point, clear of the circle, the frame and every other label


def labelled_scene(anchors, limits=(-4, 4, -4, 4), size=14):
    figure = Figure(figsize=(6, 6))
    ax = figure.subplots()
    ax.set_aspect("equal")
    ax.set_xlim(*limits[:2])
    ax.set_ylim(*limits[2:])
    labels = [
        ax.annotate(f"row {k + 1}", xy=a, xytext=a, fontsize=size, arrowprops={"arrowstyle": "-"})
        for k, a in enumerate(anchors)
    ]
    return figure, ax, labels


def data_boxes(ax, items):
    from matplotlib.text import Text

    figure = ax.figure
    figure.draw_without_rendering()
    renderer = figure._get_renderer()
    to_data = ax.transData.inverted()
    boxes = []
    for item in items:
        box = Text.get_window_extent(item, renderer) if isinstance(item, Text) else item.get_window_extent(renderer)
        boxes.append(Bbox(to_data.transform(box.get_points())))
    return boxes


def assert_placed_as_promised(ax, labels, anchors, radius, obstacles=(), gap=0.8):
    boxes = data_boxes(ax, labels)
    taken = data_boxes(ax, obstacles)
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    centres = [np.asarray(label.get_position(), dtype=float) for label in labels]
    for k, (box, centre, anchor) in enumerate(zip(boxes, centres, anchors)):
        np.testing.assert_allclose([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2], centre, atol=1e-6)
        assert room._nearest_distance(box) >= radius - 1e-9, f"label {k + 1} lies on the circle"
        assert x0 <= box.x0 and box.x1 <= x1 and y0 <= box.y0 and box.y1 <= y1, f"label {k + 1} is cut by the frame"
        padded = box.padded(gap * box.height - 1e-9)
        for other in taken + boxes[:k]:
            assert not padded.overlaps(other), f"label {k + 1} is too near another label or text"
        for j, other in enumerate(boxes):
            if j != k:
                assert not room._crosses(anchor, centre, other), f"label {k + 1}'s leader crosses label {j + 1}"
        for j in range(k):
            assert not numpy_segments_cross(anchor, centre, anchors[j], centres[j]), "two leader lines cross"
        nearest = numpy_distance_to_segment(anchor, centre, samples=2001)
        assert nearest >= min(radius, math.hypot(*anchor)) - 0.05 - 1e-3, f"label {k + 1}'s leader cuts the circle"


def test_a_label_with_nothing_in_its_way_goes_straight_outwards_just_clear_of_the_circle():
    radius = 1.5
    for degrees in (30.0, 135.0, -100.0):
        angle = math.radians(degrees)
        anchor = (1.4 * math.cos(angle), 1.4 * math.sin(angle))
        figure, ax, labels = labelled_scene([anchor])
        room.place_labels(ax, labels, [anchor], radius)
        cx, cy = labels[0].get_position()
        assert math.atan2(cy, cx) == pytest.approx(angle, abs=1e-9), "not along the point's direction"
        (box,) = data_boxes(ax, labels)
        assert radius <= room._nearest_distance(box) < radius + 0.05, "not the nearest clear place outwards"
        assert labels[0].get_horizontalalignment() == "center" and labels[0].get_verticalalignment() == "center"
        assert_placed_as_promised(ax, labels, [anchor], radius)


def test_a_label_whose_way_out_is_taken_turns_a_little_from_it():
    radius = 1.5
    anchor = (1.4, 0.0)
    figure, ax, labels = labelled_scene([anchor])
    blocker = ax.text(2.3, 0.0, "BLOCKED", fontsize=14, ha="center", va="center")
    room.place_labels(ax, labels, [anchor], radius, obstacles=[blocker])
    cx, cy = labels[0].get_position()
    turn = abs(math.atan2(cy, cx))
    assert 0.0 < turn <= math.radians(70), "turned more than 70° from its point's direction"
    assert_placed_as_promised(ax, labels, [anchor], radius, obstacles=[blocker])
    # no place at a smaller turn is clear: the label turned no further than it had to
    (box,) = data_boxes(ax, labels)
    assert math.hypot(cx, cy) < radius + 0.05 + math.hypot(box.width, box.height) / 2


def test_a_label_turns_away_from_the_side_an_obstacle_leans_to():
    radius = 1.5
    anchor = (1.4, 0.0)
    for lean, side in ((0.12, -1), (-0.12, 1)):
        figure, ax, labels = labelled_scene([anchor])
        blocker = ax.text(2.3, lean, "BLOCKED", fontsize=14, ha="center", va="center")
        room.place_labels(ax, labels, [anchor], radius, obstacles=[blocker])
        cx, cy = labels[0].get_position()
        assert np.sign(cy) == side, "turned towards the obstacle, not the short way round it"
        assert abs(math.atan2(cy, cx)) <= math.radians(70)
        assert_placed_as_promised(ax, labels, [anchor], radius, obstacles=[blocker])


def test_labels_all_round_the_circle_clear_each_other_and_their_leaders_do_not_cross():
    radius = 1.5
    angles = np.radians([0, 12, 95, 185, 300])
    anchors = [(1.45 * math.cos(a), 1.45 * math.sin(a)) for a in angles]
    figure, ax, labels = labelled_scene(anchors, size=16)
    room.place_labels(ax, labels, anchors, radius)
    assert_placed_as_promised(ax, labels, anchors, radius)
    for label, anchor in zip(labels, anchors):  # each outwards, on its own side of the circle
        cx, cy = label.get_position()
        turn = math.atan2(cy, cx) - math.atan2(anchor[1], anchor[0])
        assert abs(math.remainder(turn, 2 * math.pi)) <= math.radians(70)


def test_a_label_with_no_room_outwards_goes_to_the_nearest_clear_place():
    from matplotlib.patches import Rectangle

    radius = 1.5
    anchor = (0.3, 0.0)  # inside the circle, its way out covered by a wall of other content
    figure, ax, labels = labelled_scene([anchor])
    wall = ax.add_patch(Rectangle((0.5, -4), 3.5, 8, color="0.9"))
    room.place_labels(ax, labels, [anchor], radius, obstacles=[wall])
    cx, cy = labels[0].get_position()
    assert (cx, cy) != anchor, "the label was not placed"
    assert_placed_as_promised(ax, labels, [anchor], radius, obstacles=[wall])
    # just past the circle, beside the wall: the circle's radius from 0, less a little for the label's corner
    (box,) = data_boxes(ax, labels)
    assert math.hypot(cx - anchor[0], cy - anchor[1]) < radius + 2 * box.height + 0.1, "not the nearest clear place"
    assert cx < 0.5, "on the wall's side"


def test_a_label_with_no_clear_place_anywhere_stays_where_it_was():
    radius = 5.7  # the axes' corners are nearer 0 than that
    anchor = (1.0, 0.0)
    figure, ax, labels = labelled_scene([anchor])
    room.place_labels(ax, labels, [anchor], radius)
    assert tuple(labels[0].get_position()) == anchor
