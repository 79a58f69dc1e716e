"""A hand-rounded record ends with one line on what rounding did (helpers.display.steps._drift_summary).

"One line for a hand-rounded record: which stages rounding moved, if any ("" for an exact record)". x = 1, 3 at
2 places: mean 2, differences ∓1, squares 1, variance 1, std √1.00001 = 1.000005 → 1.00 and x̂ = ∓0.999995 →
∓1.00: no stage moves by more than its last place, and the line says so.
"""

from __future__ import annotations

from helpers.core.layernorm import layer_norm_steps
from helpers.display.steps import steps_table, steps_text

NOTHING_MOVED = "Rounding to 2 places changed no stage by more than its last place."


def test_a_hand_record_that_rounding_moved_nowhere_says_so_in_its_last_line():
    record = layer_norm_steps([1.0, 3.0], decimals=2)
    assert steps_table(record).notes == (NOTHING_MOVED,)
    assert steps_text(record).splitlines()[-1] == "  " + NOTHING_MOVED


def test_the_line_names_the_places_the_record_kept():
    record = layer_norm_steps([1.0, 3.0], decimals=5)
    assert steps_table(record).notes == ("Rounding to 5 places changed no stage by more than its last place.",)


def test_an_exact_record_has_no_such_line():
    assert steps_table(layer_norm_steps([1.0, 3.0])).notes == ()
