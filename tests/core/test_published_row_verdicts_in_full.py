"""Every verdict a checked row can get (RowCheck.verdict), in full, each on a row built to reach it.

The docstrings' order: a row that does not sum to 0 is impossible; one whose squares (at the least the printed
digits allow) pass n is impossible; one within half a printed unit of the truth is right; within 0.05 close;
one some other eps or convention prints exactly is "wrong here"; any other is wrong from x. x = 1, 2, 3 has the
true output (−1, 0, 1)·1/√(2/3 + 1e-5), worked out here with numpy.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.published_table import check_published_output

TRUE = np.array([-1.0, 0.0, 1.0]) / np.sqrt(2.0 / 3.0 + 1e-5)

ROWS = {
    "impossible: the row does not sum to 0": [1.00, 1.00, 1.00],
    "impossible: squares add up to more than 3": [1.50, 0.00, -1.50],  # least 2 × 1.495² = 4.47
    "right: the true output, rounded": [-1.22, 0.00, 1.22],
    f"close, but wrong: off by up to {TRUE[2] - 1.20:.4f}": [-1.20, 0.00, 1.20],
    # scale 1.1: past 1/√1 (unbiased, eps = 0), under 1/√(2/3) (biased): only the two ÷ n conventions print it
    "wrong here: only another ε or convention gives it": [-1.10, 0.00, 1.10],
    "wrong: no ε or convention gives it from x": [-1.00, 0.50, 0.50],  # x's middle value maps to 0, not 0.50
}


@pytest.mark.parametrize("verdict, printed", list(ROWS.items()))
def test_each_row_gets_its_verdict_word_for_word(verdict, printed):
    (row,) = check_published_output([printed], [[1.0, 2.0, 3.0]]).rows
    assert row.verdict == verdict


def test_the_close_verdict_gives_the_largest_difference_to_4_places():
    assert "close, but wrong: off by up to 0.0247" in ROWS


def test_the_two_wrong_rows_differ_only_in_whether_some_eps_prints_them():
    here, nowhere = check_published_output(
        [ROWS["wrong here: only another ε or convention gives it"], ROWS["wrong: no ε or convention gives it from x"]],
        [[1.0, 2.0, 3.0]] * 2,
    ).rows
    assert here.could_be_layer_norm and nowhere.could_be_layer_norm  # both pass checks 1 and 2
    assert not here.close and not nowhere.close
    assert here.could_be_layer_norm_of_x and not nowhere.could_be_layer_norm_of_x
    assert [fit.fits for fit in here.eps_fits] == [True, False, True, False]  # some convention is enough
    assert [fit.fits for fit in nowhere.eps_fits] == [False] * 4
