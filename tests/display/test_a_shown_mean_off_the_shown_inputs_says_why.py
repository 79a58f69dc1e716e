"""An exact record whose shown mean is not the mean of the inputs shown above it says so (helpers.display.steps).

_rounding_note's promise: "For an exact record whose shown mean or variance is not the mean of the numbers shown
above it (each step is worked out from unrounded numbers): one line that says so, with the sum a calculator
gives." The row -1.00004, -1.00004, -1.00008 has mean -1.0000533 (shown -1.0001), while its inputs as shown,
-1.0000, -1.0000 and -1.0001, average -1.0000333 (a calculator's -1.0000): worked out here by hand.
"""

from __future__ import annotations

from fractions import Fraction

from helpers.core.layernorm import layer_norm_steps
from helpers.display.steps import steps_table, steps_text

ROW = [-1.00004, -1.00004, -1.00008]
NOTE = (
    "Rounded only for showing: each step is worked out from the unrounded numbers, so mean = -1.0001 while "
    "((-1.0000) + (-1.0000) + (-1.0001)) / 3 = -1.0000."
)


def test_the_hand_arithmetic_behind_the_note():
    true_mean = sum(Fraction(str(v)) for v in ROW) / 3
    shown_mean = sum(Fraction(v) for v in ("-1.0000", "-1.0000", "-1.0001")) / 3
    assert round(true_mean, 4) == Fraction("-1.0001") and round(shown_mean, 4) == Fraction("-1.0000")


def test_an_exact_record_whose_shown_mean_disagrees_with_its_shown_inputs_says_so_with_negatives_in_brackets():
    record = layer_norm_steps(ROW)
    assert steps_table(record).notes == (NOTE,)
    assert steps_text(record).splitlines()[-1] == "  " + NOTE


def test_the_note_needs_both_the_mean_and_the_inputs_it_is_worked_from_on_show():
    record = layer_norm_steps(ROW)
    assert steps_table(record, stages=["input", "mean"]).notes == (NOTE,)
    assert steps_table(record, stages=["mean"]).notes == ()
    assert steps_table(record, stages=["input", "differences"]).notes == ()


def test_a_mean_that_is_the_mean_of_what_is_shown_needs_no_note():
    assert steps_table(layer_norm_steps([1.0, 2.0, 3.0])).notes == ()
