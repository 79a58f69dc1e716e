"""``invariance_table`` labels each row ``a · x + b`` with the case's own scale and shift in ``g`` format, so a
fractional or a large shift reads as it was given."""

import numpy as np

from helpers.lessons.numerics import moments as numerics

ROW = np.array([0.663, 0.779, 0.648])


def test_a_fractional_shift_keeps_its_fraction():
    cases = numerics.shift_scale_invariance(ROW, shifts=(0.5, 2.25), scales=(1.0,))
    assert numerics.invariance_table(cases)[1] == ["1 · x + 0.5", "1 · x + 2.25"]


def test_a_large_shift_and_a_small_scale_read_in_g_format():
    cases = numerics.shift_scale_invariance(ROW, shifts=(1_500_000.0,), scales=(0.25, 0.0001))
    assert numerics.invariance_table(cases)[1] == ["0.25 · x + 1.5e+06", "0.0001 · x + 1.5e+06"]


def test_every_shift_comes_with_every_scale_shift_by_shift():
    cases = numerics.shift_scale_invariance(ROW, shifts=(0.0, 0.5, 7.0), scales=(1.0, 0.5))
    assert [(c.shift, c.scale) for c in cases] == [
        (0.0, 1.0),
        (0.0, 0.5),
        (0.5, 1.0),
        (0.5, 0.5),
        (7.0, 1.0),
        (7.0, 0.5),
    ]
    assert numerics.invariance_table(cases)[1] == [
        "1 · x + 0",
        "0.5 · x + 0",
        "1 · x + 0.5",
        "0.5 · x + 0.5",
        "1 · x + 7",
        "0.5 · x + 7",
    ]
