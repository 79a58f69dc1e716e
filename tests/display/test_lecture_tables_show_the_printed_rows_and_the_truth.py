"""The lecture's question and truth tables (helpers.display.verdicts): what each column holds, row by row.

lecture_question_table: "The rows as printed and nothing else: what the room works on with pencils."
lecture_truth_table: "Each printed row beside the true output, printed the same way, with the verdict"; the
close row highlighted, the others flagged. The true output here is worked out with numpy from x = 1, 2, 3
(mean 2, variance 2/3), not by the code under test.
"""

from __future__ import annotations

import numpy as np

from helpers.core.published_table import check_published_output
from helpers.display.verdicts import lecture_question_table, lecture_truth_table

X = np.array([[1.0, 2.0, 3.0]] * 4)
PRINTED = [
    [-1.22, 0.00, 1.22],  # the truth, rounded to 2 places
    [-1.20, 0.00, 1.20],  # close: within 0.05
    [-1.00, 0.00, 1.00],  # another eps would give it, but far from the truth
    [1.00, 1.00, 1.00],  # does not sum to 0: impossible
]
TRUE = (np.array([1.0, 2.0, 3.0]) - 2.0) / np.sqrt(2.0 / 3.0 + 1e-5)  # ≈ (-1.2247, 0, 1.2247)


def test_the_question_table_lists_each_printed_row_as_printed_and_nothing_else():
    table = lecture_question_table(check_published_output(PRINTED, X))
    assert table.header == ("row", "printed")
    assert [[cell.text for cell in row.cells] for row in table.rows] == [
        ["1", "(-1.22, 0.00, 1.22)"],
        ["2", "(-1.20, 0.00, 1.20)"],
        ["3", "(-1.00, 0.00, 1.00)"],
        ["4", "(1.00, 1.00, 1.00)"],
    ]
    assert not any(row.flagged or row.highlighted for row in table.rows)  # no verdict before the question


def test_the_question_table_prints_to_the_places_the_table_was_printed_to():
    table = lecture_question_table(check_published_output([[-1.225, 0.0, 1.225]], X[:1], places=3))
    assert table.rows[0].cells[1].text == "(-1.225, 0.000, 1.225)"


def test_the_truth_table_prints_the_true_output_beside_the_printed_row():
    table = lecture_truth_table(check_published_output(PRINTED, X))
    assert table.header == ("row", "printed", "true", "verdict")
    true_text = "(" + ", ".join(f"{v:.2f}".replace("-0.00", "0.00") for v in TRUE) + ")"
    assert true_text == "(-1.22, 0.00, 1.22)"
    for number, (printed, row) in enumerate(zip(PRINTED, table.rows), start=1):
        cells = [cell.text for cell in row.cells]
        assert cells[0] == str(number)
        assert cells[1] == "(" + ", ".join(f"{v:.2f}" for v in printed) + ")"
        assert cells[2] == true_text


def test_the_truth_tables_verdicts_name_the_right_close_far_and_impossible_rows():
    table = lecture_truth_table(check_published_output(PRINTED, X))
    off = [np.max(np.abs(np.array(printed) - TRUE)) for printed in PRINTED]
    assert [row.cells[3].text for row in table.rows] == [
        "✓ right",
        f"≈ off by {off[1]:.4f}",  # 0.0247
        f"✗ off by {off[2]:.4f}",  # 0.2247
        "✗ impossible",
    ]
    assert [row.cells[3].text for row in table.rows][1:3] == ["≈ off by 0.0247", "✗ off by 0.2247"]


def test_the_truth_table_highlights_the_close_rows_and_flags_the_others():
    table = lecture_truth_table(check_published_output(PRINTED, X))
    assert [row.highlighted for row in table.rows] == [True, True, False, False]
    assert [row.flagged for row in table.rows] == [False, False, True, True]
