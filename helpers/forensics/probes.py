"""The fingerprint's probes and what each measures: pure maths on numpy, one function per probe.

``helpers.forensics.fingerprints`` calls these on a function's outputs and puts the measurements together into a
:class:`~helpers.forensics.fingerprints.Fingerprint`; the module docstring there says what each probe exposes.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.formula import layer_norm_forward
from helpers.core.tolerance import FLOAT64_NOISE, PROBE_NOISE
from helpers.forensics.call import Caller, CallProblem
from helpers.forensics.precision import lowest, roundoff
from helpers.forensics.words import TORCH_EPS

LADDER = tuple(10.0**-j for j in range(17))  # scales of the tiny-variance rows: variance ~1 down to ~1e-32
HALF_LADDER = tuple(2.0**-j for j in range(14))  # float16: down to its smallest normal value, 2⁻¹⁴
WIDE = {"float64": 1e5, "float32": 1e5, "float16": 16.0, "bfloat16": 1024.0}  # the wide row, inside each range
MIDDLE = {"float64": 1e2, "float32": 1e2, "float16": 2.0, "bfloat16": 32.0}  # a second wide row: scale invariance
OFFSETS = {"float64": 1e8, "float32": 1e4, "float16": 64.0, "bfloat16": 16.0}  # exact there, break E[x²] − E[x]²
ONE_PASS_CHANGE = 1e-3  # relative change of the output under the offset that counts as broken
SPREAD_LIMIT = 1e-2  # the right ε placement gives the same ε on every row to better than this


def pattern(n: int) -> np.ndarray:
    """A row with mean exactly 0 and half-integer or integer values (exact in float32): j − (n − 1)/2."""
    return np.arange(n, dtype=np.float64) - (n - 1) / 2


def centring_offset(n: int) -> float:
    """What the centring probe adds to every value of :func:`pattern`: 3 up to 4 features, and as many times 3
    as the row is wider than 4 features' pattern (n = 768: 594). A fixed 3 on a row spread over ±383 moved an
    RMSNorm's output by under 1 % of its size, about two roundings of bfloat16: the probe could not tell."""
    return 3.0 * max(1, round(float(np.std(pattern(n)) / np.std(pattern(4)))))


def alternating(n: int) -> np.ndarray:
    """−½, ½, −½, … (and 0 last when n is odd): mean exactly 0, exact beside any offset of OFFSETS."""
    row = np.where(np.arange(n) % 2 == 0, -0.5, 0.5)
    if n % 2:
        row[-1] = 0.0
    return row


def base_rows(n: int) -> int:
    """How many tokens the ordinary matrix has: n + 3, at most 16 (never n), so that rows and columns differ
    and a 768-feature fingerprint calls on 16 tokens, not 771."""
    return n + 3 if n + 3 <= 16 else 17 if n == 16 else 16


def base_matrix(n: int) -> np.ndarray:
    """An ordinary base_rows(n) × n matrix of 3-place numbers between −2 and 2: rows and columns differ."""
    return np.round(np.random.default_rng(13).uniform(-2, 2, size=(base_rows(n), n)), 3)


def moved_by_edits(call: Caller, base: np.ndarray, out: np.ndarray, noise: float = 0.0) -> tuple[tuple, tuple]:
    """Which output rows move when token 1 is edited, and which columns when feature 1 is."""
    tolerance = max(FLOAT64_NOISE, 4 * noise)

    def moved(edited, along_axis):
        change = np.abs(call(edited) - out) > tolerance * (1 + np.abs(out))
        return tuple(int(i) + 1 for i in np.flatnonzero(change.any(axis=along_axis)))

    token = base.copy()
    token[0] = base[0, ::-1] * 1.7 + 0.3
    feature = base.copy()
    feature[:, 0] = base[::-1, 0] * 1.7 + 0.3
    return moved(token, 1), moved(feature, 0)


def conditioning(x: np.ndarray) -> np.ndarray:
    """Per row, how much centring magnifies rounding: largest |x| over the standard deviation (at least 1). A
    LayerNorm computed to a precision ε is off by about ε times this, relative to the row's output."""
    with np.errstate(all="ignore"):
        kappa = np.abs(x).max(axis=1) / x.std(axis=1)
    return np.where(np.isfinite(kappa), np.maximum(kappa, 1.0), 1.0)


