"""The evidence table's constant-row cell (helpers/forensics/fingerprint_view.py): what a row of equal values
gave, in the probe's own words, shown whole ("zeros", "ones", "values other than 0", "NaN or infinity"); only
a problem sentence, which would not fit the cell, is shortened to "an error". A LayerNorm that does not centre
is asked about a row of zeros instead."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics import fingerprint
from helpers.forensics.fingerprint_view import fingerprint_rows

EVIDENCE = "constant-row probe: 0 ÷ √(0 + ε) is 0 with an ε; 0 ÷ 0 without one"


def _layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(-1, keepdims=True)
    return u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-5)


def _equal_rows_give(value):
    """A LayerNorm that answers ``value`` on every feature of a row of equal values (and only there)."""

    def fn(x):
        x = np.asarray(x, dtype=np.float64)
        return np.where(np.ptp(x, axis=-1, keepdims=True) == 0, value, _layer_norm(x))

    return fn


def _cell(fn, label="a row of equal values"):
    found = fingerprint(fn, "f", time_limit=None)
    assert found.is_layer_norm is True, found.not_layer_norm_because
    (row,) = [r for r in fingerprint_rows(found) if r[0] == label]
    return row


@pytest.mark.parametrize(
    "value, words",
    [(0.5, "values other than 0"), (1.0, "ones"), (0.0, "zeros"), (np.nan, "NaN or infinity")],
)
def test_what_a_row_of_equal_values_gave_is_shown_whole(value, words):
    assert _cell(_equal_rows_give(value)) == ("a row of equal values", words, EVIDENCE)


def test_a_layer_norm_that_does_not_centre_is_asked_about_a_row_of_zeros():
    def rms_norm(x):
        x = np.asarray(x, dtype=np.float64)
        return np.where(np.all(x == 0, axis=-1, keepdims=True), 0.5, x / np.sqrt((x * x).mean(-1, keepdims=True)))

    assert _cell(rms_norm, "a row of zeros") == ("a row of zeros", "values other than 0", EVIDENCE)
