"""``to_bfloat16``: round to nearest with ties to even on the top 16 bits of float32, and inf and NaN pass through,
whatever a NaN's low bits hold. bfloat16 keeps 8 significant bits, so its unit roundoff is 2⁻⁸ (``UNIT_ROUNDOFF``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers.lessons.numerics.precision import UNIT_ROUNDOFF, to_bfloat16

from conftest import examples


def from_bits(*patterns):
    return np.array(patterns, dtype=np.uint32).view(np.float32)


def test_a_nan_with_every_low_bit_set_is_still_nan():
    # adding the rounding carry to 0x7FFFFFFF would overflow the pattern into −0.0
    nans = from_bits(0x7FFFFFFF, 0xFFFFFFFF, 0x7F80FFFF, 0x7FC00000)
    assert np.isnan(to_bfloat16(nans)).all()


def test_infinities_stay_infinite_with_their_sign():
    np.testing.assert_array_equal(to_bfloat16([np.inf, -np.inf]), [np.inf, -np.inf])


def test_a_tie_rounds_to_the_even_neighbour():
    step = 2.0**-7  # bfloat16's spacing between 1 and 2
    ties = [1 + step / 2, 1 + 3 * step / 2, -(1 + step / 2), 2 + 2 * step / 2 * 3]
    # 1 + ½ step → 1 (even); 1 + 1½ steps → 1 + 2 steps (even); 2 + 3·(2 step)/2: at 2 the step is 2⁻⁶
    np.testing.assert_array_equal(to_bfloat16(ties), [1.0, 1 + 2 * step, -1.0, 2 + 4 * step])


def test_just_past_a_tie_rounds_up():
    np.testing.assert_array_equal(to_bfloat16(from_bits(0x3F808001)), [1 + 2.0**-7])


def test_bfloat16s_unit_roundoff_is_half_its_step_at_1():
    u = UNIT_ROUNDOFF["bfloat16"]
    assert u == 2.0**-8
    assert to_bfloat16(1 + u) == 1.0  # exactly half a step: a tie, to the even 1
    assert to_bfloat16(np.nextafter(np.float32(1 + u), np.float32(2))) == 1 + 2 * u


@settings(max_examples=examples(40, fast=15), deadline=None)
@given(st.floats(min_value=2.0**-126, max_value=2.0**127, allow_nan=False, width=32), st.booleans())
def test_rounding_to_bfloat16_moves_a_normal_number_by_at_most_its_unit_roundoff(size, negative):
    x = np.float32(-size if negative else size)
    rounded = float(to_bfloat16(x))
    assert abs(rounded - float(x)) <= UNIT_ROUNDOFF["bfloat16"] * abs(float(x))
