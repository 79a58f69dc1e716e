"""The curated mutations for tools/mutation/run.py: one semantic one-line bug each.

Each names the file, the exact text it changes (which must occur once), the change, the area whose
tests should catch it, and whether a learner would see it. Keep the list in step with the code: a
mutation whose text is no longer there is reported as "not applied" and counts as a failure.
"""

from __future__ import annotations

from typing import NamedTuple

MATHS = ["tests/core/test_layernorm.py", "tests/core/test_properties.py", "tests/core/test_cli.py"]
DISPLAY = [
    "tests/display/test_display.py",
    "tests/core/test_properties.py",
    "tests/widgets/test_widgets.py",
    "tests/core/test_cli.py",
]
WIDGETS = ["tests/widgets/test_widgets.py"]
CHECKER = ["tests/core/test_published_check.py", "tests/display/test_display.py"]
DATA = ["tests/core/test_data.py", "tests/core/test_cli.py"]
ACCESS = [
    "tests/browser/test_accessibility.py",
    "tests/widgets/test_widget_slides.py",
    "tests/widgets/test_questions.py",
    "tests/checking/test_exercises.py",
    "tests/forensics/test_forensics.py",
]
PROSE = ["tests/notebooks/test_prose_equations.py", "tests/notebooks/test_prose_numbers.py"]
AREA_TESTS = {
    "prose": PROSE,
    "maths": MATHS,
    "display": DISPLAY,
    "widgets": WIDGETS,
    "checker": CHECKER,
    "data": DATA,
    "access": ACCESS,
}


class Mutation(NamedTuple):
    name: str
    path: str
    old: str
    new: str
    area: str
    learner_visible: bool = True


F, L, V = "helpers/core/formula.py", "helpers/core/layernorm.py", "helpers/core/validation.py"
FMT, ST, FO = "helpers/display/formatting.py", "helpers/display/steps.py", "helpers/display/formulas.py"
MX, CK = "helpers/display/matrix.py", "helpers/display/verdicts.py"
MD = "helpers/display/model.py"  # every table view, rendered as text and as HTML
WM, WE, WR, WQ = (
    "helpers/widgets/matrix.py",
    "helpers/widgets/explorer.py",
    "helpers/widgets/row.py",
    "helpers/widgets/questions.py",
)
WRS = "helpers/widgets/row_stages.py"  # the row editor's folding: stages and controls shown
R = "helpers/core/rounding.py"
PC, D, CLI = "helpers/core/published_table.py", "helpers/core/data.py", "helpers/cli.py"
A, WB, T = "helpers/widgets/accessibility.py", "helpers/widgets/base.py", "helpers/checking/sandbox.py"

