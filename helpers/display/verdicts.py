"""Tables of checks: implementations compared (helpers.reference) and a published table checked
(helpers.core.published_table, notebook 07)."""

from __future__ import annotations

import math

from helpers.core import views
from helpers.core.published_table import CLOSE_TOLERANCE, CONVENTIONS, EpsFitTable, PublishedOutputCheck
from helpers.core.tolerance import FLOAT64_NOISE, agree_in_float64
from helpers.display.formatting import (
    DEFAULT_PLACES,
    counted,
    format_eps,
    format_number,
    format_row,
    format_values,
)
from helpers.display.model import Cell, Row, Table, render_html, render_text


def format_difference(difference: float) -> str:
    """A largest difference, stable across machines: ``0``, ``< 1e-12`` (rounding noise) or ``2.1e-01``."""
    if difference == 0.0:
        return "0"
    if agree_in_float64(difference):
        return f"< {FLOAT64_NOISE:.0e}"
    return f"{difference:.1e}"


def _comparison_rows(report) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for row in report.rows:
        verdict = "matches" if row.close else "DIFFERS"
        if not row.expected_to_match:
            verdict += " (as it should)" if not row.close else " (unexpected!)"
        rows.append(
            (
                row.name,
                "yes" if row.exact else "no",
                "yes" if row.close else "no",
                format_difference(row.max_difference),
                verdict,
            )
        )
    return rows


_COMPARISON_HEADER = ("implementation", "exact", "close", "max difference", "verdict")


def _comparison_title(report) -> str:
    shape = "×".join(str(s) for s in report.shape)
    return f"LayerNorm on a {shape} matrix (float64, eps = {format_eps(report.eps)}) against {report.reference_name}"


def comparison_table(report) -> Table:
    """The comparison report described once; a row that differs is flagged."""
    rows = tuple(Row(tuple(Cell(text) for text in row), flagged=row[2] == "no") for row in _comparison_rows(report))
    return Table("layernorm-comparison", _comparison_title(report), _COMPARISON_HEADER, rows, pin_last=True)


def comparison_text(report) -> str:
    """A comparison report as an aligned text table."""
    return render_text(comparison_table(report))


def comparison_html(report) -> str:
    """A comparison report as an HTML table; a row that differs is marked."""
    return render_html(comparison_table(report))


# ---------------------------------------------------------------------------------------------
# A candidate output table checked (helpers.core.published_table), introduced in notebook 07

_VERDICT_MARKS = (("impossible", "✗"), ("wrong", "✗"), ("close", "≈"), ("right", "✓"))
_CHECK_HEADER = (
    "row",
    "published",
    "row sum",
    "sum of squares",
    "least possible",
    "n·var/(var+ε)",
    "max difference",
    "verdict",
)
_BOUND_PLACES = 5  # n·var/(var+eps) sits just under n: 5 places show that it is under


def _verdict_with_mark(verdict: str) -> str:
    mark = next((m for word, m in _VERDICT_MARKS if verdict.startswith(word)), "")
    return f"{mark} {verdict}".strip()


def _optional_number(value, places: int) -> str:
    return "—" if value is None else format_number(value, places)


def _published_check_rows(check) -> list[tuple[str, ...]]:
    places = check.places
    width = max((len(cell) for row in check.rows for cell in format_values(row.published, places)), default=1)
    return [
        (
            str(row.row),
            format_row(row.published, places, width),
            format_number(row.row_sum, places),
            format_number(row.sum_of_squares, 2 * places),
            _optional_number(row.smallest_sum_of_squares, 2 * places),
            format_number(row.bound, _BOUND_PLACES),
            format_number(row.max_difference, DEFAULT_PLACES),
            _verdict_with_mark(row.verdict),
        )
        for row in check.rows
    ]


def _published_check_title(check) -> str:
    return (
        f"A table printed to {check.places} places, checked row by row against LayerNorm "
        f"(γ = 1, β = 0, eps = {format_eps(check.eps)})"
    )


def _published_check_notes(check) -> list[str]:
    n = check.rows[0].n if check.rows else 0
    half = format_number(check.half_unit, check.places + 1)
    return [
        f"row sum: must be 0 (rounding each of the {n} values by up to {half} allows "
        f"± {format_number(n * check.half_unit, check.places + 1)}).",
        f"sum of squares: must be at most n = {n}, whatever eps or variance (÷ n or ÷ (n − 1)) is used.",
        "least possible: the smallest sum of squares of a row that sums to 0 and prints as these digits.",
        "n·var/(var+ε): what the true output's squares add up to, for this row of x.",
        f"max difference: from the true output; 'close' means within {format_number(CLOSE_TOLERANCE, 2)}.",
    ]


def published_check_table(check) -> Table:
    """The check described once: a row per published row, the close row highlighted, the others flagged."""
    rows = tuple(
        Row(tuple(Cell(text) for text in cells), flagged=not row.close, highlighted=row.close)
        for row, cells in zip(check.rows, _published_check_rows(check))
    )
    numeric = tuple(k not in (0, 7) for k in range(len(_CHECK_HEADER)))  # row and verdict read as words
    return Table(
        "layernorm-published-check",
        _published_check_title(check),
        _CHECK_HEADER,
        rows,
        tuple(_published_check_notes(check)),
        numeric,
        nowrap=True,
        pin_last=True,  # the verdict stays in sight on a laptop, the numbers scrolling beneath it
    )


