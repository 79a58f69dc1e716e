"""Notebook 01's question "Which token has the smallest spread?" is answered by the variance (smallest_spread_question).

Its answer is "the row with the smallest variance", the spread LayerNorm divides by. The range (largest minus
smallest) can disagree: 0, 0.5, 1 has range 1 but variance 1/6; 0, 0, 0.95 has range 0.95 but variance
2 · 0.95² / 9 ≈ 0.2006. Worked out here by hand, the answer is row 1.
"""

from __future__ import annotations

from fractions import Fraction

from helpers.core.data import smallest_spread_question

ROWS = [[0.0, 0.5, 1.0], [0.0, 0.0, 0.95], [2.0, 0.0, -2.0]]


def variance(row) -> Fraction:
    values = [Fraction(str(v)) for v in row]
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def test_the_answer_is_the_row_with_the_smallest_variance_even_when_another_has_the_smallest_range():
    assert variance(ROWS[0]) < variance(ROWS[1]) < variance(ROWS[2])
    assert max(ROWS[1]) - min(ROWS[1]) < max(ROWS[0]) - min(ROWS[0])
    assert smallest_spread_question(ROWS)["answer"] == "row 1"


def test_the_answer_counts_rows_from_1_wherever_the_row_is():
    assert smallest_spread_question([ROWS[2], ROWS[1], ROWS[0]])["answer"] == "row 3"


def test_where_the_hints_rule_disagrees_the_hint_says_so_and_names_both_rows():
    hint = smallest_spread_question(ROWS)["hint"]
    assert hint == (
        "Largest minus smallest points to row 2 here, but the values of row 1 sit closer to their mean taken "
        "together: that is the spread notebook 03 measures (the variance)."
    )


def test_where_the_two_rules_agree_the_hint_is_the_rule_by_eye():
    rows = [[0.0, 0.5, 1.0], [0.0, 0.1, 0.2], [2.0, 0.0, -2.0]]
    assert smallest_spread_question(rows)["hint"] == "For each row, compare its largest and smallest value."
