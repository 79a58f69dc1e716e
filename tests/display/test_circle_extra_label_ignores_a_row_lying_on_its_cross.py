"""``extra_label_place``: a label must be nearer its own cross than any *other* marker - and a row's point
lying on the cross (within 0.25 of it, exactly 0.25 included) is by it too, not another marker: the label
then takes the first place, 0.55 from the cross towards the centre. A marker just past 0.25 is another one.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from helpers import plots  # noqa: E402

CROSS = np.array([2.0, 0.0])
FIRST_PLACE = (1.45, 0.0)  # 0.55 from the cross, on the side facing the centre


@pytest.mark.parametrize("row", [(2.1, 0.0), (2.0, 0.2), (1.75, 0.0)])
def test_a_row_on_the_cross_does_not_push_its_label_away(row):
    placed = []
    centre = plots.extra_label_place(CROSS, "published 1", [np.array(row)], placed, 8)
    np.testing.assert_allclose(centre, FIRST_PLACE, atol=1e-12)
    assert len(placed) == 1


def test_a_marker_just_past_a_quarter_away_is_another_marker():
    centre = plots.extra_label_place(CROSS, "published 1", [np.array([1.74, 0.0])], [], 8)
    assert not np.allclose(centre, FIRST_PLACE)
    assert np.linalg.norm(np.asarray(centre) - CROSS) < np.linalg.norm(np.asarray(centre) - [1.74, 0.0])
