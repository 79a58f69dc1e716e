"""A hand-rounded record shows its input as given (helpers.display.steps.shown_places).

"By hand, each step is rounded to ``places``, but not the input (...): they show the places they have", at least
the record's own places and at most MAX_INPUT_PLACES (10). Whole numbers have no places of their own: at 0
places, 1, 2, 4 read "1", "2", "4" as a person wrote them.
"""

from __future__ import annotations

import pytest

from helpers.core.layernorm import layer_norm_steps
from helpers.display.steps import steps_table


def shown_input(row, decimals):
    return steps_table(layer_norm_steps(row, decimals=decimals)).lines[0].numbers


@pytest.mark.parametrize(
    "row, decimals, shown",
    [
        ([1.0, 2.0, 4.0], 0, ("1", "2", "4")),  # whole numbers: no places of their own
        ([1.0, 2.0, 4.0], 2, ("1.00", "2.00", "4.00")),  # never fewer than the record's places
        ([1.5, 2.0, 4.0], 0, ("1.5", "2.0", "4.0")),  # the most places any value was given with
        ([1.5, 2.25, 4.0], 1, ("1.50", "2.25", "4.00")),
        ([1.133, -0.299, 0.503], 0, ("1.133", "-0.299", "0.503")),
        ([0.00001, 2.0, 4.0], 2, ("0.0000100000", "2.0000000000", "4.0000000000")),  # written 1e-05: 10 places
        ([1.123456789012, 2.0], 3, ("1.1234567890", "2.0000000000")),  # at most 10 places
    ],
)
def test_the_input_shows_the_places_it_was_given_with(row, decimals, shown):
    assert shown_input(row, decimals) == shown


def test_an_exact_record_shows_its_input_at_the_tables_places():
    assert steps_table(layer_norm_steps([1.0, 2.0, 4.0])).lines[0].numbers == ("1.0000", "2.0000", "4.0000")
