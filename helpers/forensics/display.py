"""Showing forensics: a Fingerprint, a table's fingerprint, the gallery and the orientation translator.

Each is described once as ``helpers.display.model``'s Table (or Grid, for the orientations) and drawn by
its two renderers, so print, nbval and Jupyter show the same rows, laid out as every other table of the
lesson. The records do not import this module: it registers their views (``helpers.core.views``) at its
bottom, and ``helpers.forensics`` imports it. Nothing here measures anything: ``helpers.forensics.fingerprints``
and ``helpers.forensics.table`` do. Quantities at the level of rounding noise are shown as "< 1e-9", never as
their noisy digits, so stored outputs are the same on every machine. Introduced in notebook 13.
"""

from __future__ import annotations

import html
import math

import numpy as np

from helpers.core import views
from helpers.display import format_eps_range, format_number
from helpers.display.formatting import FLAG_STYLE
from helpers.display.model import (
    Cell,
    Grid,
    GridRow,
    Row,
    Table,
    render_grid_html,
    render_grid_text,
    render_html,
    render_text,
)
from helpers.forensics.fingerprints import Fingerprint
from helpers.forensics.orientations import Orientations
from helpers.forensics.precision import tolerance_of
from helpers.forensics.probes import WIDE
from helpers.forensics.table import KNOWN_EPS, GalleryComparison, TableFingerprint
from helpers.forensics.words import departures

NOISE = 1e-9  # below this, a measured change is rounding noise


def _small(value, noise: float = NOISE) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if math.isinf(value) or math.isnan(value):
        return "∞" if not math.isnan(value) else "NaN"
    return f"< {noise:g}" if abs(value) < noise else f"{value:.2g}"


def _noise(m) -> float:
    """Rounding noise of the type it computes in: float64's 1e-9, float32's 1e-4, ... (a power of 10), so that
    stored outputs do not show digits that differ between machines."""

    return max(NOISE, tolerance_of(m.computes_in))


def _yes(flag) -> str:
    return "—" if flag is None else "yes" if flag else "no"


def _listing(numbers) -> str:
    return ", ".join(str(n) for n in numbers) if numbers else "none"


def _table(title: str, header, rows, notes, flagged=(), heading: bool = True, **layout) -> Table:
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


# ---------------------------------------------------------------------------------------------
# One Fingerprint

_FINGERPRINT_HEADER = ("convention", "found", "evidence")
_PLACEMENT_WORDS = {
    "inside sqrt": "inside the root: √(σ² + ε)",
    "added to std": "added to the std: σ + ε",
    "none": "none",
    "unclear": "unclear",
}
_VARIANCE_WORDS = {"biased": "biased: ÷ n", "unbiased": "unbiased: ÷ (n − 1)", "unclear": "unclear"}


_POWERS = {1e8: "10⁸", 1e4: "10⁴", 64.0: "64", 16.0: "16"}
_NOT_LAYER_NORM_EVIDENCE = {
    "shape": lambda m: (
        "the best stretch-and-shift of each centred input row misses its output row by up to "
        f"{_small(m.shape_misfit)} of the row's size"
    ),
    "shift": lambda m: f"its output rows average to up to {_small(m.row_shift)} of their size, not 0",
    "scale": lambda m: f"a row 1000 times wider moved its output by {_small(m.scale_change)} of its size",
    "prediction": lambda m: (
        f"the divisor and ε found miss its output on an ordinary matrix by {_small(m.prediction_misfit)}"
    ),
}


def _wide(m) -> str:

    spread = WIDE.get(m.computes_in, 1e5)
    return "10⁵" if spread == 1e5 else f"{spread:g}"


def _precision_row(m):
    if m.computes_in == "float64":
        return ("computes in", "float64", "float64 in, float64 out")
    return (
        "computes in",
        m.computes_in,
        f"given float64, {m.why_that_type}: every check below is judged to {m.computes_in}'s precision",
    )


def _offsets(m) -> str:
    noise, parts = _noise(m), []
    for given, (work, offset, change) in m.offset_change.items():
        where = f"{given} in" + (f", {work} inside" if work != given else "")
        if offset is None:
            parts.append(f"{where}: could not run")
        else:
            parts.append(f"{where}, offset {_POWERS.get(offset, f'{offset:g}')}: {_small(change, noise)}")
    return "; ".join(parts)


