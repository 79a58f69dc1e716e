"""unit_roundoff: "Half the machine ε of ``dtype`` (a numpy or torch dtype, or its name)".

numpy spells a dtype several ways: the type (np.float16), a dtype object (np.dtype("float16"), what an array's
``.dtype`` is) and the C names "half", "single", "double". Each is the same precision, with the same unit:
half of numpy's own machine ε, worked out here from np.finfo.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.tolerance import unit_roundoff


@pytest.mark.parametrize(
    "dtype, precision",
    [
        (np.dtype("float16"), np.float16),
        (np.zeros(1, dtype=np.float32).dtype, np.float32),
        (np.dtype("float64"), np.float64),
        ("half", np.float16),
        ("single", np.float32),
        ("double", np.float64),
        (np.half, np.float16),
        (np.single, np.float32),
    ],
)
def test_every_spelling_of_a_precision_gives_half_its_machine_epsilon(dtype, precision):
    assert unit_roundoff(dtype) == float(np.finfo(precision).eps) / 2


def test_a_torch_style_name_is_read_without_its_prefix():
    assert unit_roundoff("torch.float16") == 2.0**-11 and unit_roundoff("torch.bfloat16") == 2.0**-8
