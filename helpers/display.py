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
from itertools import zip_longest
from typing import NamedTuple

import numpy as np

from helpers.layernorm import STAGES
from helpers.published_check import CLOSE_TOLERANCE

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
# One row's steps: the record's own text and table (notebook 02 on), also inside the row editor

EXACT_EXTRA_PLACES = 2  # a hand-rounded record shows the exact values with this many more places
_FOCUS_MARK = "▶"


class _StageRow(NamedTuple):
    label: str
    formula: str
    formula_html: str
    cells: list[str]
    exact_cells: list[str] | None  # beside a hand-rounded record's own digits, else None
    drifted: bool
    focused: bool


def stage_names(names, what: str = "stages") -> tuple[str, ...]:
    """One stage name (``"mean"``) or a sequence of them, as a tuple; an unknown name is refused."""
    names = () if names is None else (names,) if isinstance(names, str) else tuple(names)
    unknown = [repr(name) for name in names if name not in STAGES]
    if unknown:
        raise ValueError(f"{what} names stages that do not exist: {', '.join(unknown)}; the stages are "
                         f"{', '.join(STAGES)}.")
    return names


def _places_showing_eps(record, places: int) -> int:
    """Enough decimal places (at most 15) for eps to be seen in σ² + ε: 6 for eps = 1e-5."""
    if record.eps <= 0:
        return places
    return min(15, max(places, 1 - math.floor(math.log10(record.eps))))


def _stage_cells(record, name: str, places: int) -> list[str]:
    if name == "eps":
        return [format_eps(record.eps)]
    if name == "variance_plus_eps" and not record.hand_rounded:
        places = _places_showing_eps(record, places)  # else σ² + ε looks the same as σ²
    return format_values(record.stage(name), places)


def _visible_stages(record, focus) -> tuple[str, ...]:
    """Every stage, but gamma and beta only when they do something (γ ≠ 1 or β ≠ 0) or are in focus."""
    plain_affine = np.all(record.gamma == 1.0) and np.all(record.beta == 0.0)
    return tuple(s for s in STAGES if not (plain_affine and s in ("gamma", "beta") and s not in focus))


def _stage_rows(record, focus, stages) -> list[_StageRow]:
    focus = stage_names(focus, "focus")
    stages = stage_names(stages) if stages is not None else _visible_stages(record, focus)
    if not stages:
        raise ValueError("stages names no stage; name at least one, e.g. ['mean'].")
    hand = record.hand_rounded
    places = record.decimals if hand else DEFAULT_PLACES
    drifted = {drift.stage for drift in record.rounding_drift()}
    return [
        _StageRow(*STAGE_LABELS[stage], _stage_cells(record, stage, places),
                  _stage_cells(record.exact, stage, places + EXACT_EXTRA_PLACES) if hand else None,
                  stage in drifted, stage in focus)
        for stage in stages
    ]


def _title(record) -> str:
    features = "feature" if record.n == 1 else "features"
    how = (f"rounded by hand to {record.decimals} places (halves away from zero)" if record.hand_rounded
           else f"exact, shown to {DEFAULT_PLACES} places")
    return f"LayerNorm of one row ({record.n} {features}, eps = {format_eps(record.eps)}), {how}"


def _hand_heading(record) -> str:
    return f"by hand ({record.decimals} places)"


def _drift_summary(record) -> str:
    """One line for a hand-rounded record: which stages rounding moved, if any ("" for an exact record)."""
    if not record.hand_rounded:
        return ""
    moved = [STAGE_LABELS[drift.stage][0] for drift in record.rounding_drift()]
    if not moved:
        return f"Rounding to {record.decimals} places changed no stage by more than its last place."
    return f"≠ exact: rounding to {record.decimals} places moved: {', '.join(moved)}."


def _number_blocks(cell_lists, heading: str = "") -> list[str]:
    """Each list of cells right-aligned in shared columns, every block padded to the same width."""
    width = max(len(cell) for cells in cell_lists for cell in cells)
    blocks = ["  ".join(cell.rjust(width) for cell in cells) for cells in cell_lists]
    block_width = max(len(heading), *(len(block) for block in blocks))
    return [block.ljust(block_width) for block in blocks]