def _fingerprint_rows(f) -> list[tuple[str, str, str]]:
    m = f.measured
    noise = _noise(m)
    rows = [
        (
            "axis",
            {
                "rows": "rows: each token's features",
                "columns": "columns: each feature's tokens",
                "neither": "neither rows nor columns",
            }[f.axis],
            (
                f"editing token 1 moved output rows: {_listing(m.rows_changed)}; editing feature 1 moved "
                f"output columns: {_listing(m.columns_changed)}"
            ),
        )
    ]
    if f.axis == "neither":
        return rows
    rows.append(_precision_row(m))
    if f.is_layer_norm is False:
        rows.append(("a LayerNorm?", "no", _NOT_LAYER_NORM_EVIDENCE[f.not_layer_norm_because](m)))
        return rows
    rows.append(
        (
            "subtracts the mean",
            _yes(f.centres),
            f"adding 3 to every value of a row moved its output by {_small(m.centring_change, noise)}",
        )
    )
    rows.append(
        (
            "variance",
            _VARIANCE_WORDS[f.variance],
            (
                f"a row spread {_wide(m)} times wider gives "
                f"divisor k = {format_number(m.divisor, 4)} for n = {m.features} features"
            ),
        )
    )
    if f.factor != 1.0:
        rows.append(
            (
                "constant factor",
                f"× {f.factor:.4g}",
                f"k is neither n nor n − 1: its output is {f.factor:.4g} times a LayerNorm's (÷ n assumed)",
            )
        )
    if f.eps_placement in ("inside sqrt", "added to std"):
        evidence = (
            f"on {m.eps_rows} rows of tiny variance v, 1/s² − v varies by {_small(m.spread_inside, noise)} "
            f"and 1/s − √v by {_small(m.spread_added, noise)} (s: the row's scale)"
        )
    elif f.eps_placement == "none":
        evidence = f"rows of variance down to {m.smallest_variance:.0e} come out scaled by exactly 1/√v" + (
            f" (to {m.computes_in}'s precision)" if m.computes_in != "float64" else ""
        )
    else:
        evidence = "its tiny-variance rows fit neither placement"
    rows.append(("ε placement", _PLACEMENT_WORDS[f.eps_placement], evidence))
    if f.machine_eps:
        rows.append(
            (
                "ε",
                "machine ε",
                f"{f.eps:.3g}: the machine ε of the input type (torch.finfo(x.dtype).eps, {m.computes_in} here)",
            )
        )
    else:
        rows.append(("ε", "—" if f.eps is None else f"{f.eps:.3g}", _known(f.eps, m.eps_tolerance)))
    if f.centres:
        rows.append(("one-pass variance", _yes(f.one_pass), f"how far a large offset moved the output: {_offsets(m)}"))
    if f.centres is False:
        rows.append(
            (
                "a row of zeros",
                m.zero_row if len(m.zero_row) < 40 else "an error",
                "0 ÷ √(0 + ε) is 0 with an ε; 0 ÷ 0 without one",
            )
        )
    else:
        rows.append(
            (
                "a row of equal values",
                m.constant_row if len(m.constant_row) < 40 else "an error",
                "0 ÷ √(0 + ε) is 0 with an ε; 0 ÷ 0 without one",
            )
        )
    rows.append(("γ", f.gamma, "read from its parameters" if f.gamma != "none" else "no γ found on it"))
    tolerance = "" if m.match_tolerance <= 1e-9 else f" ({m.computes_in}: below {m.match_tolerance:g} counts as equal)"
    rows.append(
        (
            "matches F.layer_norm (ε = 1e-5)",
            _yes(f.matches_torch),
            f"largest difference, relative to each row: {_small(m.torch_difference, noise)}{tolerance}",
        )
    )
    return rows


def _known(eps, tolerance: float = 1e-3) -> str:
    if eps is None:
        return "not measurable"
    names = [who for who, value in KNOWN_EPS if math.isclose(eps, value, rel_tol=tolerance, abs_tol=0.0)]
    return f"the default of {names[0]}" if names else "no well-known default"


