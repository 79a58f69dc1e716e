"""The room a stored LayerNorm output gets, term by term as helpers.core.tolerance.stored_output_room states it.

Per row: x rounded to the type moves x̂ by up to 2u·max|x|/σ, sums in float32 by n·u₃₂·max|x|/σ, storing the
output by u·max|x̂|; the room is twice their sum, the largest over the rows with σ > 0. Worked by hand on
rows whose σ and x̂ are known exactly, so that a room that loses its factor 2 (or a term) is seen."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.core.tolerance import stored_output_room

U32, U16 = 2.0**-24, 2.0**-11


def test_a_row_1_2_3_in_float32_gets_twice_the_three_terms():
    sigma = math.sqrt(2 / 3)  # x̂ = (−1, 0, 1)/σ, max|x|/σ = 3/σ
    terms = (2 * U32 + 3 * U32) * 3 / sigma + U32 * 1 / sigma  # 16 u / σ
    assert stored_output_room(np.array([[1.0, 2.0, 3.0]]), "float32") == pytest.approx(2 * terms, rel=1e-12)


def test_a_row_in_float16_sums_in_float32_but_stores_in_float16():
    sigma = math.sqrt(2 / 3)
    terms = (2 * U16 + 3 * U32) * 3 / sigma + U16 * 1 / sigma
    assert stored_output_room(np.array([[1.0, 2.0, 3.0]]), "float16") == pytest.approx(2 * terms, rel=1e-12)


def test_the_room_is_the_widest_rows_and_a_constant_row_adds_none():
    x = np.array([[1.0, 2.0, 3.0], [10.0, 11.0, 12.0], [5.0, 5.0, 5.0]])
    sigma = math.sqrt(2 / 3)
    widest = 2 * ((2 * U32 + 3 * U32) * 12 / sigma + U32 / sigma)  # the second row: max|x| = 12
    assert stored_output_room(x, "float32") == pytest.approx(widest, rel=1e-12)
