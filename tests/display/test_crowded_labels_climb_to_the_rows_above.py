"""label_places uses the label rows above the lowest when neighbours crowd (helpers.display.number_line).

"A height (an index into the label rows, lowest first) and an alignment ... for each value's label, such that no
label crosses a vertical line in ``lines``, another label, or another value's leader line ... None when no such
places are found." Three 50-px labels over values 10 px apart cannot share one row, but fit on three; labels far
apart stay on the lowest row, centred over their values (the first choice). The rules are checked here by hand.
"""

from __future__ import annotations

from helpers.display import number_line as nl

CROWDED = [100.0, 110.0, 120.0]
WIDTH = 50.0
LIMITS = (0.0, 600.0)


def extent(value, align):
    start = {"center": value - WIDTH / 2, "left": value, "right": value - WIDTH}[align]
    return start, start + WIDTH


def test_crowded_labels_are_placed_on_more_than_one_row_crossing_nothing():
    places = nl.label_places(CROWDED, [WIDTH] * 3, 0.0, [], LIMITS)
    assert places is not None
    assert len({height for height, _ in places}) > 1
    boxes = [(height, *extent(value, align)) for value, (height, align) in zip(CROWDED, places)]
    for i, (height, left, right) in enumerate(boxes):
        assert LIMITS[0] <= left and right <= LIMITS[1]
        for j, (other_height, other_left, other_right) in enumerate(boxes):
            if i == j:
                continue
            if height == other_height:
                assert right <= other_left or other_right <= left  # no two labels on one row overlap
            if other_height < height:  # my leader runs up past the lower label: it must not cross it
                assert not other_left < CROWDED[i] < other_right


def test_labels_far_apart_stay_on_the_lowest_row_centred():
    assert nl.label_places([100.0, 300.0], [WIDTH] * 2, 0.0, [], LIMITS) == [(0, "center"), (0, "center")]


def test_a_vertical_line_under_a_centred_label_moves_it_beside_its_value():
    height, align = nl.label_places([100.0], [WIDTH], 0.0, [110.0], LIMITS)[0]
    left, right = extent(100.0, align)
    assert not left < 110.0 < right and align == "right"
