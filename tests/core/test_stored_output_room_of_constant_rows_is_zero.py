"""stored_output_room: "the largest over the rows with σ > 0 (0.0 when no row has one)" (helpers.core.tolerance).

A table whose every row is constant stores an output of zeros exactly, in any type; its room is 0.0, not an
error, and the forensics read 0.0 as "no limit" on the places such a table holds. Float64 counts as exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.tolerance import stored_output_room


@pytest.mark.parametrize("dtype", ["float16", "float32", "bfloat16"])
@pytest.mark.parametrize("x", [[[5.0, 5.0, 5.0]], [[1.0, 1.0], [-3.0, -3.0]], [[7.0]], [[1e300, 1e300]]])
def test_a_table_of_constant_rows_has_no_room(x, dtype):
    assert stored_output_room(np.array(x), dtype) == 0.0


def test_float64_has_no_room_whatever_the_rows():
    assert stored_output_room(np.array([[1.0, 2.0, 3.0]]), "float64") == 0.0
    assert stored_output_room(np.array([[1.0, 2.0, 3.0]]), np.float64) == 0.0
