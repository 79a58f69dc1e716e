"""helpers.display.number_line: where the row editor's picture puts things, and its text and one-sentence twins.

From the module's docstrings: the band is mean ± √(σ² + ε); ticks are round values (1, 2, 2.5 or 5 times a power of
ten, at most 6 over the axis), written in the shared number format with places enough to tell them apart, and a
label that would stick out of the picture is left out; the outermost value leaves room at the side for the widest
label; every value is one dot of one path, dots at the same pixel drawn once; a label crosses no line, no other
label and no leader, and stays inside its limits, or, when nothing fits, labels are centred with neighbours on
different heights. Expected values are worked out here from those rules, not read back from the layout.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import helpers
from helpers.display import number_line as nl
from helpers.display.formatting import format_number, format_row

from conftest import LESSON_X as X

SVG = "{http://www.w3.org/2000/svg}"
PLOT_WIDTH = nl.PLOT_RIGHT - nl.PLOT_LEFT


def round_step(span: float) -> float:
    """The smallest of 1, 2, 2.5 and 5 times a power of ten that gives at most 6 ticks over ``span``."""
    power = math.floor(math.log10(span / 6))
    candidates = [f * 10.0**p for p in (power - 1, power, power + 1) for f in (1, 2, 2.5, 5)]
    return min(step for step in candidates if step * 6 >= span * (1 - 1e-12))


@pytest.mark.parametrize("span", [1.0, 1.3, 6.0, 36.0, 60.0, 0.0042, 250.0, 7e-7])
def test_a_tick_step_is_the_smallest_round_step_giving_at_most_6_ticks(span):
    assert nl.nice_step(span) == pytest.approx(round_step(span), rel=1e-12)


@pytest.mark.parametrize(
    "step, places", [(2.5, 1), (0.25, 2), (0.5, 1), (1.0, 0), (20.0, 0), (2e-6, 6), (5e-7, 7), (2.5e-6, 7), (1e-11, 11)]
)
def test_tick_places_are_enough_to_tell_the_ticks_apart(step, places):
    assert nl.tick_places(step) == places


@pytest.mark.parametrize("row", [[1e-13, 2e-13, 4e-13], [-7e-15, 3e-15, 9e-15, 1e-14]], ids=["1e-13s", "1e-15s"])
def test_ticks_too_close_for_fixed_places_are_told_apart_as_the_values_are(row):
    """With ε = 0 a row of 1e-13s has its own std: its round ticks are closer than the most places a line holds
    (formatting.MOST_PLACES), so they are written as the values themselves are, in scientific notation."""
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(row, eps=0.0))
    texts = [text for _, text in layout.ticks()]
    assert len(texts) >= 2 and len(set(texts)) == len(texts), texts
    assert all(float(text) == 0.0 or "e-" in text for text in texts), texts
    assert all("e-" in text for text in layout.texts), layout.texts  # the values' own labels, for comparison


def rows():
    """The lesson's rows, and rows whose ticks sit near the picture's edges at several magnitudes."""
    return [
        X[0],
        X[2],
        np.array([0.0, 10.0, 11.0, 12.0]),
        np.array([-3.0, 40.0, 7.5]),
        np.array([1e150, 2e150, 3.5e150]),
        np.array([-0.001, -0.007]),
        np.array([-0.042, -0.024]),
        np.array([259.209, -75.721, -698.736]),
        np.array([-3573.118, -5658.834, -4911.272]),
    ]


@pytest.mark.parametrize("row", rows(), ids=range(len(rows())))
def test_the_ticks_are_every_round_value_whose_label_fits_inside_the_picture(row):
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(row))
    px_per_value = PLOT_WIDTH / ((layout.high - layout.low) * layout.scale)
    low, high = layout.low * layout.scale, layout.high * layout.scale  # the axis's ends, at PLOT_LEFT and PLOT_RIGHT
    step = round_step(high - low)
    places = nl.tick_places(step)
    expected = []
    for k in range(math.ceil(low / step), math.floor(high / step) + 1):
        text = format_number(k * step, places)
        x = nl.PLOT_LEFT + (k * step - low) * px_per_value
        half = len(text) * 0.62 * 10.5 / 2  # 10.5 px monospace, 0.62 em a character
        if half <= x <= nl.WIDTH - half:
            expected.append((pytest.approx(x, abs=1e-6), text))
    assert layout.ticks() == expected and len(expected) >= 2


def test_the_outermost_values_leave_room_for_the_widest_label_on_each_side():
    """The widest label, padded on both sides, fits between the picture's edge and the outermost value or line."""
    for row in X:
        layout = nl.NumberLineLayout(helpers.layer_norm_steps(row))
        room = max(len(text) for text in layout.texts) * nl.CHARACTER_PX + 2 * nl.LABEL_PADDING_PX
        drawn = [*layout.points_px, *layout.lines_px]
        assert min(drawn) - nl.PLOT_LEFT == pytest.approx(room, abs=1e-9)
        assert nl.PLOT_RIGHT - max(drawn) == pytest.approx(room, abs=1e-9)


