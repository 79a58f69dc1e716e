"""float16 or bfloat16: which half precision a function's statistics are computed in (helpers/forensics/fingerprints.py).

Their residuals overlap (bfloat16 statistics rounded once or twice leave float16-sized ones), their ranges do not:
float16's largest value is 65504, bfloat16 has float32's range. A LayerNorm's output does not depend on the row's
size, so statistics that still give it for a matrix 1000 times wider (a variance near 10⁶) are not float16's."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics import fingerprint, fingerprints
from helpers.forensics.call import Caller
from helpers.forensics.fingerprints import FLOAT16_PAST
from helpers.forensics.judge import Context
from helpers.forensics.precision import PRECISIONS, rounded
from tests.forensics.test_precision_choice import context, verdict


def statistics_in(dtype: str, bits_rounded: str = "both"):
    """LayerNorm of a float64 input with its mean and variance rounded to ``dtype`` (as stored there,
    so float16 overflows past 65504), its output float64."""

    def layer_norm(x):
        x = np.asarray(x, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            mean = rounded(x.mean(axis=-1, keepdims=True), dtype)
            variance = rounded(((x - mean) ** 2).mean(axis=-1, keepdims=True), dtype)
            return (x - mean) / np.sqrt(variance + 1e-5)

    return layer_norm


def test_a_wider_matrix_passes_float16s_largest_value():
    assert 1.0 * FLOAT16_PAST**2 > PRECISIONS["float16"][1] * 10  # a row of spread ~1 becomes a variance ~10⁶


def test_bfloat16_statistics_under_a_float64_output_are_named_bfloat16():
    found = fingerprint(statistics_in("bfloat16"), time_limit=None)
    m = found.measured
    assert found.is_layer_norm is True and m.output_dtypes == ("float64",)
    assert m.computes_in == "bfloat16" and m.precisions_tried == ("float64", "float32", "float16", "bfloat16")
    assert m.why_that_type.endswith("it computes (its statistics, at least) in bfloat16")


@pytest.mark.parametrize("dtype, holds", [("bfloat16", True), ("float16", False), ("float32", True), ("float64", True)])
def test_only_statistics_in_float16_lose_a_row_1000_times_wider(dtype, holds):
    fn = statistics_in(dtype)
    base = np.array([[0.5, -1.25, 2.0, 0.75], [1.5, 0.25, -0.5, -2.0]])
    ctx = Context(Caller(fn, None), fn, "f", 4, base, "rows", (1,), (1, 2, 3, 4), "float64", "", "float64", 0.0, {})
    assert fingerprints._holds_past_float16(ctx) is holds


def test_a_function_that_fails_on_the_wider_matrix_does_not_hold():
    def refuses_large(x):
        x = np.asarray(x, dtype=np.float64)
        if np.abs(x).max() > 100:
            raise ValueError("too large")
        return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)

    base = np.array([[0.5, -1.25, 2.0, 0.75]])
    ctx = Context(Caller(refuses_large, None), refuses_large, "f", 4, base, "rows", (1,), (1, 2, 3, 4), "float64", "", "float64", 0.0, {})  # fmt: skip
    assert fingerprints._holds_past_float16(ctx) is False


def stub(monkeypatch, verdicts, holds):
    calls = []

    def judge(ctx, precision, strict):
        calls.append(precision)
        return verdicts[precision]

    monkeypatch.setattr(fingerprints, "judge", judge)
    monkeypatch.setattr(fingerprints, "_holds_past_float16", lambda ctx: holds)
    return calls


def test_float16_residuals_that_hold_past_float16s_range_are_judged_in_bfloat16(monkeypatch):
    verdicts = {"float64": verdict(1e-6), "float32": verdict(1e-3, "float32"), "float16": verdict(2e-4, "float16"),
                "bfloat16": verdict(1e-5, "bfloat16")}  # fmt: skip
    stub(monkeypatch, verdicts, holds=True)
    found = fingerprints._choose(context())
    assert found.measured.computes_in == "bfloat16"
    assert found.measured.precisions_tried == ("float64", "float32", "float16", "bfloat16")


def test_float16_residuals_that_lose_the_wider_matrix_stay_float16(monkeypatch):
    verdicts = {"float64": verdict(1e-6), "float32": verdict(1e-3, "float32"), "float16": verdict(2e-4, "float16"),
                "bfloat16": verdict(1e-5, "bfloat16")}  # fmt: skip
    calls = stub(monkeypatch, verdicts, holds=False)
    found = fingerprints._choose(context())
    assert found.measured.computes_in == "float16" and "bfloat16" not in calls


@pytest.mark.parametrize("bfloat16_says", ["one pass", "unclear"])
def test_a_bfloat16_verdict_that_is_not_clear_leaves_float16(monkeypatch, bfloat16_says):
    bf16 = verdict(1e-5, "bfloat16", one_pass=True) if bfloat16_says == "one pass" else verdict(1e-5, "bfloat16", variance="unclear")  # fmt: skip
    verdicts = {"float64": verdict(1e-6), "float32": verdict(1e-3, "float32"), "float16": verdict(2e-4, "float16"),
                "bfloat16": bf16}  # fmt: skip
    stub(monkeypatch, verdicts, holds=True)
    assert fingerprints._choose(context()).measured.computes_in == "float16"


def test_residuals_in_both_bands_are_named_by_the_coarser(monkeypatch):
    """A residual past bfloat16's band floor (its rounding / IN_BAND) too is bfloat16's, range or not."""
    verdicts = {"float64": verdict(1e-6), "float32": verdict(1e-3, "float32"), "float16": verdict(2e-3, "float16"),
                "bfloat16": verdict(2e-3, "bfloat16")}  # fmt: skip
    stub(monkeypatch, verdicts, holds=False)
    assert fingerprints._choose(context()).measured.computes_in == "bfloat16"
