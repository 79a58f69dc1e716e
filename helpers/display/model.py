"""One description of a table view, rendered twice: as aligned text and as HTML.

A view builds its description once and a text and an HTML renderer turn that one description into
what print shows and what Jupyter shows, so the two cannot say different things:
:class:`Table` (comparison, eps fits, published check), :class:`StepsTable` (a record's steps),
:class:`Grid` (a matrix); :class:`FormulasTable` (filled formulas) is in helpers.display.formulas_model. In a Table a row may be
``flagged`` (pale orange: wrong, differs) or ``highlighted`` (pale blue: current, close); a cell may
be ``flagged`` on its own or be a row ``heading`` (a <th> in HTML). The other descriptions mark lines
``focused`` (▶, blue), ``drifted`` (≠ exact, orange) or ``highlighted`` (◀, blue); a Grid may also mark
one column (▲, blue). Every option added for one kind of table defaults to the output it had before.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from helpers.display.formatting import (
    CELL_CSS,
    CHARACTER_PX,
    FLAG_STYLE,
    HIGHLIGHT_STYLE,
    NUMBER_CELL_CSS,
    TABLE_CSS,
    pad,
    rjust,
    scroll_box,
    scroll_hint,
    text_width,
)

_COMPACT_CELL = "padding:2px 6px;border-bottom:1px solid #ddd"  # the shared cell, 6 px sideways instead of 10
_COMPACT_NUMBER_CELL = _COMPACT_CELL + ";text-align:right"
_MARK_CELL = "padding:2px 10px;text-align:left;white-space:nowrap"  # a ◀ or ▲ and its words, beside the numbers


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
    # Sentences in a few columns (notebook 13's evidence): only these columns break their lines in HTML (never
    # squeezed below 16 characters), the others stay on one line, and every cell starts at the top of its row.
    wrap: tuple[int, ...] = ()
    compact: bool = False  # narrower padding, for a table of many columns (notebook 13's gallery)
    # The last column is the key one ("verdict"): in HTML it stays pinned at the right edge of the box while
    # the other columns scroll beneath it, so a narrow screen never hides it.
    pin_last: bool = False


def _is_numeric(table: Table, k: int) -> bool:
    return bool(table.numeric) and table.numeric[k]


_CELL_PADDING_PX = {False: 20, True: 12}  # a cell's padding left and right: CELL_CSS, _COMPACT_CELL
_WRAP_FLOOR = 16  # characters: a wrapping column is never squeezed narrower (the box scrolls instead); at 24 a
# fingerprint needed 702 px, more than the ~650 px a notebook output gets at 1024×768 with the file browser open


def _text_cell_styles(table: Table) -> list[str]:
    """Each column's style for a left-aligned cell (or heading)."""
    cell = _COMPACT_CELL if table.compact else CELL_CSS
    if not table.wrap:
        return [f"{cell};text-align:left" + (";white-space:nowrap" if table.nowrap else "")] * len(table.header)
    styles = []
    for k, heading in enumerate(table.header):
        if k in table.wrap:  # as wide as its longest text, up to the floor, so a short list is not widened
            longest = max(text_width(text) for text in (heading, *(row.cells[k].text for row in table.rows)))
            styles.append(f"{cell};text-align:left;vertical-align:top;min-width:{min(longest, _WRAP_FLOOR)}ch")
        else:
            styles.append(f"{cell};text-align:left;vertical-align:top;white-space:nowrap")
    return styles


def width_px(characters, compact: bool = False) -> float:
    """About how wide a row of cells is on screen: each column's characters (a list), padding included."""
    return sum(characters) * CHARACTER_PX + len(characters) * _CELL_PADDING_PX[compact]


def _table_width_px(table: Table) -> float:
    """About how wide the HTML table is at its narrowest: wrapping columns at their floor, the others on one line."""
    columns = []
    for k, heading in enumerate(table.header):
        texts = (heading, *(row.cells[k].text for row in table.rows))
        longest = max(text_width(text) for text in texts)
        if k in table.wrap:
            columns.append(min(longest, _WRAP_FLOOR))
        elif table.nowrap or table.wrap:  # on one line (beside wrapping columns, the others stay on one line)
            columns.append(longest)
        else:  # the browser breaks a cell at its spaces: as narrow as its longest word
            columns.append(max(text_width(word) for text in texts for word in text.split() or [""]))
    return width_px(columns, table.compact)


def render_text(table: Table) -> str:
    """The table as aligned text: the title, then every row in left-aligned columns, then the notes."""
    grid = [list(table.header), *([cell.text for cell in row.cells] for row in table.rows)]
    widths = [max(text_width(line[k]) for line in grid) for k in range(len(table.header))]
    lines = [table.title]
    lines += [
        "  "
        + "  ".join(
            rjust(text, width) if _is_numeric(table, k) else pad(text, width)
            for k, (text, width) in enumerate(zip(line, widths))
        ).rstrip()
        for line in grid
    ]
    lines += ["  " + note for note in table.notes]
    return "\n".join(lines)


