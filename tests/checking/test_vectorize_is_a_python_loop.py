"""np.vectorize loops in Python: notebook 07's "no loop over the rows" check names it.

helpers/checking/structure.py's docstring: each Python loop is a ``for`` or ``while`` statement, a
comprehension, "or a call that loops in Python for you (``map``, ``np.apply_along_axis``,
``np.vectorize``)". numpy's own documentation of vectorize says the same: it "is provided primarily for
convenience, not for performance. The implementation is essentially a for loop."
"""

from __future__ import annotations

import numpy as np

from helpers.checking.exercises import check
from helpers.checking.structure import python_loops


def layer_norm_vectorized(x, eps):
    mean = x.mean(axis=-1, keepdims=True)
    std = np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    return np.vectorize(lambda v, m, s: (v - m) / s)(x, mean, std)


def test_a_call_of_np_vectorize_is_listed_as_a_loop_on_its_line():
    loops = python_loops(layer_norm_vectorized)
    assert loops is not None
    assert [loop.line for loop in loops] == [4]  # the def line is line 1
    assert "np.vectorize" in loops[0].text and not loops[0].fixed


def test_a_right_layer_norm_through_np_vectorize_is_told_it_loops():
    result = check("layer_norm", layer_norm_vectorized)
    assert not result.passed
    assert result.mistake == "python-loop"
    assert "np.vectorize" in result.diagnosis
