"""One stage at a time, with the numbers filled in (the step explorer, notebook 03).

The rule for every filled equation: "=" is written only when a calculator agrees, i.e. the shown
operands, worked out exactly, give the shown result to the places it is shown with. The operands
get more places (up to ``MAX_EXTRA_PLACES`` more) until that holds; when even that is not enough,
the equation says "≈" and one line under the table says what it means (``APPROX_LEGEND``).
"""

from __future__ import annotations

from decimal import Context, Decimal

import numpy as np

from helpers.display.formatting import (
    DEFAULT_PLACES,
    ELLIPSIS,
    STAGE_LABELS,
    format_eps,
    format_number,
    format_values,
)
from helpers.display.formulas_model import FormulaLine, FormulasTable, render_formulas_html, render_formulas_text
from helpers.display.steps import EXACT_EXTRA_PLACES, moved_stages, shown_places, stage_names

MAX_EXTRA_PLACES = 6  # operands may get up to this many more places than their stage shows
APPROX_LEGEND = "≈: the numbers shown are rounded; the result is worked out from the unrounded values."
_EXACT = Context(prec=80)


def _operand(cell: str) -> str:
    return f"({cell})" if cell.startswith("-") else cell


def _base(cell: str) -> str:
    """A number raised to a power: in brackets when negative or in scientific notation ((1.3e+150)², not 1.3e+150²)."""
    return f"({cell})" if cell.startswith("-") or "e" in cell else cell


def _listed(cells) -> str:
    return "(" + ", ".join(cells) + ")"


def _decimals_of(cell: str) -> int:
    """The decimal places ``cell`` is written to: 0.0034 has 4, 2.1667e+150 has 4 - 150 (its last digit is 1e146)."""
    mantissa, _, exponent = cell.partition("e")
    return (len(mantissa.split(".")[1]) if "." in mantissa else 0) - int(exponent or 0)


def _agrees(worked_out: Decimal, shown: str) -> bool:
    """True when ``worked_out`` rounds to ``shown`` at its places (a value on a half may go either way)."""
    half = Decimal(5).scaleb(-_decimals_of(shown) - 1)
    return abs(_EXACT.subtract(worked_out, Decimal(shown))) <= half


def mode_text(record) -> str:
    """How the record was computed, in words: exact, or rounded by hand (which way halves go)."""
    if record.hand_rounded:
        return f"rounded by hand to {record.decimals} places (halves away from zero)"
    return "exact"


class _Stage:
    """The numbers one stage's equation needs, each formatted at the places it is shown with."""

    def __init__(self, record):
        self.record = record
        self.base = record.decimals if record.hand_rounded else DEFAULT_PLACES

    def places(self, name: str) -> int:
        return shown_places(self.record, name, self.base)

    def cells(self, name: str, places: int) -> list[str]:
        return format_values(self.record.stage(name), places)

    def one(self, name: str, places: int) -> str:
        return format_number(self.record.stage(name), places)


def _equation(build, start: int):
    """``build(places)`` gives (operands text, [(worked out, shown)]) ; the first places from ``start``
    at which every pair agrees, with "=", or ``start`` with "≈"."""
    for places in range(start, min(start + MAX_EXTRA_PLACES, 15) + 1):
        text, pairs = build(places)
        if all(_agrees(worked, shown) for worked, shown in pairs):
            return text, "="
    return build(start)[0], "≈"


def _elementwise(left, right, result, operator: str, work):
    """``(a ⊕ b, …)`` and the pairs to check, skipping the elided middle of long rows."""
    parts, pairs = [], []
    for a, b, shown in zip(left, right, result):
        if a == ELLIPSIS:
            parts.append(ELLIPSIS)
            continue
        parts.append(f"{a} {operator} {_operand(b)}" if operator else f"{_base(a)}²")
        pairs.append((work(Decimal(a), Decimal(b)), shown))
    return _listed(parts), pairs


def _each_against(s, n: int, stage: str, left: str, right, operator: str, work) -> tuple[str, str, str]:
    """One stage worked feature by feature against one number: x − μ (differences), (x − μ) / √(σ² + ε)."""
    right_stage, value = right
    result = s.cells(stage, s.places(stage))

    def build(p):
        cells = s.cells(left, p)
        return _elementwise(cells, format_values(np.full(n, value), p), result, operator, work)

    return (*_equation(build, max(s.places(left), s.places(right_stage))), _listed(result))


