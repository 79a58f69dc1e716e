"""The gallery's ε column (helpers.forensics.display): the ε its fingerprint measured, to 3 significant digits
(as the fingerprint's own ε row says it), never the measurement's last digits, and 0 for no ε."""

from __future__ import annotations

import re

import numpy as np

from helpers.forensics.gallery import GalleryEntry
from helpers.forensics.table import compare_gallery

from conftest import LESSON_X


def _layer_norm(eps):
    def fn(x):
        x = np.asarray(x, dtype=np.float64)
        u = x - x.mean(-1, keepdims=True)
        return u / np.sqrt((u * u).mean(-1, keepdims=True) + eps)

    return fn


def test_the_eps_cell_has_three_significant_digits():
    entries = [GalleryEntry("odd ε", _layer_norm(1.23456e-5), "made up"), GalleryEntry("no ε", _layer_norm(0.0), "")]
    comparison = compare_gallery(LESSON_X, entries)
    assert abs(comparison.results[0].fingerprint.eps / 1.23456e-5 - 1) < 1e-6  # measured to far more digits
    lines = str(comparison).splitlines()
    odd, none = (re.split(r" {2,}", line.strip()) for line in lines[2:4])
    assert odd[:7] == ["odd ε", "✗ no", "ε value", "yes", "÷ n", "inside √", "1.23e-05"]
    assert none[:7] == ["no ε", "✗ no", "no ε", "yes", "÷ n", "none", "0"]
