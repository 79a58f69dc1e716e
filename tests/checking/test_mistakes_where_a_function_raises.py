"""Naming a mistake when the learner's function raises on some cases (helpers/checking/results.py, match_mistake),
from its docstring: a mistake is named when its results match the learner's on every case, a raise (None)
matching only where the mistake fails too (or divides by zero, where Python raises and numpy gives NaN); and a
function that rounds every step by hand, as on paper, is named "rounding" like one that rounds its result."""

from __future__ import annotations

import numpy as np

from helpers.checking.exercises import check
from helpers.core.layernorm import layer_norm_steps


def lost_keepdims(x, eps):
    mean, var = x.mean(axis=-1), x.var(axis=-1)  # (m,): subtracts along the wrong axis, or cannot broadcast
    return (x - mean) / np.sqrt(var + eps)


def only_square(x, eps):
    x @ np.eye(len(x))  # raises on every matrix that is not square
    return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)


def n_minus_1_in_float64_only(row):
    if row.dtype != np.float64:
        raise TypeError("float64 only")
    return float(np.var(row, ddof=1))


def no_eps_but_a_guard(row, eps):
    std = np.sqrt(np.var(row))
    return (row - np.mean(row)) / np.where(std == 0, 1.0, std)  # a number where no-eps divides 0 by 0


def test_a_mistake_that_raises_where_the_function_raises_is_named():
    assert check("layer_norm", lost_keepdims).mistake == "lost-keepdims"


def test_a_function_that_raises_where_no_mistake_fails_is_told_it_raised():
    assert check("layer_norm", only_square).mistake == "exception"
    assert check("variance", n_minus_1_in_float64_only).mistake == "exception"


def test_a_number_where_the_mistake_gives_nan_does_not_match_it():
    assert check("normalise", no_eps_but_a_guard).mistake != "no-eps"
    assert check("normalise", lambda row, eps: (row - np.mean(row)) / np.std(row)).mistake == "no-eps"


def test_every_step_rounded_by_hand_is_named_rounding():
    def std(row, eps):
        return layer_norm_steps(row, eps=eps, decimals=3).std

    assert check("std", std).mistake == "rounding"
