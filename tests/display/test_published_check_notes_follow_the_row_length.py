"""The published check's notes state the rules for the table's own row length (helpers.display.verdicts).

"row sum: must be 0 (rounding each of the n values by up to h allows ± n·h)" and "sum of squares: must be at
most n": n is the number of features of the rows checked (3 in the lesson), h half a printed unit. Here 4
features at 2 places (h = 0.005, n·h = 0.020) and 2 features at 3 places (h = 0.0005, n·h = 0.0010).
"""

from __future__ import annotations

from helpers.core.published_table import check_published_output
from helpers.display.verdicts import published_check_table


def test_four_features_at_two_places():
    check = check_published_output([[-1.34, -0.45, 0.45, 1.34]], [[1.0, 2.0, 3.0, 4.0]])
    notes = published_check_table(check).notes
    assert notes[0] == "row sum: must be 0 (rounding each of the 4 values by up to 0.005 allows ± 0.020)."
    assert notes[1] == "sum of squares: must be at most n = 4, whatever eps or variance (÷ n or ÷ (n − 1)) is used."


def test_two_features_at_three_places():
    check = check_published_output([[-1.0, 1.0]], [[1.0, 2.0]], places=3)
    notes = published_check_table(check).notes
    assert notes[0] == "row sum: must be 0 (rounding each of the 2 values by up to 0.0005 allows ± 0.0010)."
    assert notes[1] == "sum of squares: must be at most n = 2, whatever eps or variance (÷ n or ÷ (n − 1)) is used."
