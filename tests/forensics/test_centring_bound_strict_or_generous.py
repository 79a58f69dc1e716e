"""The centring probe's bound in one precision's judgement (helpers.forensics.judge.judge): the most rounding
could move a LayerNorm's output when 3 is added to a row, 40 roundings of the precision for the generous
judgement in the precision its types show, 20 for a strict one (a precision found from the residuals), never
under a millionth, relative to the row's output when that is larger than 1."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics.call import Caller
from helpers.forensics.judge import Context, judge
from helpers.forensics.probes import base_matrix


def _layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(-1, keepdims=True)
    return u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-5)


def _judged(precision: str, strict: bool):
    ctx = Context(
        Caller(_layer_norm, None), _layer_norm, "f", 4, base_matrix(4), "rows", (1,), (1, 2, 3, 4), "float64", "",
        "float64", 0.0, {},
    )  # fmt: skip
    return judge(ctx, precision, strict)


@pytest.mark.parametrize(
    "precision, strict, bound",
    [
        ("float16", True, 20 * 2.0**-10),
        ("float16", False, 40 * 2.0**-10),
        ("bfloat16", True, 20 * 2.0**-7),
        ("float32", False, 40 * 2.0**-23),
        ("float64", False, 1e-6),
    ],
)
def test_the_bound_is_so_many_roundings_of_the_precision_judged(precision, strict, bound):
    found = _judged(precision, strict)
    assert found.centres is True
    # the pattern row's output reaches 3 / √5 > 1, so the bound is not scaled down to the row's size
    assert found.measured.centring_bound == pytest.approx(bound, rel=1e-12)
