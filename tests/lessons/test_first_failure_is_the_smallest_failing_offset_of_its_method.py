"""Notebook 09 reports where each variance method first fails with ``first_failure``: the smallest offset at which
that method is no longer right, whatever order the sweep was run in, and never another method's failure."""

import math
from types import SimpleNamespace

import numpy as np

from helpers.lessons.numerics import moments as numerics
from helpers.lessons.numerics.precision import first_failure

ROW_1 = np.array([1.133, -0.299, 0.503])


def result(offset, method, right):
    return SimpleNamespace(offset=offset, method=method, right=right)


def test_the_smallest_failing_offset_wins_whatever_order_the_sweep_ran_in():
    results = [
        result(100_000.0, "one-pass", False),
        result(1_000.0, "one-pass", False),
        result(10_000.0, "one-pass", False),
        result(10.0, "one-pass", True),
    ]
    assert first_failure(results, "one-pass") == 1_000.0


def test_another_methods_failure_does_not_count():
    results = [result(10.0, "two-pass", False), result(100.0, "Welford", False), result(1e4, "one-pass", False)]
    assert first_failure(results, "one-pass") == 1e4
    assert first_failure(results, "two-pass") == 10.0
    assert first_failure([result(10.0, "two-pass", False)], "one-pass") == math.inf


def test_a_sweep_run_from_the_largest_offset_down_still_gives_the_first_failure():
    # float32 one-pass on row 1: right at +0 and +100, wrong from +1,000 (notebook 09's sweep)
    sweep = numerics.offset_sweep(ROW_1, offsets=(100_000, 10_000, 1_000, 100, 0), dtype=np.float32)
    failing = sorted(r.offset for r in sweep if r.method == "one-pass" and not r.right)
    assert failing == [1_000.0, 10_000.0, 100_000.0]
    assert first_failure(sweep, "one-pass") == 1_000.0
