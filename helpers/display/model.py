"""One description of a table view, rendered twice: as aligned text and as HTML.

A view builds its description once and a text and an HTML renderer turn that one description into
what print shows and what Jupyter shows, so the two cannot say different things:
:class:`Table` (comparison, eps fits, published check), :class:`StepsTable` (a record's steps),
:class:`Grid` (a matrix) and :class:`FormulasTable` (filled formulas). In a Table a row may be
``flagged`` (pale orange: wrong, differs) or ``highlighted`` (pale blue: current, close); a cell may
be ``flagged`` on its own or be a row ``heading`` (a <th> in HTML). The other descriptions mark lines
``focused`` (▶, blue), ``drifted`` (≠ exact, orange) or ``highlighted`` (◀, blue).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from helpers.display.formatting import (
    _CELL,
    _CSS,
    _FLAG_STYLE,
    _HIGHLIGHT_STYLE,
    _NUMBER_CELL,
    _rjust,
    pad,
    scroll_box,
    text_width,
)


@dataclass(frozen=True)
class Cell:
    text: str
    flagged: bool = False  # this cell alone is marked (e.g. "none": no eps fits)
    heading: bool = False  # the row's name: <th> in HTML


@dataclass(frozen=True)
class Row:
    cells: tuple[Cell, ...]
    flagged: bool = False
    highlighted: bool = False


@dataclass(frozen=True)
class Table:
    css_class: str  # the HTML block's class, e.g. "layernorm-comparison"
    title: str
    header: tuple[str, ...]
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()
    numeric: tuple[bool, ...] = ()  # per column: right-aligned numbers (default: every column left-aligned)
    nowrap: bool = False  # HTML cells never wrap (a number column keeps its spaces)


def _is_numeric(table: Table, k: int) -> bool:
    return bool(table.numeric) and table.numeric[k]


def render_text(table: Table) -> str:
    """The table as aligned text: the title, then every row in left-aligned columns, then the notes."""
    grid = [list(table.header), *([cell.text for cell in row.cells] for row in table.rows)]
    widths = [max(text_width(line[k]) for line in grid) for k in range(len(table.header))]
    lines = [table.title]
    lines += [
        "  "
        + "  ".join(
            _rjust(text, width) if _is_numeric(table, k) else pad(text, width)
            for k, (text, width) in enumerate(zip(line, widths))
        ).rstrip()
        for line in grid
    ]
    lines += ["  " + note for note in table.notes]
    return "\n".join(lines)


def render_html(table: Table) -> str:
    """The same table as HTML in a box that scrolls sideways; marks become background shades."""
    nowrap = ";white-space:nowrap" if table.nowrap else ""
    head = "".join(f'<th style="{_CELL};text-align:left{nowrap}">{html.escape(h)}</th>' for h in table.header)
    body = []
    for row in table.rows:
        shade = _FLAG_STYLE if row.flagged else _HIGHLIGHT_STYLE if row.highlighted else ""
        cells = []
        for k, cell in enumerate(row.cells):
            tag = "th" if cell.heading else "td"
            flag = f";{_FLAG_STYLE}" if cell.flagged else ""
            style = (
                _NUMBER_CELL + (";white-space:pre" if table.nowrap else "")
                if _is_numeric(table, k)
                else f"{_CELL};text-align:left{nowrap}"
            )
            cells.append(f'<{tag} style="{style}{flag}">{html.escape(cell.text)}</{tag}>')
        body.append(f"<tr{f' style={chr(34)}{shade}{chr(34)}' if shade else ''}>{''.join(cells)}</tr>")
    notes = "".join(f"<div>{html.escape(note)}</div>" for note in table.notes)
    notes_block = f'<div style="font-size:12px;margin-top:4px;color:#444">{notes}</div>' if notes else ""
    return (
        f'<div class="{table.css_class}"><div style="font-weight:600;margin:4px 0">{html.escape(table.title)}</div>'
        + scroll_box(f'<table style="{_CSS}"><tr>{head}</tr>{"".join(body)}</table>', table.title)
        + f"{notes_block}</div>"
    )


# ---------------------------------------------------------------------------------------------
# One row's steps (steps_text / steps_html): a line per stage with its formula and its numbers.

FOCUS_MARK = "▶"
DRIFT_MARK = "≠ exact"


@dataclass(frozen=True)
class StageLine:
    label: str
    formula: str
    formula_html: str  # the same formula spelled in HTML (sub- and superscripts)
    numbers: tuple[str, ...]
    exact: tuple[str, ...] = ()  # beside a hand-rounded record's own digits
    focused: bool = False  # text: ▶; HTML: shaded blue, bold
    drifted: bool = False  # rounding by hand moved this stage: "≠ exact", shaded orange


@dataclass(frozen=True)
class StepsTable:
    title: str
    lines: tuple[StageLine, ...]
    hand_heading: str = ""  # set for a hand-rounded record: its numbers, then the exact ones
    notes: tuple[str, ...] = ()


def _number_blocks(cell_lists, heading: str = "") -> list[str]:
    """Each list of cells right-aligned in shared columns, every block padded to the same width."""
    width = max(len(cell) for cells in cell_lists for cell in cells)
    blocks = ["  ".join(cell.rjust(width) for cell in cells) for cells in cell_lists]
    block_width = max(len(heading), *(len(block) for block in blocks))
    return [block.ljust(block_width) for block in blocks]


def render_steps_text(table: StepsTable) -> str:
    """Aligned text: ▶ marks the lines in focus; a hand record's lines end with the exact values."""
    rows, hand = table.lines, bool(table.hand_heading)
    label_width = max(text_width(row.label) for row in rows)
    formula_width = max(text_width(row.formula) for row in rows)
    hand_blocks = _number_blocks([row.numbers for row in rows], table.hand_heading)
    exact_blocks = _number_blocks([row.exact for row in rows]) if hand else [""] * len(rows)
    marked = any(row.focused for row in rows)
    lines = [table.title]
    if hand:
        indent = 4 if marked else 2
        lines.append(
            " " * (indent + label_width + 2 + formula_width + 2)
            + pad(table.hand_heading, len(hand_blocks[0]))
            + "   exact"
        )
    for row, numbers, exact in zip(rows, hand_blocks, exact_blocks):
        mark = (f"  {FOCUS_MARK} " if row.focused else "    ") if marked else "  "
        line = f"{mark}{pad(row.label, label_width)}  {pad(row.formula, formula_width)}  {numbers}"
        if hand:
            line += f"   {exact}" + (f"  {DRIFT_MARK}" if row.drifted else "")
        lines.append(line.rstrip())
    return "\n".join(lines + [f"  {note}" for note in table.notes])


