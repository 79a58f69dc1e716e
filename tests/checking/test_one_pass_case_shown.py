"""Which failing case the verdict shows for the one-pass variance (helpers/checking/results.py, one_pass_shown),
from its docstring: of the wrong (case, result) pairs, the first far from zero for its precision where the lost
digits show (an error over 1 % of the right result's size), else the one most wrong there; a result that raised
(None) or is NaN counts as infinitely wrong, and so does any error on a right result of size 0. The cases are
built by hand, so each error is an exact fraction of its size."""

from __future__ import annotations

import numpy as np

from helpers.checking.cases import Case
from helpers.checking.results import one_pass_shown

FAR_ROW = np.array([1000.0, 1001.0, 1002.0, 1003.0])  # |μ| ≈ 900 σ: far from zero in float32 and float64
NEAR_ROW = np.array([0.0, 1.0, 2.0, 3.0])


def case(label, size, row=FAR_ROW, dtype=np.float64):
    """A case whose right result's largest |value| is ``size``."""
    return Case(label, (row.astype(dtype), 1e-5), np.array([size, -size, 0.0, 0.0]), dtype=dtype)


def off_by(case, error):
    """A result off from the case's right one by ``error`` in one place."""
    return case.expected + np.array([0.0, 0.0, error, 0.0])


def test_the_first_far_case_off_by_more_than_1_percent_is_shown():
    near = case("near zero", 1.0, row=NEAR_ROW)
    slight, first, second = case("slight", 100.0), case("first", 1.0), case("second", 1.0)
    wrong = [(near, off_by(near, 5.0)), (slight, off_by(slight, 0.5)), (first, off_by(first, 0.02)),
             (second, off_by(second, 0.5))]  # fmt: skip
    assert one_pass_shown(wrong)[0] is first


def test_else_the_far_case_most_wrong_for_its_size_is_shown():
    big, small = case("big", 100.0), case("small", 1.0)
    wrong = [(big, off_by(big, 0.5)), (small, off_by(small, 0.008))]  # 0.5 % and 0.8 % of their sizes
    assert one_pass_shown(wrong)[0] is small
    assert one_pass_shown(wrong[::-1])[0] is small


def test_a_result_that_raised_or_is_nan_is_the_most_wrong():
    slight, raised, nan = case("slight", 100.0), case("raised", 1.0), case("nan", 1.0)
    assert one_pass_shown([(slight, off_by(slight, 0.5)), (raised, None)])[0] is raised
    assert one_pass_shown([(slight, off_by(slight, 0.5)), (nan, off_by(nan, np.nan))])[0] is nan


def test_a_wrong_result_where_the_right_one_is_all_zero_is_the_most_wrong():
    constant = Case("a constant row", (np.full(3, 10000.3, dtype=np.float32), 1e-5), np.zeros(3), dtype=np.float32)
    slight = case("slight", 100.0)
    assert one_pass_shown([(slight, off_by(slight, 0.5)), (constant, np.full(3, 0.25))])[0] is constant
