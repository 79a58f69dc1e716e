"""check("layer_norm", fn) on right values: ✓ only without a Python loop over the data, read from the code.

Notebook 07 asks for no loop over the rows. A loop over a few things written out (``for f in (np.mean,
np.var)``) runs the same number of times whatever the matrix: it is no loop over the data, and the ✓ names
its line (1 is the ``def`` line). A loop over the rows, beside such a loop or alone, gets ✗ ("python-loop").
Code whose source cannot be read gets ✓ and says the loop was not checked. Every verdict counts the cases run.
"""

from __future__ import annotations

import numpy as np

from helpers.checking.cases import cases
from helpers.checking.exercises import check


def two_written_out_loops(x, eps):
    stats = []
    for f in (np.mean, np.var):
        stats.append(f(x, axis=-1, keepdims=True))
    for _ in ("once",):
        pass
    mean, var = stats
    return (x - mean) / np.sqrt(var + eps)


def written_out_loop_and_rows(x, eps):
    stats = []
    for f in (np.mean, np.var):
        stats.append(f(x, axis=-1, keepdims=True))
    out = np.empty_like(x)
    for i in range(len(x)):
        out[i] = (x[i] - stats[0][i]) / np.sqrt(stats[1][i] + eps)
    return out


def no_loop(x, eps):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def count() -> int:
    return len(cases("layer_norm"))


def test_a_loop_over_things_written_out_gets_a_check_mark_that_names_its_line():
    result = check("layer_norm", two_written_out_loops)
    assert result.passed is True and result.step == "layer_norm" and result.mistake is None
    assert result.count == count()
    assert result.diagnosis.startswith(f"right on all {count()} unseen inputs: ")
    assert "no Python loop over the data (read from its code: its loop on line 3 runs over a few things" in (
        result.diagnosis
    )
    assert result.diagnosis.endswith("the same number of times whatever the matrix).")


def test_a_loop_over_the_rows_beside_a_written_out_one_gets_a_cross():
    result = check("layer_norm", written_out_loop_and_rows)
    assert result.passed is False and result.step == "layer_norm" and result.mistake == "python-loop"
    assert result.diagnosis.startswith(f"Right values on all {count()} unseen inputs, but it has ")
    assert "(line 6 of the function" in result.diagnosis
    assert "x.mean(axis=-1, keepdims=True) is each row's mean as a column." in result.diagnosis


def test_no_loop_gets_a_check_mark_that_says_it_was_read_from_the_code():
    result = check("layer_norm", no_loop)
    assert result.passed is True and result.step == "layer_norm" and result.mistake is None
    assert result.count == count()
    assert result.diagnosis.endswith("; no Python loop (read from its code).")
    assert "written out" not in result.diagnosis


def test_code_whose_source_cannot_be_read_gets_a_check_mark_that_says_so():
    namespace = {"np": np}
    source = "def layer_norm(x, eps):\n    for row in x:\n        pass\n    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)\n"
    exec(compile(source, "<no file>", "exec"), namespace)  # noqa: S102 — a function with no readable source
    result = check("layer_norm", namespace["layer_norm"])
    assert result.passed is True and result.step == "layer_norm" and result.count == count()
    assert result.diagnosis.endswith(" (its source could not be read, so whether it loops was not checked).")
