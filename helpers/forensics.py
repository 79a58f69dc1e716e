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
* one pass: a row with a large offset (10⁴ in float32, 10⁸ in float64, both exactly representable)
  leaves a two-pass or Welford variance exact, and wipes out E[x²] − E[x]².

Pure maths on numpy: nothing here displays (``helpers.forensics_display`` shows a Fingerprint), and
torch is imported only when ``fn`` is torch code. Introduced in notebook 13.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from helpers.forensics_call import (
    BETA_NAMES,
    GAMMA_NAMES,
    Caller,
    CallProblem,
    feature_count,
    parameter,
)
from helpers.formula import layer_norm_forward
from helpers.layernorm import DEFAULT_EPS

TORCH_EPS = DEFAULT_EPS  # torch.nn.functional.layer_norm's default
DEFAULT_FEATURES = 4  # width of the probes when fn does not say how many features it takes
LESSON_FEATURES = 3  # tried next: code written for the lesson's 5 × 3 matrix
TIME_LIMIT = 5.0  # seconds for every call of one fingerprint together
MATCH_TOLERANCE = 1e-9  # relative: "equals F.layer_norm to float64 precision" (float64 rounding is ~1e-16)
LADDER = tuple(10.0**-j for j in range(17))  # scales of the tiny-variance rows: variance ~1 down to ~1e-32
BIG_SCALE = 1e5  # a spread so large that any ε up to 1 hardly moves the scale
OFFSETS = {"float32": 1e4, "float64": 1e8}  # exactly representable offsets that break E[x²] − E[x]²
ONE_PASS_CHANGE = 1e-3  # relative change of the output under the offset that counts as broken
SPREAD_LIMIT = 1e-2  # the right ε placement gives the same ε on every row to better than this


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
    offset_change: dict = field(default_factory=dict)  # dtype -> relative change of the output, or a problem
    constant_row: str = ""  # what a row of equal values gave: "zeros", "NaN or infinity" or the problem
    gamma_kind: str = "none"  # "per feature", "scalar" or "none" (read from fn's parameters)
    affine_undone: bool = False  # γ or β were not 1 or 0 and were divided out before measuring
    torch_difference: float | None = None  # largest relative difference from F.layer_norm(ε = 1e-5)
    output_dtypes: tuple = ()


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


def base_matrix(n: int) -> np.ndarray:
    """An ordinary (n + 3) × n matrix of 3-place numbers between −2 and 2: rows and columns differ."""
    return np.round(np.random.default_rng(13).uniform(-2, 2, size=(n + 3, n)), 3)


def fingerprint(
    fn, name: str | None = None, features: int | None = None, time_limit: float | None = TIME_LIMIT
) -> Fingerprint:
    """Probe ``fn`` (rows = tokens, columns = features; numpy or torch) and say which LayerNorm it computes.

    ``features``: the width of the probes (default: what ``fn`` says, e.g. ``normalized_shape``,
    else 4, and 3, the lesson's width, if ``fn`` fails on 4). Never raises because of ``fn``: a
    problem becomes ``Fingerprint.problem``, one sentence. Introduced in notebook 13.
    """
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    widths = [features or feature_count(fn) or DEFAULT_FEATURES]
    if features is None and feature_count(fn) is None:
        widths.append(LESSON_FEATURES)  # code written for the lesson's matrix only
    try:
        call = Caller(fn, time_limit)
    except CallProblem as problem:
        return broken(label, str(problem))
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


def _fingerprint(call: Caller, fn, name: str, n: int) -> Fingerprint:
    base = base_matrix(n)
    out = call(base)
    if not np.all(np.isfinite(out)):
        raise CallProblem(
            f"It returned NaN or infinity for an ordinary {base.shape[0]} × {n} matrix of numbers between −2 and 2."
        )
    rows, columns = _axis(call, base, out)
    axis = "rows" if rows == (1,) else "columns" if columns == (1,) else "neither"
    gamma_kind, gamma, beta = _affine(fn, n)
    if axis == "neither":
        measured = Measurements(
            n, rows, columns, gamma_kind=gamma_kind, output_dtypes=tuple(sorted(call.output_dtypes))
        )
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

    def along(x):  # fn seen as a row-wise function, with any γ and β divided out
        y = call(x) if axis == "rows" else call(x.T.copy()).T
        return y if gamma is None else (y - beta) / gamma

    d = pattern(n)
    probes = np.vstack([d, d + 3.0, BIG_SCALE * d] + [scale * d for scale in LADDER])
    raw = call(probes) if axis == "rows" else None
    y = along(probes)
    if not np.all(np.isfinite(y[:3])):
        raise CallProblem(f"It returned NaN or infinity for a plain row such as {', '.join(f'{v:g}' for v in d)}.")
    centres = bool(np.max(np.abs(y[1] - y[0])) <= 1e-6 * max(1.0, float(np.max(np.abs(y[0])))))
    scales = y @ d / (d @ d) / np.array([1.0, 1.0, BIG_SCALE, *LADDER])  # output = input × scale
    divisor = float((BIG_SCALE**2) * (d @ d) * scales[2] ** 2)
    variance, k = _divisor(divisor, n)
    placement, eps, informative, spreads = (
        _eps(scales[3:], k, d) if variance != "unclear" else ("unclear", None, 0, (None, None))
    )
    one_pass, offset_change = _one_pass(along, d, y[0]) if centres else (False, {})
    difference = _torch_difference(base, out, probes, raw)
    matches = difference <= MATCH_TOLERANCE and not one_pass  # one pass fails F.layer_norm far from 0
    measured = Measurements(
        features=n,
        rows_changed=rows,
        columns_changed=columns,
        centring_change=float(np.max(np.abs(y[1] - y[0]))),
        divisor=divisor,
        eps_rows=informative,
        spread_inside=spreads[0],
        spread_added=spreads[1],
        offset_change=offset_change,
        constant_row=_constant_row(along, n),
        gamma_kind=gamma_kind,
        affine_undone=gamma is not None,
        torch_difference=difference,
        output_dtypes=tuple(sorted(call.output_dtypes)),
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
    )
    return Fingerprint(
        name, centres, variance, placement, eps, axis, one_pass, matches, differences, gamma_kind, None, measured
    )