def row_fits(x: np.ndarray, y: np.ndarray, keep: np.ndarray | None = None) -> tuple[float, float]:
    """Worst rows: |y − (a·(x − mean) + b)| for the best a and b, and |b| (the output's mean when every
    feature is kept), each relative to the row's largest |y| and divided by the row's conditioning (so
    that rounding counts alike on every row). ``keep``: the features ``y`` holds (γ ≠ 0); the mean is
    still the whole row's."""
    centred = x - x.mean(axis=1, keepdims=True)
    c = centred if keep is None else centred[:, keep]
    c_mean, y_mean = c.mean(axis=1, keepdims=True), y.mean(axis=1, keepdims=True)
    with np.errstate(all="ignore"):  # the least-squares line through each row, in closed form
        spread = ((c - c_mean) ** 2).sum(axis=1, keepdims=True)
        a = np.where(spread > 0, ((c - c_mean) * (y - y_mean)).sum(axis=1, keepdims=True) / spread, 0.0)
        b = y_mean - a * c_mean
        size = np.maximum(np.abs(y).max(axis=1), 1e-300) * conditioning(x)
        worst = np.abs(a * c + b - y).max(axis=1) / size
        shift = np.abs(b[:, 0]) / size
    return float(np.max(worst)), float(np.max(shift))


def shape_misfit(x: np.ndarray, y: np.ndarray, keep: np.ndarray | None = None) -> float:
    """Worst row: |y − (a·(x − mean) + b)| for the best a and b, relative to the row's largest |y|."""
    return row_fits(x, y, keep)[0]


def row_shift(x: np.ndarray, y: np.ndarray) -> float:
    """Worst row: how far the output's mean is from 0, relative to the row's largest |y|."""
    size = np.maximum(np.abs(y).max(axis=1), 1e-300)
    return float(np.max(np.abs(y.mean(axis=1)) / size))


def centring_answers(row, plus_three, y_row, y_plus, keep: np.ndarray | None) -> tuple[float, float]:
    """The centring probe's two answers, for the probe rows as the function got them (rounded to its type):
    how far its output's move (``y_plus`` − ``y_row``, the kept features) departs from a LayerNorm's move,
    and how far an RMSNorm's (x / √(mean x²), which keeps the mean) departs from a LayerNorm's, both at the
    scale of its output. In exact arithmetic a LayerNorm does not move at all; with its input rounded it moves
    by what that rounding changed, which is computed here, not left to the bound."""
    kept = slice(None) if keep is None else keep

    def layer(x):
        u = x - x.mean()
        return (u / np.sqrt(np.mean(u * u)))[kept]

    def rms(x):
        return (x / np.sqrt(np.mean(x * x)))[kept]

    reference = layer(row)
    scale = float(np.dot(y_row, reference) / max(float(np.dot(reference, reference)), 1e-300))
    layer_move = layer(plus_three) - reference
    departure = float(np.max(np.abs((y_plus - y_row) - scale * layer_move)))
    separation = float(np.max(np.abs(scale * (rms(plus_three) - rms(row) - layer_move))))
    return departure, separation


def centring_verdict(change: float, bound: float, uncentred: float) -> bool | None:
    """Does it subtract the mean? ``change``: how far its output's move, when 3 was added to a row, departs from
    a LayerNorm's; ``bound``: the most rounding could make that; ``uncentred``: how far an RMSNorm's departs.
    Yes only when the change is within the bound *and* nearer 0 than the other answer (a quarter of it at most);
    no when it is beyond the bound or near the other answer (three quarters of it or more); between the two,
    within a bound too wide to tell them apart: cannot tell (None)."""
    if change > bound or change >= 0.75 * uncentred:
        return False
    return True if change <= 0.25 * uncentred else None


def apply_conventions(x, centres, k, placement, eps) -> np.ndarray:
    """The conventions found, applied to ``x`` in float64."""
    u = x - x.mean(axis=1, keepdims=True) if centres else x
    variance = (u * u).sum(axis=1, keepdims=True) / k
    with np.errstate(all="ignore"):
        if placement == "added to std":
            return u / (np.sqrt(variance) + eps)
        return u / np.sqrt(variance + eps)