def published_check_text(check) -> str:
    """A :class:`~helpers.core.published_table.PublishedOutputCheck` as an aligned text table with notes."""
    return render_text(published_check_table(check))


def published_check_html(check) -> str:
    """The same check as an HTML table: impossible and wrong rows marked, the close row highlighted."""
    return render_html(published_check_table(check))


def format_eps_range(fit) -> str:
    """The eps values that fit, as ``0 to 0.0031``; ``none`` when no eps ≥ 0 does."""
    if not fit.fits:
        return "none"

    def one(value: float) -> str:
        if math.isinf(value):
            return "∞"
        return "0" if value == 0 else f"{value:.2g}"

    return f"{one(fit.eps_low)} to {one(fit.eps_high)}"


def _eps_fits_title(check) -> str:
    return (
        f"Which eps ≥ 0 would turn each row of x into exactly the printed digits "
        f"({check.places} places)? One column per convention"
    )


def _eps_fits_rows(check) -> list[tuple[str, ...]]:
    return [(str(row.row), *(format_eps_range(fit) for fit in row.eps_fits)) for row in check.rows]


def _eps_fits_header(check) -> tuple[str, ...]:
    return ("row", *(convention.short_name for convention in CONVENTIONS))


def eps_fits_table(check) -> Table:
    """For every row and convention, the eps range that reproduces the row, described once."""
    rows = tuple(
        Row((Cell(cells[0], heading=True), *(Cell(c, flagged=c == "none") for c in cells[1:])))
        for cells in _eps_fits_rows(check)
    )
    return Table("layernorm-eps-fits", _eps_fits_title(check), _eps_fits_header(check), rows)


def eps_fits_text(check) -> str:
    """For every row and convention, the eps range that reproduces the row (``none`` if no eps does)."""
    return render_text(eps_fits_table(check))


def eps_fits_html(check) -> str:
    """The same as an HTML table; a cell where no eps fits is marked."""
    return render_html(eps_fits_table(check))


views.register(PublishedOutputCheck, published_check_text, published_check_html)
views.register(EpsFitTable, lambda fits: eps_fits_text(fits.check), lambda fits: eps_fits_html(fits.check))


# ---------------------------------------------------------------------------------------------
# The same check on a lecture slide: the question first (the printed rows and the rules), then what a
# pencil proves, then what only the true output shows. Every number comes from the check itself.


def pencil_rule_line(check) -> str:
    """The two pencil checks with their rounding allowance, in one line a student can apply.

    The allowance is half a unit in the last printed place (``check.half_unit``), the same that the
    checks in :mod:`helpers.core.published_table` use: ± that much on each value, so ± n times it on a
    row's sum, and each value moved that much towards 0 before squaring.
    """
    n = check.rows[0].n if check.rows else 0
    half = format_number(check.half_unit, check.places + 1)
    return (
        f"Printed to {counted(check.places, 'place')}, each value may be up to {half} from the number it was rounded from: a row passes if "
        f"it sums to 0 within ± {format_number(n * check.half_unit, check.places + 1)} and, with every value "
        f"moved {half} towards 0, its squares add up to at most {n}."
    )


def _printed(values, places: int) -> str:
    return "(" + ", ".join(format_values(values, places)) + ")"


def _pencil_says(row) -> str:
    if not row.sums_to_zero:
        return "✗ sum not 0"
    if not row.pencil_squares_within_n:
        return f"✗ squares over {row.n}"
    return "passes both"


def _truth_says(row) -> str:
    if row.matches:
        return "✓ right"
    if not row.could_be_layer_norm:
        return "✗ impossible"
    if row.close:
        return f"≈ off by {format_number(row.max_difference, DEFAULT_PLACES)}"
    return f"✗ off by {format_number(row.max_difference, DEFAULT_PLACES)}"


def lecture_question_table(check) -> Table:
    """The rows as printed and nothing else: what the room works on with pencils."""
    rows = tuple(Row((Cell(str(row.row)), Cell(_printed(row.published, check.places)))) for row in check.rows)
    return Table("layernorm-published-question", "", ("row", "printed"), rows, nowrap=True)


def lecture_pencil_table(check) -> Table:
    """Each printed row's sum and its squares with the allowance, and what the pencil proves."""
    rows = tuple(
        Row(
            (
                Cell(str(row.row)),
                Cell(_printed(row.published, check.places)),
                Cell(format_number(row.row_sum, check.places)),
                Cell(format_number(row.pencil_sum_of_squares, 2 * check.places)),
                Cell(_pencil_says(row)),
            ),
            flagged=not (row.sums_to_zero and row.pencil_squares_within_n),
        )
        for row in check.rows
    )
    header = ("row", "printed", "sum", "squares", "a pencil says")  # squares of the values moved towards 0
    return Table("layernorm-published-pencil", "", header, rows, numeric=(False, False, True, True, False), nowrap=True)


def lecture_truth_table(check) -> Table:
    """Each printed row beside the true output, printed the same way, with the verdict."""
    rows = tuple(
        Row(
            (
                Cell(str(row.row)),
                Cell(_printed(row.published, check.places)),
                Cell(_printed(row.true_output, check.places)),
                Cell(_truth_says(row)),
            ),
            flagged=not row.close,
            highlighted=row.close,
        )
        for row in check.rows
    )
    return Table("layernorm-published-truth", "", ("row", "printed", "true", "verdict"), rows, nowrap=True)