def _axis(call: Caller, base: np.ndarray, out: np.ndarray) -> tuple[tuple, tuple]:
    """Which output rows move when token 1 is edited, and which columns when feature 1 is."""

    def moved(edited, along_axis):
        change = np.abs(call(edited) - out) > 1e-12 * (1 + np.abs(out))
        return tuple(int(i) + 1 for i in np.flatnonzero(change.any(axis=along_axis)))

    token = base.copy()
    token[0] = base[0, ::-1] * 1.7 + 0.3
    feature = base.copy()
    feature[:, 0] = base[::-1, 0] * 1.7 + 0.3
    return moved(token, 1), moved(feature, 0)


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


def _divisor(divisor: float, n: int) -> tuple[str, float]:
    """ "biased" when the measured k is n, "unbiased" when it is n − 1 (to 0.1 %), else "unclear"."""
    if not math.isfinite(divisor) or divisor <= 0:
        return "unclear", float(n)
    for label, k in (("biased", n), ("unbiased", n - 1)):
        if abs(divisor - k) <= 1e-3 * k:
            return label, float(k)
    return "unclear", divisor


def _eps(scales: np.ndarray, k: float, d: np.ndarray):
    """ε and its placement from the ladder rows' scales: (placement, eps, rows used, (spread inside, spread added))."""
    variance = np.array(LADDER) ** 2 * (d @ d) / k
    with np.errstate(all="ignore"):
        usable = np.isfinite(scales) & (scales > 0)
        excess = np.where(usable, 1 / (scales * scales * variance) - 1, np.nan)
        informative = usable & (excess > 1e-7)
        inside = 1 / scales[informative] ** 2 - variance[informative]
        added = 1 / scales[informative] - np.sqrt(variance[informative])
    count = int(informative.sum())
    if count == 0:
        tiny = usable & (np.abs(excess) <= 1e-7)
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


def _one_pass(along, d: np.ndarray, at_zero: np.ndarray) -> tuple[bool, dict]:
    """Does a large offset (exact in each precision) change the output? It should not."""
    changes = {}
    for dtype, offset in OFFSETS.items():
        rows = np.vstack([d, d + offset]).astype(dtype)
        try:
            y = along(rows)
        except CallProblem as problem:
            changes[dtype] = str(problem)
            continue
        change = np.max(np.abs(y[1] - y[0])) / max(float(np.max(np.abs(y[0]))), 1e-300)
        changes[dtype] = float(change) if math.isfinite(change) else math.inf
    broke = any(isinstance(c, float) and c > ONE_PASS_CHANGE for c in changes.values())
    return broke, changes


def _constant_row(along, n: int) -> str:
    try:
        y = along(np.vstack([np.full(n, 0.5), pattern(n)]))[0]
    except CallProblem as problem:
        return str(problem)
    if not np.all(np.isfinite(y)):
        return "NaN or infinity"
    return "zeros" if np.all(np.abs(y) < 1e-9) else "values other than 0"


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
    words = [
        ("axis", f.axis not in ("rows", None)),
        ("no mean", f.centres is False),
        ("÷ (n − 1)", f.variance == "unbiased"),
        ("ε + std", f.eps_placement == "added to std"),
        ("no ε", f.eps_placement == "none"),
        (
            "ε value",
            f.eps_placement in ("inside sqrt", "added to std")
            and f.eps is not None
            and not math.isclose(f.eps, TORCH_EPS, rel_tol=1e-3),
        ),
        ("one pass", bool(f.one_pass)),
        ("one γ", f.gamma == "scalar"),
    ]
    return ", ".join(word for word, applies in words if applies) or "nothing"


def differences_from_torch(
    centres, variance, placement, eps, axis, one_pass, gamma_kind, matches, affine_undone=False, difference=None
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
        found.append("It adds no ε, so a row of equal values divides 0 by 0; PyTorch adds ε = 1e-05 inside the root.")
    elif placement == "unclear":
        found.append("Its ε does not behave like a number added inside the root or to the standard deviation.")
    if (
        placement in ("inside sqrt", "added to std")
        and eps is not None
        and not math.isclose(eps, TORCH_EPS, rel_tol=1e-3)
    ):
        found.append(f"Its ε is {eps:.3g}; PyTorch's default is 1e-05.")
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
