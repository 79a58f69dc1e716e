"""A table handed over as float32 or float16 numbers, not printed ones: its last digits are its own arithmetic's
rounding. PyTorch's own output, unrounded, must be read as PyTorch's, to the places its type can hold, and
the table must say so; a float64 table is read by its digits alone, and a wrong convention stays wrong."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import helpers
from helpers.core.tolerance import stored_output_room
from helpers.forensics.table import fingerprint_table, held_in

LESSON = np.asarray(helpers.load_residual(), dtype=np.float64)


def torch_output(x, dtype=torch.float32, eps=1e-5):
    return torch.nn.functional.layer_norm(torch.tensor(x, dtype=dtype), (x.shape[1],), eps=eps).float().numpy()


def exact(x, eps=1e-5, divisor=None):
    n = x.shape[1]
    centred = x - x.mean(axis=1, keepdims=True)
    return centred / np.sqrt((centred**2).sum(axis=1, keepdims=True) / (divisor or n) + eps)


@pytest.mark.parametrize("scale, shift", [(1.0, 0.0), (1.0, 100.0), (0.01, 5.0), (30.0, -2.0)])
def test_pytorchs_raw_float32_output_is_explained_by_pytorchs_convention(scale, shift):
    x = LESSON * scale + shift
    found = fingerprint_table(x, torch_output(x))
    assert found.held_by == "float32"
    best = found.explained_by
    assert best and best[0].convention.short_name == "÷ n, ε inside √ (PyTorch)" and best[0].axis == "rows"
    assert best[0].eps_low <= 1e-5 <= best[0].eps_high
    assert str(found).splitlines()[-1] == (
        f"  y is float32: past {found.places} place{'' if found.places == 1 else 's'} its digits are its own arithmetic's rounding, "
        f"so it is read to {found.places}."
    )


def test_the_places_read_are_as_many_as_float32_holds_and_no_more():
    """Read to p places, every value must be within half a unit of the exact output; the room says how far it can be."""
    y = torch_output(LESSON)
    found = fingerprint_table(LESSON, y)
    room = stored_output_room(LESSON, "float32")
    assert 0.5 * 10.0**-found.places >= room > 0.5 * 10.0 ** -(found.places + 1)
    assert np.abs(y - exact(LESSON)).max() <= room


def test_a_float32_table_printed_to_fewer_places_is_read_to_those():
    y = np.round(torch_output(LESSON), 3)
    found = fingerprint_table(LESSON, y)
    assert (found.places, found.held_by) == (3, None)
    assert "its own arithmetic" not in str(found)


def test_a_float64_table_is_read_by_its_digits_alone():
    y = exact(LESSON)
    found = fingerprint_table(LESSON, y)
    assert (found.places, found.held_by) == (12, None)
    assert found.explained_by[0].convention.short_name == "÷ n, ε inside √ (PyTorch)"


def test_a_wrong_convention_in_float32_is_still_not_pytorchs():
    unbiased = exact(LESSON, divisor=LESSON.shape[1] - 1).astype(np.float32)
    found = fingerprint_table(LESSON, unbiased)
    names = [e.convention.short_name for e in found.explained_by]
    assert "÷ n, ε inside √ (PyTorch)" not in names and "÷ (n − 1), ε inside √" in names


def test_half_precision_outputs_are_read_in_their_own_type_even_inside_float32():
    for dtype, name in ((torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
        y = torch_output(LESSON, dtype)  # handed over as float32
        found = fingerprint_table(LESSON, y)
        assert found.held_by == name
        assert "÷ n, ε inside √ (PyTorch)" in [e.convention.short_name for e in found.explained_by]


@pytest.mark.parametrize(
    "values, kind",
    [
        (np.float32([[0.1, -1.3, 2.7]]), "float32"),
        (np.float32([[0.5, -1.25, 3.0]]), "bfloat16"),
        (np.float32([[0.5009765625, -1.25, 3.0]]), "float16"),  # 11 significant bits: float16, not bfloat16
        (np.float16([[0.5009765625, -1.25]]), "float16"),
        (np.float64([[0.5, -1.25]]), None),
        (np.array([[1, 2]]), None),
    ],
)
def test_the_type_a_table_was_computed_in_is_the_coarsest_that_holds_it(values, kind):
    assert held_in(values) == kind


def test_the_room_bounds_pytorchs_error_on_many_matrices():
    generator = np.random.default_rng(7)
    for _ in range(60):
        rows, n = generator.integers(1, 6), generator.integers(2, 9)
        x = generator.normal(generator.normal(0, 50), generator.uniform(0.01, 10), size=(rows, n))
        for dtype, name in ((torch.float32, "float32"), (torch.float16, "float16"), (torch.bfloat16, "bfloat16")):
            if name != "float32" and np.abs(x).max() > 1000:
                continue  # far past what half precision stores usefully
            off = np.abs(torch_output(x, dtype) - exact(x)).max()
            assert off <= stored_output_room(x, name), (name, x)


def test_no_room_where_nothing_rounds_or_nothing_spreads():
    assert stored_output_room(LESSON, "float64") == 0.0
    assert stored_output_room(np.ones((2, 3)), "float32") == 0.0


def test_the_room_is_its_docstrings_sum_row_by_row():
    """Twice (2u + n·u₃₂)·max|x|/σ + u·max|x − μ|/σ, the largest over the rows with σ > 0, worked out here in plain
    Python on a table with more columns than rows, rows far apart, and a constant row (left out)."""
    x = [[1.0, 2.0, 4.0, 8.0, 16.0], [100.0, 100.5, 99.0, 101.0, 100.25], [3.0, 3.0, 3.0, 3.0, 3.0]]
    u32, u16 = 2.0**-24, 2.0**-11
    for dtype, u in (("float32", u32), ("float16", u16)):
        rooms = []
        for row in x:
            n = len(row)
            mean = sum(row) / n
            sigma = (sum((v - mean) ** 2 for v in row) / n) ** 0.5
            if sigma > 0:
                top = max(abs(v) for v in row) / sigma
                largest = max(abs(v - mean) for v in row) / sigma
                rooms.append(2 * ((2 * u + n * u32) * top + u * largest))
        assert stored_output_room(x, dtype) == pytest.approx(max(rooms), rel=1e-12, abs=0)


def test_float64_noise_in_a_printed_table_is_not_read_as_more_places():
    """0.1 + 0.2 is 0.30000000000000004 in float64: a table holding it was printed to 1 place, not 17."""
    from helpers.forensics.table import printed_places

    assert printed_places(np.array([[0.1 + 0.2, -0.7]])) == 1
    assert printed_places(np.array([[1.1 * 3, 0.25]])) == 2  # 3.3000000000000003
    assert printed_places(np.array([[1e-7 + 2.0, 1.0]])) == 7
    assert printed_places(np.array([[99999.1 + 0.1, 5.0]])) == 1  # 99999.20000000001: noise grows with the value


def test_a_float32_table_printed_to_exactly_the_places_its_type_holds_gets_no_note():
    held = fingerprint_table(LESSON, torch_output(LESSON)).places  # what float32 holds for this matrix
    found = fingerprint_table(LESSON, np.round(torch_output(LESSON), held))
    assert (found.places, found.held_by) == (held, None)


def test_bfloat16_holds_no_decimal_place_of_the_lessons_output():
    found = fingerprint_table(LESSON, torch_output(LESSON, torch.bfloat16))
    assert (found.places, found.held_by) == (0, "bfloat16")


def test_a_float32_table_of_constant_rows_has_no_room_to_limit_it():
    x = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]])
    found = fingerprint_table(x, np.zeros((2, 3), dtype=np.float32))
    assert found.held_by is None and found.places == 0


def test_a_ragged_table_names_its_short_row():
    with pytest.raises(ValueError) as problem:
        fingerprint_table([[1.0, 2.0, 3.0], [1.0, 2.0]], np.zeros((2, 3)))
    assert str(problem.value) == "Row 2 of x has 2 numbers and row 1 has 3; every row needs the same."
