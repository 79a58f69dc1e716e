"""``typed_places`` (helpers/checking/answers.py): the decimal places a number was written with, never fewer than
0: "4.5e-3" has 4, but "2e3" (2000) and "1.5e2" (150) have none; "1.25e1" (12.5) has 1."""

from __future__ import annotations

import pytest

from helpers.checking.answers import diagnose, typed_places


@pytest.mark.parametrize(
    ("text", "places"), [("2e3", 0), ("1.5e2", 0), ("1.25e1", 1), ("1.25E+1", 1), ("-3.5e1", 0), ("12.5e0", 1)]
)
def test_a_positive_exponent_moves_the_point_and_leaves_no_fewer_than_0_places(text, places):
    assert typed_places(text) == places


def test_an_answer_written_with_an_exponent_is_judged_at_its_own_places():
    verdict = diagnose([140.0, 150.0, 160.0], "mean", "1.5e2")  # exactly 150
    assert verdict.is_right and verdict.places == 0, verdict
