"""Notebook 07's "no loop over the rows", checked by the code's structure: every kind of Python loop in
``layer_norm`` is named with its line, and a vectorised one gets ✓."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from helpers.checking.exercises import check
from helpers.checking.structure import python_loops


def vectorised(x, eps):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def for_rows(x, eps):
    out = []
    for row in x:
        out.append((row - row.mean()) / np.sqrt(row.var() + eps))
    return np.array(out)


def comprehension(x, eps):
    return np.stack([(r - r.mean()) / np.sqrt(r.var() + eps) for r in x])


def while_rows(x, eps):
    y, i = np.empty(x.shape), 0
    while i < x.shape[0]:
        y[i] = (x[i] - x[i].mean()) / np.sqrt(x[i].var() + eps)
        i += 1
    return y


def indices(x, eps):
    y = np.empty(x.shape)
    for i in range(len(x)):
        y[i] = (x[i] - x[i].mean()) / np.sqrt(x[i].var() + eps)
    return y


def along_axis(x, eps):
    return np.apply_along_axis(lambda r: (r - r.mean()) / np.sqrt(r.var() + eps), -1, x)


def columns(x, eps):
    mean = x.mean(axis=-1, keepdims=True)
    var = sum((x[:, j : j + 1] - mean) ** 2 for j in range(x.shape[1])) / x.shape[1]
    return (x - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize(
    "fn, line", [(for_rows, 3), (comprehension, 2), (while_rows, 3), (indices, 3), (along_axis, 2)]
)
def test_a_loop_over_the_rows_is_named_with_its_line(fn, line):
    result = check("layer_norm", fn)
    assert not result.passed and result.mistake == "python-loop", result
    assert "loop over the rows" in result.diagnosis and f"line {line} " in result.diagnosis


def test_a_loop_over_the_features_is_a_python_loop_but_not_one_over_the_rows():
    result = check("layer_norm", columns)
    assert not result.passed and result.mistake == "python-loop", result
    assert "a Python loop (" in result.diagnosis


def test_a_vectorised_function_passes_and_says_it_has_no_loop():
    result = check("layer_norm", vectorised)
    assert result.passed and "no Python loop" in result.diagnosis, result


def test_a_wrong_function_with_a_loop_is_judged_on_its_values_first():
    def wrong(x, eps):
        return np.stack([(r - r.mean()) / np.sqrt(r.var(ddof=1) + eps) for r in x])

    assert check("layer_norm", wrong).mistake == "n-1"


def test_a_function_without_source_is_not_called_loop_free():
    assert python_loops(len) is None
    result = check("layer_norm", functools.partial(vectorised))  # a partial has no source of its own
    assert result.passed and "not checked" in result.diagnosis, result


def each_row(x, eps):
    return np.array([(r - r.mean()) / np.sqrt(r.var() + eps) for r in x])


def through_a_helper(x, eps):
    return each_row(x, eps)


def test_a_loop_in_a_helper_of_the_same_module_is_found_too():
    result = check("layer_norm", through_a_helper)
    assert not result.passed and result.mistake == "python-loop", result
    assert "`each_row`" in result.diagnosis and "over the rows" in result.diagnosis


def test_a_helper_of_the_notebook_without_a_loop_keeps_the_check_mark():
    def with_numpy(x, eps):
        return vectorised(x, eps) * 1.0

    assert check("layer_norm", with_numpy).passed
