"""The room of a correct result (helpers.core.tolerance.result_room), worked by hand from its docstring, row by
row; and the smaller rules in their own words: a torch dtype or numpy's other names for a type, NaN against
NaN, the boundary's own room.

The docstring's terms: the precision's (relative, floor) — float32's are the series' (1e-4, 1e-6), float64's
2^-43 and 2^-49 —; eight times the worst rounding of a sum of n values of the row's size, room = 8 n u; the
mean's own rounding δ = n u max|x|, which adds δ² to the variance, and to the std what δ² in the variance does
to a square root; x̂'s "mean's rounding divided by the row's std" over ten floors; the output's room scaled by
the largest |γ| · |x̂| + |β| of each row (``scale``), or by the row's largest |x|. Expected values are worked
here in exact decimals (50 digits), not read from the module.
"""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
import pytest

from helpers.core import tolerance as t

PRECISIONS = {"float64": (2.0**-53, 2.0**-43, 2.0**-49), "float32": (2.0**-24, 1e-4, 1e-6)}  # u, relative, floor

ORDINARY = [-0.731, -0.371, 0.065, 1.413]
FAR = [1e8, 1e8 + 1, 1e8 + 2, 1e8 + 3]  # far from zero: the mean's rounding δ is a visible part of the room
CONSTANT_FAR = [1e8, 1e8, 1e8, 1e8]  # variance 0: the std's room is what δ² alone does to it


def by_hand(quantity: str, row: list[float], eps: float, precision: str, scale: float | None = None) -> float:
    """The absolute room of one row, from the docstring's terms, in 50-digit decimals."""
    u, _, floor = (Decimal(v) for v in PRECISIONS[precision])
    with localcontext() as context:
        context.prec = 50
        xs = [Decimal(v) for v in row]
        n = len(xs)
        top = max(abs(v) for v in xs)
        mean = sum(xs) / n
        var = sum((v - mean) ** 2 for v in xs) / n
        eps = Decimal(eps)
        room = 8 * n * u
        delta = n * u * top
        if quantity == "output":
            return float(floor + room * (top if scale is None else Decimal(scale)))
        value = {
            "mean": lambda: floor + room * top,
            "variance": lambda: floor + room * var + delta**2,
            "std": lambda: floor + room * var.sqrt() + ((var + eps + delta**2).sqrt() - (var + eps).sqrt()),
            "normalised": lambda: 10 * floor + room * top / (var + eps).sqrt(),
        }[quantity]()
        return float(value)


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("quantity", ["mean", "variance", "std"])
@pytest.mark.parametrize(
    ("row", "eps"), [(ORDINARY, 1e-5), (FAR, 1e-5), (FAR, 0.0), (CONSTANT_FAR, 0.0), (CONSTANT_FAR, 1e-5)]
)
def test_the_room_of_a_row_statistic_is_its_docstrings_sum(quantity, precision, row, eps):
    relative, absolute = t.result_room(quantity, np.array(row), eps, np.dtype(precision))
    assert relative == PRECISIONS[precision][1]
    assert np.ndim(absolute) == 0  # "a 0-d array for the scalar quantities"
    assert float(absolute) == pytest.approx(by_hand(quantity, row, eps, precision), rel=1e-9)


def test_a_constant_row_far_from_zero_gets_the_means_rounding_as_its_std_room():
    """Variance 0 and no ε: the std of a row whose mean is off by δ is δ itself, so its room is floor + δ."""
    u, _, floor = PRECISIONS["float64"]
    _, absolute = t.result_room("std", np.array(CONSTANT_FAR), 0.0)
    assert float(absolute) == pytest.approx(floor + 4 * u * 1e8, rel=1e-9)


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("quantity", ["normalised", "output"])
def test_a_matrix_gets_one_room_per_row_each_its_own_rows(quantity, precision):
    """Two rows of very different sizes: each row's room is the one it gets alone, and the room broadcasts
    against the matrix (one value per row, not one for the matrix or one per column)."""
    rows = [ORDINARY, FAR]
    x = np.array(rows)
    relative, absolute = t.result_room(quantity, x, 1e-5, np.dtype(precision))
    assert relative == PRECISIONS[precision][1]
    assert np.broadcast_shapes(np.shape(absolute), x.shape) == x.shape
    assert np.asarray(absolute).size == len(rows)
    expected = [by_hand(quantity, row, 1e-5, precision) for row in rows]
    assert np.asarray(absolute, dtype=np.float64).ravel() == pytest.approx(expected, rel=1e-9)
    for row, alone in zip(rows, expected):
        _, single = t.result_room(quantity, np.array(row), 1e-5, np.dtype(precision))
        assert float(np.asarray(single).ravel()[0]) == pytest.approx(alone, rel=1e-9)


def test_the_outputs_room_is_scaled_by_the_scale_given_row_by_row():
    x = np.array([ORDINARY, FAR])
    scale = np.array([[2.5], [7.0]])
    _, absolute = t.result_room("output", x, dtype=np.float32, scale=scale)
    expected = [by_hand("output", row, 0.0, "float32", s) for row, s in zip([ORDINARY, FAR], [2.5, 7.0])]
    assert np.asarray(absolute).ravel() == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("quantity", ["std", "normalised"])
def test_without_eps_the_room_is_that_of_eps_zero(quantity):
    for row in (ORDINARY, CONSTANT_FAR) if quantity == "std" else (ORDINARY,):  # x̂ of a constant row: no std
        _, default = t.result_room(quantity, np.array(row))
        _, zero = t.result_room(quantity, np.array(row), 0.0)
        np.testing.assert_array_equal(default, zero)


@pytest.mark.parametrize("quantity", ["mean", "variance", "std", "normalised", "output"])
def test_the_room_depends_on_the_inputs_values_and_dtype_argument_not_its_storage(quantity):
    """``dtype`` says the precision; a float32 array gets the same room as the same values in float64."""
    x32 = np.array(FAR[:3] + [1e8 + 0.5], dtype=np.float32)
    _, stored32 = t.result_room(quantity, x32, 1e-5, np.float32)
    _, stored64 = t.result_room(quantity, x32.astype(np.float64), 1e-5, np.float32)
    np.testing.assert_array_equal(stored32, stored64)


# --- the smaller rules -------------------------------------------------------------------------------


def test_torch_dtypes_have_their_own_unit_roundoff():
    torch = pytest.importorskip("torch")
    assert t.unit_roundoff(torch.float32) == 2.0**-24
    assert t.unit_roundoff(torch.float16) == 2.0**-11
    assert t.unit_roundoff(torch.bfloat16) == 2.0**-8
    assert t.unit_roundoff(torch.float64) == 2.0**-53


@pytest.mark.parametrize(("name", "unit"), [("single", 2.0**-24), ("half", 2.0**-11), ("double", 2.0**-53)])
def test_numpys_other_names_for_a_type_are_that_type(name, unit):
    assert t.unit_roundoff(name) == unit
    assert t.unit_roundoff(np.dtype(name)) == unit


def test_the_boundarys_own_room_is_inside_too():
    """``off`` ≤ ``limit`` · (1 + EDGE): the room's own edge is included, as ≤ says."""
    limit = 0.001
    assert t.within(limit * (1 + t.EDGE), limit)
    assert not t.past(limit * (1 + t.EDGE), limit)


def test_nan_equals_nan_and_nothing_else():
    room = (1e-4, 1e-6)
    assert t.close_at(float("nan"), float("nan"), room)
    assert t.close_at(np.array([1.0, np.nan]), np.array([1.0, np.nan]), room)
    assert not t.close_at(np.array([1.0, np.nan]), np.array([1.0, 1.0]), room)
