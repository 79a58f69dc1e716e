"""``offset_sweep`` calls a result right "when every output is within OUTPUT_TOLERANCE of the float64 truth": an
error exactly at the tolerance is within it, one step above is not."""

import math

import numpy as np

from helpers.lessons.numerics import moments as numerics

ROW_1 = np.array([1.133, -0.299, 0.503])


def one_pass_at_1000():
    (found,) = [r for r in numerics.offset_sweep(ROW_1, offsets=(1_000,)) if r.method == "one-pass"]
    return found


def test_the_tolerance_is_the_two_places_the_lesson_prints():
    assert numerics.OUTPUT_TOLERANCE == 0.01


def test_an_error_exactly_at_the_tolerance_is_right_and_just_above_it_is_not(monkeypatch):
    error = one_pass_at_1000().largest_output_error
    assert 0 < error < math.inf
    monkeypatch.setattr(numerics, "OUTPUT_TOLERANCE", error)
    assert one_pass_at_1000().right
    monkeypatch.setattr(numerics, "OUTPUT_TOLERANCE", math.nextafter(error, 0.0))
    assert not one_pass_at_1000().right


def test_every_method_is_judged_by_the_same_rule_at_every_offset():
    sweep = numerics.offset_sweep(ROW_1, offsets=(0, 100, 1_000, 10_000))
    for r in sweep:
        assert r.right == (r.largest_output_error <= numerics.OUTPUT_TOLERANCE)
    assert [r.right for r in sweep if r.method == "one-pass"] == [True, True, False, False]
