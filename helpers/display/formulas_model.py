"""The filled formulas' description (the step explorer's equations), rendered as text and as HTML: one
line per stage, its formula with the numbers filled in, focus and drift marks, a legend. See
helpers.display.model for the other table views and the shared rules."""

from __future__ import annotations

import html
from dataclasses import dataclass

from helpers.display.formatting import (
    CELL_CSS,
    FLAG_STYLE,
    HIGHLIGHT_STYLE,
    TABLE_CSS,
    pad,
    scroll_box,
    scroll_hint,
    text_width,
)
from helpers.display.model import FOCUS_MARK, width_px

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


def _formula_parts(formula: str) -> list[str]:
    """A filled formula cut where it may break: after a comma that separates two values and before "=" or "≈";
    never inside a number or an operation such as "1.1330 − 0.4457"."""
    marked = formula.replace(", ", ",\n")
    for relation in ("=", "≈"):
        marked = marked.replace(f" {relation} ", f"\n{relation} ")
    return marked.split("\n")


def _breakable(formula: str) -> str:
    """The formula as HTML whose parts stay whole (spaces between them): on a narrow screen the equation goes on
    the next line instead of running past the right edge ("= 0.44", "(1.1729, -1.2707,")."""
    return " ".join(f'<span style="white-space:nowrap">{html.escape(part)}</span>' for part in _formula_parts(formula))


def _formulas_width_px(table: FormulasTable) -> float:
    """About how wide the formulas' HTML table is at its narrowest: the label and the longest unbroken part."""
    label = max(text_width(line.label) for line in table.lines)
    longest = max(text_width(part) for line in table.lines for part in _formula_parts(line.formula))
    return width_px([label, longest])


def render_formulas_html(table: FormulasTable) -> str:
    """The same lines as an HTML table: focus shaded blue and bold, lines rounding moved orange. An equation
    wraps between its parts (see :func:`_breakable`) rather than run past the right edge."""
    rows = []
    for line in table.lines:
        shade = f"{HIGHLIGHT_STYLE};font-weight:700" if line.focused else FLAG_STYLE if line.drift else ""
        style = f' style="{shade}"' if shade else ""
        mark = f' <span style="color:#a33c00">{html.escape(line.drift)}</span>' if line.drift else ""
        rows.append(
            f'<tr{style}><th style="{CELL_CSS};text-align:left;white-space:nowrap">{html.escape(line.label)}</th>'
            f'<td style="{CELL_CSS};text-align:left">'
            f"{_breakable(line.formula)}{mark}</td></tr>"
        )
    heading = f'<div style="font-weight:600;margin:4px 0">{html.escape(table.title)}</div>' if table.title else ""
    legend = "".join(f"<div>{html.escape(note)}</div>" for note in table.notes)
    notes = f'<div style="font-size:12px;margin-top:4px;color:#444">{legend}</div>' if legend else ""
    return (
        f'<div class="{table.css_class}">{heading}'
        + scroll_box(
            f'<table style="{TABLE_CSS}">{"".join(rows)}</table>', table.title, scroll_hint(_formulas_width_px(table))
        )
        + f"{notes}</div>"
    )
