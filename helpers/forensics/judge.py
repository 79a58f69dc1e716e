"""One fingerprint judged in one precision: the probes after the determinism, state, axis and ±row probes.

:func:`judge` runs the centring, divisor, ε-ladder, one-pass and constant-row probes on the function seen
row by row with its γ and β divided out (:mod:`helpers.forensics.affine`), every check judged to the
rounding of one precision (float64, float32, float16 or bfloat16) and to the noise floor the
determinism probe measured. :mod:`helpers.forensics.fingerprints` calls it for the precision the
function's types show first, then for coarser ones, and keeps the verdict whose residuals fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import helpers.forensics.affine as affine_probe
from helpers.core.tolerance import EPS_MATCH
from helpers.forensics.call import Caller, CallProblem, module_dtype
from helpers.forensics.precision import lowest, rounded, roundoff, tolerance_of
from helpers.forensics.probes import (
    HALF_LADDER,
    LADDER,
    MIDDLE,
    WIDE,
    apply_conventions,
    centring_answers,
    centring_offset,
    centring_verdict,
    conditioning,
    constant_rows,
    divisor_kind,
    eps_from_ladder,
    one_pass_changes,
    pattern,
    relative_difference,
    row_fits,
    torch_layer_norm,
)
from helpers.forensics.record import Fingerprint, Measurements
from helpers.forensics.words import TORCH_EPS, centring_sentence, differences_from_torch

SHAPE_LIMIT = 1e-6  # a row's output is a stretched copy of the centred row to better than this (float64)
SCALE_LIMIT = 1e-2  # making a row 1000 times wider moves a normaliser's output by less than this
SLACK = 8.0  # the noise floor counts this many times


@dataclass
class Context:
    """What every precision's judgement shares: the function, its probes' first answers, what its types show."""

    call: Caller
    fn: object
    name: str
    n: int
    base: np.ndarray
    axis: str
    rows: tuple
    columns: tuple
    work: str  # the precision its types show (output type, or the type it rounds its input to)
    why: str
    rounds_to: str
    floor: float  # the noise floor (0: deterministic)
    behaviour: dict  # the determinism and state probes' numbers, for Measurements


def _values(row: np.ndarray) -> str:
    shown = ", ".join(f"{v:.6g}" for v in row[:4])
    return shown + (", …" if row.size > 4 else "")


def noise_of(ctx: Context, precision: str) -> float:
    return max(roundoff(precision), SLACK * ctx.floor)


def judge(ctx: Context, precision: str, strict: bool) -> Fingerprint:
    """The fingerprint judged to ``precision``'s rounding. ``strict``: fit to a few roundings (a precision
    found from the residuals), not the generous limits used for the precision its types show."""
    call, n = ctx.call, ctx.n
    noise = noise_of(ctx, precision)
    many = 4.0 if strict else 20.0
    base = rounded(ctx.base, precision)

    def raw(x, dtype=None):
        return call(x, dtype) if ctx.axis == "rows" else call(x.T.copy(), dtype).T

    affine = affine_probe.measure(raw, ctx.fn, n, noise)
    keep = affine.keep
    if affine.gamma is not None and affine.beta is not None:  # y = γ·z + β rounds to |γ·z| + |β|: /γ, β/γ more
        kept_gamma, kept_beta = np.abs(affine.gamma[keep]), np.abs(affine.beta[keep])
        noise = noise * float(np.max(1 + kept_beta / kept_gamma))
    kept = slice(None) if keep is None else keep

    def along(x, dtype=None):  # fn seen row by row, γ and β divided out, only the features with γ ≠ 0
        return affine.divide_out(raw(x, dtype))[:, kept]

    common = dict(
        features=n,
        rows_changed=ctx.rows,
        columns_changed=ctx.columns,
        gamma_kind=affine.kind,
        computes_in=precision,
        why_that_type=ctx.why,
        gamma_source=affine.source,
        gamma_measured=affine.measured_gamma,
        beta_measured=affine.measured_beta,
        zero_gamma_columns=affine.zero_columns,
        shift=affine.shift,
        scale_known=affine.scale_known,
        parameters_ignored=affine.parameters_ignored,
        affine_undone=affine.undone,
        **ctx.behaviour,
    )

    def verdict_not(because, **more):
        measured = Measurements(**common, **more, output_dtypes=tuple(sorted(call.output_dtypes)))
        return Fingerprint(
            ctx.name, None, None, None, None, ctx.axis, None, False, [], affine.kind, None, measured, False, because
        )

    if affine.constant_output:
        return verdict_not("constant")
    y_base = along(base)
    shape_limit = max(SHAPE_LIMIT, many * noise)
    misfit, _ = row_fits(base, y_base, keep)
    if misfit > shape_limit:
        return verdict_not("shape", shape_misfit=misfit)

    d = pattern(n)
    wide, middle = WIDE[precision], MIDDLE[precision]
    ladder = HALF_LADDER if precision == "float16" else LADDER
    offset = centring_offset(n)
    probes = rounded(np.vstack([d, d + offset, wide * d, middle * d] + [scale * d for scale in ladder]), precision)
    labels = (
        "the row",
        f"the same row plus {offset:g}",
        f"the row spread {wide:g} times wider",
        f"the row spread {middle:g} times",
    )
    y = along(probes)
    for row, label in enumerate(labels):
        if not np.all(np.isfinite(y[row])):
            raise CallProblem(f"It returned NaN or infinity for {label}, {_values(probes[row])}.")
    size = max(float(np.max(np.abs(y[0]))), 1e-300)
    centring_change = float(np.max(np.abs(y[1] - y[0])))
    departure, uncentred = centring_answers(probes[0], probes[1], y[0], y[1], keep)
    bound = max(1e-6, (20 if strict else 40) * noise) * max(1.0, size)
    centres = centring_verdict(departure, bound, uncentred)
    # kept relative to the row's output, as the evidence says them ("… times the row's size")
    common.update(
        centring_offset=offset,
        centring_change=centring_change / size,
        centring_departure=departure / size,
        uncentred_change=uncentred / size,
        centring_bound=bound / size,
    )
    if centres is None:  # rounding this coarse could hide the mean's subtraction, or fake it
        measured = Measurements(**common, shape_misfit=misfit, output_dtypes=tuple(sorted(call.output_dtypes)))
        return Fingerprint(
            ctx.name, None, None, None, None, ctx.axis, None, None, [centring_sentence(measured)],
            affine.kind, None, measured, None, "centring",
        )  # fmt: skip
    _, shift = row_fits(base, y_base, keep) if centres else (None, None)
    scale_change = float(np.max(np.abs(y[2] - y[3])) / max(float(np.max(np.abs(y[3]))), 1e-300))
    common.update(shape_misfit=misfit, row_shift=shift, scale_change=scale_change)
    if centres and shift > shape_limit:
        return verdict_not("shift")
    if not scale_change <= max(SCALE_LIMIT, 1.5 * many * noise):
        return verdict_not("scale")

    u_full = probes - probes.mean(axis=1, keepdims=True) if centres else probes
    u = u_full[:, kept]
    uu = np.einsum("ij,ij->i", u_full, u_full)
    with np.errstate(all="ignore"):
        scales = np.einsum("ij,ij->i", y, u) / np.einsum("ij,ij->i", u, u)  # output = u × scale
    divisor = _divisor(uu[2], uu[3], scales[2], scales[3], n)
    sign = 1.0
    if affine.scale_known:
        variance, k, factor = divisor_kind(divisor, n, noise)
        factor = math.copysign(factor, float(np.median(scales[:4])))
        scales = scales / factor
    else:  # γ's size is unknown: the divisor and ε are known only together
        variance, k, factor = "cannot tell", divisor, 1.0
        sign = math.copysign(1.0, float(np.median(scales[:4])))  # γ's sign is part of its unknown size
        scales = scales * sign
    ladder_variance = uu[4:] / k
    # a ladder row whose output is close to the noise floor says nothing about ε (1e-9 of noise on 1e-12)
    # (and so does one whose output is lost in the rounding of a β added to it: 0.5 + 1e-12)
    beta_size = max((abs(b) for b in affine.measured_beta), default=0.0)
    allowance = SLACK * ctx.floor * float(np.max(np.abs(y_base))) + 4 * roundoff(precision) * beta_size
    allowance += affine.beta_error
    allowance *= affine.magnified  # in the units of the LayerNorm, once γ is divided out
    row_sizes = np.max(np.abs(y[4:]), axis=1)
    valid = row_sizes >= 1e4 * max(allowance, 1e-300)
    # the spreads' own noise: the allowance against the smallest row used (shown as "nothing beyond rounding")
    spread_noise = 4 * allowance / float(np.min(row_sizes[valid])) if allowance > 0 and valid.any() else 0.0
    placement, eps, informative, spreads = (
        eps_from_ladder(scales[4:], ladder_variance, max(1e-7, 1e4 * noise), valid, noise)
        if variance != "unclear"
        else ("unclear", None, 0, (None, None))
    )
    bounds = ()
    if placement == "none":  # no ε shows: how large could one be and still not show?
        threshold = max(1e-7, 1e4 * noise)
        shown_rows = valid & np.isfinite(scales[4:]) & (ladder_variance > 0)
        v_min = float(np.min(ladder_variance[shown_rows])) if shown_rows.any() else float(ladder_variance[0])
        bounds = (threshold * v_min, math.sqrt(v_min) * (math.sqrt(1 + threshold) - 1))
    machine = (
        affine.scale_known
        and placement == "inside sqrt"
        and eps is not None
        and math.isclose(eps, roundoff(precision), rel_tol=2e-2)
    )
    prediction = None
    if placement in ("inside sqrt", "added to std", "none"):
        expected = sign * factor * apply_conventions(base, centres, k, placement, eps or 0.0)[:, kept]
        prediction = relative_difference(y_base, expected, base)
        if prediction > max(1e-3, 1.5 * many * noise):
            return verdict_not("prediction", divisor=divisor, prediction_misfit=prediction)
    types = ["float64", "float32"] + [t for t in (module_dtype(ctx.fn), ctx.work) if t in ("float16", "bfloat16")]
    one_pass, offset_change = (
        one_pass_changes(along, call, n, lowest(ctx.rounds_to, precision), dict.fromkeys(types))
        if centres
        else (False, {})
    )
    tolerance = max(tolerance_of(precision), SLACK * ctx.floor)
    shown = np.concatenate([np.ones(4, bool), valid])  # rows whose output stands above the noise
    difference = _torch_difference([(base, y_base), (probes[shown], y[shown])], kept, allowance)
    if affine.scale_known:
        departs = (
            ctx.axis != "rows"
            or not centres
            or variance == "unbiased"
            or placement in ("added to std", "none")
            or (eps is not None and not math.isclose(eps, TORCH_EPS, rel_tol=max(EPS_MATCH, 10 * noise)))
            or one_pass
            or factor != 1.0
        )
        established = variance == "biased" and placement == "inside sqrt" and eps is not None
        matches = False if departs else (difference <= tolerance) if established else None
    hidden = variance == "cannot tell" or abs(factor) != 1.0  # a constant factor: ÷ n and ÷ (n − 1) read alike
    readings = eps_readings(eps, divisor if variance == "cannot tell" else n, placement, n) if hidden else ()
    if (
        not affine.scale_known
    ):  # γ·LayerNorm with an unknown size of γ: PyTorch's ÷ n and ε = 1e-5 only in the product k·ε
        if ctx.axis != "rows" or not centres or placement in ("added to std", "none") or one_pass:
            matches = False
        elif placement != "inside sqrt" or eps is None or prediction is None:
            matches = None
        else:
            matches = (
                math.isclose(eps * k, TORCH_EPS * n, rel_tol=max(EPS_MATCH, 10 * noise)) and prediction <= tolerance
            )
        eps = None
    if hidden:
        variance, eps, machine = "cannot tell", None, False
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
        torch_difference=difference,
        output_dtypes=tuple(sorted(call.output_dtypes)),
        prediction_misfit=prediction,
        smallest_variance=float(ladder_variance[-1]),
        match_tolerance=tolerance,
        eps_tolerance=max(1e-3, 10 * noise),
        eps_readings=readings,
        eps_bounds=bounds,
        spread_noise=spread_noise,
    )
    print_ = Fingerprint(
        ctx.name,
        centres,
        variance,
        placement,
        eps,
        ctx.axis,
        one_pass,
        None if matches is None else bool(matches),
        [],
        affine.kind,
        None,
        measured,
        True,
        "",
        factor,
        machine,
    )
    return print_


def _divisor(uu_wide, uu_middle, s_wide, s_middle, n) -> float:
    """k from the two wide rows, with ε taken out: 1/s² − the other's is the variances' difference if ε is inside
    the root, 1/s the standard deviations' if it is added to the std. The reading nearer n or n − 1 is kept
    (ε = 0.1 added to the std moved the one-row k by 4e-6 at n = 2)."""
    with np.errstate(all="ignore"):
        inside = (uu_wide - uu_middle) / (1 / s_wide**2 - 1 / s_middle**2)
        added = ((math.sqrt(uu_wide) - math.sqrt(uu_middle)) / (1 / abs(s_wide) - 1 / abs(s_middle))) ** 2
    readings = [float(k) for k in (inside, added) if math.isfinite(k) and k > 0]
    if not readings:
        return float(uu_wide * s_wide**2)

    def miss(k):
        return min(abs(k - n) / n, abs(k - (n - 1)) / max(n - 1, 1))

    return min(readings, key=miss)


def eps_readings(eps, k_seen, placement, n) -> tuple:
    """ε as it would be with ÷ n and with ÷ (n − 1), when only the output's overall size is unknown: the
    pairs (divisor words, ε). ε inside the root scales as 1/k, added to the std as 1/√k."""
    if eps is None or placement not in ("inside sqrt", "added to std", "none"):
        return ()
    pairs = []
    for words, k in (("÷ n", n), ("÷ (n − 1)", n - 1)):
        if placement == "none":
            pairs.append((words, 0.0))
        else:
            pairs.append((words, eps * k_seen / k if placement == "inside sqrt" else eps * math.sqrt(k_seen / k)))
    return tuple(pairs)


def _torch_difference(pairs, kept, allowance: float = 0.0) -> float:
    """The largest difference from F.layer_norm (γ and β divided out) beyond the noise ``allowance``,
    relative to each row's size."""
    worst = 0.0
    for x, y in pairs:
        reference = torch_layer_norm(x)[:, kept]
        size = np.maximum(np.abs(reference).max(axis=1, keepdims=True), 1e-300) * conditioning(x)[:, np.newaxis]
        with np.errstate(all="ignore"):
            relative = np.maximum(np.abs(y - reference) - allowance, 0.0) / size
        worst = max(worst, float(np.max(np.where(np.isnan(relative), np.inf, relative))))
    return worst


def with_differences(print_: Fingerprint) -> Fingerprint:
    from dataclasses import replace

    return replace(print_, differences=differences_from_torch(print_))
