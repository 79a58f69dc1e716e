"""The floating-point types a fingerprint judges in (helpers/forensics/precision.py), in its docstrings' words:
each type's machine ε, float64's for anything else; the tolerance (1e-9 for float64 and anything else, a power
of 10 near 100 × ε for the others: float32 1e-5, float16 0.01, bfloat16 0.1); the least precise of several
types, unknown ones ignored; and a float64 rounded to the values a type stores (bfloat16's as torch stores them)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics.precision import lowest, rounded, roundoff, tolerance_of


@pytest.mark.parametrize("dtype", ["int64", "complex128", None])
def test_anything_but_a_known_float_has_float64s_machine_eps(dtype):
    assert roundoff(dtype) == 2.0**-52


@pytest.mark.parametrize(
    ("dtype", "tolerance"),
    [("float64", 1e-9), ("float32", 1e-5), ("float16", 0.01), ("bfloat16", 0.1), ("int64", 1e-9), (None, 1e-9)],
)
def test_each_types_tolerance_is_the_one_its_docstring_names(dtype, tolerance):
    assert tolerance_of(dtype) == tolerance


def test_the_least_precise_type_ignores_the_unknown_and_defaults_to_float64():
    assert lowest("float32", "bfloat16", "float16") == "bfloat16"
    assert lowest("float64", "float16", "int64") == "float16"
    assert lowest("int64", None) == "float64"
    assert lowest() == "float64"


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_float64_is_rounded_to_the_value_the_type_stores(dtype):
    x = np.array([0.1, 1 / 3, -2.675, 1e-3])
    assert list(rounded(x, dtype)) == [float(np.array(v, dtype=dtype)) for v in x]
    assert rounded(x, dtype).dtype == np.float64


def test_bfloat16_keeps_8_significant_bits_as_torch_stores_them():
    torch = pytest.importorskip("torch")
    x = np.array([0.1, 1 / 3, -2.675, 1.0 + 2.0**-7, 1.0 + 2.0**-9, 1.0 + 3 * 2.0**-9, 300.7, -1e-3])
    stored = torch.from_numpy(x).to(torch.bfloat16).to(torch.float64).numpy()
    assert list(rounded(x, "bfloat16")) == list(stored)
    assert stored[4] == 1.0 and stored[5] == 1.0 + 2.0**-7  # a half goes to the even bit, as in torch
