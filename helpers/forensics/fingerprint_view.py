"""Showing one Fingerprint: a row per finding, each row's evidence naming the probe that established it.

Described once as ``helpers.display.model``'s Table and drawn by its two renderers (text and HTML);
:mod:`helpers.forensics.display` registers these as the record's views. Sizes are said in words a student
reads ("2.5 millionths of the row's size", "about 3,200 times the row's size"), never as 3.2e+03, and
quantities at the level of rounding are "nothing beyond rounding", so stored outputs are the same on every
machine. Nothing here measures anything. Introduced in notebook 13.
"""

from __future__ import annotations

import html
import math

from helpers.core.tolerance import EPS_MATCH, PROBE_NOISE
from helpers.display import format_number
from helpers.display.formatting import FLAG_STYLE
from helpers.display.model import Cell, Row, Table, render_html, render_text
from helpers.forensics.precision import tolerance_of
from helpers.forensics.probes import WIDE, base_rows
from helpers.forensics.sizes import NOISE, factor_text, size_words
from helpers.forensics.table import KNOWN_EPS

HEADER = ("convention", "found", "evidence (probe)")
PLACEMENT_WORDS = {
    "inside sqrt": "inside the root: √(σ² + ε)",
    "added to std": "added to the std: σ + ε",
    "none": "none shows",
    "unclear": "cannot tell",
}
VARIANCE_WORDS = {
    "biased": "biased: ÷ n",
    "unbiased": "unbiased: ÷ (n − 1)",
    "unclear": "unclear",
    "cannot tell": "cannot tell: ÷ n or ÷ (n − 1)",
}
_POWERS = {1e8: "10⁸", 1e4: "10⁴", 64.0: "64", 16.0: "16"}


def noise_of(m) -> float:
    """Rounding noise of the precision it was judged in (float64's 1e-9, float32's 1e-5, …), or its own noise."""
    floor = 10.0 ** math.ceil(math.log10(8 * m.noise_floor)) if m.noise_floor > 0 else 0.0
    return max(NOISE, tolerance_of(m.computes_in), floor)


NOT_LAYER_NORM_EVIDENCE = {
    "shape": lambda m: (
        "shape probe: the best stretch-and-shift of each centred input row misses its output row by "
        f"{size_words(m.shape_misfit)}"
    ),
    "shift": lambda m: f"shape probe: its output rows average to {size_words(m.row_shift)}, not 0",
    "scale": lambda m: f"wide-row probe: a row 1000 times wider moved its output by {size_words(m.scale_change)}",
    "prediction": lambda m: (
        f"prediction probe: the divisor and ε found miss its output on an ordinary matrix by {size_words(m.prediction_misfit)}"
    ),
    "constant": lambda m: "±row probe: r and −r give the same output",
}


def forensics_table(title: str, header, rows, notes, flagged=(), heading: bool = True, **layout) -> Table:
    """Forensics rows (tuples of words) described as ``helpers.display.model``'s one Table: rows in
    ``flagged`` (indices) shaded orange beside their ✗, the first column a row heading if ``heading``."""
    return Table(
        "layernorm-forensics",
        title,
        tuple(header),
        tuple(
            Row(tuple(Cell(text, heading=heading and k == 0) for k, text in enumerate(row)), flagged=i in flagged)
            for i, row in enumerate(rows)
        ),
        tuple(notes),
        **layout,
    )


def _match_word(f) -> str:
    return "cannot tell" if f.matches_torch is None else _yes(f.matches_torch)


def _yes(flag) -> str:
    return "—" if flag is None else "yes" if flag else "no"


def _listing(numbers) -> str:
    return ", ".join(str(n) for n in numbers) if numbers else "none"


