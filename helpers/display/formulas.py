"""One stage at a time, with the numbers filled in (the step explorer, notebook 03)."""

from __future__ import annotations

import html

import numpy as np

from helpers.display.formatting import (
    _CELL,
    _CSS,
    _HIGHLIGHT_STYLE,
    DEFAULT_PLACES,
    ELLIPSIS,
    STAGE_LABELS,
    format_eps,
    format_number,
    format_values,
    pad,
    text_width,
)
from helpers.display.steps import _FOCUS_MARK, _places_showing_eps, stage_names

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