def render_html(table: Table) -> str:
    """The same table as HTML in a box that scrolls sideways; marks become background shades."""
    left = _text_cell_styles(table)
    last = len(table.header) - 1
    head = "".join(
        f'<th style="{left[k]}{_pinned_css("background:#fff") if table.pin_last and k == last else ""}">'
        f"{html.escape(h)}</th>"
        for k, h in enumerate(table.header)
    )
    body = []
    for row in table.rows:
        shade = FLAG_STYLE if row.flagged else HIGHLIGHT_STYLE if row.highlighted else ""
        cells = []
        for k, cell in enumerate(row.cells):
            tag = "th" if cell.heading else "td"
            flag = f";{FLAG_STYLE}" if cell.flagged else ""
            style = (
                (_COMPACT_NUMBER_CELL if table.compact else NUMBER_CELL_CSS)
                + (";white-space:pre" if table.nowrap else "")
                if _is_numeric(table, k)
                else left[k]
            )
            pin = _pinned_css(shade or "background:#fff") if table.pin_last and k == len(row.cells) - 1 else ""
            cells.append(f'<{tag} style="{style}{flag}{pin}">{html.escape(cell.text)}</{tag}>')
        body.append(f"<tr{f' style={chr(34)}{shade}{chr(34)}' if shade else ''}>{''.join(cells)}</tr>")
    return (
        f'<div class="{table.css_class}"><div style="font-weight:600;margin:4px 0">{html.escape(table.title)}</div>'
        + scroll_box(
            f'<table style="{TABLE_CSS}"><tr>{head}</tr>{"".join(body)}</table>',
            table.title,
            scroll_hint(_table_width_px(table), table.header[-1] if table.header else "", pinned=table.pin_last),
        )
        + f"{_notes_html(table.notes)}</div>"
    )


def _pinned_css(background: str) -> str:
    """A cell that stays at the right edge of its scrolling box, opaque, with a shadow where columns pass under."""
    return f";position:sticky;right:0;{background};box-shadow:-6px 0 6px -6px rgba(0,0,0,0.45)"


def _notes_html(notes: tuple[str, ...]) -> str:
    """The notes under a table, smaller and grey; nothing when there are none."""
    lines = "".join(f"<div>{html.escape(note)}</div>" for note in notes)
    return f'<div style="font-size:12px;margin-top:4px;color:#444">{lines}</div>' if lines else ""


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

    def numbers(cells, style=NUMBER_CELL_CSS):
        filler = f'<td style="{CELL_CSS}" colspan="{columns - len(cells)}"></td>' if len(cells) < columns else ""
        return "".join(f'<td style="{style}">{html.escape(cell)}</td>' for cell in cells) + filler

    head = ""
    if hand:
        head = (
            f'<tr><td style="{CELL_CSS}"></td><td class="layernorm-formula" style="{CELL_CSS}"></td>'
            f'<th style="{CELL_CSS};text-align:left" colspan="{columns}">{html.escape(table.hand_heading)}</th>'
            f'<td style="{CELL_CSS}"></td><th style="{CELL_CSS};text-align:left" colspan="{columns}">exact</th></tr>'
        )
    body = []
    for row in rows:
        shade = HIGHLIGHT_STYLE if row.focused else FLAG_STYLE if row.drifted else ""
        style = f' style="{shade}"' if shade else ""
        mark = f' <span title="rounding by hand moved this stage">{DRIFT_MARK}</span>' if row.drifted else ""
        weight = "font-weight:700;" if row.focused else ""
        cells = numbers(row.numbers)
        if hand:
            cells += f'<td style="{CELL_CSS};color:#999">│</td>' + numbers(row.exact, NUMBER_CELL_CSS + ";color:#555")
        body.append(
            f'<tr{style}><th style="{CELL_CSS};{weight}text-align:left">{html.escape(row.label)}{mark}'
            f'</th><td class="layernorm-formula" style="{CELL_CSS};text-align:left;color:#555;white-space:nowrap">'
            f"{row.formula_html}</td>{cells}</tr>"
        )
    notes = "".join(f'<div style="font-size:12px;margin-top:4px">{html.escape(note)}</div>' for note in table.notes)
    return (
        f'<div class="layernorm-steps{" layernorm-steps-hand" if hand else ""}">'
        f'<div style="font-weight:600;margin:4px 0">{html.escape(table.title)}'
        + "</div>"
        + scroll_box(
            f'<table style="{TABLE_CSS}">{head}{"".join(body)}</table>',
            table.title,
            scroll_hint(_steps_width_px(table)),
        )
        + f"{notes}</div>"
    )


def _steps_width_px(table: StepsTable) -> float:
    """About how wide the steps' HTML table is: label, formula, the number columns (and the exact ones)."""
    rows = table.lines
    columns = [max(text_width(row.label) + (8 if row.drifted else 0) for row in rows)]
    columns.append(max(text_width(row.formula) for row in rows))
    width = max(len(cell) for row in rows for cell in row.numbers)
    columns += [width] * max(len(row.numbers) for row in rows)
    if table.hand_heading:
        exact = max(len(cell) for row in rows for cell in row.exact)
        columns += [1] + [exact] * max(len(row.exact) for row in rows)
    return width_px(columns)


