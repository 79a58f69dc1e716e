"""What a widget types into a field for a number given in code (helpers.widgets.base.number_text, as_text).

From the docstrings: ``number_text`` is "the shortest text that reads back as exactly ``value``: ``1`` (not
``1.0``), ``0.503``, ``1e-05``", and -0.0 is written as 0 (a person never types "-0"); ``as_text`` keeps text as
it is and writes a list or an array of numbers as those texts joined by a comma and a space.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402
from helpers.widgets.base import as_text, number_text  # noqa: E402


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (1, "1"),
        (0.503, "0.503"),
        (1e-05, "1e-05"),
        (-2.5, "-2.5"),
        (0.0, "0"),
        (-0.0, "0"),
        (np.float64(-0.0), "0"),
        (np.int64(-3), "-3"),
        (np.uint8(200), "200"),
        (np.float32(0.5), "0.5"),
    ],
)
def test_a_number_is_written_in_the_shortest_text_that_reads_back_as_it(value, text):
    assert number_text(value) == text
    assert float(text) == float(value)


def test_minus_zero_is_never_written_with_its_sign():
    assert not number_text(-0.0).startswith("-")
    assert as_text([-0.0, 1.0, -0.0]) == "0, 1, 0"


def test_text_is_kept_as_typed_and_arrays_are_joined_value_by_value():
    assert as_text(" 1,5  2 ") == " 1,5  2 "
    assert as_text(np.array([[1.0, -0.5], [2.0, 1e-05]])) == "1, -0.5, 2, 1e-05"
    assert as_text(np.array([True, False]).astype(np.uint8)) == "1, 0"
    assert as_text(np.float64(2.0)) == "2"


def test_the_matrix_editor_shows_minus_zero_as_0_in_its_cell_and_its_eps_field():
    editor = widgets.matrix_editor([[-0.0, 1.0, 2.0]], eps=1e-05)
    assert [cell.value for cell in editor.cells[0]] == ["0", "1", "2"]
    assert editor.eps_text.value == "1e-05"
