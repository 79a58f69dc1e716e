"""A number line moved to a new row shows that row only (helpers.plots.number_line.NumberLine).

"The artists of one number line in ``ax``, made once; :meth:`update` moves them to a new record." Moved from
one row to another, the picture is the new row's, as a fresh number line of it would be: its value labels,
its points and leader lines, its title, and nothing left over from the row before.
"""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # headless for this test process only

import matplotlib.pyplot as plt  # noqa: E402
from figures_support import close_figures  # noqa: E402, F401 — Agg, and every figure closed after each test

import helpers  # noqa: E402
from helpers.plots.number_line import NumberLine  # noqa: E402

pytestmark = pytest.mark.draws


def shown(ax):
    return sorted(t.get_text() for t in ax.texts), ax.get_title(), len(ax.collections[-1].get_segments())


def fresh(record):
    _, ax = plt.subplots(figsize=(8, 2.8), layout="constrained")
    NumberLine(ax).update(record)
    return shown(ax)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ([1.133, -0.299, 0.503], [0.2, 0.4, 0.1]),  # as many values
        ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.5, -0.5, 2.0]),  # fewer values
        ([3.0, 1.0], [np.pi, 1.0, -1.0, 2.5]),  # more values
    ],
)
def test_a_line_moved_to_another_row_shows_that_row_as_a_fresh_one_would(first, second):
    _, ax = plt.subplots(figsize=(8, 2.8), layout="constrained")
    line = NumberLine(ax)
    line.update(helpers.layer_norm_steps(first))
    line.update(helpers.layer_norm_steps(second))
    assert shown(ax) == fresh(helpers.layer_norm_steps(second))
    np.testing.assert_array_equal(line.points.get_xdata(), second)
