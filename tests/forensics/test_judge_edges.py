"""helpers/forensics/judge.py at its edges, from its docstrings and notebook 13's prose: the sentence a broken
probe row gets, ε as it would be with ÷ n and with ÷ (n − 1) when only the output's size is unknown, and k
from the two wide rows with ε taken out. Pure numpy: every fingerprint here runs in this process."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.forensics.fingerprints import fingerprint
from helpers.forensics.judge import eps_readings
from helpers.forensics.probes import WIDE, pattern


def _nan_when_wide(x):
    """A LayerNorm (÷ n, ε = 1e-5) that gives NaN on a row whose values reach 1000: fine on every ordinary row."""
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(axis=-1, keepdims=True)
    y = u / np.sqrt((u * u).mean(axis=-1, keepdims=True) + 1e-5)
    return np.where(np.abs(x).max(axis=-1, keepdims=True) >= 1000, np.nan, y)


@pytest.mark.parametrize("n", [3, 4])
def test_a_row_that_gives_nan_is_named_with_all_its_values_when_it_has_at_most_four(n):
    found = fingerprint(_nan_when_wide, "wide NaN", features=n, time_limit=None)
    values = ", ".join(f"{v:.6g}" for v in WIDE["float64"] * pattern(n))
    assert found.problem == f"It returned NaN or infinity for the row spread 100000 times wider, {values}."


@pytest.mark.parametrize("n", [5, 8])
def test_a_row_that_gives_nan_is_named_with_its_first_four_values_then_an_ellipsis(n):
    found = fingerprint(_nan_when_wide, "wide NaN", features=n, time_limit=None)
    first = ", ".join(f"{v:.6g}" for v in (WIDE["float64"] * pattern(n))[:4])
    assert found.problem == f"It returned NaN or infinity for the row spread 100000 times wider, {first}, …."


@pytest.mark.parametrize("n", [2, 4, 768])
def test_eps_inside_the_root_scales_as_one_over_k(n):
    # measured k·ε is what the rows show: ε = (k_seen · ε_seen) / k for k = n and k = n − 1
    k_seen, eps_seen = 3.5, 2e-5
    readings = eps_readings(eps_seen, k_seen, "inside sqrt", n)
    assert [w for w, _ in readings] == ["÷ n", "÷ (n − 1)"]
    assert readings[0][1] == pytest.approx(eps_seen * k_seen / n, rel=1e-12)
    assert readings[1][1] == pytest.approx(eps_seen * k_seen / (n - 1), rel=1e-12)


@pytest.mark.parametrize("n", [2, 4, 768])
def test_eps_added_to_the_std_scales_as_one_over_root_k(n):
    k_seen, eps_seen = 3.5, 2e-5
    readings = eps_readings(eps_seen, k_seen, "added to std", n)
    assert [w for w, _ in readings] == ["÷ n", "÷ (n − 1)"]
    assert readings[0][1] == pytest.approx(eps_seen * math.sqrt(k_seen / n), rel=1e-12)
    assert readings[1][1] == pytest.approx(eps_seen * math.sqrt(k_seen / (n - 1)), rel=1e-12)


def test_no_eps_reads_as_no_eps_with_either_divisor():
    assert eps_readings(0.0, 3.5, "none", 4) == (("÷ n", 0.0), ("÷ (n − 1)", 0.0))


@pytest.mark.parametrize(
    "eps, placement",
    [(None, "inside sqrt"), (None, "added to std"), (None, "none"), (1e-5, "unclear"), (1e-5, None), (0.0, "unclear")],
)
def test_no_readings_without_an_eps_or_a_placement(eps, placement):
    assert eps_readings(eps, 3.5, placement, 4) == ()
