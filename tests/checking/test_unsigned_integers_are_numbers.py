"""Integers are numbers, signed or not (helpers.checking.reading).

The module reads what a learner's function returned as float64 numbers, or gives one sentence naming what
came back that is not numbers; integers and floats are numbers (``_dtype_problem``: "None when it is
(integers or floats)"). An array of unsigned integers (uint8 pixels, a uint64 count) is integers too: it is
read as numbers, never called text, booleans or "an array of uint8".
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.reading import numbers_of, read_result


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int64])
def test_an_integer_array_of_any_width_and_sign_is_read_as_its_numbers(dtype):
    array, problem = numbers_of(np.array([[1, 2, 3]], dtype=dtype))
    assert problem is None
    assert array.dtype == np.float64 and array.tolist() == [[1.0, 2.0, 3.0]]


def test_an_unsigned_result_of_the_right_shape_is_compared_not_refused():
    array, problem = read_result("layer_norm", (2, 3), np.zeros((2, 3), dtype=np.uint8))
    assert problem is None and array.shape == (2, 3)


def test_an_unsigned_number_among_a_lists_values_is_a_number():
    array, problem = numbers_of([np.uint8(1), 2.5, np.array([3], dtype=np.uint16)[0]])
    assert problem is None and array.tolist() == [1.0, 2.5, 3.0]
