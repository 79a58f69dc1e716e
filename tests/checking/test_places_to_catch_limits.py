"""How many places a question must ask for (helpers/checking/answers.py, places_to_catch): the fewest, at least
``least``, at which the named mistakes' digits are more than one unit in the last place from the right ones;
every count from ``least`` up to ``most`` is tried, ``most`` included, and none up to ``most``: ValueError."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.checking.answers import places_to_catch

ROW = [1.133, -0.299, 0.503]  # row 1 of the lesson: leaving ε out moves the std by about 8.6e-6


def test_leaving_eps_out_of_row_1s_std_is_caught_at_six_places_not_five():
    spread = float(np.std(ROW))
    moved = math.sqrt(spread**2 + 1e-5) - spread  # what leaving ε out does to √(σ² + ε)
    assert 1e-6 < moved < 1e-5  # more than a unit at 6 places, less than one at 5
    assert places_to_catch(ROW, "std", ("no-eps",)) == 6


def test_the_last_count_allowed_is_tried():
    assert places_to_catch(ROW, "std", ("no-eps",), most=6) == 6
    assert places_to_catch(ROW, "std", ("no-eps",), least=6, most=6) == 6


def test_one_place_short_of_what_is_needed_is_refused_in_words():
    with pytest.raises(ValueError, match="Up to 5 decimal places, no-eps gives? the same digits"):
        places_to_catch(ROW, "std", ("no-eps",), most=5)
