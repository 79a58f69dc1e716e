"""Each value's label on the number line names that value and sits over it (helpers.display.number_line).

label_texts: "``x1 = 1.230``" for the row's first value, and so on in the row's order; NumberLineLayout.labels is
"(text, x of its value, baseline y, text-anchor)". A row whose values are not in order tells a label moved to
another value's place, or numbered by its rank instead of its position, from the right one.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

import helpers
from helpers.display import number_line as nl

SVG = "{http://www.w3.org/2000/svg}"
ROWS = [[3.0, -1.0, 0.5], [0.25, 2.0, -3.5, 1.0], [5.0, 1.0]]


@pytest.mark.parametrize("row", ROWS)
def test_each_label_names_its_value_by_its_place_in_the_row_and_sits_at_its_pixel(row):
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(row))
    assert [text for text, *_ in layout.labels] == [f"x{j + 1} = {v:.3f}" for j, v in enumerate(row)]
    for (_, x, _, _), value, point in zip(layout.labels, row, layout.points_px):
        assert x == pytest.approx(float(layout.x(value)), abs=1e-9) == pytest.approx(float(point), abs=1e-9)


@pytest.mark.parametrize("row", ROWS)
def test_in_the_svg_each_label_stands_on_its_own_values_leader(row):
    root = ET.fromstring(nl.number_line_svg(helpers.layer_norm_steps(row)))
    labels = [t for t in root.iter(f"{SVG}text") if t.get("class") == "value-label"]
    leaders = next(p for p in root.iter(f"{SVG}path") if p.get("stroke") == "#777").get("d")
    leader_x = [float(x) for x in re.findall(r"M(-?[\d.]+) ", leaders)]
    layout = nl.NumberLineLayout(helpers.layer_norm_steps(row))
    assert len(labels) == len(row) == len(leader_x)
    for j, (label, value) in enumerate(zip(labels, row)):
        assert label.text == f"x{j + 1} = {value:.3f}"
        assert float(label.get("x")) == pytest.approx(float(layout.x(value)), abs=0.051)
        assert float(label.get("x")) in leader_x  # a leader line runs up to it
