"""The lecture's pencil table: "a pencil says" applies the rule the slide states, and nothing more.

helpers.display.verdicts.pencil_rule_line says what a student does with a pencil: a row passes if it sums
to 0 within ± n half-units and, with every value moved half a unit towards 0, its squares add up to at most
n. lecture_pencil_table's docstring: "Each printed row's sum and its squares with the allowance, and what
the pencil proves". So its verdict column says what that rule gives, worked out here by hand; a row that
passes the pencil's rule but that the exact least sum of squares (a zero-sum row printing as these digits)
puts over n is for the truth table, not the pencil's.
"""

from __future__ import annotations

from fractions import Fraction

from helpers.core.published_table import check_published_output
from helpers.display.verdicts import lecture_pencil_table, lecture_truth_table

X = [[1.0, 2.0, 3.0]]
PRINTED = [[0.62, 0.79, -1.42]]  # sums to -0.01; pencil squares 0.615² + 0.785² + 1.415² = 2.996675
HALF = Fraction(1, 200)


def by_pencil(values) -> tuple[bool, Fraction]:
    values = [Fraction(str(v)) for v in values]
    moved = [max(abs(v) - HALF, Fraction(0)) for v in values]
    squares = sum(m * m for m in moved)
    return abs(sum(values)) <= len(values) * HALF and squares <= len(values), squares


def test_a_row_the_pencil_rule_passes_is_said_to_pass_by_the_pencil():
    passes, squares = by_pencil(PRINTED[0])
    assert passes and squares == Fraction("2.996675")
    check = check_published_output(PRINTED, X)
    (row,) = lecture_pencil_table(check).rows
    cells = [cell.text for cell in row.cells]
    assert cells[3] == "2.9967"
    assert cells[4] == "passes both"
    assert not row.flagged


def test_the_pencil_column_agrees_with_its_own_flag_and_squares_column():
    rows = [[0.62, 0.79, -1.42], [0.9, 0.9, -1.8], [0.5, 0.5, 0.5], [0.71, 0.71, -1.41]]
    x = [[1.0, 2.0, 3.0]] * len(rows)
    check = check_published_output(rows, x)
    for printed, row in zip(rows, lecture_pencil_table(check).rows):
        passes, _ = by_pencil(printed)
        says = row.cells[4].text
        assert (says == "passes both") == passes, f"{printed}: the pencil's rule gives {passes}, the table says {says}"
        assert row.flagged == (not passes)


def test_the_truth_table_still_calls_the_zero_sum_impossible_row_impossible():
    check = check_published_output(PRINTED, X)
    assert not check.rows[0].squares_within_n  # no zero-sum row printing as these digits has squares ≤ 3
    (row,) = lecture_truth_table(check).rows
    assert row.cells[3].text == "✗ impossible"