def render_steps_html(table: StepsTable) -> str:
    """The same lines as an HTML table: focus shaded blue, lines that drifted orange."""
    rows, hand = table.lines, bool(table.hand_heading)
    columns = max(len(row.numbers) for row in rows)

    def numbers(cells, style=_NUMBER_CELL):
        filler = f'<td style="{_CELL}" colspan="{columns - len(cells)}"></td>' if len(cells) < columns else ""
        return "".join(f'<td style="{style}">{html.escape(cell)}</td>' for cell in cells) + filler

    head = ""
    if hand:
        head = (
            f'<tr><td style="{_CELL}"></td><td class="layernorm-formula" style="{_CELL}"></td>'
            f'<th style="{_CELL};text-align:left" colspan="{columns}">{html.escape(table.hand_heading)}</th>'
            f'<td style="{_CELL}"></td><th style="{_CELL};text-align:left" colspan="{columns}">exact</th></tr>'
        )
    body = []
    for row in rows:
        shade = _HIGHLIGHT_STYLE if row.focused else _FLAG_STYLE if row.drifted else ""
        style = f' style="{shade}"' if shade else ""
        mark = f' <span title="rounding by hand moved this stage">{DRIFT_MARK}</span>' if row.drifted else ""
        weight = "font-weight:700;" if row.focused else ""
        cells = numbers(row.numbers)
        if hand:
            cells += f'<td style="{_CELL};color:#999">│</td>' + numbers(row.exact, _NUMBER_CELL + ";color:#555")
        body.append(
            f'<tr{style}><th style="{_CELL};{weight}text-align:left">{html.escape(row.label)}{mark}'
            f'</th><td class="layernorm-formula" style="{_CELL};text-align:left;color:#555;white-space:nowrap">'
            f"{row.formula_html}</td>{cells}</tr>"
        )
    notes = "".join(f'<div style="font-size:12px;margin-top:4px">{html.escape(note)}</div>' for note in table.notes)
    return (
        f'<div class="layernorm-steps{" layernorm-steps-hand" if hand else ""}">'
        f'<div style="font-weight:600;margin:4px 0">{html.escape(table.title)}'
        + "</div>"
        + scroll_box(f'<table style="{_CSS}">{head}{"".join(body)}</table>', table.title)
        + f"{notes}</div>"
    )


# ---------------------------------------------------------------------------------------------
# A matrix (MatrixView): a row label, then one right-aligned number per column.

ROW_MARK = "◀"


@dataclass(frozen=True)
class GridRow:
    label: str
    cells: tuple[str, ...]
    highlighted: bool = False  # text: ◀ at the end; HTML: shaded blue
    elided: bool = False  # the "…" row standing for the rows left out