def _behaviour_rows(f) -> list:
    m = f.measured
    matrix = f"the same {base_rows(m.features)} × {m.features} matrix"
    if m.noise_floor == 0:
        rows = [("deterministic", "yes", f"determinism probe: {matrix} twice gave identical outputs")]
    else:
        rows = [
            (
                "deterministic",
                "no",
                f"determinism probe: {matrix} twice gave outputs that differ by {size_words(m.noise_floor, 0.0, 'their size')}"
                "; every check below allows for 8 times that",
            )
        ]
    if f.not_layer_norm_because == "state":
        rows.append(("keeps state", "yes, or depends on position", "state probe: see the sentence below"))
        return rows
    end = "" if m.end_change is None else ", and once more after every probe"
    rows.append(
        (
            "keeps state",
            "no" if m.noise_floor == 0 else "none seen beyond its noise",
            f"state probe: A, then A's rows reversed, then A: the reversed rows came out reversed and A came out "
            f"as before{end}",
        )
    )
    return rows


def _precision_row(m):
    tried = ", ".join(m.precisions_tried)
    also = f"; precisions tried: {tried}" if len(m.precisions_tried) > 1 else ""
    if not m.precision_known:
        why = (
            "its noise hides any rounding finer than its own"
            if m.noise_floor > 0
            else "its residuals fit no precision tried"
        )
        given = m.why_that_type or "float64 in, float64 out"
        return (
            "precision",
            "cannot tell",
            f"type probe: {given}; residual probe: {why}, so every check below is judged to "
            f"{m.computes_in}'s precision and its noise{also}",
        )
    if m.computes_in == "float64":
        return ("precision", "float64", f"type probe: float64 in, float64 out{also}")
    probe = "residual probe" if "departs from an exact LayerNorm" in m.why_that_type else "type probe"
    return (
        "precision",
        m.computes_in,
        f"{probe}: given float64, {m.why_that_type}: every check below is judged to {m.computes_in}'s precision{also}",
    )


def _affine_rows(f) -> list:
    m = f.measured
    source = {
        "parameters": "read from its parameters; their shape confirmed, their overall size taken as read",
        "measured": "measured",
        "none": "",
    }[m.gamma_source]
    columns = m.zero_gamma_columns
    zero = f"; 0 on feature{'s' if len(columns) > 1 else ''} {', '.join(map(str, columns))}" if columns else ""
    gamma_found = f.gamma if f.gamma != "none" else "none (the same on every feature)"
    if not m.scale_known:
        gamma_found = "per feature, size unknown"
    rows = [
        ("γ", gamma_found, f"±row probe: r and −r give γ feature by feature{zero}" + (f" ({source})" if source else ""))
    ]
    if m.shift is not None:
        beta = f"{m.shift:.4g} on every feature"
    elif m.beta_measured and any(b != 0 for b in m.beta_measured):
        beta = "per feature"
    else:
        beta = "0"
    rows.append(("β", beta, "±row probe: half of the outputs of r and −r added (a LayerNorm gives 0)"))
    return rows


def _offsets(m) -> str:
    noise, parts = noise_of(m), []
    for given, (work, offset, change) in m.offset_change.items():
        where = f"{given} in" + (f", {work} inside" if work != given else "")
        if offset is None:
            parts.append(f"{where}: could not run")
        else:
            parts.append(f"{where}, offset {_POWERS.get(offset, f'{offset:g}')}: {size_words(change, noise)}")
    return "; ".join(parts)


def _known(eps, tolerance: float = EPS_MATCH) -> str:
    if eps is None:
        return "not measurable"
    names = [who for who, value in KNOWN_EPS if math.isclose(eps, value, rel_tol=tolerance, abs_tol=0.0)]
    if names == ["no ε"]:
        return "nothing is added to the variance (no ε)"
    return f"the default of {names[0]}" if names else "no well-known default"