def steps_text(record, focus=(), stages=None) -> str:
    """A record as aligned text: one line per stage with its formula and values.

    A hand-rounded record shows its own digits and, beside them, the exact values with two more
    places; stages that rounding moved end with ``≠ exact`` and one line at the end sums it up.
    Stages named in ``focus`` are marked ▶. ``stages`` picks the stages shown (default: all, with
    gamma and beta only when they are not 1 and 0). This is the record's ``str`` and ``repr``.
    """
    rows = _stage_rows(record, focus, stages)
    hand = record.hand_rounded
    label_width = max(text_width(row.label) for row in rows)
    formula_width = max(text_width(row.formula) for row in rows)
    hand_blocks = _number_blocks([row.cells for row in rows], _hand_heading(record) if hand else "")
    exact_blocks = _number_blocks([row.exact_cells for row in rows]) if hand else [""] * len(rows)
    marked = any(row.focused for row in rows)
    lines = [_title(record)]
    if hand:
        indent = 4 if marked else 2
        lines.append(" " * (indent + label_width + 2 + formula_width + 2) + pad(_hand_heading(record),
                     len(hand_blocks[0])) + "   exact")
    for row, numbers, exact in zip(rows, hand_blocks, exact_blocks):
        mark = (f"  {_FOCUS_MARK} " if row.focused else "    ") if marked else "  "
        line = f"{mark}{pad(row.label, label_width)}  {pad(row.formula, formula_width)}  {numbers}"
        if hand:
            line += f"   {exact}" + ("  ≠ exact" if row.drifted else "")
        lines.append(line.rstrip())
    summary = _drift_summary(record)
    return "\n".join(lines + ([f"  {summary}"] if summary else []))


def steps_html(record, focus=(), stages=None) -> str:
    """The same as :func:`steps_text`, as an HTML table: focus shaded blue, stages rounding moved orange."""
    rows = _stage_rows(record, focus, stages)
    hand = record.hand_rounded
    columns = max(len(row.cells) for row in rows)

    def numbers(cells, style=_NUMBER_CELL):
        filler = f'<td style="{_CELL}" colspan="{columns - len(cells)}"></td>' if len(cells) < columns else ""
        return "".join(f'<td style="{style}">{html.escape(cell)}</td>' for cell in cells) + filler

    head = ""
    if hand:
        head = (f'<tr><th style="{_CELL}"></th><th style="{_CELL}"></th>'
                f'<th style="{_CELL};text-align:left" colspan="{columns}">{html.escape(_hand_heading(record))}</th>'
                f'<th style="{_CELL}"></th><th style="{_CELL};text-align:left" colspan="{columns}">exact</th></tr>')
    body = []
    for row in rows:
        shade = _HIGHLIGHT_STYLE if row.focused else _FLAG_STYLE if row.drifted else ""
        style = f' style="{shade}"' if shade else ""
        mark = ' <span title="rounding by hand moved this stage">≠ exact</span>' if row.drifted else ""
        weight = "font-weight:700;" if row.focused else ""
        cells = numbers(row.cells)
        if hand:
            cells += f'<td style="{_CELL};color:#999">│</td>' + numbers(row.exact_cells, _NUMBER_CELL + ";color:#555")
        body.append(f'<tr{style}><th style="{_CELL};{weight}text-align:left">{html.escape(row.label)}{mark}'
                    f'</th><td style="{_CELL};text-align:left;color:#555">{row.formula_html}</td>{cells}</tr>')
    summary = _drift_summary(record)
    notes = f'<div style="font-size:12px;margin-top:4px">{html.escape(summary)}</div>' if summary else ""
    return (f'<div class="layernorm-steps"><div style="font-weight:600;margin:4px 0">{html.escape(_title(record))}'
            f'</div><table style="{_CSS}">{head}{"".join(body)}</table>{notes}</div>')


# ---------------------------------------------------------------------------------------------
# One stage at a time, with the numbers filled in (the step explorer, notebook 03)


def _operand(cell: str) -> str:
    return f"({cell})" if cell.startswith("-") else cell


def _listed(cells) -> str:
    return "(" + ", ".join(cells) + ")"


def _pairs(left, right, operator: str) -> str:
    return _listed(a if a == ELLIPSIS else f"{a} {operator} {_operand(b)}" for a, b in zip(left, right))


