"""Showing forensics: a Fingerprint, a table's fingerprint, the gallery and the orientation translator.

Each is described once as ``helpers.display.model``'s Table (or Grid, for the orientations) and drawn by
its two renderers, so print, nbval and Jupyter show the same rows, laid out as every other table of the
lesson. The records do not import this module: it registers their views (``helpers.core.views``) at its
bottom, and ``helpers.forensics`` imports it. Nothing here measures anything: ``helpers.forensics.fingerprints``
and ``helpers.forensics.table`` do. Quantities at the level of rounding noise are shown as "< 1e-9", never as
their noisy digits, so stored outputs are the same on every machine. Introduced in notebook 13.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core import views
from helpers.display import counted, format_eps_range, format_number
from helpers.display.model import (
    Grid,
    GridRow,
    Table,
    render_grid_html,
    render_grid_text,
    render_html,
    render_text,
)
from helpers.forensics.fingerprint_view import fingerprint_html, fingerprint_text, forensics_table
from helpers.forensics.fingerprint_view import fingerprint_view as fingerprint_view  # shown from here, as before
from helpers.forensics.orientations import Orientations
from helpers.forensics.record import Fingerprint
from helpers.forensics.table import GalleryComparison, TableFingerprint
from helpers.forensics.words import departures

_table = forensics_table


def _yes(flag) -> str:
    return "—" if flag is None else "yes" if flag else "no"


def _listing(numbers) -> str:
    return ", ".join(str(n) for n in numbers) if numbers else "none"


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
            f"✓ Explained to {counted(t.places, 'place')}, with one ε for every line, by: "
            + "; ".join(f"{e.convention.name}, statistics over the {e.axis}" for e in best)
            + "."
        ]
    else:
        notes = [f"✗ No single convention and ε explains every row to {counted(t.places, 'place')}."]
    if t.unexplained_rows:
        notes.append(f"✗ Rows no convention gives from x with any ε: {_listing(t.unexplained_rows)}.")
    if t.held_by:
        notes.append(
            f"y is {t.held_by}: past {counted(t.places, 'place')} its digits are its own arithmetic's rounding, "
            f"so it is read to {t.places}."
        )
    return notes


_TABLE_HEADER = ("statistics over", "convention", "lines explained", "which", "common ε", "well-known ε in range")


def table_fingerprint_view(t) -> Table:
    """A published table's fingerprint described once: a row per (axis, convention), flagged when it
    does not explain every line; the row lists and the well-known ε wrap."""
    title = f"Which LayerNorm prints this table? ({counted(t.places, 'place')}; γ = 1, β = 0)"
    flagged = {i for i, e in enumerate(t.explanations) if not e.explains_all}
    return _table(title, _TABLE_HEADER, _table_rows(t), _table_notes(t), flagged, heading=False, wrap=(3, 5))


def table_fingerprint_text(t) -> str:
    return render_text(table_fingerprint_view(t))


def table_fingerprint_html(t) -> str:
    return render_html(table_fingerprint_view(t))


# ---------------------------------------------------------------------------------------------
# The gallery on one matrix (helpers.forensics.table.compare_gallery)

_GALLERY_HEADER = (  # the verdict first: at 1024 px the box scrolls sideways, and what matters stays in sight
    "implementation",
    "= PyTorch?",
    "departs from PyTorch in",
    "mean?",
    "variance",
    "ε placement",
    "ε",
    "axis",
    "one pass?",
    "change on x",
    "on x + 100, float32",
)


def _gallery_rows(g) -> list[tuple[str, ...]]:
    rows = []
    for r in g.results:
        f = r.fingerprint
        change, offset = _change(r.row_differences, 4), _change(r.offset_differences, 3)
        rows.append(
            (
                r.name,
                "? cannot tell" if f.matches_torch is None else "✓ yes" if f.matches_torch else "✗ no",
                departures(f),
                _yes(f.centres),
                _word({"biased": "÷ n", "unbiased": "÷ (n − 1)"}, f.variance),
                _word({"inside sqrt": "inside √", "added to std": "+ std"}, f.eps_placement),
                "—" if f.eps is None else f"{f.eps:.3g}",
                _word({}, f.axis),
                _yes(f.one_pass),
                change,
                offset,
            )
        )
    return rows


def _word(words: dict, value) -> str:
    """A convention in the table's words: "—" where it could not be measured (None), never Python's "None"."""
    return "—" if value is None else words.get(value, str(value))


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
    flagged = {i for i, r in enumerate(g.results) if r.fingerprint.matches_torch is False}
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
