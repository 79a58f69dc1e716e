"""``normalised_circle_text``: "each normalised row (and each extra point), its sum and its distance from 0".
An extra point is shown as it is, not normalised, so its sum is the sum of its own three values (6 for
1, 2, 3 - not 0, and not their mean 2) and its distance √(1 + 4 + 9). A matrix without 3 features is refused
with a sentence naming its shape. Expected values from numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from helpers import plots  # noqa: E402

EXTRA = np.array([[1.0, 2.0, 3.0], [-2.0, 0.5, 0.25]])


def table_rows(text):
    return {line.split()[0] + " " + line.split()[1]: line.split()[2:] for line in text.splitlines()[3:]}


def test_each_extra_point_has_its_own_values_sum_and_distance():
    text = plots.normalised_circle_text([[1.0, 2.0, 4.0]], extra_points=EXTRA, extra_label="published")
    rows = table_rows(text)
    for i, point in enumerate(EXTRA):
        values, total, distance = rows[f"published {i + 1}"][:3], *rows[f"published {i + 1}"][3:]
        assert [float(v) for v in values] == pytest.approx(point, abs=5e-5)
        assert float(total) == pytest.approx(point.sum(), abs=5e-5)
        assert float(distance) == pytest.approx(np.linalg.norm(point), abs=5e-5)
    assert rows["published 1"][3:] == ["6.0000", "3.7417"]


@pytest.mark.parametrize("shape", [(2, 4), (1, 2)])
def test_a_matrix_without_three_features_is_refused_naming_its_shape(shape):
    with pytest.raises(ValueError) as refused:
        plots.normalised_circle_text(np.ones(shape))
    assert str(refused.value) == f"The circle picture needs exactly 3 features per row; got shape {shape}."
