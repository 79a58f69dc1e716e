"""The state probe's room for B, A's rows in reverse order (helpers/forensics/behaviour.py): a row-by-row
function is held to the same tolerance as A, a function of the columns or of the whole matrix gets up to
64 of its roundings, or 1e-3, whichever is larger (reordering the rows reorders a column's sum); only a change
beyond that room says the function keeps something from an earlier call."""

from __future__ import annotations

from helpers.forensics.behaviour import Behaviour


def behaviour(reorder_change, tolerance=1e-12, reorder_tolerance=1e-3):
    return Behaviour(0.0, reorder_change, 0.0, tolerance, reorder_tolerance)


def test_a_change_within_the_reorder_room_is_not_reordering():
    assert not behaviour(5e-4).reordered()  # past the tolerance, inside the room for a column's sum
    assert not behaviour(1e-3).reordered()  # exactly at the room


def test_a_change_past_the_reorder_room_is():
    assert behaviour(1.01e-3).reordered()
    assert behaviour(0.5).reordered()


def test_row_by_row_the_room_is_the_tolerance_itself():
    tolerance = 1e-9
    assert not behaviour(tolerance, tolerance, reorder_tolerance=tolerance).reordered()
    assert behaviour(2 * tolerance, tolerance, reorder_tolerance=tolerance).reordered()


def test_the_larger_of_the_two_is_the_room():
    assert not behaviour(5e-3, tolerance=1e-2, reorder_tolerance=1e-3).reordered()
    assert behaviour(2e-2, tolerance=1e-2, reorder_tolerance=1e-3).reordered()