def _fingerprint_title(f) -> str:
    return f"Fingerprint of {f.name}"


def _fingerprint_notes(f) -> list[str]:
    if f.problem:
        return []
    if f.is_layer_norm is False:
        return [f"✗ {d}" for d in f.differences]
    if not f.differences:
        return ["Differences from PyTorch's LayerNorm: none."]
    return ["Differences from PyTorch's LayerNorm:"] + [f"✗ {d}" for d in f.differences]


def fingerprint_view(f) -> Table:
    """A measured Fingerprint described once; every column wraps (at 1024×768 with the file browser its
    one-line columns left the evidence 9 characters a line, and the table 28 px past its box)."""
    return _table(
        _fingerprint_title(f), _FINGERPRINT_HEADER, _fingerprint_rows(f), _fingerprint_notes(f), wrap=(0, 1, 2)
    )


def fingerprint_text(f) -> str:
    """A :class:`~helpers.forensics.fingerprints.Fingerprint` as aligned text."""
    if f.problem:
        return f"{_fingerprint_title(f)}: could not be measured. {f.problem}"
    return render_text(fingerprint_view(f))


def fingerprint_html(f) -> str:
    """The same as an HTML table; every departure from PyTorch listed under it."""
    if f.problem:  # a sentence, not a table: shaded as a flagged row is, and said in words
        return (
            f'<div class="layernorm-forensics" style="{FLAG_STYLE};padding:4px">'
            f"<b>{html.escape(_fingerprint_title(f))}</b>: could not be measured. {html.escape(f.problem)}</div>"
        )
    return render_html(fingerprint_view(f))


# ---------------------------------------------------------------------------------------------
# A published table's fingerprint (helpers.forensics.table.fingerprint_table)


def _table_rows(t) -> list[tuple[str, ...]]:
    rows = []
    for e in t.explanations:
        eps = "no common ε" if e.eps_low is None else format_eps_range(_Range(e.eps_low, e.eps_high))
        known = ", ".join(f"{who} ({value:g})" for who, value in e.known_eps) or "—"
        rows.append((e.axis, e.convention.short_name, f"{len(e.rows)} of {e.total}", _listing(e.rows), eps, known))
    return rows


class _Range:  # what format_eps_range reads
    fits = True

    def __init__(self, low, high):
        self.eps_low, self.eps_high = low, high


def _table_notes(t) -> list[str]:
    best = t.explained_by
    if best:
        notes = [
            f"✓ Explained to {t.places} places, with one ε for every line, by: "
            + "; ".join(f"{e.convention.name}, statistics over the {e.axis}" for e in best)
            + "."
        ]
    else:
        notes = [f"✗ No single convention and ε explains every row to {t.places} places."]
    if t.unexplained_rows:
        notes.append(f"✗ Rows no convention gives from x with any ε: {_listing(t.unexplained_rows)}.")
    return notes


_TABLE_HEADER = ("statistics over", "convention", "lines explained", "which", "common ε", "well-known ε in range")


def table_fingerprint_view(t) -> Table:
    """A published table's fingerprint described once: a row per (axis, convention), flagged when it
    does not explain every line; the row lists and the well-known ε wrap."""
    title = f"Which LayerNorm prints this table? ({t.places} places; γ = 1, β = 0)"
    flagged = {i for i, e in enumerate(t.explanations) if not e.explains_all}
    return _table(title, _TABLE_HEADER, _table_rows(t), _table_notes(t), flagged, heading=False, wrap=(3, 5))


def table_fingerprint_text(t) -> str:
    return render_text(table_fingerprint_view(t))


def table_fingerprint_html(t) -> str:
    return render_html(table_fingerprint_view(t))


# ---------------------------------------------------------------------------------------------
# The gallery on one matrix (helpers.forensics.table.compare_gallery)

_GALLERY_HEADER = (
    "implementation",
    "mean?",
    "variance",
    "ε placement",
    "ε",
    "axis",
    "one pass?",
    "= PyTorch?",
    "change on x",
    "on x + 100, float32",
    "departs from PyTorch in",
)