def _eps_row(f):
    m = f.measured
    if f.machine_eps:
        return (
            "ε",
            "machine ε",
            f"ε-ladder probe: {f.eps:.3g}, the machine ε of the input type ({m.computes_in} here)",
        )
    if f.eps is None and m.eps_readings:
        readings = "; ".join(f"{eps:.3g} with {words}" for words, eps in m.eps_readings)
        return ("ε", "cannot tell", f"ε-ladder probe: {readings} (the divisor cannot be told)")
    return ("ε", "—" if f.eps is None else f"{f.eps:.3g}", f"ε-ladder probe: {_known(f.eps, m.eps_tolerance)}")


def _convention_rows(f) -> list:
    m = f.measured
    noise = noise_of(m)
    spread = WIDE.get(m.computes_in, 1e5)
    rows = [
        (
            "subtracts the mean",
            _yes(f.centres),
            f"centring probe: adding {m.centring_offset:g} to every value of a row moved its output by "
            f"{size_words(m.centring_change, noise)}",
        ),
        (
            "variance",
            VARIANCE_WORDS[f.variance],
            f"wide-row probe: a row spread {'10⁵' if spread == 1e5 else f'{spread:g}'} times wider gives "
            f"divisor k = {format_number(m.divisor, 4)} for n = {m.features} features",
        ),
    ]
    if f.factor == -1.0:
        rows.append(("constant factor", "× −1", "wide-row probe: k fits the divisor above, with every sign flipped"))
    elif f.factor != 1.0:
        rows.append(
            (
                "constant factor",
                f"× {factor_text(f.factor)}",
                f"wide-row probe: k is neither n nor n − 1: its output is {factor_text(f.factor)} times a LayerNorm's (÷ n)",
            )
        )
    spread_noise = noise  # a β taken away, or noise, leaves its own rounding on the tiny rows
    if m.spread_noise > 0:
        spread_noise = max(noise, 10.0 ** math.ceil(math.log10(m.spread_noise)))
    if f.eps_placement in ("inside sqrt", "added to std"):
        evidence = (
            f"ε-ladder probe: on {m.eps_rows} rows of tiny variance v, 1/s² − v varies by "
            f"{size_words(m.spread_inside, spread_noise, 'its middle value')} and 1/s − √v by {size_words(m.spread_added, spread_noise, 'its middle value')}"
        )
    elif f.eps_placement == "none":
        evidence = f"ε-ladder probe: rows of variance v down to {m.smallest_variance:.0e} come out scaled by 1/√v" + (
            f": any ε is under {m.eps_bounds[0]:.1g} inside the root, under {m.eps_bounds[1]:.1g} added to the std"
            if m.eps_bounds
            else ""
        )
    else:
        evidence = "ε-ladder probe: its tiny-variance rows fit neither placement"
    rows.append(("ε placement", PLACEMENT_WORDS[f.eps_placement], evidence))
    rows.append(_eps_row(f))
    if f.centres:
        rows.append(
            (
                "one-pass variance",
                "cannot tell" if f.one_pass is None else _yes(f.one_pass),
                f"offset probe: how far a large offset moved the output: {_offsets(m)}",
            )
        )
    what, found = ("a row of zeros", m.zero_row) if f.centres is False else ("a row of equal values", m.constant_row)
    rows.append(
        (
            what,
            found if len(found) < 40 else "an error",
            "constant-row probe: 0 ÷ √(0 + ε) is 0 with an ε; 0 ÷ 0 without one",
        )
    )
    tolerance = "" if m.match_tolerance <= PROBE_NOISE else f"; below {m.match_tolerance:.2g} counts as equal"
    if not m.scale_known:  # only k·ε is known: PyTorch's is 1e-5 · n
        product = dict(m.eps_readings).get("÷ n")
        evidence = "wide-row and ε-ladder probes: with γ's size unknown only k·ε is known" + (
            f": {m.features * product:.3g}, PyTorch's is {1e-5 * m.features:.3g}" if product is not None else ""
        )
        rows.append(("matches F.layer_norm (ε = 1e-5)", _match_word(f), evidence))
        return rows
    # above the tolerance the match was judged to, a difference is never "rounding": the noise the other rows
    # are said against is rounded up to a power of 10, up to 10 times a noisy function's tolerance
    beyond = m.torch_difference is not None and m.torch_difference > m.match_tolerance
    rows.append(
        (
            "matches F.layer_norm (ε = 1e-5)",
            _match_word(f),
            f"every probe above, γ and β taken away, against F.layer_norm: it differs by {size_words(m.torch_difference, 0.0 if beyond else noise)}{tolerance}",
        )
    )
    return rows


