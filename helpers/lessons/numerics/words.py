"""Notebook 09's generated sentences: each reads its numbers off a measurement and says only what
they show, with thresholds, so a sentence cannot call a contradiction agreement.

Pure strings; the notebook shows them with ``IPython.display.Markdown``. Introduced in notebook 09.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.lessons.numerics.precision import UNIT_ROUNDOFF

DOMINANT = 2.0  # one cause "accounts for most" of an error when it is at least twice the other
SAME = 1.5  # two errors are "about the same" when neither is more than 1.5 times the other
MEDIANS_SAME = 1.1  # the same for medians over many rows, which scatter far less than one row's error


def _e(value: float) -> str:
    return "NaN" if math.isnan(value) else f"{value:.1e}"


def _compare(a: float, b: float, bigger: str, smaller: str, same: str, threshold: float = SAME) -> str:
    if not (a > 0 and b > 0):
        return "cannot tell"
    return bigger if a > threshold * b else smaller if b > threshold * a else same  # exactly SAME times: the same


def storing_vs_arithmetic(split) -> str:
    """Say how much of an ``ErrorSplit``'s total is storing, and how much the arithmetic: one of them accounts
    for most when it is at least ``DOMINANT`` times the other; with a NaN, or nothing changed, neither does."""
    head = (
        f"At +{split.offset:,.0f}, {split.method} in {split.dtype} is off by {_e(split.total_error)} in all. "
        f"Storing the row in {split.dtype} alone (exact arithmetic on the stored values) moves the output by "
        f"{_e(split.storing_error)}; {split.dtype} arithmetic on the stored row moves it by "
        f"{_e(split.arithmetic_error)} ({split.arithmetic_share:.0%} of the total), and the {split.dtype} mean "
        f"is off by {split.mean_error:+.1e}. "
    )
    sigma = float(np.std(split.stored))
    moved = abs(split.mean_error) / sigma if sigma > 0 else math.nan
    fits = _compare(moved, split.arithmetic_error, "more than", "less than", "about")
    fits = "which cannot be weighed against" if fits == "cannot tell" else fits  # a ratio with 0 or NaN
    head += (
        f"A mean off by that moves every output by |δμ|/σ = {moved:.1e}, {fits} the arithmetic's whole error "
        f"(one rounding of a number that size costs at most u·|μ| = "
        f"{UNIT_ROUNDOFF[split.dtype] * abs(float(np.mean(split.stored))):.1e}). "
    )
    if math.isnan(split.arithmetic_error) or math.isnan(split.storing_error):
        return head + "With a NaN among them, which of storing and arithmetic explains most of it cannot be told."
    if split.arithmetic_error == split.storing_error == 0:
        return head + "Neither storing nor arithmetic changes the output here."
    if split.arithmetic_error >= DOMINANT * split.storing_error:
        return head + "So most of the change is the method's own arithmetic, not the input it was given."
    if split.storing_error >= DOMINANT * split.arithmetic_error:
        return head + "So most of the change comes from storing the input, not from the method."
    return head + "Storing and arithmetic are of the same size: neither explains most of it alone."


def float16_stages(errors, label: str) -> str:
    """Attribute an all-float16 LayerNorm's error to its stages, from ``StageErrors``: a NaN to the stages that
    give it alone, an error to the largest stage's share of it; an exact result has nothing to attribute."""
    alone = errors.alone
    parts = ", ".join(f"the {stage} alone {_e(value)}" for stage, value in alone.items())
    head = f"{label}: all-float16 is off by {_e(errors.together)}; in float16 with the rest exact, {parts}. "
    nan_stages = [stage for stage, value in alone.items() if math.isnan(value)]
    if nan_stages:
        return head + f"The NaN comes from the {' and '.join(nan_stages)} alone."
    if errors.together == 0:
        return head + "All-float16 comes out exact here: there is no error to attribute to a stage."
    if math.isnan(errors.together):
        return head + "No stage alone gives the NaN: it comes from them together."
    worst = max(alone, key=alone.get)
    share = alone[worst] / errors.together
    step = float(np.spacing(np.float16(errors.squares_sum)))
    sums = (
        f" (its float16 running sum of squared differences reaches {errors.squares_sum:,.0f} against the exact "
        f"{errors.exact_squares_sum:,.0f}; near there float16 steps by {step:g})"
        if worst == "variance"
        else ""
    )
    if share >= 0.8:
        return head + f"The {worst} stage alone reaches {share:.0%} of the whole error{sums}."
    return head + f"No single stage reaches most of it: the largest, the {worst}, reaches {share:.0%}{sums}."


def bound_reading(measured, bounds, method: str) -> str:
    """Say whether the measured errors stay under their bounds, and how close they come."""
    numbers = ~np.isnan(measured)
    finite = numbers & np.isfinite(bounds)
    over = int(np.sum(measured[finite] > bounds[finite]))
    near = int(np.sum(measured[finite] >= bounds[finite] / 10))
    far = int(np.sum(measured[finite] < bounds[finite] / 1000))
    nan_count = int(np.sum(~numbers))
    text = f"{method}: " + (
        f"above its bound at {over} of {finite.sum()} offsets (the bound is wrong)"
        if over
        else f"under its bound at all {finite.sum()} offsets with a number and a finite bound"
    )
    text += f"; within a factor 10 of it at {near}, more than 1,000 times below it at {far}"
    return text + (f"; NaN at {nan_count}" if nan_count else "") + "."


