"""One description of a table view, rendered twice: as aligned text and as HTML.

A view builds a :class:`Table` (title, header, rows of cells, marks, notes) once; :func:`render_text`
and :func:`render_html` turn that one description into what print shows and what Jupyter shows, so
the two cannot say different things. Marks: a row may be ``flagged`` (pale orange: wrong, differs)
or ``highlighted`` (pale blue: current, close); a cell may be ``flagged`` on its own or be a row
``heading`` (a <th> in HTML).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from helpers.display.formatting import (
    _CELL,
    _CSS,
    _FLAG_STYLE,
    _HIGHLIGHT_STYLE,
    _SCROLL_CLOSE,
    _SCROLL_OPEN,
    pad,
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


def render_text(table: Table) -> str:
    """The table as aligned text: the title, then every row in left-aligned columns, then the notes."""
    grid = [list(table.header), *([cell.text for cell in row.cells] for row in table.rows)]
    widths = [max(text_width(line[k]) for line in grid) for k in range(len(table.header))]
    lines = [table.title]
    lines += ["  " + "  ".join(pad(text, width) for text, width in zip(line, widths)).rstrip() for line in grid]
    lines += ["  " + note for note in table.notes]
    return "\n".join(lines)


def render_html(table: Table) -> str:
    """The same table as HTML in a box that scrolls sideways; marks become background shades."""
    head = "".join(f'<th style="{_CELL};text-align:left">{html.escape(h)}</th>' for h in table.header)
    body = []
    for row in table.rows:
        shade = _FLAG_STYLE if row.flagged else _HIGHLIGHT_STYLE if row.highlighted else ""
        cells = []
        for cell in row.cells:
            tag = "th" if cell.heading else "td"
            flag = f";{_FLAG_STYLE}" if cell.flagged else ""
            cells.append(f'<{tag} style="{_CELL};text-align:left{flag}">{html.escape(cell.text)}</{tag}>')
        body.append(f'<tr{f" style={chr(34)}{shade}{chr(34)}" if shade else ""}>{"".join(cells)}</tr>')
    notes = "".join(f"<div>{html.escape(note)}</div>" for note in table.notes)
    notes_block = f'<div style="font-size:12px;margin-top:4px;color:#444">{notes}</div>' if notes else ""
    return (f'<div class="{table.css_class}"><div style="font-weight:600;margin:4px 0">{html.escape(table.title)}</div>'
            f'{_SCROLL_OPEN}<table style="{_CSS}"><tr>{head}</tr>{"".join(body)}</table>{_SCROLL_CLOSE}'
            f"{notes_block}</div>")
