"""Why a function is no LayerNorm, as the evidence table says it (helpers/forensics/fingerprint_view.py): each
reason's row names the probe that found it and the number that probe measured (not another probe's number),
then the precisions tried, or the one it was judged in when none other was tried. And a function whose output
is even (r and −r give the same output) is told so by the ±row probe."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics import fingerprint
from helpers.forensics.fingerprint_view import fingerprint_rows
from helpers.forensics.record import Fingerprint, Measurements

ROWS_AXIS = dict(rows_changed=(1,), columns_changed=(1, 2, 3, 4), end_change=0.0)
# every measurement a reason could be said with, each a different size, so that a row naming the wrong one shows
SIZES = dict(shape_misfit=0.3, row_shift=0.125, scale_change=0.5, prediction_misfit=0.0625, divisor=7.0)


def _not_layer_norm(because: str, **more) -> Fingerprint:
    measured = Measurements(features=4, **ROWS_AXIS, **SIZES, **more)
    return Fingerprint(
        "f", None, None, None, None, "rows", None, False, ["(the sentence)"], "none", None, measured, False, because
    )


def _why(found: Fingerprint) -> tuple:
    rows = fingerprint_rows(found)
    assert [row[0] for row in rows] == ["deterministic", "keeps state", "axis", "a LayerNorm?"]
    return rows[-1]


@pytest.mark.parametrize(
    "because, evidence",
    [
        (
            "shape",
            "shape probe: the best stretch-and-shift of each centred input row misses its output row by 0.3 of the "
            "row's size",
        ),
        ("shift", "shape probe: its output rows average to 0.12 of the row's size, not 0"),
        ("scale", "wide-row probe: a row 1000 times wider moved its output by 0.5 of the row's size"),
        (
            "prediction",
            "prediction probe: the divisor and ε found miss its output on an ordinary matrix by 0.062 of the row's size",
        ),
        ("constant", "±row probe: r and −r give the same output"),
    ],
)
def test_each_reason_names_its_probe_and_that_probes_own_measurement(because, evidence):
    found = _not_layer_norm(because, precisions_tried=("float64", "float32"))
    assert _why(found) == ("a LayerNorm?", "no", f"{evidence} (precisions tried: float64, float32)")


def test_with_no_precision_recorded_the_reason_names_the_one_it_was_judged_in():
    found = _not_layer_norm("scale", computes_in="float16")
    assert _why(found)[2].endswith("moved its output by 0.5 of the row's size (precisions tried: float16)")


def _even(x):
    """A LayerNorm of |x|: each token's output follows its own row, but −r gives what r gives."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    u = x - x.mean(-1, keepdims=True)
    return u / np.sqrt((u * u).mean(-1, keepdims=True) + 1e-5)


def test_an_even_function_is_no_layer_norm_because_r_and_minus_r_give_the_same_output():
    found = fingerprint(_even, "even", time_limit=None)
    assert found.problem is None and found.axis == "rows"
    assert found.is_layer_norm is False and found.not_layer_norm_because == "constant"
    assert found.matches_torch is False and found.centres is None and found.eps is None
    assert _why(found) == (
        "a LayerNorm?",
        "no",
        "±row probe: r and −r give the same output (precisions tried: float64, float32, float16, bfloat16)",
    )


def test_the_even_functions_sentence_does_not_contradict_the_edit_probe():
    """The edit probe has just shown its output following its input (token 1's row moved): the sentence says
    what the ±row probe saw, r and −r giving the same output, not that the output ignores the input."""
    found = fingerprint(_even, "even", time_limit=None)
    assert found.measured.rows_changed == (1,)
    assert found.differences == [
        "It is not a LayerNorm: the rows r and −r give the same output, where a LayerNorm's output for −r is "
        "minus its output for r (only a γ of 0 on every feature would do this)."
    ]
    assert str(found).splitlines()[-1] == f"  ✗ {found.differences[0]}"
