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
killed at the time limit, so the limit holds for long C calls too (``helpers.forensics_isolate``).

Pure maths on numpy: nothing here displays (``helpers.forensics_display`` shows a Fingerprint), and
torch is imported only when ``fn`` is torch code. Introduced in notebook 13.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from helpers import forensics_isolate
from helpers.forensics_call import (
    BETA_NAMES,
    GAMMA_NAMES,
    Caller,
    CallProblem,
    feature_count,
    module_dtype,
    parameter,
)
from helpers.formula import layer_norm_forward
from helpers.layernorm import DEFAULT_EPS

TORCH_EPS = DEFAULT_EPS  # torch.nn.functional.layer_norm's default
DEFAULT_FEATURES = 4  # width of the probes when fn does not say how many features it takes
LESSON_FEATURES = 3  # tried next: code written for the lesson's 5 × 3 matrix
TIME_LIMIT = 5.0  # seconds for every call of one fingerprint together
ISOLATE = forensics_isolate.AVAILABLE  # run the fingerprint in a forked child killed at the time limit
# Each type: machine ε (torch.finfo(t).eps), largest finite value, smallest normal value.
PRECISIONS = {
    "float64": (2.0**-52, 1.7976931348623157e308, 2.0**-1022),
    "float32": (2.0**-23, 3.4028234663852886e38, 2.0**-126),
    "float16": (2.0**-10, 65504.0, 2.0**-14),
    "bfloat16": (2.0**-7, 3.3895313892515355e38, 2.0**-126),
}
MATCH_TOLERANCE = 1e-9  # relative: "equals F.layer_norm to float64 precision" (float64 rounding is ~1e-16)
LADDER = tuple(10.0**-j for j in range(17))  # scales of the tiny-variance rows: variance ~1 down to ~1e-32
HALF_LADDER = tuple(2.0**-j for j in range(14))  # float16: down to its smallest normal value, 2⁻¹⁴
BIG_SCALE = 1e5  # a spread so large that any ε up to 1 hardly moves the scale
WIDE = {"float64": 1e5, "float32": 1e5, "float16": 16.0, "bfloat16": 1024.0}  # the wide row, inside each range
MIDDLE = {"float64": 1e2, "float32": 1e2, "float16": 2.0, "bfloat16": 32.0}  # a second wide row: scale invariance
OFFSETS = {"float64": 1e8, "float32": 1e4, "float16": 64.0, "bfloat16": 16.0}  # exact there, break E[x²] − E[x]²
ONE_PASS_CHANGE = 1e-3  # relative change of the output under the offset that counts as broken
SPREAD_LIMIT = 1e-2  # the right ε placement gives the same ε on every row to better than this
SHAPE_LIMIT = 1e-6  # a row's output is a stretched copy of the centred row to better than this (float64)
SCALE_LIMIT = 1e-2  # making a row 1000 times wider moves a normaliser's output by less than this


def roundoff(dtype: str) -> float:
    """The machine ε of a floating-point type (float64 for anything else)."""
    return PRECISIONS.get(dtype, PRECISIONS["float64"])[0]


def tolerance_of(dtype: str) -> float:
    """Differences below this are rounding in ``dtype``: 1e-9 for float64, else a power of 10 near 100 × its ε
    (float32 1e-5, float16 0.01, bfloat16 0.1). Also how "matches PyTorch" is judged and what displays hide."""
    if dtype not in PRECISIONS or dtype == "float64":
        return MATCH_TOLERANCE
    return 10.0 ** math.floor(math.log10(100 * roundoff(dtype)))


def lowest(*dtypes) -> str:
    """The least precise of the floating-point types given (others, e.g. int64 or None, are ignored)."""
    known = [t for t in dtypes if t in PRECISIONS]
    return max(known, key=roundoff) if known else "float64"