def filled_formula(record, stage: str) -> str:
    """One stage's formula with the record's numbers filled in, e.g.
    ``μ = (x₁ + … + xₙ) / n = (1.1330 + (-0.2990) + 0.5030) / 3 = 0.4457``."""
    places = record.decimals if record.decimals is not None else DEFAULT_PLACES
    n = record.n

    def values(name, p=places):
        return format_values(record.stage(name), p)

    def one(value, p=places):
        return format_number(value, p)

    formula = STAGE_LABELS[stage][1]
    if stage == "input":
        return f"x = {_listed(values('input'))}"
    if stage == "mean":
        return f"{formula} = ({' + '.join(map(_operand, values('input')))}) / {n} = {one(record.mean)}"
    if stage == "differences":
        mean = format_values(np.full(n, record.mean), places)
        return f"{formula} = {_pairs(values('input'), mean, '−')} = {_listed(values('differences'))}"
    if stage == "squared_differences":
        squares = _listed(c if c == ELLIPSIS else f"{_operand(c)}²" for c in values("differences"))
        return f"{formula} = {squares} = {_listed(values('squared_differences'))}"
    if stage == "variance":
        total = " + ".join(map(_operand, values("squared_differences")))
        return f"{formula} = ({total}) / {n} = {one(record.variance)}"
    # eps is small: show the variance with enough places for eps to be seen in the sum
    wide = _places_showing_eps(record, places)
    if stage == "eps":
        return f"ε = {format_eps(record.eps)}"
    if stage == "variance_plus_eps":
        return (f"{formula} = {one(record.variance, wide)} + {format_eps(record.eps)} = "
                f"{one(record.variance_plus_eps, wide)}")
    if stage == "std":
        return f"{formula} = √{one(record.variance_plus_eps, wide)} = {one(record.std)}"
    if stage == "normalised":
        std = format_values(np.full(n, record.std), places)
        return f"{formula} = {_pairs(values('differences'), std, '/')} = {_listed(values('normalised'))}"
    if stage in ("gamma", "beta"):
        return f"{STAGE_LABELS[stage][0]} = {_listed(values(stage))}"
    # output: γ · x̂ + β for each feature
    if np.all(record.gamma == 1.0) and np.all(record.beta == 0.0):
        return f"{formula} = 1 · x̂ + 0 = {_listed(values('output'))}"
    parts = [g if g == ELLIPSIS else f"{_operand(g)} · {_operand(x)} + {_operand(b)}"
             for g, x, b in zip(values("gamma"), values("normalised"), values("beta"))]
    return f"{formula} = {_listed(parts)} = {_listed(values('output'))}"


def filled_formulas_text(record, stages, focus=()) -> str:
    """One line per stage in ``stages``: its name and :func:`filled_formula`; stages in ``focus`` marked ▶."""
    focus = stage_names(focus, "focus")
    width = max(text_width(STAGE_LABELS[stage][0]) for stage in stages)
    return "\n".join(f"  {_FOCUS_MARK if stage in focus else ' '} {pad(STAGE_LABELS[stage][0], width)}  "
                     f"{filled_formula(record, stage)}" for stage in stage_names(stages))


def filled_formulas_html(record, stages, focus=(), title: str = "") -> str:
    """The same as :func:`filled_formulas_text`, as an HTML table with the stages in ``focus`` shaded."""
    focus = stage_names(focus, "focus")
    rows = []
    for stage in stage_names(stages):
        style = f' style="{_HIGHLIGHT_STYLE};font-weight:700"' if stage in focus else ""
        rows.append(f'<tr{style}><th style="{_CELL};text-align:left">{html.escape(STAGE_LABELS[stage][0])}</th>'
                    f'<td style="{_CELL};text-align:left">{html.escape(filled_formula(record, stage))}</td></tr>')
    heading = f'<div style="font-weight:600;margin:4px 0">{html.escape(title)}</div>' if title else ""
    return f'<div class="layernorm-filled-steps">{heading}<table style="{_CSS}">{"".join(rows)}</table></div>'


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
    row 2, …), e.g. ``show_matrix(table, column_labels=["mean", "variance"])``. Introduced in notebook 01.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2:
        raise ValueError(f"show_matrix shows a 2-D matrix; got shape {array.shape}.")
    if 0 in array.shape:
        raise ValueError(f"show_matrix needs at least one row and one column to show; got shape {array.shape}.")
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


def side_by_side(*blocks, gap: int = 4) -> str:
    """Blocks of text (or anything that prints, such as two matrix views) side by side, line by line."""
    columns = [str(block).splitlines() for block in blocks]
    widths = [max((text_width(line) for line in lines), default=0) + gap for lines in columns]
    rows = zip_longest(*columns, fillvalue="")
    return "\n".join("".join(pad(line, width) for line, width in zip(row, widths)).rstrip() for row in rows)


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
        f"max difference: from the true output; 'close' means within {format_number(CLOSE_TOLERANCE, 2)}.",
    ]


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