@dataclass(frozen=True)
class Grid:
    title: str  # "" for none
    column_headers: tuple[str, ...]
    rows: tuple[GridRow, ...]
    css_class: str = "layernorm-matrix"


def render_grid_text(grid: Grid) -> str:
    """Aligned text: labels on the left, numbers right-aligned in columns of one width, ◀ on the current row."""
    headers = grid.column_headers
    label_width = max(text_width(row.label) for row in grid.rows)
    width = max(text_width(cell) for row in grid.rows for cell in (*row.cells, *headers))
    lines = [grid.title] if grid.title else []
    lines.append(" " * (label_width + 2) + "  ".join(_rjust(h, width) for h in headers))
    for row in grid.rows:
        mark = f"  {ROW_MARK}" if row.highlighted else ""
        lines.append(f"{pad(row.label, label_width)}  " + "  ".join(_rjust(c, width) for c in row.cells) + mark)
    return "\n".join(line.rstrip() for line in lines)


def render_grid_html(grid: Grid) -> str:
    """The same matrix as an HTML table in a box that scrolls sideways; the current row shaded blue."""
    headers = "".join(f'<th style="{_NUMBER_CELL}">{html.escape(h)}</th>' for h in grid.column_headers)
    rows = []
    for row in grid.rows:
        cells = "".join(f'<td style="{_NUMBER_CELL}">{html.escape(c)}</td>' for c in row.cells)
        if row.elided:
            rows.append(f'<tr><th style="{_CELL}">{html.escape(row.label)}</th>{cells}</tr>')
            continue
        style = f' style="{_HIGHLIGHT_STYLE}"' if row.highlighted else ""
        rows.append(f'<tr{style}><th style="{_CELL};text-align:left">{html.escape(row.label)}</th>{cells}</tr>')
    title = f'<div style="font-weight:600;margin:4px 0">{html.escape(grid.title)}</div>' if grid.title else ""
    return (
        f'<div class="{grid.css_class}">{title}'
        + scroll_box(
            f'<table style="{_CSS}"><tr><td style="{_CELL}"></td>{headers}</tr>{"".join(rows)}</table>',
            grid.title or "matrix",
        )
        + "</div>"
    )


# ---------------------------------------------------------------------------------------------
# Filled formulas (the step explorer): a line per stage, its name and its equation with numbers.


@dataclass(frozen=True)
class FormulaLine:
    label: str
    formula: str  # e.g. "μ = (x₁ + … + xₙ) / n = (1.1330 + (-0.2990) + 0.5030) / 3 = 0.4457"
    drift: str = ""  # "≠ exact (…)" when rounding by hand moved this stage: shaded orange
    focused: bool = False  # text: ▶; HTML: shaded blue, bold


@dataclass(frozen=True)
class FormulasTable:
    lines: tuple[FormulaLine, ...]
    notes: tuple[str, ...] = ()
    title: str = ""  # "" for none
    css_class: str = "layernorm-filled-steps"


def render_formulas_text(table: FormulasTable) -> str:
    """Aligned text: ▶ marks the lines in focus; a line rounding moved ends with its exact values."""
    width = max(text_width(line.label) for line in table.lines)
    lines = [table.title] if table.title else []
    for line in table.lines:
        lines.append(
            f"  {FOCUS_MARK if line.focused else ' '} {pad(line.label, width)}  {line.formula}"
            + (f"   {line.drift}" if line.drift else "")
        )
    return "\n".join(lines + [f"  {note}" for note in table.notes])


def render_formulas_html(table: FormulasTable) -> str:
    """The same lines as an HTML table: focus shaded blue and bold, lines rounding moved orange."""
    rows = []
    for line in table.lines:
        shade = f"{_HIGHLIGHT_STYLE};font-weight:700" if line.focused else _FLAG_STYLE if line.drift else ""
        style = f' style="{shade}"' if shade else ""
        mark = f' <span style="color:#a33c00">{html.escape(line.drift)}</span>' if line.drift else ""
        rows.append(
            f'<tr{style}><th style="{_CELL};text-align:left">{html.escape(line.label)}</th>'
            f'<td style="{_CELL};text-align:left;white-space:nowrap">'
            f"{html.escape(line.formula)}{mark}</td></tr>"
        )
    heading = f'<div style="font-weight:600;margin:4px 0">{html.escape(table.title)}</div>' if table.title else ""
    legend = "".join(f"<div>{html.escape(note)}</div>" for note in table.notes)
    notes = f'<div style="font-size:12px;margin-top:4px;color:#444">{legend}</div>' if legend else ""
    return (
        f'<div class="{table.css_class}">{heading}'
        + scroll_box(f'<table style="{_CSS}">{"".join(rows)}</table>', table.title)
        + f"{notes}</div>"
    )
