"""Showing numbers: aligned plain text (terminals, print, nbval) and HTML tables (Jupyter).

Nothing here computes LayerNorm; it formats what ``helpers.core.layernorm`` computed. Output is
deterministic: a fixed number of places, never ``-0.000``, long rows elided in the middle as numpy
does. Introduced in notebook 01.
"""

from helpers.display.formatting import (
    DEFAULT_PLACES,
    EDGE_ITEMS,
    ELIDE_OVER,
    ELLIPSIS,
    STAGE_LABELS,
    and_list,
    counted,
    format_eps,
    format_number,
    format_row,
    format_values,
    pad,
    places_for,
    text_width,
)
from helpers.display.formulas import (
    APPROX_LEGEND,
    filled_formula,
    filled_formulas_html,
    filled_formulas_table,
    filled_formulas_text,
    mode_text,
)
from helpers.display.matrix import MatrixView, show_matrix, side_by_side
from helpers.display.model import Cell, Row, Table, render_html, render_text
from helpers.display.source import SourceView, show_source
from helpers.display.steps import EXACT_EXTRA_PLACES, stage_names, steps_html, steps_table, steps_text
from helpers.display.verdicts import (
    comparison_html,
    comparison_table,
    comparison_text,
    eps_fits_html,
    eps_fits_table,
    eps_fits_text,
    format_difference,
    format_eps_range,
    published_check_html,
    published_check_table,
    published_check_text,
)

__all__ = [
    "DEFAULT_PLACES",
    "EDGE_ITEMS",
    "ELIDE_OVER",
    "ELLIPSIS",
    "EXACT_EXTRA_PLACES",
    "STAGE_LABELS",
    "MatrixView",
    "comparison_html",
    "comparison_text",
    "eps_fits_html",
    "eps_fits_text",
    "filled_formula",
    "filled_formulas_html",
    "filled_formulas_text",
    "format_difference",
    "and_list",
    "counted",
    "format_eps",
    "format_eps_range",
    "format_number",
    "format_row",
    "format_values",
    "pad",
    "published_check_html",
    "published_check_text",
    "show_matrix",
    "show_source",
    "SourceView",
    "side_by_side",
    "stage_names",
    "steps_html",
    "steps_text",
    "text_width",
    "Cell",
    "Row",
    "Table",
    "render_html",
    "render_text",
    "comparison_table",
    "eps_fits_table",
    "published_check_table",
    "steps_table",
    "filled_formulas_table",
    "APPROX_LEGEND",
    "mode_text",
    "places_for",
]