# ---------------------------------------------------------------------------------------------
# A matrix (MatrixView): a row label, then one right-aligned number per column.

ROW_MARK = "◀"
COLUMN_MARK = "▲"


@dataclass(frozen=True)
class GridRow:
    label: str
    cells: tuple[str, ...]
    highlighted: bool = False  # text: ◀ at the end; HTML: shaded blue
    elided: bool = False  # the "…" row standing for the rows left out
    mark: str = ""  # words after a highlighted row's ◀ (text and HTML), e.g. "one LayerNorm: this row"


@dataclass(frozen=True)
class Grid:
    title: str  # "" for none
    column_headers: tuple[str, ...]
    rows: tuple[GridRow, ...]
    css_class: str = "layernorm-matrix"
    highlighted_column: int | None = None  # counted from 0: text: ▲ under it; HTML: its cells shaded blue
    column_mark: str = ""  # words after the column's ▲
    notes: tuple[str, ...] = ()


def _row_mark(row: GridRow) -> str:
    return f"{ROW_MARK} {row.mark}" if row.mark else ROW_MARK


def render_grid_text(grid: Grid) -> str:
    """Aligned text: labels on the left, numbers right-aligned in columns of one width, ◀ on the current row."""
    headers = grid.column_headers
    label_width = max(text_width(row.label) for row in grid.rows)
    width = max(text_width(cell) for row in grid.rows for cell in (*row.cells, *headers))
    lines = [grid.title] if grid.title else []
    lines.append(" " * (label_width + 2) + "  ".join(rjust(h, width) for h in headers))
    for row in grid.rows:
        mark = f"  {_row_mark(row)}" if row.highlighted else ""
        lines.append(f"{pad(row.label, label_width)}  " + "  ".join(rjust(c, width) for c in row.cells) + mark)
    if grid.highlighted_column is not None:  # ▲ under the column's last digit (numbers are right-aligned)
        under = label_width + 2 + grid.highlighted_column * (width + 2) + width - 1
        lines.append(" " * under + " ".join(filter(None, (COLUMN_MARK, grid.column_mark))))
    return "\n".join([line.rstrip() for line in lines] + [f"  {note}" for note in grid.notes])


def _grid_width_px(grid: Grid) -> float:
    """About how wide the matrix's HTML table is: labels, numbers, and the words after a marked row."""
    columns = [max(text_width(row.label) for row in grid.rows)]
    columns += [
        max(text_width(text) for text in (header, *(row.cells[j] for row in grid.rows if j < len(row.cells))))
        for j, header in enumerate(grid.column_headers)
    ]
    marks = [text_width(_row_mark(row)) for row in grid.rows if row.highlighted and row.mark]
    return width_px(columns + marks[:1])


def render_grid_html(grid: Grid) -> str:
    """The same matrix as an HTML table in a box that scrolls sideways; the current row shaded blue."""
    headers = "".join(f'<th style="{NUMBER_CELL_CSS}">{html.escape(h)}</th>' for h in grid.column_headers)
    column = grid.highlighted_column
    rows = []
    for row in grid.rows:
        cells = "".join(
            f'<td style="{NUMBER_CELL_CSS}{f";{HIGHLIGHT_STYLE}" if j == column else ""}">{html.escape(c)}</td>'
            for j, c in enumerate(row.cells)
        )
        if row.elided:
            rows.append(f'<tr><th style="{CELL_CSS}">{html.escape(row.label)}</th>{cells}</tr>')
            continue
        if row.highlighted and row.mark:
            cells += f'<td style="{_MARK_CELL}">{html.escape(_row_mark(row))}</td>'
        style = f' style="{HIGHLIGHT_STYLE}"' if row.highlighted else ""
        rows.append(f'<tr{style}><th style="{CELL_CSS};text-align:left">{html.escape(row.label)}</th>{cells}</tr>')
    if column is not None:
        mark = " ".join(filter(None, (COLUMN_MARK, grid.column_mark)))
        span = len(grid.column_headers) - column  # the words run on under the columns to the right
        rows.append(
            f"<tr><td></td>{'<td></td>' * column}"
            f'<td style="{_MARK_CELL}" colspan="{span}">{html.escape(mark)}</td></tr>'
        )
    title = f'<div style="font-weight:600;margin:4px 0">{html.escape(grid.title)}</div>' if grid.title else ""
    return (
        f'<div class="{grid.css_class}">{title}'
        + scroll_box(
            f'<table style="{TABLE_CSS}"><tr><td style="{CELL_CSS}"></td>{headers}</tr>{"".join(rows)}</table>',
            grid.title or "matrix",
            scroll_hint(_grid_width_px(grid)),
        )
        + _notes_html(grid.notes)
        + "</div>"
    )
