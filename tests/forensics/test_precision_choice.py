"""Which precision a fingerprint's verdict is judged in, and the "cannot tell" verdicts (helpers/forensics/fingerprints.py).

From the module docstring's "Precision" paragraph: the verdict in the precision ``fn``'s types show is kept
when its residuals are within that rounding ** FITS (or within the noise, 4 · SLACK · the noise floor, which
then hides any finer rounding: the precision is not known); otherwise coarser precisions are tried, finest
first, each kept only when its (clear, two-pass) verdict's residuals are at least its rounding / IN_BAND. A
fit between two precisions is "cannot tell"; when none fits, the first verdict stays, its precision not known,
and a failed one-pass probe can no longer tell the one-pass formula from statistics in a lower precision.

Most tests call ``_choose`` with a ``Context`` whose ``judge`` is a stub returning prepared verdicts, so each
limit is tested exactly at it and one unit either side; the last ones run real functions end to end.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.forensics import fingerprints
from helpers.forensics.call import CallProblem
from helpers.forensics.fingerprint_view import _precision_row
from helpers.forensics.fingerprints import FITS, IN_BAND, fingerprint
from helpers.forensics.judge import SLACK, Context
from helpers.forensics.precision import rounded, roundoff
from helpers.forensics.record import Fingerprint, Measurements
from tests.forensics.family import t5_statistics

NAME = "norm under test"
COARSER = {"float64": ("float32", "float16", "bfloat16"), "float32": ("float16", "bfloat16")}


def verdict(residual, precision="float64", **fields) -> Fingerprint:
    """A LayerNorm verdict judged in ``precision`` whose prediction misses its output by ``residual``: PyTorch's
    conventions (÷ n, ε = 1e-5 inside the root, two-pass) unless ``fields`` say otherwise."""
    measured = Measurements(features=4, computes_in=precision, prediction_misfit=residual)
    base = dict(
        name=NAME, centres=True, variance="biased", eps_placement="inside sqrt", eps=1e-5, axis="rows",
        one_pass=False, matches_torch=True, differences=[], measured=measured, is_layer_norm=True,
    )  # fmt: skip
    return Fingerprint(**{**base, **fields})


def not_layer_norm(precision="float64", residual=None) -> Fingerprint:
    """What judge says when the conventions found do not reproduce the output ("prediction")."""
    measured = Measurements(features=4, computes_in=precision, prediction_misfit=residual)
    return Fingerprint(
        NAME, None, None, None, None, "rows", None, False, [], "none", None, measured, False, "prediction"
    )


def context(work="float64", floor=0.0, axis="rows", why="") -> Context:
    return Context(None, None, NAME, 4, None, axis, (1,), (1, 2, 3, 4), work, why, work, floor, {})


@pytest.fixture
def judged(monkeypatch):
    """``judged(verdicts)``: judge returns ``verdicts[precision]`` (a CallProblem is raised; a pair is
    (strict, generous)); the calls made are returned, as (precision, strict or not)."""

    def install(verdicts):
        calls = []

        def judge(ctx, precision, strict):
            calls.append((precision, bool(strict)))  # judge reads it as a truth value
            answer = verdicts[precision]
            if isinstance(answer, Exception):
                raise answer
            if isinstance(answer, tuple):
                return answer[0] if strict else answer[1]
            return answer

        monkeypatch.setattr(fingerprints, "judge", judge)
        monkeypatch.setattr(fingerprints, "_holds_past_float16", lambda ctx: False)  # no function to probe
        return calls

    return install


def up(x: float) -> float:
    return math.nextafter(x, math.inf)


def down(x: float) -> float:
    return math.nextafter(x, 0.0)


def no_coarser_fits(work="float64") -> dict:
    return {p: not_layer_norm(p) for p in COARSER[work]}


# --- the precision the types show: rounding ** FITS, or the noise ----------------------------------------------


@pytest.mark.parametrize("work", ["float64", "float32"])
def test_residuals_up_to_its_rounding_to_the_power_fits_keep_the_verdict_in_the_types_precision(judged, work):
    first = verdict(roundoff(work) ** FITS, work)
    calls = judged({work: first})
    found = fingerprints._choose(context(work))
    assert found.is_layer_norm is True and found.measured.computes_in == work
    assert found.measured.precisions_tried == (work,) and found.measured.precision_known is True
    assert calls == [(work, False)]


@pytest.mark.parametrize("work", ["float64", "float32"])
def test_residuals_one_unit_above_its_rounding_to_the_power_fits_send_it_to_coarser_precisions(judged, work):
    judged({work: verdict(up(roundoff(work) ** FITS), work), **no_coarser_fits(work)})
    found = fingerprints._choose(context(work))
    assert found.measured.precisions_tried == (work, *COARSER[work])
    assert found.measured.precision_known is False and found.is_layer_norm is True


def test_the_precision_its_types_show_is_judged_to_generous_limits_and_coarser_ones_strictly(judged):
    """A verdict that holds only to the generous limits (strictly, its prediction fails) is kept."""
    calls = judged({"float64": (not_layer_norm(), verdict(1e-13)), **no_coarser_fits()})
    found = fingerprints._choose(context())
    assert found.is_layer_norm is True and found.measured.precisions_tried == ("float64",)
    assert [strict for _, strict in calls] == [False]


def test_the_noise_limit_is_four_slack_noise_floors_and_then_the_precision_is_not_known(judged):
    floor = 1e-9  # 4 · SLACK · floor = 3.2e-8, far above float64's rounding ** FITS
    judged({"float64": verdict(4 * SLACK * floor)})
    found = fingerprints._choose(context(floor=floor))
    assert found.is_layer_norm is True and found.measured.precisions_tried == ("float64",)
    assert found.measured.precision_known is False  # its noise hides any rounding finer than its own


def test_residuals_one_unit_above_the_noise_limit_send_it_to_coarser_precisions(judged):
    floor = 1e-9
    judged({"float64": verdict(up(4 * SLACK * floor)), **no_coarser_fits()})
    found = fingerprints._choose(context(floor=floor))
    assert found.measured.precisions_tried == ("float64", "float32", "float16", "bfloat16")


@pytest.mark.parametrize("work", ["float64", "float32"])
@pytest.mark.parametrize(
    "step, known",
    [(down, True), (lambda x: x, True), (up, False)],
    ids=["one unit below", "at", "one unit above"],
)
def test_noise_hides_the_precision_only_when_four_slack_floors_exceed_its_rounding_to_the_power_fits(
    judged, work, step, known
):
    floor = step(roundoff(work) ** FITS / (4 * SLACK))
    judged({work: verdict(1e-300, work)})
    found = fingerprints._choose(context(work, floor))
    assert found.measured.precisions_tried == (work,) and found.measured.precision_known is known


def test_a_one_pass_verdict_whose_precision_fits_stays_one_pass(judged):
    judged({"float64": verdict(1e-13, one_pass=True, matches_torch=False)})
    found = fingerprints._choose(context())
    assert found.one_pass is True and found.matches_torch is False and found.measured.precision_known is True


# --- coarser precisions: kept from rounding / IN_BAND up -------------------------------------------------------


def test_a_coarser_precision_is_kept_from_its_rounding_over_in_band_and_says_why(judged):
    edge = roundoff("float32") / IN_BAND
    calls = judged({"float64": verdict(1e-6), "float32": verdict(edge, "float32")})
    found = fingerprints._choose(context())
    assert found.is_layer_norm is True and found.measured.computes_in == "float32"
    assert found.measured.prediction_misfit == edge and found.measured.precisions_tried == ("float64", "float32")
    assert found.measured.why_that_type == (
        "its output is float64, but it departs from an exact LayerNorm by as much as float32's rounding, far more "
        "than float64's: it computes (its statistics, at least) in float32"
    )
    assert calls == [("float64", False), ("float32", True)]


def test_a_coarser_precision_found_under_a_type_its_input_was_rounded_to_says_so_not_that_it_was_its_output(judged):
    judged({"float32": verdict(1e-3, "float32"), "float16": verdict(2e-4, "float16")})
    found = fingerprints._choose(context("float32", why="it rounds its input to float32"))
    assert found.measured.why_that_type == (
        "it rounds its input to float32, but it departs from an exact LayerNorm by as much as float16's rounding, "
        "far more than float32's: it computes (its statistics, at least) in float16"
    )


def test_from_a_float32_output_the_coarser_precisions_tried_are_float16_then_bfloat16(judged):
    judged({"float32": verdict(1e-3, "float32"), "float16": verdict(1e-9, "float16"),
            "bfloat16": verdict(0.01, "bfloat16")})  # fmt: skip
    found = fingerprints._choose(context("float32"))
    assert found.measured.computes_in == "bfloat16"
    assert found.measured.precisions_tried == ("float32", "float16", "bfloat16")
    assert found.measured.why_that_type.startswith("its output is float32, but it departs from an exact LayerNorm")


def test_a_coarser_precision_one_unit_below_its_band_is_a_fit_between_two_precisions(judged):
    below = down(roundoff("float32") / IN_BAND)
    judged({**no_coarser_fits(), "float64": verdict(1e-6), "float32": verdict(below, "float32")})
    found = fingerprints._choose(context())
    assert found.is_layer_norm is None and found.not_layer_norm_because == "between"


@pytest.mark.parametrize(
    "float32_says",
    [
        CallProblem("It returned NaN or infinity for the row spread 100000 times wider."),
        verdict(1e-7, "float32", one_pass=True),
        not_layer_norm("float32", residual=1e-7),  # its prediction failed: a residual, but no LayerNorm
        verdict(1e-7, "float32", variance="unclear"),
        verdict(1e-7, "float32", eps_placement="unclear"),
        verdict(None, "float32"),
    ],
    ids=["a probe failed", "one pass", "not a LayerNorm", "variance unclear", "eps placement unclear", "no residual"],
)
def test_a_coarser_precision_that_fails_or_is_not_clear_is_passed_over_for_the_next(judged, float32_says):
    judged({"float64": verdict(1e-6), "float32": float32_says, "float16": verdict(2e-4, "float16")})
    found = fingerprints._choose(context())
    assert found.is_layer_norm is True and found.measured.computes_in == "float16"
    assert found.measured.precisions_tried == ("float64", "float32", "float16")


# --- what a clear verdict demands --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "found, clear",
    [
        (verdict(1e-7), True),
        (verdict(1e-7, variance="unclear"), False),
        (verdict(1e-7, eps_placement="unclear"), False),
        (verdict(None), False),
        (not_layer_norm(residual=1e-7), False),
        (verdict(1e-7, is_layer_norm=None), False),
    ],
    ids=["clear", "variance unclear", "eps placement unclear", "no residual", "not a LayerNorm", "cannot tell"],
)
def test_a_clear_verdict_is_a_layer_norm_with_its_variance_placement_and_residual_known(found, clear):
    assert fingerprints._clear(found) is clear


# --- a fit between two precisions: cannot tell ---------------------------------------------------------------------


def test_a_fit_between_two_precisions_cannot_tell_and_prints_the_first_residual(judged):
    judged({"float64": verdict(2e-9), "float32": verdict(1e-9, "float32"), "float16": verdict(1e-9, "float16"),
            "bfloat16": not_layer_norm("bfloat16")})  # fmt: skip
    found = fingerprints._choose(context(axis="columns"))
    assert found.differences == [
        "Cannot tell whether it is a LayerNorm: no precision fits it. Its output misses every LayerNorm computed "
        "exactly by more than float64's rounding, and misses one computed with float32's rounding by less than "
        "that rounding would leave (by 2e-09 of its size)."
    ]
    assert (found.name, found.axis, found.is_layer_norm, found.not_layer_norm_because) == (
        NAME, "columns", None, "between"
    )  # fmt: skip
    assert (found.centres, found.variance, found.eps_placement, found.eps, found.one_pass) == (None,) * 5
    assert found.matches_torch is False and found.gamma == "none" and found.problem is None
    assert found.measured.computes_in == "float32" and found.measured.prediction_misfit == 1e-9  # the finer fit's
    assert found.measured.precisions_tried == ("float64", "float32", "float16", "bfloat16")
    assert found.measured.precision_known is False  # no precision fits: the evidence does not claim float32's
    assert "its residuals fit no precision tried" in " ".join(map(str, _precision_row(found.measured)))


def test_a_fit_between_two_precisions_prints_the_coarser_residual_when_the_first_has_none(judged):
    judged({"float64": verdict(None, eps_placement="unclear"), "float32": verdict(3e-9, "float32"),
            **{p: not_layer_norm(p) for p in ("float16", "bfloat16")}})  # fmt: skip
    found = fingerprints._choose(context())
    assert found.not_layer_norm_because == "between"
    assert found.differences[0].endswith("by less than that rounding would leave (by 3e-09 of its size).")


# --- no precision fits: the first verdict, its precision not known -------------------------------------------------


def test_when_no_precision_fits_the_first_verdict_stays_with_its_precision_not_known(judged):
    first = verdict(1e-6, variance="unbiased", matches_torch=False)
    judged({"float64": first, **no_coarser_fits()})
    found = fingerprints._choose(context())
    assert found.measured.precision_known is False
    assert found.measured.precisions_tried == ("float64", "float32", "float16", "bfloat16")
    assert (found.variance, found.one_pass, found.matches_torch) == ("unbiased", False, False)


def test_when_no_precision_fits_a_one_pass_verdict_is_made_unknown_and_so_is_matching_torch(judged):
    """The failed offset probe cannot say whether E[x²] − E[x]² or statistics in a lower precision lost the
    digits; it departed from PyTorch only by "one pass", so whether it matches PyTorch is unknown too."""
    judged({"float64": verdict(1e-6, one_pass=True, matches_torch=False), **no_coarser_fits()})
    found = fingerprints._choose(context())
    assert found.one_pass is None and found.matches_torch is None and found.is_layer_norm is True
    assert found.measured.precision_known is False
    assert found.measured.precisions_tried == ("float64", "float32", "float16", "bfloat16")


def test_a_one_pass_verdict_made_unknown_still_departs_by_its_other_conventions(judged):
    judged({"float64": verdict(1e-6, one_pass=True, matches_torch=False, variance="unbiased"), **no_coarser_fits()})
    found = fingerprints._choose(context())
    assert found.one_pass is None and found.matches_torch is False and found.variance == "unbiased"


@pytest.mark.parametrize("matches", [True, None])
def test_a_one_pass_verdict_made_unknown_keeps_a_match_that_was_not_false(judged, matches):
    judged({"float64": verdict(1e-6, one_pass=True, matches_torch=matches), **no_coarser_fits()})
    assert fingerprints._choose(context()).matches_torch is matches


# --- end to end -------------------------------------------------------------------------------------------------


def _bfloat16_statistics_of_float32(x):
    """Its input rounded to float32, its mean and variance rounded to bfloat16's 8 bits, its output float64."""
    h = np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)
    mean = rounded(h.mean(axis=-1, keepdims=True), "bfloat16")
    variance = rounded(((h - mean) ** 2).mean(axis=-1, keepdims=True), "bfloat16")
    return (h - mean) / np.sqrt(variance + 1e-6)