def history_40302(result, features: int) -> str:
    true, kernel = result["true"], result["kernel"]
    zeros = int(np.sum(kernel == 0))
    rest = kernel[kernel != 0]
    text = (
        f"{len(kernel)} rows of {features:,} values randn·0.01 + 100: the true variances lie between "
        f"{true.min():.2e} and {true.max():.2e}; the reconstructed kernel gives exactly 0 for {zeros} of them"
    )
    if rest.size:
        text += f" and {rest.min():.2e} to {rest.max():.2e} (up to {np.max(rest / true[kernel != 0]):,.0f} times too big) for the others"
    verdict = (
        "all zeros, as the issue reported"
        if zeros == len(kernel)
        else "the issue's zero variance, for some rows; the others are wrong another way"
        if zeros
        else "not the issue's zeros"
    )
    return text + f". Reproduced: {verdict}."


def history_51102(result, reported: float) -> str:
    expected, kernel = result["expected"], result["kernel"]
    huge = int(np.sum(kernel > 100))
    right = int(np.sum(np.abs(kernel - expected) <= 0.01 * expected))
    worst = float(kernel.max())
    gap = abs(worst - reported) / reported
    size = f"{gap:.1%} away from" if gap <= 0.05 else _compare(worst, reported, "larger than", "smaller than", "near")
    return (
        f"{len(kernel):,} rows of 4 values randn + 2000: a LayerNorm's output should have variance just under 1 "
        f"(between {expected.min():.4f} and {expected.max():.4f} here); the reconstructed kernel gives above 100 "
        f"for {huge} rows, at most {worst:,.0f}, and within 1 % of the right value for only {right}. "
        f"Its worst row is {size} the issue's worst, {reported:,.4f}."
    )


def eps_reading(cases, constant_outputs) -> str:
    """One clause per ε (``EpsInFloat16``): what float16 stores, and what a constant row then gives."""
    clauses = []
    for case, output in zip(cases, constant_outputs):
        if case.stored == 0:
            stored = "is 0 in float16"
        elif case.subnormal:
            stored = f"is a subnormal float16, stored as {case.stored:.4e} ({case.relative_error:.2%} off)"
        else:
            stored = f"is stored as {case.stored:.4e}"
        row = "NaN" if np.isnan(output).any() else "finite"
        lost = [f"{v:g}" for v, added in case.effective.items() if v > 0 and added == 0]
        lost_text = f", adds nothing to a variance of {' or '.join(lost)}" if lost and case.stored else ""
        rounded = [  # σ̂² + ε rounds to float16's grid near σ̂², so ε may arrive much changed
            f"{added:.1e} to a variance of {v:g}"
            for v, added in case.effective.items()
            if v > 0 and added and case.stored and abs(added - case.stored) > 0.1 * case.stored
        ]
        lost_text += f", adds only {' and '.join(rounded)}" if rounded else ""
        clauses.append(f"ε = {case.eps:g} {stored}{lost_text}, and a constant row comes out {row}")
    return "; ".join(clauses) + "."


def residual_reading(drift: dict, blocks: int) -> str:
    parts = [
        f"kept in {kind}, the stream is off by {d.stream_error[-1]:.1e} (relative) after {blocks} blocks and "
        f"LayerNorm of it by {d.norm_error:.1e}"
        for kind, d in drift.items()
    ]
    worst = max((k for k in drift if k != "float32"), key=lambda k: drift[k].norm_error)
    low, high = drift["float32"].norm_error, drift[worst].norm_error
    verdict = _compare(high, low, "far less", "more", "no less")
    reading = (
        "Which residual type is better cannot be told from these errors."
        if verdict == "cannot tell"
        else f"With the residual kept in float32, LayerNorm's output is off "
        f"{f'{high / low:.1e} times less' if verdict == 'far less' else verdict} than with it kept in {worst}."
    )
    return "; ".join(parts) + ". " + reading


def normalise_forms_reading(errors, offset: float) -> str:
    """Compare the folded normalise step with (x − μ)·rstd on many rows at one offset."""
    factored, folded, fused = np.median(errors, axis=0)

    def against(median):  # no ratio with a 0 or NaN median
        # medians of many rows: 10 % apart is a difference, not noise
        verdict = _compare(median, factored, "larger than", "smaller than", "about the same as", MEDIANS_SAME)
        return (
            "cannot be compared with it" if verdict == "cannot tell" else f"{verdict} it; {median / factored:.2f} times"
        )

    return (
        f"On {len(errors)} random rows at +{offset:,.0f}, the median largest error is {factored:.1e} for (x − μ)·rstd, "
        f"{folded:.1e} for the folded form with a rounded product ({against(folded)}) and "
        f"{fused:.1e} with a fused multiply-add ({against(fused)})."
    )


def torch_form_reading(matches: dict, rows: int, features: int, offset: float, dtype: str) -> str:
    """Which way of writing the normalise step PyTorch's kernel output equals bit for bit, if any."""
    shares = ", ".join(f"{name} in {share:.2%}" for name, share in matches.items())
    best = max(matches, key=matches.get)
    others = max(share for name, share in matches.items() if name != best)
    verdict = (
        f"so its {dtype} kernel computes {best}."
        if matches[best] >= 0.99 and others <= 0.5
        else "so these rows cannot tell which form it computes."
    )
    return (
        f"On {rows} rows of {features} values near {offset:,.0f}, PyTorch's {dtype} output equals, bit for bit, "
        f"each form computed from its own saved mean and rstd: {shares}; {verdict}"
    )


def rounding_only(error: float, rounding: float, storage: str) -> str:
    """Say whether a float32-statistics error is no more than rounding the exact output to ``storage``."""
    verdict = _compare(error, rounding, "more than", "less than", "the same as")
    reading = (
        "whether the error is more than the output's own rounding cannot be told"
        if verdict == "cannot tell"
        else f"the error is {verdict} the output's own rounding"
    )
    return (
        f"{storage} stored, float32 statistics: largest error {error:.1e}; rounding the exact output to {storage} "
        f"alone gives {rounding:.1e}, so {reading}."
    )