MUTATIONS = [
    # maths
    Mutation(
        "maths: mean divides by n + 1",
        F,
        "mean = x.sum(axis=-1, keepdims=True) / n",
        "mean = x.sum(axis=-1, keepdims=True) / (n + 1)",
        "maths",
    ),
    Mutation(
        "maths: unbiased variance",
        F,
        "var = (diff * diff).sum(axis=-1, keepdims=True) / n",
        "var = (diff * diff).sum(axis=-1, keepdims=True) / max(n - 1, 1)",
        "maths",
    ),
    Mutation(
        "maths: eps outside the root",
        F,
        "std = np.sqrt(var + x.dtype.type(eps))",
        "std = np.sqrt(var) + x.dtype.type(eps)",
        "maths",
    ),
    Mutation(
        "maths: eps forgotten", F, "std = np.sqrt(var + x.dtype.type(eps))", "std = np.sqrt(var + 0 * eps)", "maths"
    ),
    Mutation("maths: divide by the variance", F, "x_hat = diff / std", "x_hat = diff / (std * std)", "maths"),
    Mutation(
        "maths: record differences reversed",
        L,
        "differences = values - mean  # the same subtraction",
        "differences = mean - values  # the same subtraction",
        "maths",
    ),
    Mutation(
        "maths: record squares are absolute values",
        L,
        "squared = differences * differences",
        "squared = np.abs(differences)",
        "maths",
    ),
    Mutation(
        "maths: record σ² + ε without ε",
        L,
        "    variance_plus_eps = variance + eps\n",
        "    variance_plus_eps = variance\n",
        "maths",
    ),
    Mutation(
        "maths: hand mean divides by n − 1",
        L,
        "mean = keep(sum(x) / len(x))",
        "mean = keep(sum(x) / (len(x) - 1))",
        "maths",
    ),
    Mutation(
        "maths: hand std forgets eps",
        L,
        "std = keep((variance + written(eps)).sqrt())",
        "std = keep(variance.sqrt() + written(eps))",
        "maths",
    ),
    Mutation(
        "maths: hand rounding half to even",
        R,
        "rounding=ROUND_HALF_UP, context=WIDE)",
        "rounding='ROUND_HALF_EVEN', context=WIDE)",
        "maths",
    ),
    Mutation(
        "maths: round_half_away_from_zero rounds the binary value",
        R,
        "return Decimal(repr(float(value)))",
        "return Decimal(float(value))",
        "maths",
    ),
    Mutation(
        "maths: γ · x̂ − β",
        L,
        "            return gamma * normalised + beta",
        "            return gamma * normalised - beta",
        "maths",
    ),
    Mutation(
        "maths: drift needs 10 units",
        L,
        "if past(largest, unit) or relative > DRIFT_RELATIVE_TOLERANCE:",
        "if largest > 10 * unit:",
        "maths",
    ),
    Mutation(
        "maths: negative eps accepted",
        V,
        "if not math.isfinite(eps) or eps < 0:",
        "if not math.isfinite(eps) or eps < -1:",
        "maths",
        False,
    ),
    Mutation(
        "maths: 13 decimal places accepted",
        V,
        "not 0 <= decimals <= MAX_DECIMALS:",
        "not 0 <= decimals <= MAX_DECIMALS + 1:",
        "maths",
        False,
    ),
    Mutation(
        "maths: row index one past the end", V, "not 0 <= index < rows:", "not 0 <= index <= rows:", "widgets", False
    ),
    Mutation(
        "maths: gamma of the wrong length accepted",
        V,
        "if array.shape != (features,):",
        "if array.size < features:",
        "maths",
        False,
    ),
    # display
    Mutation("display: -0.000 shown", FMT, '        text = text.lstrip("-")', "        text = text", "display"),
    Mutation(
        "display: elided tail shifted",
        FMT,
        "format_number(v, places) for v in flat[-EDGE_ITEMS:]",
        "format_number(v, places) for v in flat[-EDGE_ITEMS - 1:-1]",
        "display",
    ),
    Mutation(
        "display: ≠ exact mark dropped in text",
        MD,
        '(f"  {DRIFT_MARK}" if row.drifted else "")',
        '""',
        "display",
    ),
    Mutation(
        "display: focus not shaded in HTML",
        MD,
        'shade = HIGHLIGHT_STYLE if row.focused else FLAG_STYLE if row.drifted else ""',
        'shade = FLAG_STYLE if row.drifted else ""',
        "display",
    ),
    Mutation(
        "display: σ² + ε hides ε",
        ST,
        "return min(15, max(places, 1 - math.floor(math.log10(record.eps))))",
        "return places",
        "display",
    ),
    Mutation(
        "display: tiny values as 0.0000",
        FMT,
        "return SIGNIFICANT_DIGITS - 1 - math.floor(math.log10(largest))",
        "return places",
        "display",
    ),
    Mutation(
        "display: every equation says =",
        FO,
        "return abs(_EXACT.subtract(worked_out, Decimal(shown))) <= half",
        "return True",
        "display",
    ),
    Mutation(
        "display: explorer std line shows the variance",
        FO,
        'shown = s.one("std", s.places("std"))',
        'shown = s.one("variance", s.places("std"))',
        "display",
    ),
    Mutation(
        "display: hand mode called exact",
        FO,
        'return f"rounded by hand to {record.decimals} places (halves away from zero)"',
        'return "exact"',
        "display",
    ),
    Mutation(
        "display: explorer drift flag dropped",
        FO,
        "    if not record.hand_rounded or stage not in",
        "    if True or stage not in",
        "display",
    ),
    Mutation(
        "display: matrix highlight lost in HTML",
        MD,
        'style = f\' style="{HIGHLIGHT_STYLE}"\' if row.highlighted else ""',
        'style = ""',
        "display",
    ),
    Mutation(
        "display: matrix ◀ lost in text",
        MD,
        'mark = f"  {_row_mark(row)}" if row.highlighted else ""',
        'mark = ""',
        "display",
    ),
    # checker
    Mutation(
        "checker: bound without eps",
        PC,
        "bound=n * variance / (variance + eps),",
        "bound=n * variance / variance,",
        "checker",
    ),
    Mutation(
        "checker: row sum of magnitudes",
        PC,
        "row_sum=float(np.sum(published)),",
        "row_sum=float(np.sum(np.abs(published))),",
        "checker",
    ),
    Mutation("checker: wrong rows marked ✓", CK, '("wrong", "✗")', '("wrong", "✓")', "checker"),
    Mutation(
        "checker: every row highlighted",
        CK,
        "Row(tuple(Cell(text) for text in cells), flagged=not row.close, highlighted=row.close)",
        "Row(tuple(Cell(text) for text in cells), flagged=not row.close, highlighted=True)",
        "checker",
    ),
    # widgets
    Mutation(
        "widgets: matrix editor does not follow the edited row",
        WM,
        "                self._follow(row)\n",
        "                pass\n",
        "widgets",
    ),
    Mutation(
        "widgets: matrix editor worked row not updated after an edit",
        WM,
        "record = layer_norm_steps(matrix[row], eps=eps)",
        "record = layer_norm_steps(self.matrix[row], eps=eps)",
        "widgets",
    ),
    Mutation(
        "widgets: matrix editor output not highlighted",
        WM,
        'self._output, title=f"LayerNorm(X), eps = {format_eps(self.eps)}", highlight_row=self._row\n',
        'self._output, title=f"LayerNorm(X), eps = {format_eps(self.eps)}", highlight_row=None\n',
        "widgets",
    ),
    Mutation(
        "widgets: explorer keeps the old row in its title",
        WE,
        'self._shown_row, self._problems = change["new"], {}',
        "self._problems = {}",
        "widgets",
    ),
    Mutation(
        "widgets: explorer show all shows nothing more",
        WE,
        "last = len(EXPLORER_STAGES) - 1 if self.show_all_toggle.value else self._position",
        "last = self._position",
        "widgets",
    ),
    Mutation(
        "widgets: explorer Next skips a stage",
        WE,
        "self._position = min(self._position + 1,",
        "self._position = min(self._position + 2,",
        "widgets",
    ),
    Mutation(
        "widgets: row editor loses its focus",
        WR,
        "steps_html(self.record, self.focus, self._stages())",
        "steps_html(self.record, (), self._stages())",
        "widgets",
    ),
    Mutation(
        "widgets: row editor errors all go to general",
        WR,
        'problems[field if field in self.messages else "general"] = str(problem)',
        'problems["general"] = str(problem)',
        "widgets",
    ),
    Mutation(
        "widgets: row editor upto shows every control",
        WRS,
        "return self.upto is None or STAGES.index(stage) <= STAGES.index(self.upto)",
        "return True",
        "widgets",
    ),
    Mutation(
        "widgets: number question twice as lenient",
        WQ,
        "within(abs(self.typed - self.answer), self.tolerance)",
        "within(abs(self.typed - self.answer), 2 * self.tolerance)",
        "widgets",
    ),
    # usable without a mouse or sight, on a projector, and by a learner who slips
    Mutation(
        "access: a table's scroll box cannot take the focus",
        FMT,
        """role="region" tabindex="0" aria-label""",
        """role="region" aria-label""",
        "access",
    ),
    Mutation(
        "access: the script naming slider handles is never sent",
        WB,
        "if needs_host_fixes(self):",
        "if False:",
        "access",
    ),
    Mutation(
        "access: slider handles described, not named",
        A,
        'handle.setAttribute("aria-labelledby", label.id);',
        'handle.setAttribute("aria-describedby", label.id);',
        "access",
    ),
    Mutation(
        "access: a number question's named mistakes are ignored",
        WQ,
        "        if self.mistake:  # what this wrong answer comes from",
        "        if False:  # what this wrong answer comes from",
        "access",
    ),
    Mutation(
        "access: a slide's row editor shows every stage",
        WRS,
        "        if self.shown_stages:\n            return self.shown_stages",
        "        if False:\n            return self.shown_stages",
        "access",
    ),
    Mutation(
        "access: a stopped endless loop can be caught by the learner's except Exception",
        T,
        "class Stopped(BaseException):",
        "class Stopped(Exception):",
        "access",
        learner_visible=False,
    ),
    Mutation(
        "maths: a row of equal values with eps 0 divides float noise by float noise",
        L,
        "if np.any(std == 0) or (eps == 0 and np.any(constant)):",
        "if np.any(std == 0):",
        "maths",
    ),
    # data
    Mutation("data: NaN accepted", D, 'if lowered in {"nan", "na", "n/a"}:', 'if lowered in {"na", "n/a"}:', "data"),
    Mutation("data: typographic minus ignored", D, '"\\u2212": "-", ', "", "data"),
    Mutation(
        "data: empty cell accepted as 0",
        D,
        '        raise ValueError("is empty; type a number")',
        "        return 0.0",
        "data",
    ),
    # prose (the notebooks are copied too, so a sentence can be mutated like code)
    Mutation(
        "prose: 03's mean of squares printed as another fact",
        "notebooks/03_variance.ipynb",
        "= 1.030 / 3 \\\\approx 0.343$",
        "= 1.030 / 3 \\\\approx 0.472$",
        "prose",
    ),
    Mutation(
        "prose: 03's third square rounded up",
        "notebooks/03_variance.ipynb",
        "0.057^2 \\\\approx 0.003$",
        "0.057^2 \\\\approx 0.004$",
        "prose",
    ),
    Mutation(
        "prose: 07 counts three conventions",
        "notebooks/07_whole_matrix.ipynb",
        "any of the four conventions",
        "any of the three conventions",
        "prose",
    ),
    Mutation(
        "data: CLI output ignores the given eps",
        CLI,
        "layer_norm(matrix, gamma=gamma, beta=beta, eps=eps)",
        "layer_norm(matrix, gamma=gamma, beta=beta)",
        "data",
    ),
]


def _fresh():
    """The fresh mutations (one file per area, so two people can add to them at once)."""
    from tools.mutation import fresh_checking, fresh_set5, fresh_set6, fresh_widgets

    for module in (fresh_widgets, fresh_checking, fresh_set5, fresh_set6):
        AREA_TESTS.update(module.AREAS)
        MUTATIONS.extend(Mutation(*entry) for entry in module.MUTATIONS)


_fresh()
