"""The determinism and state probes (helpers/forensics/behaviour.py) in notebook 13's words: the same matrix
twice gives the noise floor; A, then B (A's rows in reverse order), then A again: a LayerNorm gives B's output
as A's reversed and A's again, and a function that keeps state does not, and gets "cannot tell" in one
sentence that says what moved and by how much. A change is measured relative to the output's size; NaN in one
output and not the other is an infinite change."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.forensics.behaviour import Behaviour, noise_floor, probe, relative_change, state_sentence
from helpers.forensics.precision import roundoff
from helpers.forensics.probes import base_matrix


class Calls:
    """A function with the Caller's ``output_types`` (what it returned for each input type)."""

    def __init__(self, fn, returned="float64"):
        self.fn, self.output_types = fn, {"float64": returned}

    def __call__(self, x):
        return self.fn(x)


def layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)


def test_a_change_is_the_largest_difference_over_the_largest_value():
    a = np.array([[1.0, -4.0], [2.0, 0.5]])
    b = a + np.array([[0.0, 0.2], [-0.4, 0.0]])
    assert relative_change(a, b) == pytest.approx(0.4 / 4.0)
    assert relative_change(a, a) == 0.0


def test_nan_in_the_same_places_is_left_out_and_in_one_only_is_infinite():
    a = np.array([1.0, np.nan, 2.0])
    assert relative_change(a, np.array([1.0, np.nan, 2.5])) == pytest.approx(0.25)
    assert relative_change(a, np.array([1.0, 3.0, 2.0])) == math.inf
    assert relative_change(np.array([1.0, 2.0]), np.array([np.inf, 2.0])) == math.inf
    assert relative_change(np.array([np.nan, np.nan]), np.array([np.nan, np.nan])) == 0.0


def test_the_noise_floor_is_the_change_between_two_calls_on_the_same_matrix():
    x = base_matrix(4)
    assert noise_floor(Calls(layer_norm), x, layer_norm(x)) == 0.0
    shifted = layer_norm(x) * (1 + 1e-9)
    assert noise_floor(Calls(layer_norm), x, shifted) == pytest.approx(1e-9, rel=1e-6)


def test_deterministic_means_a_noise_floor_of_exactly_zero():
    assert Behaviour(0.0, 0.0, 0.0, 1e-12).deterministic
    assert not Behaviour(1e-15, 0.0, 0.0, 1e-12).deterministic


def test_a_change_moved_only_when_past_the_tolerance():
    behaviour = Behaviour(0.0, 0.0, 0.0, 1e-6)
    assert not behaviour.moved(1e-6) and not behaviour.moved(None)
    assert behaviour.moved(1.01e-6)


def test_a_layer_norm_comes_out_reversed_and_the_same_again():
    x = base_matrix(4)
    found = probe(Calls(layer_norm), x, layer_norm(x), 0.0, "float64", "rows")
    assert (found.noise_floor, found.reorder_change, found.repeat_change) == (0.0, 0.0, 0.0)
    assert found.reorder_tolerance == found.tolerance  # row by row: held to A's tolerance
    assert not found.reordered()


@pytest.mark.parametrize(("work", "room"), [("float64", 1e-3), ("float32", 1e-3), ("bfloat16", 64 * 2.0**-7)])
def test_a_function_of_the_columns_gets_64_roundings_or_1e_3_for_b(work, room):
    x = base_matrix(4)
    found = probe(Calls(layer_norm), x, layer_norm(x), 0.0, work, "columns")
    assert found.reorder_tolerance == pytest.approx(max(1e-3, 64 * roundoff(work))) == pytest.approx(room)


def test_a_function_that_caches_its_first_statistics_moves_on_b_and_on_a_again():
    cache = {}

    def cached(x):
        if "stats" not in cache:
            cache["stats"] = (x.mean(axis=1, keepdims=True), x.std(axis=1, keepdims=True))
        mean, std = cache["stats"]
        return (x - mean) / std

    x = base_matrix(4)
    first = cached(x)
    found = probe(Calls(cached), x, first, 0.0, "float64", "rows")
    assert found.reorder_change > 0.01 and found.repeat_change == 0.0 and found.reordered()


def test_a_function_that_counts_its_calls_moves_on_a_again():
    calls = []

    def counting(x):
        calls.append(1)
        return layer_norm(x) * (1 + 0.5 * (len(calls) > 1))

    x = base_matrix(4)
    found = probe(Calls(counting), x, counting(x), 0.0, "float64", "rows")
    assert found.repeat_change == pytest.approx(0.5)
    assert found.tolerance == pytest.approx(1e-12)  # float64: its own noise


def test_what_moved_is_said_in_one_sentence():
    repeat = state_sentence(Behaviour(0.0, 0.0, 0.5, 1e-12))
    assert repeat.startswith(
        "Cannot tell whether it is a LayerNorm: it keeps state (the same matrix came out different the next time "
        "(by 0.5 of its size))."
    )
    assert repeat.endswith(
        "A LayerNorm's output depends on the input it is given, not on earlier calls, so no probe can be judged."
    )
    end = state_sentence(Behaviour(0.0, 0.0, 0.0, 1e-12), end_change=0.031)
    assert "(the first matrix, called again after the other probes, came out different (by 0.031))" in end
    assert state_sentence(Behaviour(0.0, 0.0, 0.0, 1e-12), end_change=1e-13).startswith(
        "Cannot tell whether it is a LayerNorm: the same rows in reverse order did not come out"
    )
    assert state_sentence(Behaviour(0.0, 0.25, 0.0, 1e-12)) == (
        "Cannot tell whether it is a LayerNorm: the same rows in reverse order did not come out as its output "
        "in reverse order (they differ by 0.25 of its size). It keeps something from an earlier call (statistics "
        "cached per shape, say), or its output for a token depends on where the token sits; a LayerNorm's does "
        "neither, so no probe can be judged."
    )
    assert "(they differ by NaN or infinity of its size)" in state_sentence(Behaviour(0.0, math.inf, 0.0, 1e-12))
