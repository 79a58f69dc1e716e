"""A room picture is sized in em so that its smallest text is exactly 1 em, never a hair under.

helpers/plots/room.py, room_svg: "sized in em so that its smallest text is 1 em of the page (its user units
scale with the page's text)"; the size is written to 4 decimals, rounded so that the picture is "never a
hair under". So width_em × (the smallest text's size) is at least the viewBox's width (and the same for
the height), and over it by less than one step of the fourth decimal.
"""

from __future__ import annotations

import re

import pytest

from helpers.plots.room import room_svg, smallest_text, svg_of


def sizes_in_em(svg: str) -> tuple[float, float]:
    width, height = re.search(r"width: ([0-9.]+)em; height: ([0-9.]+)em", svg).groups()
    return float(width), float(height)


def view_box(svg: str) -> tuple[float, float]:
    width, height = re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg).groups()
    return float(width), float(height)


HAND_MADE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="75.09pt" height="37.99pt" viewBox="0 0 100.123456 50.654321">'
    '<text style="font-size: 12px">a</text><text style="font-size: 20px">b</text></svg>'
)


def test_a_hand_made_picture_is_a_hair_over_its_view_box_at_one_em_per_smallest_text():
    unit = 12.0
    shown = room_svg(HAND_MADE, "two letters")
    width_em, height_em = sizes_in_em(shown)
    assert smallest_text(HAND_MADE) == unit
    for em, length in ((width_em, 100.123456), (height_em, 50.654321)):
        assert em * unit >= length
        assert em * unit - length < unit * 1e-4
    assert (width_em, height_em) == (8.3437, 4.2212)  # 100.123456 / 12 = 8.34362…, 50.654321 / 12 = 4.22119…


@pytest.mark.draws
def test_a_drawn_figure_is_never_under_its_view_box():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(3.3, 2.1))
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title", fontsize=17)
    ax.text(0.5, 0.5, "small", fontsize=9)
    try:
        svg = svg_of(figure)
    finally:
        plt.close(figure)
    unit = smallest_text(svg)
    shown = room_svg(svg, "a line")
    for em, length in zip(sizes_in_em(shown), view_box(svg)):
        assert length <= em * unit < length + unit * 1e-4
