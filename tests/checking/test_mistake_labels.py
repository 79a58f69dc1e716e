"""Which mistakes each step is checked for, and the words the lecturer's live page shows for a key.

From helpers.checking.mistakes' docstrings: ``singles`` are the catalogue's mistakes that show in a
quantity, a matrix adding the axis mistakes (for the steps after the std); ``compound`` shows where both
its mistakes show; ``name_of`` names one key or two joined by "+" (never more, never one twice), the
step-independent label first; ``labels`` has every key a checker may record, for a row and a matrix.
"""

from __future__ import annotations

import pytest

from helpers.checking import mistakes
from helpers.checking.mistakes import MATRIX, compound, for_quantity, labels, name_of, singles

AXES = {"wrong-axis", "no-axis", "lost-keepdims"}


def _one(key, quantity):
    return next(m for m in mistakes.MISTAKES if m.key == key and quantity in m.quantities)


def test_a_compound_shows_only_where_both_its_mistakes_show():
    both = compound(_one("n-1", "variance"), _one("no-eps", "std"))
    assert both.quantities == ("std", "normalised", "output", MATRIX)
    assert both.key == "n-1+no-eps" and both.name == "dividing by n − 1 and ε forgotten"


@pytest.mark.parametrize("quantity", ["normalised", "output"])
def test_a_row_is_not_checked_for_the_axis_mistakes_a_matrix_is(quantity):
    assert not AXES & {m.key for m in for_quantity(quantity)}
    assert not AXES & {m.key for m in singles(quantity)}
    assert AXES <= {m.key for m in singles(quantity, matrix=True)}


@pytest.mark.parametrize("quantity", ["mean", "variance", "std"])
def test_a_matrix_adds_no_mistake_to_the_steps_before_x_hat(quantity):
    assert singles(quantity, matrix=True) == singles(quantity)
    assert all(quantity in m.quantities for m in singles(quantity, matrix=True))


@pytest.mark.parametrize(
    "key, words",
    [
        ("n-1", "dividing by n − 1"),  # one label for every step (the mean's and the variance's n − 1)
        ("median", "the median instead of the mean"),  # the catalogue's own name
        ("rounding", "rounding along the way"),
        ("n-1+no-eps", "dividing by n − 1 and ε forgotten"),
    ],
)
def test_a_key_is_named_in_words_for_every_step(key, words):
    assert name_of(key) == words


@pytest.mark.parametrize("key", ["nonsense", "n-1+nonsense", "n-1+no-eps+median", "n-1+n-1", "no-eps+no-eps"])
def test_an_unknown_key_three_keys_or_one_key_twice_has_no_name(key):
    assert name_of(key) is None


def test_labels_has_every_key_a_checker_may_record_in_the_words_of_the_catalogue():
    words = labels()
    assert words["rounding"] == "rounding along the way"
    assert words["n-1+no-eps"] == "dividing by n − 1 and ε forgotten"
    assert words["wrong-axis"] == "the wrong axis (columns instead of rows)"  # a matrix's mistake
    assert words["lost-keepdims"] == "lost keepdims"
    for quantity in ("mean", "variance", "std", "normalised", "output"):
        for matrix in (False, True):
            for mistake in for_quantity(quantity, matrix):
                assert words[mistake.key] == name_of(mistake.key), mistake.key
    assert None not in words and None not in words.values()
