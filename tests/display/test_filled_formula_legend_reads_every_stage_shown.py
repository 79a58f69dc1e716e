"""The "≈" legend is under the filled formulas whenever any line shown uses "≈" (helpers.display.formulas).

The module's rule: when even more places do not make a calculator agree, "the equation says "≈" and one line
under the table says what it means (APPROX_LEGEND)". Row 1.3e150, −2e150, 5e149: its mean is "=", its squares
"≈" (their 5 significant digits cannot give the squares shown); the legend goes with the squares wherever they
are in the list.
"""

from __future__ import annotations

from helpers.core.layernorm import layer_norm_steps
from helpers.display.formulas import APPROX_LEGEND, filled_formula, filled_formulas_table

BIG = layer_norm_steps([1.3e150, -2e150, 5e149])


def test_the_rows_mean_is_equal_and_its_squares_approximate():
    assert " = " in filled_formula(BIG, "mean").split(" / 3")[-1]
    assert " ≈ " in filled_formula(BIG, "squared_differences")


def test_the_legend_is_there_when_the_approximate_line_is_not_the_first():
    assert filled_formulas_table(BIG, ["mean", "squared_differences"]).notes == (APPROX_LEGEND,)
    assert filled_formulas_table(BIG, ["input", "mean", "differences", "squared_differences"]).notes == (APPROX_LEGEND,)


def test_the_drift_legend_is_there_when_the_moved_line_is_not_the_first():
    moved = layer_norm_steps([1.133, -0.299, 0.503], decimals=2)
    assert filled_formulas_table(moved, ["mean", "differences"]).notes == (
        "≠ exact: rounding by hand to 2 places moved this stage; the exact value follows.",
    )
