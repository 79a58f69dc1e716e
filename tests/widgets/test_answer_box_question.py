"""The answer box's question (helpers/widgets/answer.py): with ``places`` it asks for at least that many
decimal places, in words a learner reads: "1 decimal place", any other count "decimal places" (0 included)."""

from __future__ import annotations

import pytest

from helpers import widgets

ROW = [1.133, -0.299, 0.503]


@pytest.mark.parametrize(
    ("places", "asked"),
    [(0, "0 decimal places"), (1, "1 decimal place"), (2, "2 decimal places"), (4, "4 decimal places")],
)
def test_the_question_asks_for_the_places_in_plain_words(places, asked):
    box = widgets.answer_checker(ROW, "mean", places=places)
    assert box.question.endswith(f" Give at least {asked}.")
    assert f"Give at least {asked}." in box.text()


def test_without_places_nothing_is_asked():
    assert "Give at least" not in widgets.answer_checker(ROW, "mean").question
