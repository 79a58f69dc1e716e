"""Notebook 09's comparisons in words (helpers/lessons/numerics/words.py): two errors are "about the same" when
neither is more than SAME (1.5) times the other, so exactly 1.5 times is still about the same and anything
past it is not; the medians' rule is the same with MEDIANS_SAME (1.1); a comparison with 0 cannot tell."""

from __future__ import annotations

import pytest

from helpers.lessons.numerics.words import MEDIANS_SAME, SAME, _compare


def said(a, b, threshold=SAME):
    return _compare(a, b, "bigger", "smaller", "same", threshold)


@pytest.mark.parametrize(
    ("a", "b", "words"),
    [
        (1.0, 1.0, "same"),
        (1.5, 1.0, "same"),  # exactly 1.5 times: not more than it
        (1.0, 1.5, "same"),
        (1.5000001, 1.0, "bigger"),
        (1.0, 1.5000001, "smaller"),
        (3.0, 2.0, "same"),
        (3.0000003, 2.0, "bigger"),
    ],
)
def test_about_the_same_up_to_one_and_a_half_times(a, b, words):
    assert said(a, b) == words


def test_medians_are_the_same_up_to_1_1_times():
    assert said(1.1, 1.0, MEDIANS_SAME) == "same"  # 1.1 × 1.0 is 1.1 in binary too
    assert said(1.1000001, 1.0, MEDIANS_SAME) == "bigger"
    assert said(1.0, 1.1000001, MEDIANS_SAME) == "smaller"


@pytest.mark.parametrize(("a", "b"), [(0.0, 1.0), (1.0, 0.0), (float("nan"), 1.0)])
def test_a_zero_or_nan_cannot_tell(a, b):
    assert said(a, b) == "cannot tell"
