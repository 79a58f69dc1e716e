"""The row editor's number line as inline SVG (helpers.display.number_line): what it draws is where the
numbers say, its words are text, it is named for a screen reader, and nothing in it overlaps.

Expected positions are computed from plain numpy; the picture is read back by parsing the SVG.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import helpers
from helpers.display import number_line as nl

from conftest import EPS, examples
from conftest import LESSON_X as X

SVG = "{http://www.w3.org/2000/svg}"


def parse(record):
    svg = nl.number_line_svg(record)
    return svg, ET.fromstring(svg)


def vertical_lines(root) -> list[float]:
    return sorted(float(line.get("x1")) for line in root.iter(f"{SVG}line") if line.get("y2") == str(nl.AXIS_Y + 6))


def text_of(root) -> str:
    return " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


@pytest.mark.parametrize("row", range(5))
def test_the_lines_sit_at_the_mean_and_one_std_either_side(row):
    x = X[row]
    record = helpers.layer_norm_steps(x)
    svg, root = parse(record)
    mean, std = x.mean(), math.sqrt(x.var() + EPS)
    layout = nl.NumberLineLayout(record)
    # The axis maps values to pixels linearly: two ticks fix the map; the lines must sit where it puts them.
    ticks = [
        (float(t.get("x")), float("".join(t.itertext())))
        for t in root.iter(f"{SVG}text")
        if re.fullmatch(r"-?\d+(\.\d+)?", "".join(t.itertext()))
    ]
    assert len(ticks) >= 2, ticks
    (x0, v0), (x1, v1) = ticks[0], ticks[-1]
    px = lambda v: x0 + (v - v0) * (x1 - x0) / (v1 - v0)  # noqa: E731
    np.testing.assert_allclose(vertical_lines(root), [px(mean - std), px(mean), px(mean + std)], atol=0.11)
    words = text_of(root)
    assert f"mean μ = {mean:.4f}" in words and f"√(σ² + ε) = {std:.4f}" in words
    labels = ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") == "value-label"]
    assert sorted(labels) == sorted(f"x{j + 1} = {x[j]:.3f}" for j in range(3))
    assert root.find(f"{SVG}path[@class='values']").get("data-count") == "3"
    assert layout.points_px == pytest.approx([px(v) for v in x], abs=0.11)


def test_it_is_a_named_picture_whose_words_are_text():
    record = helpers.layer_norm_steps(X[4])
    svg, root = parse(record)
    assert root.get("role") == "img"
    assert root.get("aria-label") == nl.number_line_alt(record) == root.find(f"{SVG}title").text
    assert "<image" not in svg and "base64" not in svg  # no raster inside
    assert 'viewBox="0 0 600 168"' in svg and "max-width:100%" in svg  # scales down on a narrow output


def label_boxes(layout):
    boxes = []
    for text, x, baseline, anchor in layout.labels:
        width = len(text) * nl.CHARACTER_PX
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        boxes.append((left, left + width, baseline - nl.LABEL_FONT_PX, baseline + 3, x))
    return boxes


@settings(max_examples=examples(60, fast=15), deadline=None)
@given(
    st.lists(
        st.floats(min_value=-1e6, max_value=1e6, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-6),
        min_size=2,
        max_size=12,
    ).filter(lambda values: np.ptp(values) > 1e-3 * (max(abs(v) for v in values) or 1))
)
def test_labels_cross_no_line_no_leader_and_no_other_label_and_stay_inside(values):
    """Whenever label_places finds room (it says so by not falling back to the staggered places)."""
    record = helpers.layer_norm_steps(np.array(values))
    layout = nl.NumberLineLayout(record)
    points = [float(p) for p in layout.points_px]
    widths = [len(t) * nl.CHARACTER_PX for t in layout.texts]
    limits = (float(nl.PLOT_LEFT), float(nl.PLOT_RIGHT))
    if nl.label_places(points, widths, 0.0, layout.lines_px, limits) is None:
        return  # crowded: staggered, said by the text twin
    boxes = label_boxes(layout)
    for k, (left, right, top, _bottom, _) in enumerate(boxes):
        assert nl.PLOT_LEFT - 0.01 <= left and right <= nl.PLOT_RIGHT + 0.01, "a label sticks out"
        assert not any(left < line < right for line in layout.lines_px), "a label crosses a line"
        for j, (other_left, other_right, other_top, _other_bottom, other_x) in enumerate(boxes):
            if j == k:
                continue
            if top == other_top:
                assert right <= other_left or other_right <= left, "two labels overlap"
            if other_top >= top:  # a leader runs from the axis up to its own label: only higher labels' cross
                continue
            assert not (left < other_x < right), "a leader line crosses a label"


@pytest.mark.parametrize(
    "row, shown",
    [
        ([1e150, 2e150, 3.5e150], "2.1667e+150"),
        ([1e-300, 2e-300, 4e-300], "2.3333e-300"),
    ],
)
def test_any_magnitude_reads_in_the_shared_format(row, shown):
    record = helpers.layer_norm_steps(np.array(row))
    _, root = parse(record)
    words = text_of(root)
    assert f"mean μ = {shown}" in words
    for text in root.iter(f"{SVG}text"):  # no label longer than a line of the picture holds
        assert len("".join(text.itertext())) < 90


def test_a_long_row_is_one_path_and_costs_one_element():
    row = np.random.default_rng(1).normal(size=768)
    svg, root = parse(helpers.layer_norm_steps(row))
    assert root.find(f"{SVG}path[@class='values']").get("data-count") == "768"
    assert not [t for t in root.iter(f"{SVG}text") if t.get("class") == "value-label"]
    assert len(svg) < 60_000


def test_the_same_record_gives_the_same_picture():
    record = helpers.layer_norm_steps(X[0], eps=1e-3)
    assert nl.number_line_svg(record) == nl.number_line_svg(helpers.layer_norm_steps(X[0], eps=1e-3))