def test_a_long_row_has_no_labels_and_a_narrow_margin_of_6_percent_of_its_spread():
    row = np.linspace(-1.0, 2.0, 40)
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(row))
    assert layout.texts == [] and layout.labels == []
    drawn = [*layout.points_px, *layout.lines_px]
    spread = max(drawn) - min(drawn)
    assert min(drawn) - nl.PLOT_LEFT == pytest.approx(0.06 * spread, rel=1e-9)
    assert nl.PLOT_RIGHT - max(drawn) == pytest.approx(0.06 * spread, rel=1e-9)


@pytest.mark.parametrize("row", [[1.0, 1.0, 1.0], [2.0, 2.0 + 1e-4, 2.0 - 1e-4], [-5.0, 5.0]])
def test_the_band_and_every_value_lie_inside_the_axis(row):
    """A constant row's band (±√ε) is wider than its values: it sets the axis's ends."""
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(np.array(row)))
    for x in (*layout.points_px, *layout.lines_px):
        assert nl.PLOT_LEFT < x < nl.PLOT_RIGHT


def parse(record):
    return ET.fromstring(nl.number_line_svg(record))


def no_stray_text(element: ET.Element) -> None:
    """Words only inside <text> and <title>: nothing between the other elements."""
    for node in element.iter():
        if node.tag not in (f"{SVG}text", f"{SVG}title"):
            assert (node.text or "").strip() == "", node.tag
        assert (node.tail or "").strip() == "", node.tag


def test_the_picture_has_no_words_outside_its_text_elements():
    for row in (X[0], np.linspace(0, 1, 30)):
        no_stray_text(parse(helpers.layer_norm_steps(row)))


def test_the_band_is_a_shaded_box_between_its_dashed_edges_as_tall_as_the_lines():
    root = parse(helpers.layer_norm_steps(X[1]))
    band = root.find(f"{SVG}rect")
    lines = [line for line in root.findall(f"{SVG}line") if line.get("y2") == str(nl.AXIS_Y + 6)]
    left, mean, right = sorted(lines, key=lambda line: float(line.get("x1")))
    assert float(band.get("x")) == pytest.approx(float(left.get("x1")), abs=0.05)
    assert float(band.get("x")) + float(band.get("width")) == pytest.approx(float(right.get("x1")), abs=0.1)
    assert float(band.get("y")) == float(left.get("y1")) and float(band.get("y")) + float(band.get("height")) == float(
        left.get("y2")
    )
    assert left.get("stroke-dasharray") and right.get("stroke-dasharray") and not mean.get("stroke-dasharray")


def test_the_tick_marks_are_one_path_with_a_short_mark_under_each_tick():
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(X[0]))
    root = parse(helpers.layer_norm_steps(X[0]))
    marks = [p for p in root.findall(f"{SVG}path") if p.get("stroke") == "#555"]
    (path,) = marks
    assert path.get("d") == "".join(f"M{x:.1f} {nl.AXIS_Y}v5" for x, _ in layout.ticks())


def test_each_leader_runs_from_above_the_axis_up_to_just_below_its_label():
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(X[0]))
    root = parse(helpers.layer_norm_steps(X[0]))
    (leaders,) = [p for p in root.findall(f"{SVG}path") if p.get("stroke") == "#777"]
    assert re.fullmatch(r"(M[-\d.]+ [-\d.]+V[-\d.]+)+", leaders.get("d"))
    runs = re.findall(r"M([-\d.]+) ([-\d.]+)V([-\d.]+)", leaders.get("d"))
    assert len(runs) == len(layout.labels)
    for (x, start, end), (_, label_x, baseline, _) in zip(runs, layout.labels):
        assert float(x) == pytest.approx(label_x, abs=0.05)
        assert baseline < float(end) < float(start) < nl.AXIS_Y  # up from the axis, stopping under the text


def dots(root):
    """Each dot of the values' path: its centre and the radii and moves that draw it."""
    path = root.find(f"{SVG}path[@class='values']")
    number = r"(-?[\d.]+)"
    one = rf"M{number} {number}m{number} 0a{number} {number} 0 1 0 {number} 0a{number} {number} 0 1 0 {number} 0"
    d = path.get("d")
    assert re.fullmatch(rf"(?:{one})+", d)
    found = [[float(v) for v in m] for m in re.findall(one, d)]
    return path, found