def _gallery_rows(g) -> list[tuple[str, ...]]:
    rows = []
    for r in g.results:
        f = r.fingerprint
        change, offset = _change(r.row_differences, 4), _change(r.offset_differences, 3)
        rows.append(
            (
                r.name,
                _yes(f.centres),
                {"biased": "÷ n", "unbiased": "÷ (n − 1)"}.get(f.variance, str(f.variance)),
                {"inside sqrt": "inside √", "added to std": "+ std"}.get(f.eps_placement, str(f.eps_placement)),
                "—" if f.eps is None else f"{f.eps:.3g}",
                str(f.axis),
                _yes(f.one_pass),
                "✓ yes" if f.matches_torch else "✗ no",
                change,
                offset,
                departures(f),
            )
        )
    return rows


def _change(differences, places: int) -> str:
    """'0.2595 (row 3)': the largest difference and its row; '0' when it is 0 at ``places``."""
    if differences is None:
        return "could not run"
    largest = float(np.max(differences))
    if math.isinf(largest):
        return f"NaN (row {int(np.argmax(differences)) + 1})"
    text = format_number(largest, places)
    return "0" if float(text) == 0 else f"{text} (row {int(np.argmax(differences)) + 1})"


def _gallery_title(g) -> str:
    return f"Every LayerNorm of the gallery, fingerprinted and run on the {g.x.shape[0]} × {g.x.shape[1]} matrix"


_GALLERY_NOTES = (
    (
        "change on x: the largest |output − PyTorch's output| on x (γ = 1, β = 0), and the row where "
        "it is; 0 means 0 at the places shown."
    ),
    "on x + 100, float32: the same, for x + 100 computed in float32 (LayerNorm's output should not move).",
)


def gallery_view(g) -> Table:
    """The gallery described once; an implementation that differs from PyTorch is flagged. Eleven columns:
    none wraps, the padding is narrower, and the box scrolls sideways on a small screen."""
    flagged = {i for i, r in enumerate(g.results) if not r.fingerprint.matches_torch}
    return _table(
        _gallery_title(g), _GALLERY_HEADER, _gallery_rows(g), _GALLERY_NOTES, flagged, nowrap=True, compact=True
    )


def gallery_text(g) -> str:
    return render_text(gallery_view(g))


def gallery_html(g) -> str:
    return render_html(gallery_view(g))


# ---------------------------------------------------------------------------------------------
# The orientation translator (helpers.forensics.orientations): one matrix drawn three ways


def orientation_grids(o) -> tuple[Grid, ...]:
    """Each panel of an :class:`~helpers.forensics.orientations.Orientations` as the model's Grid: the row
    (◀) or the column (▲) one LayerNorm statistic uses is marked and shaded, the framework's axis argument
    under it."""
    grids = []
    for panel in o.panels():
        rows = tuple(
            GridRow(
                name,
                tuple(format_number(v, o.places) for v in values),
                highlighted=panel.reduce_rows and i == 0,
                mark="one LayerNorm: this row" if panel.reduce_rows and i == 0 else "",
            )
            for i, (name, values) in enumerate(zip(panel.row_names, panel.values, strict=True))
        )
        grids.append(
            Grid(
                panel.title,
                tuple(panel.column_names),
                rows,
                css_class="layernorm-orientation",
                highlighted_column=None if panel.reduce_rows else 0,
                column_mark="" if panel.reduce_rows else "one LayerNorm: this column",
                notes=(panel.code,),
            )
        )
    return tuple(grids)


def orientations_text(o) -> str:
    return "\n\n".join(render_grid_text(grid) for grid in orientation_grids(o))


def orientations_html(o) -> str:
    panels = "".join(render_grid_html(grid) for grid in orientation_grids(o))
    return f'<div class="layernorm-orientations" style="display:grid;gap:12px">{panels}</div>'  # apart, as in text


# The records (one layer down) show themselves through these; helpers.forensics imports this module.
views.register(Fingerprint, fingerprint_text, fingerprint_html)
views.register(TableFingerprint, table_fingerprint_text, table_fingerprint_html)
views.register(GalleryComparison, gallery_text, gallery_html)
views.register(Orientations, orientations_text, orientations_html)
