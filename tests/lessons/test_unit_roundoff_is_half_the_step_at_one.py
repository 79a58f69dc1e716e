"""``UNIT_ROUNDOFF``: u = 2⁻ᵖ for a type with p significant bits, half the spacing of its numbers at 1. The error
bounds and the storing sentence of notebook 09 are built on it."""

import numpy as np
import pytest

from helpers.lessons.numerics.precision import UNIT_ROUNDOFF


@pytest.mark.parametrize("kind", ["float16", "float32", "float64"])
def test_u_is_half_numpys_machine_epsilon(kind):
    assert UNIT_ROUNDOFF[kind] == float(np.finfo(kind).eps) / 2


@pytest.mark.parametrize(("kind", "bits"), [("float16", 11), ("bfloat16", 8), ("float32", 24), ("float64", 53)])
def test_u_is_two_to_minus_the_significant_bits(kind, bits):
    assert UNIT_ROUNDOFF[kind] == 2.0**-bits


@pytest.mark.parametrize("kind", ["float16", "float32", "float64"])
def test_one_plus_u_is_a_tie_that_rounds_back_to_one(kind):
    u = UNIT_ROUNDOFF[kind]
    t = np.dtype(kind).type
    assert t(1) + t(u) == t(1)  # exactly halfway: ties to the even 1
    assert t(1) + t(2 * u) > t(1)  # a whole step is a new number
