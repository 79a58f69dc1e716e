"""Showing numbers: aligned plain text (terminals, print, nbval) and HTML tables (Jupyter).

Nothing here computes LayerNorm; it formats what ``helpers.layernorm`` computed. Output is
deterministic: a fixed number of places, never ``-0.000``, long rows elided in the middle as numpy
does. Introduced in notebook 01.
"""

from __future__ import annotations

import html
import math
import unicodedata
from dataclasses import dataclass

import numpy as np

DEFAULT_PLACES = 4
ELIDE_OVER = 10  # show every value up to this many, else the first and last EDGE_ITEMS
EDGE_ITEMS = 3
ELLIPSIS = "…"

# Each stage of a row: a short name a learner reads, its formula as text, and as HTML.
STAGE_LABELS = {
    "input": ("input", "x", "x"),
    "mean": ("mean", "μ = (x₁ + … + xₙ) / n", "&mu; = (x<sub>1</sub> + &hellip; + x<sub>n</sub>) / n"),
    "differences": ("differences", "x − μ", "x &minus; &mu;"),
    "squared_differences": ("squares", "(x − μ)²", "(x &minus; &mu;)<sup>2</sup>"),
    "variance": ("variance", "σ² = Σ(x − μ)² / n", "&sigma;<sup>2</sup> = &Sigma;(x &minus; &mu;)<sup>2</sup> / n"),
    "eps": ("epsilon", "ε", "&epsilon;"),
    "variance_plus_eps": ("variance + ε", "σ² + ε", "&sigma;<sup>2</sup> + &epsilon;"),
    "std": ("std", "√(σ² + ε)", "&radic;(&sigma;<sup>2</sup> + &epsilon;)"),
    "normalised": ("normalised", "x̂ = (x − μ) / √(σ² + ε)", "x&#770; = (x &minus; &mu;) / &radic;(&sigma;<sup>2</sup> + &epsilon;)"),
    "gamma": ("gamma", "γ (scale, per feature)", "&gamma; (scale, per feature)"),
    "beta": ("beta", "β (shift, per feature)", "&beta; (shift, per feature)"),
    "output": ("output", "y = γ · x̂ + β", "y = &gamma; &middot; x&#770; + &beta;"),
}

_CSS = (
    "border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "font-size:13px"
)
_CELL = "padding:2px 10px;border-bottom:1px solid #ddd"
_NUMBER_CELL = _CELL + ";text-align:right"
_FLAG_STYLE = "background:#fdf0d5"  # pale orange, paired with a text marker for colour-blind readers
_HIGHLIGHT_STYLE = "background:#dbe9f6"


