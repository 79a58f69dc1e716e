"""Is this LayerNorm? Fingerprint any LayerNorm by probing it with inputs designed to expose each convention.

``fingerprint(fn)`` calls ``fn`` (a numpy function, a torch function or a torch module; rows are
tokens, columns are features) on a few matrices and measures, never reading its source:

* axis: edit one token; a row-wise LayerNorm changes only that token's output row;
* centring: add 3 to a row (more on a wide row); a LayerNorm's output moves only as rounding its input moves it, an
  RMSNorm's by most of its size; when its rounding is too coarse to tell the two apart, it says so;
* divisor: a row d·a with a huge spread (ε negligible) comes out as d·s with 1/s² = Σ(a·d)²/k,
  so k = Σ(a·d)²·s² is n (biased variance) or n − 1 (unbiased);
* ε and where it goes: rows of tiny variance v (a ladder from 1 down to 1e-32) come out scaled by
  1/√(v + ε) (inside the root) or 1/(√v + ε) (added to the std). So 1/s² − v is the same number,
  ε, on every row if ε is inside the root, and 1/s − √v is if ε is added to the std; the other
  one drifts across the ladder. Where neither moves away from v, there is no ε;
* one pass: a row with a large offset that the type it computes in stores exactly (10⁸ in float64,
  10⁴ in float32, 64 in float16, 16 in bfloat16) leaves a two-pass or Welford variance exact, and
  wipes out E[x²] − E[x]²;
* is it a LayerNorm at all: each output row must be a stretched copy of the centred input row (of
  the row itself for RMSNorm) that averages to 0, unchanged when the row is made 1000 times wider,
  and the conventions found must reproduce it; softmax, min–max scaling or clipping are not.

Before any of these (``helpers.forensics.behaviour``): the same matrix twice (is it deterministic?
the noise floor every later comparison allows for), then A, B = A's rows reversed, A (does it keep
state?), and A once more after every probe. A function that keeps state gets "cannot tell", never a
verdict. Then the ±row probe (``helpers.forensics.affine``) measures β and γ's shape feature by
feature and divides them out (a feature whose γ is 0 is left out).

Precision: first the one ``fn``'s types show (its output's type, or the type it rounds its input to:
float32, bfloat16 or float16); every probe is sized to it and judged to its rounding. When the verdict
there does not fit (its residuals against an exact LayerNorm of the conventions found are larger than
that rounding, or ε's placement is unclear, or the one-pass probe fails), coarser precisions are tried
(float32, float16, bfloat16: statistics computed in a lower precision than the output, as T5's
LayerNorm does), each held to a few of its own roundings, and kept only when its residuals are of that
size; the coarsest whose band they reach names it. float16 and bfloat16 residuals overlap, their ranges do
not: statistics that still give the output for a matrix 1000 times wider (a variance past float16's 65504)
are bfloat16's. "Not a LayerNorm" is said only when no precision fits; a fit between two precisions is "cannot
tell". A torch module is also probed in its own type. With fork available the whole fingerprint runs in
a child process that is killed at the time limit, so the limit holds for long C calls too
(``helpers.forensics.isolate``).

Pure maths on numpy: nothing here displays (``helpers.forensics.display`` shows a Fingerprint), and
torch is imported only when ``fn`` is torch code. The probes' arithmetic is in ``probes``,
the types' rounding in ``precision``, the verdicts' words in ``words``; this
module runs the probes and puts one Fingerprint together. Introduced in notebook 13.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import helpers.forensics.behaviour as behaviour_probe
import helpers.forensics.isolate as forensics_isolate  # the module alone: the package imports display
from helpers.forensics.call import Caller, CallProblem, feature_count
from helpers.forensics.judge import SLACK, Context, judge, with_differences
from helpers.forensics.precision import PRECISIONS, lowest, rounded, roundoff
from helpers.forensics.probes import base_matrix, moved_by_edits
from helpers.forensics.probes import torch_layer_norm as torch_layer_norm  # public here, as before the split
from helpers.forensics.record import Fingerprint as Fingerprint  # public here, as before the split
from helpers.forensics.record import Measurements
from helpers.forensics.record import Measurements as Measurements  # noqa: F811  public here
from helpers.forensics.words import TORCH_EPS as TORCH_EPS  # public here, as before the split
from helpers.forensics.words import departures as departures  # public here, as before the split

DEFAULT_FEATURES = 4  # width of the probes when fn does not say how many features it takes
LESSON_FEATURES = 3  # tried next: code written for the lesson's 5 × 3 matrix
TIME_LIMIT = 5.0  # seconds for every call of one fingerprint together
ISOLATE = forensics_isolate.AVAILABLE  # run the fingerprint in a forked child killed at the time limit
ORDER = sorted(PRECISIONS, key=roundoff)  # float64, float32, float16, bfloat16: finest first
IN_BAND = 8.0  # a coarser precision is kept when its residuals are at least its rounding / IN_BAND
FITS = 0.75  # the precision the types show fits residuals up to its rounding ** FITS (float64 2e-12, float32 6e-6)


def fingerprint(
    fn, name: str | None = None, features: int | None = None, time_limit: float | None = TIME_LIMIT
) -> Fingerprint:
    """Probe ``fn`` (rows = tokens, columns = features; numpy or torch) and say which LayerNorm it computes.

    ``features``: the width of the probes (default: what ``fn`` says, e.g. ``normalized_shape``,
    else 4, and 3, the lesson's width, if ``fn`` fails on 4). Never raises because of ``fn``: a
    problem becomes ``Fingerprint.problem``, one sentence. ``time_limit`` covers every call together;
    where fork is safe the probes run in a child process that is killed at the limit (any code, C
    included), elsewhere (Windows, macOS) only Python code can be stopped. Introduced in notebook 13.
    """
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    if time_limit is None or not ISOLATE:
        return _measure(fn, label, features, time_limit)
    outcome = forensics_isolate.run_isolated(lambda progress: _measure(fn, label, features, None, progress), time_limit)
    on = f" on {outcome.last}" if outcome.last else ""
    if outcome.timed_out:
        return broken(label, f"It did not finish within {time_limit:g} s{on}; it may loop forever (it was stopped).")
    if outcome.crashed:
        return broken(label, f"It could not be measured: {outcome.crashed}{on}.")
    return outcome.value


def _measure(fn, label: str, features: int | None, time_limit: float | None, progress=None) -> Fingerprint:
    widths = [features or feature_count(fn) or DEFAULT_FEATURES]
    if features is None and feature_count(fn) is None:
        widths.append(LESSON_FEATURES)  # code written for the lesson's matrix only
    try:
        call = Caller(fn, time_limit)
    except CallProblem as problem:
        return broken(label, str(problem))
    call.progress = progress
    first = None
    for n in widths:
        try:
            return _fingerprint(call, fn, label, n)
        except CallProblem as problem:
            first = first or str(problem)
            if str(problem).startswith("It did not finish"):  # the time is up (not fn's own words)
                break
    return broken(label, first)


def broken(name: str, problem: str) -> Fingerprint:
    """The fingerprint of something that could not be measured."""
    return Fingerprint(name, None, None, None, None, None, None, False, [problem], problem=problem)


def _working_type(call: Caller, base: np.ndarray, out: np.ndarray, deterministic: bool) -> tuple[str, str, str]:
    """The type fn computes in when given float64 (its output's, or the coarsest one it rounds its input to),
    why, and the type it rounds its input to ("float64" when it does not, or when its output varies)."""
    rounds_to = "float64"
    for dtype in ("float32", "float16", "bfloat16") if deterministic else ():
        try:
            same = np.array_equal(call(rounded(base, dtype)), out)
        except CallProblem:
            same = False
        if same and roundoff(dtype) > roundoff(rounds_to):
            rounds_to = dtype
    given = call.output_types.get("float64")
    work = lowest("float64", given, rounds_to)
    if work == "float64":
        return work, "", rounds_to
    why = f"its output is {given}" if work == given else f"it rounds its input to {rounds_to}"
    return work, why, rounds_to


def _cannot_tell(name, measured, axis, because, sentence) -> Fingerprint:
    return Fingerprint(
        name, None, None, None, None, axis, None, False, [sentence], "none", None, measured, None, because
    )


def _fingerprint(call: Caller, fn, name: str, n: int) -> Fingerprint:
    base = base_matrix(n)
    out = call(base)
    if not np.all(np.isfinite(out)):
        raise CallProblem(
            f"It returned NaN or infinity for an ordinary {base.shape[0]} × {n} matrix of numbers between −2 and 2."
        )
    floor = behaviour_probe.noise_floor(call, base, out)
    work, why, rounds_to = _working_type(call, base, out, floor == 0.0)
    if work != "float64":
        base = rounded(base, work)  # the values it really computes with
        out = call(base)
    noise = max(roundoff(work), SLACK * floor)
    rows, columns = moved_by_edits(call, base, out, noise)
    axis = "rows" if rows == (1,) else "columns" if columns == (1,) else "neither"
    seen = behaviour_probe.probe(call, base, out, floor, work, axis)
    numbers = dict(noise_floor=seen.noise_floor, reorder_change=seen.reorder_change, repeat_change=seen.repeat_change)
    if seen.moved(seen.repeat_change) or seen.reordered():
        measured = Measurements(features=n, output_dtypes=tuple(sorted(call.output_dtypes)), **numbers)
        return _cannot_tell(name, measured, None, "state", behaviour_probe.state_sentence(seen))
    if axis == "neither":
        measured = Measurements(
            features=n,
            rows_changed=rows,
            columns_changed=columns,
            computes_in=work,
            why_that_type=why,
            output_dtypes=tuple(sorted(call.output_dtypes)),
            **numbers,
        )
        return with_differences(
            Fingerprint(name, None, None, None, None, axis, None, False, [], "none", None, measured)
        )
    ctx = Context(call, fn, name, n, base, axis, rows, columns, work, why, rounds_to, seen.noise_floor, numbers)
    chosen = _choose(ctx)
    end = behaviour_probe.relative_change(out, call(base))
    if seen.moved(end):
        measured = replace(chosen.measured, end_change=end)
        return _cannot_tell(name, measured, None, "state", behaviour_probe.state_sentence(seen, end))
    chosen = replace(chosen, measured=replace(chosen.measured, end_change=end))
    if chosen.is_layer_norm is False:
        return replace(chosen, differences=[NOT_LAYER_NORM[chosen.not_layer_norm_because]])
    if chosen.is_layer_norm is None:
        return chosen
    return with_differences(chosen)


def _residual(found: Fingerprint) -> float | None:
    return found.measured.prediction_misfit


def _clear(found: Fingerprint) -> bool:
    return (
        found.is_layer_norm is True
        and found.variance != "unclear"
        and found.eps_placement != "unclear"
        and _residual(found) is not None
    )


def _choose(ctx: Context) -> Fingerprint:
    """The verdict in the precision the types show, unless a coarser one fits its residuals (and only it)."""
    first = judge(ctx, ctx.work, strict=False)
    limit = max(roundoff(ctx.work) ** FITS, 4 * SLACK * ctx.floor)
    fits = _clear(first) and _residual(first) <= limit
    masked = 4 * SLACK * ctx.floor > roundoff(ctx.work) ** FITS  # its noise hides rounding finer than its own
    if fits:  # its residuals are its types' rounding (a one-pass variance too)
        return _tried(first, (ctx.work,), not masked)
    tried, between, kept = [ctx.work], None, None
    for precision in (p for p in ORDER if roundoff(p) > roundoff(ctx.work)):
        if kept is not None and _residual(kept) < roundoff(precision) / IN_BAND:
            break  # its residuals do not reach this coarser precision's band: the one kept names it
        tried.append(precision)
        try:
            found = judge(ctx, precision, strict=True)
        except CallProblem:
            continue
        if not _clear(found) or found.one_pass:
            continue
        if _residual(found) >= roundoff(precision) / IN_BAND:
            kept = found  # and a coarser one whose band its residuals reach too is the better name (bfloat16's)
        elif kept is None:
            between = between or (precision, found)
    if kept is not None and kept.measured.computes_in == "float16" and _holds_past_float16(ctx):
        tried += [] if "bfloat16" in tried else ["bfloat16"]
        try:
            coarser = judge(ctx, "bfloat16", strict=True)
        except CallProblem:
            coarser = None
        kept = coarser if coarser is not None and _clear(coarser) and not coarser.one_pass else kept
    if kept is not None:
        return _from_residuals(ctx, kept, tuple(tried))
    if between is None:
        return _tried(first, tuple(tried), False)
    precision, found = between
    residual = _residual(first) if _residual(first) is not None else _residual(found)
    sentence = (
        f"Cannot tell whether it is a LayerNorm: no precision fits it. Its output misses every LayerNorm "
        f"computed exactly by more than {ctx.work}'s rounding, and misses one computed with {precision}'s "
        f"rounding by less than that rounding would leave"
        + (f" (by {residual:.1g} of its size)." if residual is not None else ".")
    )
    measured = replace(found.measured, precisions_tried=tuple(tried), precision_known=False)  # no precision fits
    return _cannot_tell(ctx.name, measured, ctx.axis, "between", sentence)


FLOAT16_PAST = 1000.0  # the base matrix this many times wider: its rows' variance, about 10⁶, is past float16's 65504


def _holds_past_float16(ctx: Context) -> bool:
    """Whether fn's output for the base matrix 1000 times wider is still its output for the base matrix, as a
    LayerNorm's is (it does not depend on the row's size): statistics in float16 cannot do that, their variance
    overflows float16's largest value (65504); bfloat16's have float32's range. Residuals alone cannot tell
    the two apart: bfloat16 statistics rounded only once or twice leave float16-sized residuals."""
    try:
        wide, y = ctx.call(ctx.base * FLOAT16_PAST), ctx.call(ctx.base)
    except CallProblem:
        return False
    return bool(np.all(np.isfinite(wide)) and np.max(np.abs(wide - y)) <= 0.1 * np.max(np.abs(y)))


def _tried(found: Fingerprint, tried: tuple, known: bool = True) -> Fingerprint:
    """``found`` with the precisions tried; when no precision fits its residuals, a failed offset probe
    cannot say whether the one-pass formula or statistics in a lower precision lost the digits."""
    measured = replace(found.measured, precisions_tried=tried, precision_known=known)
    if known or not found.one_pass:
        return replace(found, measured=measured)
    found = replace(found, one_pass=None, measured=measured)
    if found.matches_torch is False and departures(found) == "nothing":  # it departed only by "one pass"
        found = replace(found, matches_torch=None)
    return found


def _from_residuals(ctx: Context, found: Fingerprint, tried: tuple) -> Fingerprint:
    given = ctx.work
    shown = ctx.why or f"its output is {given}"  # what showed the type: its output, or the type it rounds its input to
    why = (
        f"{shown}, but it departs from an exact LayerNorm by as much as {found.measured.computes_in}'s "
        f"rounding, far more than {given}'s: it computes (its statistics, at least) in {found.measured.computes_in}"
    )
    return replace(found, measured=replace(found.measured, why_that_type=why, precisions_tried=tried))


NOT_LAYER_NORM = {
    "shape": (
        "It is not a LayerNorm: its output row, with the γ and β measured taken away, is not a stretched copy "
        "of the centred input row (a LayerNorm only shifts and scales each row), in any precision tried."
    ),
    "shift": (
        "It is not a LayerNorm: its output rows, with the β measured taken away, do not average to 0 (a "
        "LayerNorm's do), in any precision tried; min–max scaling, which maps each row onto 0 … 1, does this."
    ),
    "scale": (
        "It is not a LayerNorm: its output grows with its input (a row 1000 times wider came out "
        "changed); a LayerNorm's output does not depend on the row's size."
    ),
    "prediction": (
        "It is not a LayerNorm: no divisor and ε reproduce its output on an ordinary matrix, in any precision "
        "tried; it divides each row by something other than its standard deviation (or root mean square)."
    ),
    "constant": (
        "It is not a LayerNorm: the rows r and −r give the same output, where a LayerNorm's output for −r is "
        "minus its output for r (only a γ of 0 on every feature would do this)."
    ),
}
