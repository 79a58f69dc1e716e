"""Notebook 10's eval-mode BatchNorm: every row normalised with the stored running statistics and the eps it is
given, ``(x − running_mean) / √(running_var + eps)``; the batch's own statistics play no part."""

import numpy as np
import pytest

from helpers.lessons.norm_family import batch_norm_eval

X = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.0]])
MEAN = np.array([0.5, 1.0])
VAR = np.array([0.25, 3.0])


@pytest.mark.parametrize("eps", [0.75, 1.0, 1e-5])
def test_eval_mode_uses_the_eps_it_is_given(eps):
    expected = np.array([[(x - m) / np.sqrt(v + eps) for x, m, v in zip(row, MEAN, VAR)] for row in X])
    np.testing.assert_allclose(batch_norm_eval(X, MEAN, VAR, eps=eps), expected, rtol=1e-15)


def test_with_eps_0_75_the_first_column_divides_by_exactly_1():
    # 0.25 + 0.75 = 1 and 3 + 1 = 4 (eps = 1): whole numbers to read off
    np.testing.assert_array_equal(batch_norm_eval(X, MEAN, VAR, eps=0.75)[:, 0], [0.5, 2.5, 0.0])
    np.testing.assert_array_equal(batch_norm_eval(X, MEAN, [0.0, 3.0], eps=1.0)[:, 1], [0.5, -1.0, -0.5])


def test_each_row_is_normalised_alone_so_one_row_gives_the_same_answer_as_in_the_batch():
    whole = batch_norm_eval(X, MEAN, VAR, eps=0.75)
    for k in range(len(X)):
        np.testing.assert_array_equal(batch_norm_eval(X[k : k + 1], MEAN, VAR, eps=0.75), whole[k : k + 1])
