"""``layer_norm_low_precision``: the statistics are float32 (or float16), and the output is rounded to the storage
type, as a kernel writing into a float16 or bfloat16 tensor does. Returned as float64 values."""

import numpy as np
import pytest

from helpers.core.formula import layer_norm_forward
from helpers.lessons.numerics.precision import layer_norm_low_precision, stored_as, to_bfloat16

ROW = np.array([1.133, -0.299, 0.503, 2.71, -0.88])


def float32_output(row, storage, eps=1e-5):
    held = stored_as(row, storage).astype(np.float32)
    return layer_norm_forward(held, eps)[0]


@pytest.mark.parametrize("offset", [0.0, 300.0])
def test_float16_storage_with_float32_statistics_gives_float16_numbers(offset):
    output = layer_norm_low_precision(ROW + offset, "float16", "float32")
    assert output.dtype == np.float64
    expected = float32_output(ROW + offset, "float16").astype(np.float16).astype(np.float64)
    np.testing.assert_array_equal(output, expected)
    np.testing.assert_array_equal(output.astype(np.float16).astype(np.float64), output)  # float16 holds each


@pytest.mark.parametrize("offset", [0.0, 300.0])
def test_bfloat16_storage_with_float32_statistics_gives_bfloat16_numbers(offset):
    output = layer_norm_low_precision(ROW + offset, "bfloat16", "float32")
    expected = to_bfloat16(float32_output(ROW + offset, "bfloat16")).astype(np.float64)
    np.testing.assert_array_equal(output, expected)
    bits = output.astype(np.float32).view(np.uint32)
    assert np.all(bits & 0xFFFF == 0)  # only bfloat16's top 16 bits are used


def test_the_rounding_to_float16_is_visible_in_the_output():
    # the float32 result of row 1 has more bits than float16 keeps: storing it must change it
    unrounded = float32_output(ROW, "float16").astype(np.float64)
    output = layer_norm_low_precision(ROW, "float16", "float32")
    assert np.any(output != unrounded)
    assert np.max(np.abs(output - unrounded)) <= 2.0**-11 * np.max(np.abs(unrounded))
