"""Every "close enough" of the series at its edge: exactly at it, one unit each side (helpers.core.tolerance).

Written from the rules' own words: a boundary counts as inside it; a correct computation's rounding is inside
the room; one unit past it (a unit of the place typed, or of the room itself) is outside.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core import tolerance as t


# --- a boundary counts as inside it ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("off", "limit", "inside"),
    [
        (0.001, 0.001, True),  # exactly at it
        (abs(1.235 - 1.234), 0.001, True),  # at it, as binary arithmetic on decimals gives it (1.0000000000000009e-3)
        (0.0009, 0.001, True),  # one unit (of the next place) inside
        (0.0011, 0.001, False),  # one unit outside
        (0.001 * (1 + 2 * t.EDGE), 0.001, False),  # past the edge's own room
    ],
)
def test_within_counts_the_boundary_as_inside(off, limit, inside):
    assert t.within(off, limit) is inside
    assert t.past(off, limit) is not inside


@pytest.mark.parametrize(("typed", "right"), [("0.51", True), ("0.49", True), ("0.509", True), ("0.511", False)])
def test_a_number_question_is_right_exactly_at_its_tolerance(typed, right):
    """0.51 − 0.5 is 0.010000000000000009 in binary: at the tolerance, so right; 0.511 is one unit past it."""
    from helpers.widgets.questions import number_question

    question = number_question("What is it?", 0.5, 0.01)
    assert question.check(typed) is right


def test_the_answer_slack_is_float_noise_only():
    assert t.answer_slack(1.0) == pytest.approx(1e-9 + 1e-15)
    assert t.answer_slack(0.0) == 1e-15
    assert t.answer_slack(-2.0) == t.answer_slack(2.0)


@pytest.mark.parametrize(("difference", "agree"), [(1e-12, True), (0.9e-12, True), (1.1e-12, False), (0.0, True)])
def test_float64_noise_edge(difference, agree):
    assert t.agree_in_float64(difference) is agree


def test_unit_roundoff_by_name_and_dtype():
    assert t.unit_roundoff(np.float64) == 2.0**-53
    assert t.unit_roundoff(np.float32) == 2.0**-24
    assert t.unit_roundoff("float16") == 2.0**-11
    assert t.unit_roundoff("bfloat16") == 2.0**-8
    assert t.unit_roundoff("int64") == 2.0**-53  # anything else: float64's


# --- a learner's result: the room of a correct computation -----------------------------------------
ROW = np.array([-0.731, -0.371, 0.065, 1.413])


@pytest.mark.parametrize("quantity", ["mean", "variance", "std", "normalised"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_room_edge_one_step_each_side(quantity, dtype):
    """A value exactly at the room's edge is close; one percent of the room past it is not."""
    x = ROW.astype(dtype)
    mean, var = float(np.mean(ROW)), float(np.var(ROW))
    expected = {
        "mean": np.float64(mean),
        "variance": np.float64(var),
        "std": np.float64(np.sqrt(var + 1e-5)),
        "normalised": (ROW - mean) / np.sqrt(var + 1e-5),
    }[quantity]
    relative, absolute = t.result_room(quantity, x, 1e-5, dtype)
    edge = np.asarray(absolute) + relative * np.abs(expected)
    assert t.close_at(expected + 0.99 * edge, expected, (relative, absolute))
    assert t.close_at(expected - 0.99 * edge, expected, (relative, absolute))
    assert not t.close_at(expected + 1.01 * edge, expected, (relative, absolute))
    assert not t.close_at(expected - 1.01 * edge, expected, (relative, absolute))


def test_float64_room_is_below_float32_rounding_and_above_float64_noise():
    """The float64 room sits between a correct float64 result's noise (a few units of 2^-53) and the
    rounding of a float32 (2^-24): both sides of it are tested here, on the room itself."""
    relative, floor = t.ROOM["float64"]
    assert 64 * t.UNIT_ROUNDOFF["float64"] < relative < t.UNIT_ROUNDOFF["float32"] / 1000
    assert floor < 1e-12
    _, absolute = t.result_room("variance", ROW, 1e-5, np.float64)
    assert float(absolute) < 1e-10 / 100  # a variance with 1e-10 added is far outside


def test_the_room_grows_with_the_distance_from_zero():
    """A correct float64 row far from zero (10⁸ + …) gets room for its mean's rounding, which is n·u·10⁸."""
    far = 1e8 + np.array([0.0, 1.0, 2.0])
    _, near_room = t.result_room("normalised", np.array([0.0, 1.0, 2.0]), 1e-5)
    _, far_room = t.result_room("normalised", far, 1e-5)
    assert float(np.max(far_room)) > 1e6 * float(np.max(near_room))
    assert float(np.max(far_room)) < 1e-6  # but the one-pass variance's 2.0 for 0.667 is far outside


def test_an_unknown_quantity_is_refused():
    with pytest.raises(ValueError, match="No room"):
        t.result_room("gamma", ROW)
