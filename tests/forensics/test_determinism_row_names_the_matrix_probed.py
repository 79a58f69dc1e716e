"""The evidence table's first rows (helpers/forensics/fingerprint_view.py) name the matrix the determinism and
state probes used: base_rows(n) tokens × n features, n + 3 tokens up to 13 features, 17 at 16 and 16 beyond
(never n, so that rows and columns differ), and a noisy function's floor with the 8 times every check allows."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics import fingerprint
from helpers.forensics.fingerprint_view import fingerprint_rows


class Wide:
    """A LayerNorm that says how many features it takes, as nn.LayerNorm does."""

    def __init__(self, n: int, wobble: float = 0.0):
        self.normalized_shape, self.wobble, self.calls = (n,), wobble, 0

    def __call__(self, x):
        self.calls += 1
        x = np.asarray(x, dtype=np.float64)
        u = x - x.mean(-1, keepdims=True)
        return u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-5) * (1 + self.wobble * (-1) ** self.calls)


@pytest.mark.parametrize("n, tokens", [(2, 5), (13, 16), (16, 17), (20, 16)])
def test_the_determinism_row_names_the_tokens_and_features_probed(n, tokens):
    found = fingerprint(Wide(n), "wide", time_limit=None)
    assert found.measured.features == n
    assert fingerprint_rows(found)[0] == (
        "deterministic",
        "yes",
        f"determinism probe: the same {tokens} × {n} matrix twice gave identical outputs",
    )


def test_a_noisy_functions_row_names_its_floor_and_the_eight_times_allowed():
    found = fingerprint(Wide(16, wobble=3e-7), "noisy", time_limit=None)
    floor = found.measured.noise_floor
    assert floor == pytest.approx(6e-7, rel=1e-3)  # (1 + 3e-7) against (1 − 3e-7)
    assert fingerprint_rows(found)[0] == (
        "deterministic",
        "no",
        "determinism probe: the same 17 × 16 matrix twice gave outputs that differ by 600 billionths of their size"
        "; every check below allows for 8 times that",
    )
