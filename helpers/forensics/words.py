"""The fingerprint's verdicts in words: how a LayerNorm departs from PyTorch's, short and in full."""

from __future__ import annotations

import math

from helpers.core.layernorm import DEFAULT_EPS
from helpers.forensics.sizes import factor_text, size_words

TORCH_EPS = DEFAULT_EPS  # torch.nn.functional.layer_norm's default


def departures(f) -> str:
    """The ways a fingerprint departs from PyTorch's LayerNorm, in a few words each."""
    if f.problem:
        return "could not be measured"
    if f.is_layer_norm is False:
        return "not a LayerNorm"
    if f.is_layer_norm is None and f.not_layer_norm_because:
        return "cannot tell"
    words = [
        ("axis", f.axis not in ("rows", None)),
        ("no mean", f.centres is False),
        ("÷ (n − 1)", f.variance == "unbiased"),
        ("divisor?", f.variance == "cannot tell"),
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
        ("shift", f.measured.shift is not None),
    ]
    return ", ".join(word for word, applies in words if applies) or "nothing"


def differences_from_torch(print_) -> list[str]:
    """One plain sentence per way this LayerNorm (a ``Fingerprint``, its measurements included) departs
    from PyTorch's."""
    centres, variance, placement, eps = print_.centres, print_.variance, print_.eps_placement, print_.eps
    axis, one_pass, gamma_kind, matches = print_.axis, print_.one_pass, print_.gamma, print_.matches_torch
    factor, machine, measured = print_.factor, print_.machine_eps, print_.measured
    n = max(measured.features, 2)
    affine_undone, difference, eps_tolerance = (
        measured.affine_undone,
        measured.torch_difference,
        measured.eps_tolerance,
    )
    found = []
    if axis == "columns":
        found.append(
            "It normalises each column (one feature across the tokens), not each row (one token's "
            "features) as PyTorch does."
        )
    elif axis == "neither" and not (measured.rows_changed or measured.columns_changed):
        found.append(  # its output does not follow its input (beyond its noise): nothing moved
            "It does not normalise one row or one column at a time: editing one token, or one feature, moved "
            "none of its output."
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
    elif variance == "cannot tell":
        readings = " and ".join(f"{eps:.3g} with {words}" for words, eps in measured.eps_readings)
        why = (
            "its output's overall size (a constant factor, or the size of a γ it does not show) changes the "
            "output just as the divisor does"
            if factor != 1.0 or not measured.scale_known
            else f"at {measured.computes_in}'s precision n and n − 1 are too close to tell apart"
        )
        found.append(
            f"Cannot tell whether it divides the variance by n or by n − 1: {why}"
            + (f"; its ε would be {readings}." if readings and placement != "none" else ".")
        )
    if placement == "added to std":
        found.append("It adds ε to the standard deviation, σ + ε; PyTorch adds ε inside the root, √(σ² + ε).")
    elif placement == "none":
        bounds = measured.eps_bounds
        under = (
            f": any ε it adds is under {bounds[0]:.1g} inside the root (under {bounds[1]:.1g} added to the std)"
            if bounds
            else ""
        )
        row, gave = (
            ("a row of equal values", measured.constant_row) if centres else ("a row of zeros", measured.zero_row)
        )
        zero = f", and {row} divides 0 by 0" if gave == "NaN or infinity" else ""
        found.append(f"No ε shows{under}{zero}; PyTorch adds ε = 1e-05 inside the root.")
    elif placement == "unclear":
        found.append(
            "Cannot tell where its ε goes: its rows of tiny variance fit neither ε inside the root nor ε added to "
            "the standard deviation to the precision they were judged in."
        )
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
    if factor == -1.0:
        found.append("Its output is −1 times a LayerNorm's: every sign flipped (a constant, not a parameter).")
    elif factor != 1.0:
        found.append(
            f"Its output is {factor_text(factor)} times a LayerNorm's with ÷ n (or "
            f"{factor_text(factor * math.sqrt(n / (n - 1)))} "
            "times one with ÷ (n − 1)): a constant factor that is not a parameter (a scale, like the same γ on "
            "every feature)."
        )
    if one_pass is None and centres and placement is not None:
        found.append(
            "Cannot tell whether its variance is the one-pass formula: a large offset moved its output, as "
            "E[x²] − E[x]² does, but so would statistics computed in a lower precision, and its precision cannot "
            "be told."
        )
    if one_pass:
        found.append(
            "Its variance loses every digit when the values sit far from 0, as the one-pass formula "
            "E[x²] − E[x]² does; PyTorch's kernels do not."
        )
    if gamma_kind == "scalar":
        found.append("It has one γ shared by every feature; PyTorch's LayerNorm learns one γ per feature.")
    found.extend(_affine_sentences(measured, affine_undone))
    if not found and matches is False:
        found.append(
            "It departs from PyTorch's output in a way none of these conventions explains"
            + (f" (it differs by up to {size_words(difference)})." if difference is not None else ".")
        )
    return found


def _features(columns) -> str:
    return ("feature " if len(columns) == 1 else "features ") + ", ".join(str(c) for c in columns)


def _affine_sentences(m, undone: bool) -> list[str]:
    """What the ±row probe found about γ and β, in words (and what was taken away before measuring)."""
    found = []
    if m.parameters_ignored:
        found.append("It has γ or β attributes, but its output does not follow them; γ and β were measured instead.")
    if m.zero_gamma_columns:
        found.append(
            f"Its γ is 0 on {_features(m.zero_gamma_columns)}: the output there is β alone, so the checks "
            "use the other features."
        )
    if m.shift is not None:
        found.append(
            f"Its output is a LayerNorm's plus {m.shift:.4g} on every feature (a constant shift, as β = "
            f"{m.shift:.4g} gives), measured by the ±row probe and taken away before measuring."
        )
    elif m.gamma_source == "measured" and m.beta_measured and any(b != 0 for b in m.beta_measured):
        found.append("Its β differs from feature to feature (measured by the ±row probe); it was taken away.")
    if not m.scale_known:
        found.append(
            "Its γ differs from feature to feature and is not readable from it (measured by the ±row probe, up "
            "to its overall size); it was divided out."
        )
    elif m.gamma_source == "parameters" and undone:
        found.append(
            "Its γ and β are not 1 and 0 (trained?): read from its parameters and divided out before measuring "
            "(the ±row probe confirms β and how γ varies between features; γ's overall size is taken as read)."
        )
    return found


def centring_sentence(m) -> str:
    """Why the centring probe cannot tell, in sizes relative to the row's output."""
    return (
        f"Cannot tell whether it subtracts the mean: adding {m.centring_offset:g} to every value of a row moved its output "
        f"{size_words(m.centring_departure, 0.0)} away from where a LayerNorm's would go, and an RMSNorm's "
        f"(which keeps the mean) would go {size_words(m.uncentred_change, 0.0)} away; rounding in "
        f"{m.computes_in} allows up to {size_words(m.centring_bound, 0.0)}, too coarse to tell the two apart."
    )