def fingerprint_rows(f) -> list[tuple[str, str, str]]:
    m = f.measured
    rows = _behaviour_rows(f)
    if f.not_layer_norm_because == "state":
        return rows
    rows.append(
        (
            "axis",
            {
                "rows": "rows: each token's features",
                "columns": "columns: each feature's tokens",
                "neither": "neither rows nor columns",
            }[f.axis],
            f"edit probe: editing token 1 moved output rows: {_listing(m.rows_changed)}; editing feature 1 moved "
            f"output columns: {_listing(m.columns_changed)}",
        )
    )
    if f.axis == "neither":
        return rows
    if f.not_layer_norm_because == "between":
        rows.append(("precision", "cannot tell", f"residual probe: precisions tried: {', '.join(m.precisions_tried)}"))
        return rows
    if f.not_layer_norm_because == "centring":
        rows.append(
            (
                "subtracts the mean",
                "cannot tell",
                f"centring probe: adding {m.centring_offset:g} to every value of a row moved its output "
                f"{size_words(m.centring_departure, 0.0)}"
                f" away from a LayerNorm's and an RMSNorm's would go {size_words(m.uncentred_change, 0.0)} away; "
                f"{m.computes_in}'s rounding allows up to {size_words(m.centring_bound, 0.0)}",
            )
        )
        return rows
    if f.is_layer_norm is False:
        tried = ", ".join(m.precisions_tried) or m.computes_in
        rows.append(
            (
                "a LayerNorm?",
                "no",
                f"{NOT_LAYER_NORM_EVIDENCE[f.not_layer_norm_because](m)} (precisions tried: {tried})",
            )
        )
        return rows
    return rows + [_precision_row(m)] + _affine_rows(f) + _convention_rows(f)


def _notes(f) -> list[str]:
    if f.problem:
        return []
    if f.is_layer_norm is False:
        return [f"✗ {d}" for d in f.differences]
    if f.is_layer_norm is None and f.not_layer_norm_because:
        return [f"? {d}" for d in f.differences]
    if not f.differences:
        return ["Differences from PyTorch's LayerNorm: none."]
    return ["Differences from PyTorch's LayerNorm:"] + [f"✗ {d}" for d in f.differences]


def title(f) -> str:
    return f"Fingerprint of {f.name}"


def fingerprint_view(f) -> Table:
    """A measured Fingerprint described once; every column wraps (at 1024×768 with the file browser its
    one-line columns left the evidence 9 characters a line)."""
    return forensics_table(title(f), HEADER, fingerprint_rows(f), _notes(f), wrap=(0, 1, 2))


def fingerprint_text(f) -> str:
    """A :class:`~helpers.forensics.record.Fingerprint` as aligned text."""
    if f.problem:
        return f"{title(f)}: could not be measured. {f.problem}"
    return render_text(fingerprint_view(f))


def fingerprint_html(f) -> str:
    """The same as an HTML table; every departure from PyTorch listed under it."""
    return problem_html(f) if f.problem else render_html(fingerprint_view(f))


def problem_html(f) -> str:
    """A fingerprint that could not be measured: a sentence, shaded as a flagged row is, and said in words."""
    return (
        f'<div class="layernorm-forensics" style="{FLAG_STYLE};padding:4px">'
        f"<b>{html.escape(title(f))}</b>: could not be measured. {html.escape(f.problem)}</div>"
    )