def text_width(text: str) -> int:
    """How many columns ``text`` takes on screen (combining accents, as in x̂, take none)."""
    return sum(0 if unicodedata.combining(ch) else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` screen columns."""
    return text + " " * max(0, width - text_width(text))


def format_number(value: float, places: int = DEFAULT_PLACES) -> str:
    """A number with exactly ``places`` decimals; never ``-0.000``; ``nan``/``inf`` spelled out."""
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = f"{value:.{places}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text


def format_eps(eps: float) -> str:
    """eps as people write it: ``1e-05``, ``0.001``, ``0``."""
    return f"{float(eps):g}"


def format_values(values, places: int = DEFAULT_PLACES) -> list[str]:
    """Each value formatted; more than ``ELIDE_OVER`` values keep only both ends around ``…``."""
    flat = np.atleast_1d(np.asarray(values, dtype=np.float64)).ravel()
    if flat.size > ELIDE_OVER:
        return [format_number(v, places) for v in flat[:EDGE_ITEMS]] + [ELLIPSIS] + [
            format_number(v, places) for v in flat[-EDGE_ITEMS:]
        ]
    return [format_number(v, places) for v in flat]


def format_row(values, places: int = DEFAULT_PLACES, width: int | None = None) -> str:
    """A row of numbers on one line, right-aligned in columns: ``1.1330  -0.2990   0.5030``."""
    cells = format_values(values, places)
    width = width or max(len(cell) for cell in cells)
    return "  ".join(cell.rjust(width) for cell in cells)


# ---------------------------------------------------------------------------------------------
# One row's steps


def _record_places(record) -> int:
    return record.decimals if record.decimals is not None else DEFAULT_PLACES


def _stage_cells(record, name: str, places: int) -> list[str]:
    if name == "eps":
        return [format_eps(record.eps)]
    return format_values(record.stage(name), places)


def _visible_stages(record) -> list[str]:
    from helpers.layernorm import STAGES

    plain_affine = np.all(record.gamma == 1.0) and np.all(record.beta == 0.0)
    return [s for s in STAGES if not (plain_affine and s in ("gamma", "beta"))]


def _title(record) -> str:
    how = (
        f"rounded by hand to {record.decimals} places (halves away from zero)"
        if record.decimals is not None
        else f"exact, shown to {DEFAULT_PLACES} places"
    )
    features = "feature" if record.n == 1 else "features"
    return f"LayerNorm of one row ({record.n} {features}, eps = {format_eps(record.eps)}), {how}"


def steps_text(record, stages: list[str] | None = None) -> str:
    """A record as aligned text: one line per stage with its formula and values."""
    places = _record_places(record)
    stages = stages if stages is not None else _visible_stages(record)
    drifted = {d.stage: d for d in record.rounding_drift()}
    rows = [(STAGE_LABELS[s][0], STAGE_LABELS[s][1], _stage_cells(record, s, places), s in drifted) for s in stages]
    label_width = max(len(label) for label, *_ in rows)
    formula_width = max(text_width(formula) for _, formula, *_ in rows)
    number_width = max(len(cell) for *_, cells, _ in rows for cell in cells)
    lines = [_title(record)]
    for label, formula, cells, flagged in rows:
        numbers = "  ".join(cell.rjust(number_width) for cell in cells)
        marker = "  ≠ exact" if flagged else ""
        lines.append(f"  {label.ljust(label_width)}  {pad(formula, formula_width)}  {numbers}{marker}".rstrip())
    lines.extend(_drift_lines(record, drifted))
    return "\n".join(lines)


def _drift_lines(record, drifted) -> list[str]:
    if record.decimals is None:
        return []
    if not drifted:
        return [f"  Rounding to {record.decimals} places changed no stage by more than its last place."]
    exact_places = record.decimals + 2
    lines = [f"  ≠ exact: rounding to {record.decimals} places moved these stages (exact values to {exact_places} places):"]
    for name, drift in drifted.items():
        exact = format_eps(drift.exact) if name == "eps" else "  ".join(format_values(drift.exact, exact_places))
        lines.append(f"    {STAGE_LABELS[name][0]}: {exact}")
    return lines


def steps_html(record, stages: list[str] | None = None) -> str:
    """A record as an HTML table: stage, formula, values; hand-rounding drift marked."""
    places = _record_places(record)
    stages = stages if stages is not None else _visible_stages(record)
    drifted = {d.stage: d for d in record.rounding_drift()}
    body = []
    for name in stages:
        label, _, formula_html = STAGE_LABELS[name]
        cells = "".join(
            f'<td style="{_NUMBER_CELL}">{html.escape(cell)}</td>' for cell in _stage_cells(record, name, places)
        )
        style = f' style="{_FLAG_STYLE}"' if name in drifted else ""
        marker = ' <span title="rounding moved this stage">≠ exact</span>' if name in drifted else ""
        body.append(
            f'<tr{style}><th style="{_CELL};text-align:left">{html.escape(label)}{marker}</th>'
            f'<td style="{_CELL};color:#555">{formula_html}</td>{cells}</tr>'
        )
    notes = "".join(f"<div>{html.escape(line.strip())}</div>" for line in _drift_lines(record, drifted))
    if notes:
        notes = f'<div style="font-size:12px;margin-top:4px">{notes}</div>'
    return (
        f'<div class="layernorm-steps"><div style="font-weight:600;margin:4px 0">{html.escape(_title(record))}</div>'
        f'<table style="{_CSS}">{"".join(body)}</table>'
        f"{notes}</div>"
    )


# ---------------------------------------------------------------------------------------------
# Matrices


@dataclass(frozen=True)
class MatrixView:
    """A matrix that prints as aligned text and shows as an HTML table in Jupyter.

    Made by :func:`show_matrix`. Rows are tokens, columns features (as in the lesson).
    """

    values: np.ndarray
    title: str = ""
    places: int = DEFAULT_PLACES
    highlight_row: int | None = None  # counted from 0
    row_label: str = "row"
    column_labels: tuple[str, ...] = ()  # default f1, f2, …
    row_labels: tuple[str, ...] = ()  # default "row 1", "row 2", …

    def _row_name(self, i: int) -> str:
        return self.row_labels[i] if self.row_labels else f"{self.row_label} {i + 1}"

    def _row_indices(self) -> list[int | None]:
        rows = self.values.shape[0]
        if rows > ELIDE_OVER:
            return list(range(EDGE_ITEMS)) + [None] + list(range(rows - EDGE_ITEMS, rows))
        return list(range(rows))

    def _column_headers(self) -> list[str]:
        columns = self.values.shape[1]
        headers = list(self.column_labels) or [f"f{j + 1}" for j in range(columns)]
        if columns > ELIDE_OVER:
            headers = headers[:EDGE_ITEMS] + [ELLIPSIS] + headers[-EDGE_ITEMS:]
        return headers

    def __str__(self) -> str:
        headers = self._column_headers()
        body = []
        for i in self._row_indices():
            if i is None:
                body.append((ELLIPSIS, [ELLIPSIS] * len(headers)))
            else:
                body.append((self._row_name(i), format_values(self.values[i], self.places)))
        label_width = max(text_width(label) for label, _ in body)
        width = max(text_width(cell) for _, cells in body for cell in cells + headers)
        lines = [self.title] if self.title else []
        lines.append(" " * (label_width + 2) + "  ".join(_rjust(h, width) for h in headers))
        for i, (label, cells) in zip(self._row_indices(), body):
            mark = "  ◀" if i is not None and i == self.highlight_row else ""
            lines.append(f"{pad(label, label_width)}  " + "  ".join(_rjust(c, width) for c in cells) + mark)
        return "\n".join(line.rstrip() for line in lines)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        headers = "".join(f'<th style="{_NUMBER_CELL}">{html.escape(h)}</th>' for h in self._column_headers())
        rows = []
        for i in self._row_indices():
            if i is None:
                cells = "".join(f'<td style="{_NUMBER_CELL}">{ELLIPSIS}</td>' for _ in self._column_headers())
                rows.append(f'<tr><th style="{_CELL}">{ELLIPSIS}</th>{cells}</tr>')
                continue
            style = f' style="{_HIGHLIGHT_STYLE}"' if i == self.highlight_row else ""
            cells = "".join(f'<td style="{_NUMBER_CELL}">{c}</td>' for c in format_values(self.values[i], self.places))
            rows.append(f'<tr{style}><th style="{_CELL};text-align:left">{html.escape(self._row_name(i))}</th>{cells}</tr>')
        title = f'<div style="font-weight:600;margin:4px 0">{html.escape(self.title)}</div>' if self.title else ""
        return (
            f'<div class="layernorm-matrix">{title}<table style="{_CSS}"><tr><th style="{_CELL}"></th>{headers}</tr>'
            f'{"".join(rows)}</table></div>'
        )


def show_matrix(values, title: str = "", places: int = DEFAULT_PLACES, highlight_row: int | None = None,
                row_label: str = "row", column_labels=None, row_labels=None) -> MatrixView:
    """Wrap a matrix (or a single row) for display: aligned text in print, an HTML table in Jupyter.

    ``column_labels`` and ``row_labels`` name the columns and rows (default f1, f2, … and row 1,
    row 2, …), e.g. ``show_matrix(table, column_labels=["mean", "variance"])``.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2:
        raise ValueError(f"show_matrix shows a 2-D matrix; got shape {array.shape}.")
    columns = _labels(column_labels, array.shape[1], "column_labels", "columns")
    rows = _labels(row_labels, array.shape[0], "row_labels", "rows")
    frozen = array.copy()
    frozen.flags.writeable = False
    return MatrixView(frozen, title, places, highlight_row, row_label, columns, rows)


def _labels(labels, count: int, name: str, what: str) -> tuple[str, ...]:
    if labels is None:
        return ()
    labels = tuple(str(label) for label in labels)
    if len(labels) != count:
        raise ValueError(f"{name} needs one label per {what[:-1]}: the matrix has {count} {what}, got {len(labels)} labels.")
    return labels


def _rjust(text: str, width: int) -> str:
    return " " * max(0, width - text_width(text)) + text


# ---------------------------------------------------------------------------------------------
# Implementations compared (helpers.reference)


def format_difference(difference: float) -> str:
    """A largest difference, stable across machines: ``0``, ``< 1e-12`` (rounding noise) or ``2.1e-01``."""
    if difference == 0.0:
        return "0"
    if difference <= 1e-12:
        return "< 1e-12"
    return f"{difference:.1e}"


def _comparison_rows(report) -> list[tuple[str, str, str, str, str]]:
    rows = []
    for row in report.rows:
        verdict = "matches" if row.close else "DIFFERS"
        if not row.expected_to_match:
            verdict += " (as it should)" if not row.close else " (unexpected!)"
        rows.append((row.name, "yes" if row.exact else "no", "yes" if row.close else "no",
                     format_difference(row.max_difference), verdict))
    return rows


_COMPARISON_HEADER = ("implementation", "exact", "close", "max difference", "verdict")


def _comparison_title(report) -> str:
    shape = "×".join(str(s) for s in report.shape)
    return f"LayerNorm on a {shape} matrix (float64, eps = {format_eps(report.eps)}) against {report.reference_name}"


def comparison_text(report) -> str:
    """A comparison report as an aligned text table."""
    rows = [_COMPARISON_HEADER, *_comparison_rows(report)]
    widths = [max(len(row[k]) for row in rows) for k in range(len(_COMPARISON_HEADER))]
    lines = [_comparison_title(report)]
    lines += ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def comparison_html(report) -> str:
    """A comparison report as an HTML table; a row that differs is marked."""
    head = "".join(f'<th style="{_CELL};text-align:left">{h}</th>' for h in _COMPARISON_HEADER)
    body = []
    for row in _comparison_rows(report):
        style = f' style="{_FLAG_STYLE}"' if row[2] == "no" else ""
        body.append(f"<tr{style}>" + "".join(f'<td style="{_CELL};text-align:left">{html.escape(c)}</td>' for c in row)
                    + "</tr>")
    return (
        f'<div class="layernorm-comparison"><div style="font-weight:600;margin:4px 0">'
        f"{html.escape(_comparison_title(report))}</div>"
        f'<table style="{_CSS}"><tr>{head}</tr>{"".join(body)}</table></div>'
    )


# ---------------------------------------------------------------------------------------------
# A candidate output table checked (helpers.published_check), introduced in notebook 07

_VERDICT_MARKS = (("impossible", "✗"), ("wrong", "✗"), ("close", "≈"), ("right", "✓"))
_CHECK_HEADER = ("row", "published", "row sum", "sum of squares", "least possible", "n·var/(var+ε)",
                 "max difference", "verdict")
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
        (str(row.row), format_row(row.published, places, width), format_number(row.row_sum, places),
         format_number(row.sum_of_squares, 2 * places), _optional_number(row.smallest_sum_of_squares, 2 * places),
         format_number(row.bound, _BOUND_PLACES), format_number(row.max_difference, DEFAULT_PLACES),
         _verdict_with_mark(row.verdict))
        for row in check.rows
    ]


def _published_check_title(check) -> str:
    return (f"A table printed to {check.places} places, checked row by row against LayerNorm "
            f"(γ = 1, β = 0, eps = {format_eps(check.eps)})")


def _published_check_notes(check) -> list[str]:
    n = check.rows[0].n if check.rows else 0
    half = format_number(check.half_unit, check.places + 1)
    return [
        f"row sum: must be 0 (rounding each of the {n} values by up to {half} allows "
        f"± {format_number(n * check.half_unit, check.places + 1)}).",
        f"sum of squares: must be at most n = {n}, whatever eps or variance (÷ n or ÷ (n − 1)) is used.",
        "least possible: the smallest sum of squares of a row that sums to 0 and prints as these digits.",
        "n·var/(var+ε): what the true output's squares add up to, for this row of x.",
        f"max difference: from the true output; 'close' means within {format_number(_close_tolerance(), 2)}.",
    ]


def _close_tolerance() -> float:
    from helpers.published_check import CLOSE_TOLERANCE

    return CLOSE_TOLERANCE


def published_check_text(check) -> str:
    """A :class:`~helpers.published_check.PublishedOutputCheck` as an aligned text table with notes."""
    rows = [_CHECK_HEADER, *_published_check_rows(check)]
    widths = [max(text_width(row[k]) for row in rows) for k in range(len(_CHECK_HEADER))]
    lines = [_published_check_title(check)]
    for row in rows:
        cells = [pad(cell, width) if k in (0, 7) else cell.rjust(width) for k, (cell, width) in enumerate(zip(row, widths))]
        lines.append("  " + "  ".join(cells).rstrip())
    lines += ["  " + note for note in _published_check_notes(check)]
    return "\n".join(lines)


def published_check_html(check) -> str:
    """The same check as an HTML table: impossible and wrong rows marked, the close row highlighted."""
    head = "".join(f'<th style="{_CELL};text-align:left;white-space:nowrap">{html.escape(h)}</th>' for h in _CHECK_HEADER)
    body = []
    for row, cells in zip(check.rows, _published_check_rows(check)):
        style = _HIGHLIGHT_STYLE if row.close else _FLAG_STYLE
        tds = "".join(
            f'<td style="{_CELL + ";text-align:left" if k in (0, 7) else _NUMBER_CELL + ";white-space:pre"}">'
            f"{html.escape(cell)}</td>" for k, cell in enumerate(cells)
        )
        body.append(f'<tr style="{style}">{tds}</tr>')
    notes = "".join(f"<div>{html.escape(note)}</div>" for note in _published_check_notes(check))
    return (
        f'<div class="layernorm-published-check"><div style="font-weight:600;margin:4px 0">'
        f"{html.escape(_published_check_title(check))}</div>"
        f'<table style="{_CSS}"><tr>{head}</tr>{"".join(body)}</table>'
        f'<div style="font-size:12px;margin-top:4px;color:#444">{notes}</div></div>'
    )


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
    return (f"Which eps ≥ 0 would turn each row of x into exactly the printed digits "
            f"({check.places} places)? One column per convention")


def _eps_fits_rows(check) -> list[tuple[str, ...]]:
    return [(str(row.row), *(format_eps_range(fit) for fit in row.eps_fits)) for row in check.rows]


def _eps_fits_header(check) -> tuple[str, ...]:
    from helpers.published_check import CONVENTIONS

    return ("row", *(convention.short_name for convention in CONVENTIONS))


def eps_fits_text(check) -> str:
    """For every row and convention, the eps range that reproduces the row (``none`` if no eps does)."""
    rows = [_eps_fits_header(check), *_eps_fits_rows(check)]
    widths = [max(text_width(row[k]) for row in rows) for k in range(len(rows[0]))]
    lines = [_eps_fits_title(check)]
    lines += ["  " + "  ".join(pad(cell, width) for cell, width in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines)


def eps_fits_html(check) -> str:
    """The same as an HTML table; a cell where no eps fits is marked."""
    head = "".join(f'<th style="{_CELL};text-align:left">{html.escape(h)}</th>' for h in _eps_fits_header(check))
    body = []
    for cells in _eps_fits_rows(check):
        tds = [f'<th style="{_CELL};text-align:left">{cells[0]}</th>']
        tds += [f'<td style="{_CELL};text-align:left{";" + _FLAG_STYLE if c == "none" else ""}">{html.escape(c)}</td>'
                for c in cells[1:]]
        body.append(f"<tr>{''.join(tds)}</tr>")
    return (
        f'<div class="layernorm-eps-fits"><div style="font-weight:600;margin:4px 0">'
        f"{html.escape(_eps_fits_title(check))}</div>"
        f'<table style="{_CSS}"><tr>{head}</tr>{"".join(body)}</table></div>'
    )