def _filled(record, stage: str) -> tuple[str, str, str]:
    """(left side with the operands, "=" or "≈", shown result) for one stage; "" relation for a listing."""
    s = _Stage(record)
    n = record.n
    if stage in ("input", "gamma", "beta"):
        return "", "", _listed(s.cells(stage, s.places(stage)))
    if stage == "eps":
        return "", "", format_eps(record.eps)
    if stage == "mean":
        shown = s.one("mean", s.places("mean"))

        def build(p):
            cells = s.cells("input", p)
            pairs = [] if ELLIPSIS in cells else [(_EXACT.divide(sum(map(Decimal, cells)), n), shown)]
            return f"({' + '.join(map(_operand, cells))}) / {n}", pairs

        return (*_equation(build, s.places("input")), shown)
    if stage == "differences":
        return _each_against(s, n, "differences", "input", ("mean", record.mean), "−", _EXACT.subtract)
    if stage == "squared_differences":
        result = s.cells("squared_differences", s.places("squared_differences"))

        def build(p):
            cells = s.cells("differences", p)
            return _elementwise(cells, cells, result, "", lambda a, _b: _EXACT.multiply(a, a))

        return (*_equation(build, s.places("differences")), _listed(result))
    if stage == "variance":
        shown = s.one("variance", s.places("variance"))

        def build(p):
            cells = s.cells("squared_differences", p)
            pairs = [] if ELLIPSIS in cells else [(_EXACT.divide(sum(map(Decimal, cells)), n), shown)]
            return f"({' + '.join(map(_operand, cells))}) / {n}", pairs

        return (*_equation(build, s.places("squared_differences")), shown)
    # eps is small: σ² + ε gets enough places for eps to be seen in the sum (see steps.shown_places)
    wide = s.places("variance_plus_eps")
    if stage == "variance_plus_eps":
        shown = s.one("variance_plus_eps", wide)

        def build(p):
            variance, eps = s.one("variance", p), format_eps(record.eps)
            return f"{variance} + {eps}", [(_EXACT.add(Decimal(variance), Decimal(eps)), shown)]

        return (*_equation(build, s.places("variance")), shown)
    if stage == "std":
        shown = s.one("std", s.places("std"))

        def build(p):
            inside = s.one("variance_plus_eps", p)
            return f"√{inside}", [(_EXACT.sqrt(Decimal(inside)), shown)]

        return (*_equation(build, wide), shown)
    if stage == "normalised":
        return _each_against(s, n, "normalised", "differences", ("std", record.std), "/", _EXACT.divide)
    # output: γ · x̂ + β for each feature
    result = s.cells("output", s.places("output"))
    if np.all(record.gamma == 1.0) and np.all(record.beta == 0.0):
        return "1 · x̂ + 0", "=", _listed(result)

    def build(p):
        parts, pairs = [], []
        for g, x, b, shown in zip(
            format_values(record.gamma, p), s.cells("normalised", p), format_values(record.beta, p), result
        ):
            if g == ELLIPSIS:
                parts.append(ELLIPSIS)
                continue
            parts.append(f"{_operand(g)} · {_operand(x)} + {_operand(b)}")
            pairs.append((_EXACT.add(_EXACT.multiply(Decimal(g), Decimal(x)), Decimal(b)), shown))
        return _listed(parts), pairs

    return (*_equation(build, s.places("normalised")), _listed(result))


def filled_formula(record, stage: str) -> str:
    """One stage's formula with the record's numbers filled in, e.g.
    ``μ = (x₁ + … + xₙ) / n = (1.1330 + (-0.2990) + 0.5030) / 3 = 0.4457``.

    "=" only where the shown operands give the shown result; see the module's rule."""
    left, relation, result = _filled(record, stage)
    if stage in ("input", "gamma", "beta"):
        name = "x" if stage == "input" else STAGE_LABELS[stage][0]
        return f"{name} = {result}"
    if stage == "eps":
        return f"ε = {result}"
    return f"{STAGE_LABELS[stage][1]} = {left} {relation} {result}"


def _drift(record, stage: str) -> str:
    """For a hand-rounded stage that rounding moved: "≠ exact (…)" with the exact values, else ""."""
    if not record.hand_rounded or stage not in moved_stages(record):
        return ""
    exact = format_values(
        record.exact.stage(stage), shown_places(record.exact, stage, record.decimals + EXACT_EXTRA_PLACES)
    )
    return f"≠ exact ({', '.join(exact)})" if len(exact) > 1 else f"≠ exact ({exact[0]})"


def _legend(record, stages) -> list[str]:
    lines = []
    if any(_filled(record, stage)[1] == "≈" for stage in stages):
        lines.append(APPROX_LEGEND)
    if record.hand_rounded and any(_drift(record, stage) for stage in stages):
        lines.append(
            f"≠ exact: rounding by hand to {record.decimals} places moved this stage; the exact value follows."
        )
    return lines


def filled_formulas_table(record, stages, focus=(), title: str = "") -> FormulasTable:
    """The stages' filled formulas described once (names, equations, focus and drift marks, legend);
    :func:`filled_formulas_text` and :func:`filled_formulas_html` render this one description."""
    focus = stage_names(focus, "focus")
    stages = stage_names(stages)
    lines = tuple(
        FormulaLine(
            STAGE_LABELS[stage][0], filled_formula(record, stage), _drift(record, stage), focused=stage in focus
        )
        for stage in stages
    )
    return FormulasTable(lines, tuple(_legend(record, stages)), title)


def filled_formulas_text(record, stages, focus=()) -> str:
    """One line per stage in ``stages``: its name and :func:`filled_formula`; stages in ``focus`` marked ▶.

    A hand-rounded record marks the stages rounding moved "≠ exact" with the exact values."""
    return render_formulas_text(filled_formulas_table(record, stages, focus))


def filled_formulas_html(record, stages, focus=(), title: str = "") -> str:
    """The same as :func:`filled_formulas_text`, as an HTML table with the stages in ``focus`` shaded."""
    return render_formulas_html(filled_formulas_table(record, stages, focus, title))
