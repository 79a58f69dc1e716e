"""Is this LayerNorm? Fingerprint any LayerNorm by probing it with inputs designed to expose each convention.

``fingerprint(fn)`` calls ``fn`` (a numpy function, a torch function or a torch module; rows are
tokens, columns are features) on a few matrices and measures, never reading its source:

* axis: edit one token; a row-wise LayerNorm changes only that token's output row;
* centring: add 3 to a row; a LayerNorm's output does not move, an RMSNorm's does;
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

Every probe is sized to the type ``fn`` really computes in (float64, or float32 when its output is
float32 or it rounds its input, or float16/bfloat16): the wide row stays inside the type's range,
the probes' values are rounded to it first, and each check is judged to that type's precision (ε
only from rows where ε/σ² is well above its rounding). A torch module is also probed in its own
type (float16, bfloat16). With fork available the whole fingerprint runs in a child process that is
killed at the time limit, so the limit holds for long C calls too (``helpers.forensics.isolate``).

Pure maths on numpy: nothing here displays (``helpers.forensics.display`` shows a Fingerprint), and
torch is imported only when ``fn`` is torch code. The probes' arithmetic is in ``probes``,
the types' rounding in ``precision``, the verdicts' words in ``words``; this
module runs the probes and puts one Fingerprint together. Introduced in notebook 13.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

import helpers.forensics.isolate as forensics_isolate  # the module alone: the package imports display
from helpers.core import views
from helpers.forensics.call import Caller, CallProblem, feature_count, module_dtype
from helpers.forensics.precision import MATCH_TOLERANCE, lowest, rounded, roundoff, tolerance_of
from helpers.forensics.probes import (
    HALF_LADDER,
    LADDER,
    MIDDLE,
    WIDE,
    affine_parameters,
    apply_conventions,
    base_matrix,
    constant_rows,
    divisor_kind,
    eps_from_ladder,
    moved_by_edits,
    one_pass_changes,
    pattern,
    relative_difference,
    row_shift,
    shape_misfit,
    torch_difference,
)
from helpers.forensics.probes import torch_layer_norm as torch_layer_norm  # public here, as before the split
from helpers.forensics.words import TORCH_EPS as TORCH_EPS  # public here, as before the split
from helpers.forensics.words import departures as departures  # public here, as before the split
from helpers.forensics.words import differences_from_torch

DEFAULT_FEATURES = 4  # width of the probes when fn does not say how many features it takes
LESSON_FEATURES = 3  # tried next: code written for the lesson's 5 × 3 matrix
TIME_LIMIT = 5.0  # seconds for every call of one fingerprint together
ISOLATE = forensics_isolate.AVAILABLE  # run the fingerprint in a forked child killed at the time limit
SHAPE_LIMIT = 1e-6  # a row's output is a stretched copy of the centred row to better than this (float64)
SCALE_LIMIT = 1e-2  # making a row 1000 times wider moves a normaliser's output by less than this


@dataclass(frozen=True)
class Measurements:
    """The raw numbers behind a fingerprint (shown as its evidence)."""

    features: int = 0
    rows_changed: tuple = ()  # output rows (from 1) that moved when token 1 was edited
    columns_changed: tuple = ()  # output columns (from 1) that moved when feature 1 was edited
    centring_change: float | None = None  # how far the output moved when 3 was added to a row
    divisor: float | None = None  # k measured from the big row
    eps_rows: int = 0  # ladder rows where ε shows
    spread_inside: float | None = None  # how much 1/s² − v varies over those rows
    spread_added: float | None = None  # how much 1/s − √v varies
    offset_change: dict = field(default_factory=dict)  # input type -> (type computed in, offset, change or problem)
    constant_row: str = ""  # what a row of equal values gave: "zeros", "NaN or infinity" or the problem
    gamma_kind: str = "none"  # "per feature", "scalar" or "none" (read from fn's parameters)
    affine_undone: bool = False  # γ or β were not 1 or 0 and were divided out before measuring
    torch_difference: float | None = None  # largest relative difference from F.layer_norm(ε = 1e-5)
    output_dtypes: tuple = ()
    computes_in: str = "float64"  # the type its arithmetic was judged in
    why_that_type: str = ""  # "its output is float32", "it rounds its input to float32" or ""
    shape_misfit: float | None = None  # worst row: how far the output is from a stretched centred row
    row_shift: float | None = None  # worst row: how far its output's mean is from 0 (centring norms)
    scale_change: float | None = None  # how far the output moved when a row was made 1000 times wider
    prediction_misfit: float | None = None  # how far the conventions found are from its output on the matrix
    zero_row: str = ""  # what a row of zeros gave
    smallest_variance: float | None = None  # the smallest variance on the ε ladder
    match_tolerance: float = MATCH_TOLERANCE
    eps_tolerance: float = 1e-3  # relative: how close ε must be to a known default to be called it


@dataclass(frozen=True, repr=False)
class Fingerprint:
    """Which LayerNorm ``fn`` computes, measured by :func:`fingerprint`. ``None`` means not measurable."""

    name: str
    centres: bool | None
    variance: str | None  # "biased" (÷ n), "unbiased" (÷ n − 1) or "unclear"
    eps_placement: str | None  # "inside sqrt", "added to std", "none" or "unclear"
    eps: float | None  # 0.0 when none
    axis: str | None  # "rows", "columns" or "neither"
    one_pass: bool | None
    matches_torch: bool
    differences: list
    gamma: str = "none"  # "per feature", "scalar" or "none"
    problem: str | None = None  # why fn could not be fingerprinted (an exception, NaN, wrong shape, time)
    measured: Measurements = Measurements()
    is_layer_norm: bool | None = None  # False: its output is not a LayerNorm's (softmax, min–max, clipping)
    not_layer_norm_because: str = ""  # "shape", "shift", "scale" or "prediction" when is_layer_norm is False
    factor: float = 1.0  # a constant its output is multiplied by (2 · LayerNorm: 2), not a parameter
    machine_eps: bool = False  # ε is the machine ε of the input type (nn.RMSNorm with eps=None)

    def __str__(self) -> str:
        return views.text(self)  # registered by helpers.forensics.display

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


def _with_differences(print_: Fingerprint) -> Fingerprint:
    """The fingerprint with its sentences on how it departs from PyTorch, read off its own fields."""
    return replace(print_, differences=differences_from_torch(print_))


def fingerprint(
    fn, name: str | None = None, features: int | None = None, time_limit: float | None = TIME_LIMIT
) -> Fingerprint:
    """Probe ``fn`` (rows = tokens, columns = features; numpy or torch) and say which LayerNorm it computes.

    ``features``: the width of the probes (default: what ``fn`` says, e.g. ``normalized_shape``,
    else 4, and 3, the lesson's width, if ``fn`` fails on 4). Never raises because of ``fn``: a
    problem becomes ``Fingerprint.problem``, one sentence. ``time_limit`` covers every call together;
    where fork exists the probes run in a child process that is killed at the limit (any code, C
    included), elsewhere (Windows) only Python code can be stopped. Introduced in notebook 13.
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
            if "did not finish" in str(problem):
                break
    return broken(label, first)


def broken(name: str, problem: str) -> Fingerprint:
    """The fingerprint of something that could not be measured."""
    return Fingerprint(name, None, None, None, None, None, None, False, [problem], problem=problem)


def _values(row: np.ndarray) -> str:
    shown = ", ".join(f"{v:.6g}" for v in row[:4])
    return shown + (", …" if row.size > 4 else "")


def _working_type(call: Caller, base: np.ndarray, out: np.ndarray) -> tuple[str, str, str]:
    """The type fn computes in when given float64 (its output's, or the one it rounds its input to),
    why, and the type it rounds its input to ("float64" when it does not)."""
    rounds_to = "float64"
    for dtype in ("float32", "float16"):
        try:
            if not np.array_equal(call(rounded(base, dtype)), out):
                break
        except CallProblem:
            break
        rounds_to = dtype
    given = call.output_types.get("float64")
    work = lowest("float64", given, rounds_to)
    if work == "float64":
        return work, "", rounds_to
    why = f"its output is {given}" if work == given else f"it rounds its input to {rounds_to}"
    return work, why, rounds_to


def _not_layer_norm(name, measured, axis, gamma_kind, because, sentence) -> Fingerprint:
    return Fingerprint(
        name, None, None, None, None, axis, None, False, [sentence], gamma_kind, None, measured, False, because
    )


NOT_LAYER_NORM = {
    "shape": (
        "It is not a LayerNorm: its output row is not a stretched copy of the centred input row (a "
        "LayerNorm only shifts and scales each row), as softmax or clipping do."
    ),
    "shift": (
        "It is not a LayerNorm: its output rows do not average to 0 (a LayerNorm's do, before β), "
        "as min–max scaling, which maps each row onto 0 … 1, does."
    ),
    "scale": (
        "It is not a LayerNorm: its output grows with its input (a row 1000 times wider came out "
        "changed); a LayerNorm's output does not depend on the row's size."
    ),
    "prediction": (
        "It is not a LayerNorm: no divisor and ε reproduce its output on an ordinary matrix; it divides "
        "each row by something other than its standard deviation (or root mean square)."
    ),
}


def _fingerprint(call: Caller, fn, name: str, n: int) -> Fingerprint:
    base = base_matrix(n)
    out = call(base)
    if not np.all(np.isfinite(out)):
        raise CallProblem(
            f"It returned NaN or infinity for an ordinary {base.shape[0]} × {n} matrix of numbers between −2 and 2."
        )
    work, why, rounds_to = _working_type(call, base, out)
    noise = roundoff(work)
    if work != "float64":
        base = rounded(base, work)  # the values it really computes with
        out = call(base)
    rows, columns = moved_by_edits(call, base, out, noise)
    axis = "rows" if rows == (1,) else "columns" if columns == (1,) else "neither"
    gamma_kind, gamma, beta = affine_parameters(fn, n)
    common = dict(
        features=n,
        rows_changed=rows,
        columns_changed=columns,
        gamma_kind=gamma_kind,
        computes_in=work,
        why_that_type=why,
    )
    if axis == "neither":
        measured = Measurements(**common, output_dtypes=tuple(sorted(call.output_dtypes)))
        return _with_differences(
            Fingerprint(name, None, None, None, None, axis, None, False, [], gamma_kind, None, measured)
        )

    def along(x, dtype=None):  # fn seen as a row-wise function, with any γ and β divided out
        y = call(x, dtype) if axis == "rows" else call(x.T.copy(), dtype).T
        return y if gamma is None else (y - beta) / gamma

    y_base = out if axis == "rows" and gamma is None else along(base)
    misfit = shape_misfit(base, y_base)
    shape_limit = max(SHAPE_LIMIT, 20 * noise)
    if misfit > shape_limit:
        measured = Measurements(**common, shape_misfit=misfit, output_dtypes=tuple(sorted(call.output_dtypes)))
        return _not_layer_norm(name, measured, axis, gamma_kind, "shape", NOT_LAYER_NORM["shape"])

    d = pattern(n)
    wide, middle = WIDE[work], MIDDLE[work]
    ladder = HALF_LADDER if work == "float16" else LADDER
    probes = rounded(np.vstack([d, d + 3.0, wide * d, middle * d] + [scale * d for scale in ladder]), work)
    labels = (
        "the row",
        "the same row plus 3",
        f"the row spread {wide:g} times wider",
        f"the row spread {middle:g} times",
    )
    raw = call(probes) if axis == "rows" else None
    y = along(probes)
    for row, label in enumerate(labels):
        if not np.all(np.isfinite(y[row])):
            raise CallProblem(f"It returned NaN or infinity for {label}, {_values(probes[row])}.")
    size = max(float(np.max(np.abs(y[0]))), 1e-300)
    centring_change = float(np.max(np.abs(y[1] - y[0])))
    centres = bool(centring_change <= max(1e-6, 100 * noise) * max(1.0, size))
    shift = row_shift(base, y_base) if centres else None
    scale_change = float(np.max(np.abs(y[2] - y[3])) / max(float(np.max(np.abs(y[3]))), 1e-300))
    common.update(shape_misfit=misfit, row_shift=shift, scale_change=scale_change, centring_change=centring_change)
    if centres and shift > shape_limit:
        measured = Measurements(**common, output_dtypes=tuple(sorted(call.output_dtypes)))
        return _not_layer_norm(name, measured, axis, gamma_kind, "shift", NOT_LAYER_NORM["shift"])
    if not scale_change <= max(SCALE_LIMIT, 30 * noise):
        measured = Measurements(**common, output_dtypes=tuple(sorted(call.output_dtypes)))
        return _not_layer_norm(name, measured, axis, gamma_kind, "scale", NOT_LAYER_NORM["scale"])

    u = probes - probes.mean(axis=1, keepdims=True) if centres else probes  # what the output is a multiple of
    uu = np.einsum("ij,ij->i", u, u)
    with np.errstate(all="ignore"):
        scales = np.einsum("ij,ij->i", y, u) / uu  # output = u × scale
    divisor = float(uu[2] * scales[2] ** 2)
    variance, k, factor = divisor_kind(divisor, n, noise)
    if factor != 1.0:
        scales = scales / factor
    ladder_variance = uu[4:] / k
    placement, eps, informative, spreads = (
        eps_from_ladder(scales[4:], ladder_variance, max(1e-7, 1e4 * noise))
        if variance != "unclear"
        else ("unclear", None, 0, (None, None))
    )
    machine = placement == "inside sqrt" and eps is not None and math.isclose(eps, noise, rel_tol=2e-2)
    prediction = None
    if placement in ("inside sqrt", "added to std", "none"):
        expected = factor * apply_conventions(base, centres, k, placement, eps or 0.0)
        prediction = relative_difference(y_base, expected)
        if prediction > max(1e-3, 30 * noise):
            measured = Measurements(
                **common, divisor=divisor, prediction_misfit=prediction, output_dtypes=tuple(sorted(call.output_dtypes))
            )
            return _not_layer_norm(name, measured, axis, gamma_kind, "prediction", NOT_LAYER_NORM["prediction"])
    types = ["float64", "float32"] + [t for t in (module_dtype(fn), work) if t in ("float16", "bfloat16")]
    one_pass, offset_change = (
        one_pass_changes(along, call, n, rounds_to, dict.fromkeys(types)) if centres else (False, {})
    )
    difference = torch_difference(base, out, probes, raw)
    tolerance = tolerance_of(work)
    matches = difference <= tolerance and not one_pass and factor == 1.0  # one pass fails F.layer_norm far from 0
    equal_row, zero_row = constant_rows(along, n)
    measured = Measurements(
        **common,
        divisor=divisor,
        eps_rows=informative,
        spread_inside=spreads[0],
        spread_added=spreads[1],
        offset_change=offset_change,
        constant_row=equal_row,
        zero_row=zero_row,
        affine_undone=gamma is not None,
        torch_difference=difference,
        output_dtypes=tuple(sorted(call.output_dtypes)),
        prediction_misfit=prediction,
        smallest_variance=float(ladder_variance[-1]),
        match_tolerance=tolerance,
        eps_tolerance=max(1e-3, 10 * noise),
    )
    print_ = Fingerprint(
        name,
        centres,
        variance,
        placement,
        eps,
        axis,
        one_pass,
        matches,
        [],
        gamma_kind,
        None,
        measured,
        True,
        "",
        factor,
        machine,
    )
    return _with_differences(print_)