def _layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(axis=-1, keepdims=True)
    return u / np.sqrt((u * u).mean(axis=-1, keepdims=True) + 1e-5)


def _nearly_layer_norm(x):
    """A LayerNorm bent by about 1e-9 of its size: more than float64 leaves, far less than float32 would."""
    y = _layer_norm(x)
    return y + 1e-9 * np.cos(7 * y) * np.abs(y).max(axis=-1, keepdims=True)


def test_statistics_in_float32_under_a_float64_output_are_told_from_the_residuals():
    found = fingerprint(t5_statistics, time_limit=None)
    assert found.is_layer_norm is True and found.measured.computes_in == "float32"
    assert found.measured.precisions_tried == ("float64", "float32") and found.measured.precision_known is True
    assert found.measured.why_that_type == (
        "its output is float64, but it departs from an exact LayerNorm by as much as float32's rounding, far more "
        "than float64's: it computes (its statistics, at least) in float32"
    )
    assert found.one_pass is False and found.eps == pytest.approx(1e-6, rel=1e-3)


def test_coarser_statistics_under_an_input_rounded_to_float32_do_not_call_its_float64_output_float32():
    found = fingerprint(_bfloat16_statistics_of_float32, time_limit=None)
    coarser = found.measured.computes_in
    assert found.is_layer_norm is True and found.measured.output_dtypes == ("float64",)
    assert coarser == "bfloat16" and found.measured.precisions_tried == ("float32", "float16", "bfloat16")
    assert found.measured.why_that_type == (
        f"it rounds its input to float32, but it departs from an exact LayerNorm by as much as {coarser}'s rounding, "
        f"far more than float32's: it computes (its statistics, at least) in {coarser}"
    )


def test_a_layer_norm_off_by_more_than_float64_and_less_than_float32_rounds_cannot_be_told():
    found = fingerprint(_nearly_layer_norm, "nearly", time_limit=None)
    assert (found.name, found.axis, found.is_layer_norm, found.not_layer_norm_because) == (
        "nearly", "rows", None, "between"
    )  # fmt: skip
    assert found.matches_torch is False and found.measured.precisions_tried == (
        "float64", "float32", "float16", "bfloat16"
    )  # fmt: skip
    assert found.differences[0].startswith("Cannot tell whether it is a LayerNorm: no precision fits it.")
    assert "misses one computed with float32's rounding" in found.differences[0]


def test_a_function_that_keeps_state_cannot_be_told_and_is_not_called_pytorch():
    calls = [0]

    def drifting(x):
        calls[0] += 1
        return _layer_norm(x) * (1 + 1e-3 * calls[0])

    found = fingerprint(drifting, "drifting", time_limit=None)
    assert (found.name, found.axis, found.is_layer_norm, found.not_layer_norm_because) == (
        "drifting", None, None, "state"
    )  # fmt: skip
    assert found.matches_torch is False and found.gamma == "none" and found.one_pass is None
