"""One row's steps: the record's own text and table (notebook 02 on), also inside the row editor."""

from __future__ import annotations

import html
import math
from typing import NamedTuple

import numpy as np

from helpers.display.formatting import (
    _CELL,
    _CSS,
    _FLAG_STYLE,
    _HIGHLIGHT_STYLE,
    _NUMBER_CELL,
    _SCROLL_CLOSE,
    _SCROLL_OPEN,
    DEFAULT_PLACES,
    STAGE_LABELS,
    format_eps,
    format_values,
    pad,
    places_for,
    text_width,
)
from helpers.layernorm import STAGES

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
    if record.hand_rounded:  # a hand record's own digits, at the places kept
        return format_values(record.stage(name), places)
    if name == "variance_plus_eps":
        places = _places_showing_eps(record, places)  # else σ² + ε looks the same as σ²
    return format_values(record.stage(name), places_for(record.stage(name), places))  # tiny: not 0.0000


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
                    f'</th><td style="{_CELL};text-align:left;color:#555;white-space:nowrap">{row.formula_html}</td>{cells}</tr>')
    summary = _drift_summary(record)
    notes = f'<div style="font-size:12px;margin-top:4px">{html.escape(summary)}</div>' if summary else ""
    return (f'<div class="layernorm-steps"><div style="font-weight:600;margin:4px 0">{html.escape(_title(record))}'
            f'</div>{_SCROLL_OPEN}<table style="{_CSS}">{head}{"".join(body)}</table>{_SCROLL_CLOSE}{notes}</div>')
