"""How far a large offset may move the output before the offset probe calls the variance one-pass
(helpers.forensics.probes.one_pass_changes): a thousandth of the output's size, or 30 roundings of the type it
computes in when that is coarser (float16: 30 · 2⁻¹⁰ ≈ 0.029, bfloat16: 30 · 2⁻⁷ ≈ 0.23), judged at the offset
that type stores exactly."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from helpers.forensics.probes import one_pass_changes


def _moved_by(share):
    """A LayerNorm whose output, for every row sitting far from 0, is ``share`` of its size off."""

    def along(x, dtype=None):
        x = np.asarray(x, dtype=np.float64)
        u = x - x.mean(-1, keepdims=True)
        y = u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-5)
        far = np.abs(x).max(axis=1) > 8
        y[far] = y[far] * (1 + share)
        return y

    return along


@pytest.mark.parametrize(
    "dtype, offset, limit",
    [
        ("float64", 1e8, 1e-3),
        ("float32", 1e4, 1e-3),
        ("float16", 64.0, 30 * 2.0**-10),
        ("bfloat16", 16.0, 30 * 2.0**-7),
    ],
)
@pytest.mark.parametrize("side", [0.9, 1.1])
def test_the_output_may_move_up_to_the_types_limit(dtype, offset, limit, side):
    call = SimpleNamespace(output_types={dtype: dtype})
    broke, changes = one_pass_changes(_moved_by(side * limit), call, 4, "float64", [dtype])
    work, used, change = changes[dtype]
    assert (work, used) == (dtype, offset)
    assert change == pytest.approx(side * limit, rel=1e-9)
    assert broke is (side > 1)