@pytest.mark.parametrize("count, small", [(3, False), (12, False), (13, True), (768, True)])
def test_every_value_is_a_round_dot_small_and_see_through_only_for_a_long_row(count, small):
    row = np.sin(np.arange(count) * 1.7) * 3
    record = helpers.layer_norm_steps(row)
    layout = nl.NumberLineLayout(record)
    path, found = dots(parse(record))
    radius = 3.0 if small else 4.5
    for _cx, cy, move, rx, ry, across, rx2, ry2, back in found:
        assert cy == nl.AXIS_Y and (move, across, back) == (-radius, 2 * radius, -2 * radius)
        assert rx == ry == rx2 == ry2 == radius
    assert (path.get("fill-opacity") is not None) == small and path.get("stroke") == "#000"
    centres = np.array([d[0] for d in found])
    points = np.asarray(layout.points_px)
    assert all(np.min(np.abs(centres - p)) <= 0.25 + 0.05 for p in points)  # every value has its dot
    assert all(np.min(np.abs(points - c)) <= 0.25 + 0.05 for c in centres)  # every dot is a value's
    assert np.all(np.diff(np.sort(centres)) >= 0.5 - 1e-9)  # one dot per half pixel


def test_the_legend_stays_inside_the_picture():
    root = parse(helpers.layer_norm_steps(X[0]))
    legend = root.findall(f"{SVG}g")[-1]
    for item in legend:
        xs = [float(item.get(a)) for a in ("x", "cx", "x1", "x2") if item.get(a) is not None]
        ys = [float(item.get(a)) for a in ("y", "cy", "y1", "y2") if item.get(a) is not None]
        extra_y = float(item.get("height") or item.get("r") or 0)
        assert all(0 <= x <= nl.WIDTH for x in xs) and all(0 <= y and y + extra_y <= nl.HEIGHT for y in ys)
        assert all(y > nl.AXIS_Y + 17 for y in ys)  # under the tick labels
    circle, _, line, _, band, _ = legend
    assert float(circle.get("cx")) - float(circle.get("r")) >= nl.PLOT_LEFT  # it starts where the axis starts
    assert line.get("x1") == line.get("x2")  # the mean's mark: a vertical line, as in the picture
    centre = float(circle.get("cy"))
    assert (float(line.get("y1")) + float(line.get("y2"))) / 2 == centre  # the swatches on one line
    assert abs(float(band.get("y")) + float(band.get("height")) / 2 - centre) <= 0.5


def test_the_tick_labels_sit_under_the_axis_and_its_marks():
    root = parse(helpers.layer_norm_steps(X[0]))
    (labels,) = [g for g in root.findall(f"{SVG}g") if g.get("font-size") == "10.5"]
    assert all(float(text.get("y")) > nl.AXIS_Y + 5 + 10.5 / 2 for text in labels)


def record_of(row, eps=1e-5):
    return helpers.layer_norm_steps(np.array(row, dtype=float), eps=eps)


def test_the_text_twin_lists_the_values_mean_std_and_the_band_with_the_values_inside_it():
    row = [1.0, 2.0, 6.0]
    record = record_of(row)
    mean, std = np.mean(row), math.sqrt(np.var(row) + 1e-5)
    assert nl.number_line_text(record).splitlines() == [
        f"values x:       {format_row(np.array(row))}",
        f"mean μ:         {format_number(mean)}",
        f"std √(σ² + ε):  {format_number(std)}   (eps = 1e-05)",
        f"mean ± 1 std:   {format_number(mean - std)} to {format_number(mean + std)}, holding 2 of 3 values",
    ]


def test_a_value_on_the_edge_of_the_band_is_inside_it():
    """With eps = 0 a row of two values has them exactly one standard deviation from the mean."""
    record = record_of([-1.0, 1.0], eps=0.0)
    assert nl.number_line_text(record).endswith("holding 2 of 2 values")
    assert nl.number_line_alt(record).endswith("holding 2 of 2 values.")


@pytest.mark.parametrize("count", [3, 12])
def test_the_sentence_lists_every_value_of_a_row_it_labels(count):
    row = np.arange(count, dtype=float) - 1.5
    alt = nl.number_line_alt(record_of(row))
    assert alt.startswith(f"Number line of the row: values {', '.join(format_number(v) for v in row)}; mean μ ")


def test_labels_that_do_not_fit_beside_a_limit_start_or_end_at_their_value():
    """Label of width 10 at 1 in (0, 100): centred it would stick out on the left, so it starts at its value."""
    assert nl.label_places([1.0], [10.0], 0.0, [], (0.0, 100.0)) == [(0, "left")]
    assert nl.label_places([99.0], [10.0], 0.0, [], (0.0, 100.0)) == [(0, "right")]


def test_when_nothing_fits_labels_are_centred_and_neighbours_on_different_heights():
    values = [1.0, 3.0, 5.0, 2.0]
    places = nl.staggered_label_places(values)
    assert all(align == "center" for _, align in places)
    by_value = [places[i][0] for i in np.argsort(values)]
    assert all(a != b for a, b in zip(by_value, by_value[1:]))
    assert {height for height, _ in places} <= set(range(len(nl.LABEL_BASELINES)))