def rounded(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` (float64) rounded to the values ``dtype`` stores; bfloat16 by keeping 8 significant bits."""
    if dtype == "bfloat16":
        mantissa, exponent = np.frexp(x)
        return np.ldexp(np.round(mantissa * 256) / 256, exponent)
    return np.asarray(x, dtype=np.float64).astype(dtype).astype(np.float64)


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
        from helpers.forensics_display import fingerprint_text

        return fingerprint_text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        from helpers.forensics_display import fingerprint_html

        return fingerprint_html(self)


def pattern(n: int) -> np.ndarray:
    """A row with mean exactly 0 and half-integer or integer values (exact in float32): j − (n − 1)/2."""
    return np.arange(n, dtype=np.float64) - (n - 1) / 2


def alternating(n: int) -> np.ndarray:
    """−½, ½, −½, … (and 0 last when n is odd): mean exactly 0, exact beside any offset of OFFSETS."""
    row = np.where(np.arange(n) % 2 == 0, -0.5, 0.5)
    if n % 2:
        row[-1] = 0.0
    return row


def base_matrix(n: int) -> np.ndarray:
    """An ordinary (n + 3) × n matrix of 3-place numbers between −2 and 2: rows and columns differ."""
    return np.round(np.random.default_rng(13).uniform(-2, 2, size=(n + 3, n)), 3)


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
    rows, columns = _axis(call, base, out, noise)
    axis = "rows" if rows == (1,) else "columns" if columns == (1,) else "neither"
    gamma_kind, gamma, beta = _affine(fn, n)
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
        return Fingerprint(
            name,
            None,
            None,
            None,
            None,
            axis,
            None,
            False,
            differences_from_torch(None, None, None, None, axis, None, gamma_kind, False),
            gamma_kind,
            None,
            measured,
        )

    def along(x, dtype=None):  # fn seen as a row-wise function, with any γ and β divided out
        y = call(x, dtype) if axis == "rows" else call(x.T.copy(), dtype).T
        return y if gamma is None else (y - beta) / gamma

    y_base = out if axis == "rows" and gamma is None else along(base)
    misfit = _shape_misfit(base, y_base)
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
    shift = _row_shift(base, y_base) if centres else None
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
    variance, k, factor = _divisor(divisor, n, noise)
    if factor != 1.0:
        scales = scales / factor
    ladder_variance = uu[4:] / k
    placement, eps, informative, spreads = (
        _eps(scales[4:], ladder_variance, max(1e-7, 1e4 * noise))
        if variance != "unclear"
        else ("unclear", None, 0, (None, None))
    )
    machine = placement == "inside sqrt" and eps is not None and math.isclose(eps, noise, rel_tol=2e-2)
    prediction = None
    if placement in ("inside sqrt", "added to std", "none"):
        expected = factor * _normalise(base, centres, k, placement, eps or 0.0)
        prediction = _relative(y_base, expected)
        if prediction > max(1e-3, 30 * noise):
            measured = Measurements(
                **common, divisor=divisor, prediction_misfit=prediction, output_dtypes=tuple(sorted(call.output_dtypes))
            )
            return _not_layer_norm(name, measured, axis, gamma_kind, "prediction", NOT_LAYER_NORM["prediction"])
    types = ["float64", "float32"] + [t for t in (module_dtype(fn), work) if t in ("float16", "bfloat16")]
    one_pass, offset_change = _one_pass(along, call, n, rounds_to, dict.fromkeys(types)) if centres else (False, {})
    difference = _torch_difference(base, out, probes, raw)
    tolerance = tolerance_of(work)
    matches = difference <= tolerance and not one_pass and factor == 1.0  # one pass fails F.layer_norm far from 0
    equal_row, zero_row = _constant_rows(along, n)
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
    differences = differences_from_torch(
        centres,
        variance,
        placement,
        eps,
        axis,
        one_pass,
        gamma_kind,
        matches,
        affine_undone=gamma is not None,
        difference=difference,
        factor=factor,
        machine=machine,
        eps_tolerance=max(1e-3, 10 * noise),
    )
    return Fingerprint(
        name,
        centres,
        variance,
        placement,
        eps,
        axis,
        one_pass,
        matches,
        differences,
        gamma_kind,
        None,
        measured,
        True,
        "",
        factor,
        machine,
    )


def _axis(call: Caller, base: np.ndarray, out: np.ndarray, noise: float = 0.0) -> tuple[tuple, tuple]:
    """Which output rows move when token 1 is edited, and which columns when feature 1 is."""
    tolerance = max(1e-12, 4 * noise)

    def moved(edited, along_axis):
        change = np.abs(call(edited) - out) > tolerance * (1 + np.abs(out))
        return tuple(int(i) + 1 for i in np.flatnonzero(change.any(axis=along_axis)))

    token = base.copy()
    token[0] = base[0, ::-1] * 1.7 + 0.3
    feature = base.copy()
    feature[:, 0] = base[::-1, 0] * 1.7 + 0.3
    return moved(token, 1), moved(feature, 0)


def _shape_misfit(x: np.ndarray, y: np.ndarray) -> float:
    """Worst row: |y − (a·(x − mean) + b)| for the best a and b, relative to the row's largest |y|."""
    worst = 0.0
    for row, out in zip(x, y):
        design = np.column_stack([row - row.mean(), np.ones_like(row)])
        fit, *_ = np.linalg.lstsq(design, out, rcond=None)
        size = max(float(np.max(np.abs(out))), 1e-300)
        worst = max(worst, float(np.max(np.abs(design @ fit - out))) / size)
    return worst


def _row_shift(x: np.ndarray, y: np.ndarray) -> float:
    """Worst row: how far the output's mean is from 0, relative to the row's largest |y|."""
    size = np.maximum(np.abs(y).max(axis=1), 1e-300)
    return float(np.max(np.abs(y.mean(axis=1)) / size))


def _normalise(x, centres, k, placement, eps) -> np.ndarray:
    """The conventions found, applied to ``x`` in float64."""
    u = x - x.mean(axis=1, keepdims=True) if centres else x
    variance = (u * u).sum(axis=1, keepdims=True) / k
    with np.errstate(all="ignore"):
        if placement == "added to std":
            return u / (np.sqrt(variance) + eps)
        return u / np.sqrt(variance + eps)


def _relative(y, expected) -> float:
    size = np.maximum(np.abs(expected).max(axis=1, keepdims=True), 1e-300)
    with np.errstate(all="ignore"):
        worst = np.max(np.abs(y - expected) / size)
    return float(worst) if math.isfinite(worst) else math.inf


def _affine(fn, n: int):
    """γ's kind, and γ and β to divide out when they are not 1 and 0 (else None, None)."""
    gamma, beta = parameter(fn, GAMMA_NAMES), parameter(fn, BETA_NAMES)
    kind = (
        "none" if gamma is None else "scalar" if gamma.size == 1 else "per feature" if gamma.shape == (n,) else "none"
    )
    if kind == "none":
        return kind, None, None
    beta = np.zeros(1) if beta is None or beta.size not in (1, n) else beta
    if np.all(gamma == 1) and np.all(beta == 0) or np.any(gamma == 0):
        return kind, None, None
    return kind, gamma, beta


def _divisor(divisor: float, n: int, noise: float = 0.0) -> tuple[str, float, float]:
    """ "biased" when the measured k is n, "unbiased" when it is n − 1 (to 0.1 %), else "unclear"; and a
    constant factor: a k that is neither is read as ÷ n with the output multiplied by √(k/n)."""
    if not math.isfinite(divisor) or divisor <= 0:
        return "unclear", float(n), 1.0
    tolerance = max(1e-3, 8 * noise)
    for label, k in (("biased", n), ("unbiased", n - 1)):
        if abs(divisor - k) <= tolerance * k:
            return label, float(k), 1.0
    return "biased", float(n), math.sqrt(divisor / n)  # output = factor · LayerNorm: k = n · factor²


def _eps(scales: np.ndarray, variance: np.ndarray, threshold: float = 1e-7):
    """ε and its placement from the ladder rows' scales: (placement, eps, rows used, (spread inside, spread added)).
    Only rows where ε/v is above ``threshold`` (well above the type's rounding) count."""
    with np.errstate(all="ignore"):
        usable = np.isfinite(scales) & (scales > 0) & (variance > 0)
        excess = np.where(usable, 1 / (scales * scales * variance) - 1, np.nan)
        informative = usable & (excess > threshold)
        inside = 1 / scales[informative] ** 2 - variance[informative]
        added = 1 / scales[informative] - np.sqrt(variance[informative])
    count = int(informative.sum())
    if count == 0:
        tiny = usable & (np.abs(excess) <= threshold)
        return ("none" if tiny.any() else "unclear"), 0.0, 0, (None, None)
    spreads = tuple(_spread(values) for values in (inside, added))
    if count == 1:
        return "unclear", float(inside[0]), 1, spreads
    best = int(np.argmin(spreads))
    if spreads[best] > SPREAD_LIMIT:
        return "unclear", float(np.median(inside)), count, spreads
    return ("inside sqrt", "added to std")[best], float(np.median((inside, added)[best])), count, spreads


def _spread(values: np.ndarray) -> float:
    """How far apart estimates of one number are: (largest − smallest) / middle; inf if any is ≤ 0."""
    if np.any(values <= 0):
        return math.inf
    return float((values.max() - values.min()) / np.median(values))


def _one_pass(along, call: Caller, n: int, rounds_to: str, types) -> tuple[bool, dict]:
    """Does a large offset change the output? It should not. Judged, for each input type, only at the offset
    that the type it computes in stores exactly (a float32 computation cannot even hold 10⁸ + ½)."""
    p = alternating(n)
    changes, broke = {}, False
    for dtype in types:
        offsets = [(t, o) for t, o in OFFSETS.items() if roundoff(t) >= roundoff(dtype)]
        rows = np.vstack([p] + [p + o for _, o in offsets])
        try:
            y = along(rows.astype(np.float32), dtype) if dtype == "bfloat16" else along(rows.astype(dtype))
        except CallProblem as problem:
            changes[dtype] = (dtype, None, str(problem))
            continue
        work = lowest(dtype, call.output_types.get(dtype), rounds_to)
        row = 1 + [t for t, _ in offsets].index(work)
        with np.errstate(all="ignore"):
            change = float(np.max(np.abs(y[row] - y[0])) / max(float(np.max(np.abs(y[0]))), 1e-300))
        change = change if math.isfinite(change) else math.inf
        changes[dtype] = (work, offsets[row - 1][1], change)
        broke = broke or change > max(ONE_PASS_CHANGE, 30 * roundoff(work))
    return broke, changes


def _constant_rows(along, n: int) -> tuple[str, str]:
    """What a row of equal values and a row of zeros give."""
    try:
        y = along(np.vstack([np.full(n, 0.5), np.zeros(n), pattern(n)]))
    except CallProblem as problem:
        return str(problem), str(problem)

    def words(row):
        if not np.all(np.isfinite(row)):
            return "NaN or infinity"
        if np.all(np.abs(row) < 1e-9):
            return "zeros"
        return "ones" if np.allclose(row, 1.0, rtol=1e-3) else "values other than 0"

    return words(y[0]), words(y[1])


def torch_layer_norm(x: np.ndarray) -> np.ndarray:
    """What ``torch.nn.functional.layer_norm(x, (n,), eps=1e-5)`` gives, in float64 (helpers' one formula)."""
    return layer_norm_forward(np.asarray(x, dtype=np.float64), TORCH_EPS)[0]


def _torch_difference(base, out, probes, raw) -> float:
    """The largest difference from F.layer_norm, relative to each row's size, on the ordinary and ladder rows."""
    pairs = [(base, out)] + ([(probes, raw)] if raw is not None else [])
    worst = 0.0
    for x, y in pairs:
        reference = torch_layer_norm(x)
        size = np.maximum(np.abs(reference).max(axis=1, keepdims=True), 1e-300)
        with np.errstate(all="ignore"):
            relative = np.abs(y - reference) / size
        worst = max(worst, float(np.max(np.where(np.isnan(relative), np.inf, relative))))
    return worst


def departures(f) -> str:
    """The ways a fingerprint departs from PyTorch's LayerNorm, in a few words each."""
    if f.problem:
        return "could not be measured"
    if f.is_layer_norm is False:
        return "not a LayerNorm"
    words = [
        ("axis", f.axis not in ("rows", None)),
        ("no mean", f.centres is False),
        ("÷ (n − 1)", f.variance == "unbiased"),
        ("ε + std", f.eps_placement == "added to std"),
        ("no ε", f.eps_placement == "none"),
        ("machine ε", f.machine_eps),
        (
            "ε value",
            f.eps_placement in ("inside sqrt", "added to std")
            and f.eps is not None
            and not f.machine_eps
            and not math.isclose(f.eps, TORCH_EPS, rel_tol=f.measured.eps_tolerance),
        ),
        ("× factor", f.factor != 1.0),
        ("one pass", bool(f.one_pass)),
        ("one γ", f.gamma == "scalar"),
    ]
    return ", ".join(word for word, applies in words if applies) or "nothing"


def differences_from_torch(
    centres,
    variance,
    placement,
    eps,
    axis,
    one_pass,
    gamma_kind,
    matches,
    affine_undone=False,
    difference=None,
    factor=1.0,
    machine=False,
    eps_tolerance=1e-3,
) -> list[str]:
    """One plain sentence per way this LayerNorm departs from PyTorch's."""
    found = []
    if axis == "columns":
        found.append(
            "It normalises each column (one feature across the tokens), not each row (one token's "
            "features) as PyTorch does."
        )
    elif axis == "neither":
        found.append(
            "It does not normalise one row or one column at a time: editing one token moved the "
            "output of other tokens and other features."
        )
    if centres is False:
        found.append("It does not subtract the mean of the row (like RMSNorm); PyTorch's LayerNorm does.")
    if variance == "unbiased":
        found.append("It divides the variance by n − 1 (the unbiased estimate); PyTorch divides by n.")
    elif variance == "unclear":
        found.append("Its variance is not the sum of squares divided by n or by n − 1.")
    if placement == "added to std":
        found.append("It adds ε to the standard deviation, σ + ε; PyTorch adds ε inside the root, √(σ² + ε).")
    elif placement == "none":
        row = "a row of equal values" if centres else "a row of zeros"
        found.append(f"It adds no ε, so {row} divides 0 by 0; PyTorch adds ε = 1e-05 inside the root.")
    elif placement == "unclear":
        found.append("Its ε does not behave like a number added inside the root or to the standard deviation.")
    if machine:
        found.append(
            "Its ε is the machine ε of the input type, torch.finfo(x.dtype).eps (1.19e-07 in float32, "
            "2.22e-16 in float64), as nn.RMSNorm uses when eps=None; PyTorch's LayerNorm adds 1e-05."
        )
    elif (
        placement in ("inside sqrt", "added to std")
        and eps is not None
        and not math.isclose(eps, TORCH_EPS, rel_tol=eps_tolerance)
    ):
        found.append(f"Its ε is {eps:.3g}; PyTorch's default is 1e-05.")
    if factor != 1.0:
        found.append(
            f"Its output is {factor:.4g} times a LayerNorm's: a constant factor that is not a parameter (a "
            "scale, like γ = {0:.4g} on every feature). With a factor, ÷ n and ÷ (n − 1) give the same "
            "numbers up to the factor; ÷ n is assumed.".format(factor)
        )
    if one_pass:
        found.append(
            "Its variance loses every digit when the values sit far from 0, as the one-pass formula "
            "E[x²] − E[x]² does; PyTorch's kernels do not."
        )
    if gamma_kind == "scalar":
        found.append("It has one γ shared by every feature; PyTorch's LayerNorm learns one γ per feature.")
    if affine_undone:
        found.append("Its γ and β are not 1 and 0 (trained?); they were divided out before measuring.")
    if not found and not matches:
        found.append(
            "It departs from PyTorch's output in a way none of these conventions explains"
            + (f" (largest relative difference {difference:.1g})." if difference is not None else ".")
        )
    return found
