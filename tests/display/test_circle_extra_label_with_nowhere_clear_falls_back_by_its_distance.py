"""``extra_label_place`` when every place round the cross overlaps an earlier label: "the side facing the
centre (below a point within 0.9 of it)". The label's centre then lies 0.9 from the cross towards (0, 0) - for
a cross farther than 0.9 from the centre - or 0.35 straight below a cross within 0.9 of it (the centre itself
included, which has no side facing it). Exactly 0.9 away counts as within.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from helpers import plots  # noqa: E402

EVERYWHERE = (-10.0, 10.0, -10.0, 10.0)  # an earlier label covering every place


def fallback(point):
    placed = [EVERYWHERE]
    centre = plots.extra_label_place(np.asarray(point, dtype=float), "published 1", [], placed, 8)
    return np.asarray(centre, dtype=float), placed


@pytest.mark.parametrize(
    ("point", "expected"),
    [
        ((2.0, 0.0), (1.1, 0.0)),
        ((0.0, -1.8), (0.0, -0.9)),
        ((0.0, 0.95), (0.0, 0.05)),
        ((0.9, 0.0), (0.9, -0.35)),
        ((0.3, 0.4), (0.3, 0.05)),
        ((0.0, 0.0), (0.0, -0.35)),
    ],
)
def test_with_nowhere_clear_the_label_goes_towards_the_centre_or_below_a_cross_near_it(point, expected):
    centre, placed = fallback(point)
    np.testing.assert_allclose(centre, expected, atol=1e-12)
    assert len(placed) == 2  # its box is still kept, for the labels placed after it
    box = placed[-1]
    np.testing.assert_allclose([(box[0] + box[1]) / 2, (box[2] + box[3]) / 2], expected, atol=1e-12)