def relative_difference(y, expected, x=None) -> float:
    """Worst row: |y − expected| relative to the row's largest |expected| (and divided by the conditioning
    of ``x``'s row, when given)."""
    size = np.maximum(np.abs(expected).max(axis=1, keepdims=True), 1e-300)
    if x is not None:
        size = size * conditioning(x)[:, np.newaxis]
    with np.errstate(all="ignore"):
        worst = np.max(np.abs(y - expected) / size)
    return float(worst) if math.isfinite(worst) else math.inf


def divisor_kind(divisor: float, n: int, noise: float = 0.0) -> tuple[str, float, float]:
    """ "biased" when the measured k is n, "unbiased" when it is n − 1 (to 16 of the type's roundings, at
    least 1e-6), "cannot tell" (k as measured) when both fit; else "biased" with a constant factor: a k that
    is neither is read as ÷ n with the output multiplied by √(k/n)."""
    if not math.isfinite(divisor) or divisor <= 0:
        return "unclear", float(n), 1.0
    tolerance = max(1e-6, 16 * noise)  # the wide rows leave ε below 1e-8 of k
    fits = [(label, k) for label, k in (("biased", n), ("unbiased", n - 1)) if abs(divisor - k) <= tolerance * k]
    if len(fits) == 2:  # n and n − 1 closer than the precision can tell (bfloat16 at n = 768)
        return "cannot tell", divisor, 1.0
    if fits:
        return fits[0][0], float(fits[0][1]), 1.0
    return "biased", float(n), math.sqrt(divisor / n)  # output = factor · LayerNorm: k = n · factor²


def eps_from_ladder(scales: np.ndarray, variance: np.ndarray, threshold: float = 1e-7, valid=None, noise: float = 0.0):
    """ε and its placement from the ladder rows' scales: (placement, eps, rows used, (spread inside, spread added)).
    Only rows where ε/v is above ``threshold`` (well above the type's rounding) count, and only ``valid``
    ones (rows whose output stands well above the noise floor)."""
    with np.errstate(all="ignore"):
        usable = np.isfinite(scales) & (scales > 0) & (variance > 0)
        if valid is not None:
            usable &= valid
        excess = np.where(usable, 1 / (scales * scales * variance) - 1, np.nan)
        informative = usable & (excess > threshold)
        inside = 1 / scales[informative] ** 2 - variance[informative]
        added = 1 / scales[informative] - np.sqrt(variance[informative])
    count = int(informative.sum())
    if count == 0:
        tiny = usable & (np.abs(excess) <= threshold)
        return ("none", 0.0, 0, (None, None)) if tiny.any() else ("unclear", None, 0, (None, None))
    spreads = tuple(spread(values) for values in (inside, added))
    if count == 1:
        return "unclear", None, 1, spreads
    best = int(np.argmin(spreads))
    if spreads[best] > max(SPREAD_LIMIT, 8 * noise):  # bfloat16's ε estimates scatter by a few of its roundings
        return "unclear", None, count, spreads
    return ("inside sqrt", "added to std")[best], float(np.median((inside, added)[best])), count, spreads


def spread(values: np.ndarray) -> float:
    """How far apart estimates of one number are: (largest − smallest) / middle; inf if any is ≤ 0."""
    if np.any(values <= 0):
        return math.inf
    return float((values.max() - values.min()) / np.median(values))


def one_pass_changes(along, call: Caller, n: int, rounds_to: str, types) -> tuple[bool, dict]:
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


def constant_rows(along, n: int) -> tuple[str, str]:
    """What a row of equal values and a row of zeros give."""
    try:
        y = along(np.vstack([np.full(n, 0.5), np.zeros(n), pattern(n)]))
    except CallProblem as problem:
        return str(problem), str(problem)

    def words(row):
        if not np.all(np.isfinite(row)):
            return "NaN or infinity"
        if np.all(np.abs(row) < PROBE_NOISE):
            return "zeros"
        return "ones" if np.allclose(row, 1.0, rtol=1e-3) else "values other than 0"

    return words(y[0]), words(y[1])


def torch_layer_norm(x: np.ndarray) -> np.ndarray:
    """What ``torch.nn.functional.layer_norm(x, (n,), eps=1e-5)`` gives, in float64 (helpers' one formula)."""
    return layer_norm_forward(np.asarray(x, dtype=np.float64), TORCH_EPS)[0]


def torch_difference(base, out, probes, raw) -> float:
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
