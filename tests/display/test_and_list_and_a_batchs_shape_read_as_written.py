"""Two ways display writes what it counts, read as a sentence reads them.

and_list: "Items as a sentence lists them: "3", "3 and 5", "3, 5 and 128"" (the circle's rows of equal values,
the module check's widths). The comparison's title names the matrix's shape, every axis of a batch of rows
(compare_implementations runs on any leading shape): 2×4×3, not 2×4.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from helpers.display.formatting import and_list
from helpers.display.verdicts import comparison_table


@pytest.mark.parametrize(
    "items, sentence",
    [([3], "3"), ([3, 5], "3 and 5"), ([3, 5, 128], "3, 5 and 128"), (["a", "b", "c", "d"], "a, b, c and d")],
)
def test_items_are_listed_as_a_sentence_lists_them(items, sentence):
    assert and_list(items) == sentence
    assert and_list(iter(items)) == sentence  # any iterable, read once


@pytest.mark.parametrize("shape, written", [((2, 4, 3), "2×4×3"), ((3,), "3"), ((5, 3), "5×3")])
def test_the_comparisons_title_names_every_axis_of_the_shape(shape, written):
    report = SimpleNamespace(rows=(), shape=shape, eps=1e-5, reference_name="torch.nn.LayerNorm")
    assert comparison_table(report).title == (
        f"LayerNorm on a {written} matrix (float64, eps = 1e-05) against torch.nn.LayerNorm"
    )
