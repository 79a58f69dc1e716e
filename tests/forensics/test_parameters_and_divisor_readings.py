"""Two judgements the fingerprint makes on the way: a module whose γ is all ones but whose β is not has its β
read from its parameters and taken away (helpers.forensics.affine.measure); and of the two divisor readings
the wide rows give (ε inside the root, ε added to the std), the one nearer n *or* n − 1 is kept
(helpers.forensics.judge._divisor)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.forensics import fingerprint
from helpers.forensics.judge import _divisor


def _layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(-1, keepdims=True)
    return u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-5)


class OnesAndABias:
    """nn.LayerNorm's layout with γ = 1 everywhere and a β per feature."""

    weight = np.ones(4)
    bias = np.array([0.5, -0.25, 0.0, 1.0])

    def __call__(self, x):
        return _layer_norm(x) * self.weight + self.bias


def test_a_beta_beside_a_gamma_of_ones_is_read_and_taken_away():
    found = fingerprint(OnesAndABias(), "biased", time_limit=None)
    m = found.measured
    assert found.is_layer_norm is True and found.matches_torch is True
    assert m.gamma_source == "parameters" and m.affine_undone is True
    assert m.beta_measured == pytest.approx((0.5, -0.25, 0.0, 1.0), abs=1e-12)
    assert (found.variance, found.eps_placement) == ("biased", "inside sqrt")
    assert found.eps == pytest.approx(1e-5, rel=1e-6)


def test_the_reading_nearer_n_minus_1_is_kept_though_the_other_is_nearer_n():
    """n = 4: ε inside the root reads k = 3 (n − 1 exactly), ε added to the std k = 4.5 (nearer n than 3 is)."""
    uu_wide, uu_middle, n = 100.0, 25.0, 4
    # 1/s_wide − 1/s_middle = (10 − 5)/√4.5 and 1/s_wide² − 1/s_middle² = 75/3: solve for the two
    difference = 5 / math.sqrt(4.5)
    total = 25 / difference
    a, b = (total + difference) / 2, (total - difference) / 2
    assert _divisor(uu_wide, uu_middle, 1 / a, 1 / b, n) == pytest.approx(3.0, rel=1e-12)
