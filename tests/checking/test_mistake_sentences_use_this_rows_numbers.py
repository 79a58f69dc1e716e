"""The sentences a learner reads about a mistake are computed for the row at hand
(helpers/checking/mistakes/sentences.py and the catalogue's own, helpers/checking/mistakes/__init__.py): the
row's n, √ε for ε, both roots side by side (or that they are equal), the row where the one-pass variance loses
its digits (its mean and variance), and, for a matrix, the row where ε matters most (the smallest variance)."""

from __future__ import annotations

import numpy as np

from helpers.checking import mistakes
from helpers.checking.mistakes import sentences
from helpers.checking.mistakes.sentences import Context


def advice(key, quantity, x, eps=1e-5):
    entry = next(m for m in mistakes.for_quantity(quantity) if m.key == key)
    return entry.advice(Context(np.asarray(x, dtype=np.float64), eps))


def test_a_hard_coded_width_names_this_rows_length():
    assert sentences.width(Context(np.zeros(7))) == (
        "Divide by n = len(row) (or x.shape[-1]), not by 3: your function must work for rows of any length, "
        "and this one has 7 values."
    )
    assert sentences.width(Context(np.zeros((2, 5)))).endswith("this one has 5 values.")  # a matrix: its rows' length


def test_root_eps_outside_gives_the_root_of_this_eps():
    assert sentences.root_eps_outside(Context(np.array([1.0, 2.0]), 1e-4)) == (
        "√(σ² + ε) is not √σ² + √ε: the root of a sum is not the sum of the roots (√ε = 0.01 is far larger than "
        "ε = 0.0001). Add ε under the root: np.sqrt(var + eps)."
    )
    assert "(√ε = 0.00316 is far larger than ε = 1e-05)" in sentences.root_eps_outside(Context(np.ones(2), 1e-5))


def test_eps_outside_says_when_both_roots_are_equal():
    row = np.array([0.0, 2e8])  # σ = 1e8: ε = 1e-20 moves neither root in float64's 17 digits
    assert sentences.eps_outside(Context(row, 1e-20)) == (
        "ε goes inside the square root: √(σ² + ε), not √σ² + ε. "
        "Here both give 100000000 (equal at float64's precision)."
    )


def test_no_eps_uses_the_matrix_row_where_eps_matters_most():
    x = np.array([[0.0, 2.0], [0.0, 0.2]])  # variances 1 and 0.01: the second is where ε matters most
    assert np.isclose(Context(x).variance, 0.01)
    text = sentences.no_eps(Context(x, 1e-5))
    assert "Here σ² = 0.01, and ε = 1e-05 moves the std from 0.1 to " in text, text
    assert f"({np.sqrt(0.01 + 1e-5) / 0.1 - 1:.1e} of its size)" in text


def test_the_one_pass_sentence_names_this_rows_mean_and_variance():
    row = np.array([1000.0, 1001.0, 1002.0])  # μ = 1001, σ² = 2/3
    text = sentences.one_pass(Context(row))
    assert " Here the row's mean is 1001 and its variance only 0.667: E[x²] ≈ 1e+06, so the digits that make " in text
    assert text.endswith("Subtract the mean first, then square: the mean of (x − μ)².")


def test_the_one_pass_sentence_for_a_matrix_names_the_row_furthest_from_zero():
    x = np.array([[0.0, 1.0, 2.0], [5000.0, 5001.0, 5002.0], [100.0, 101.0, 102.0]])
    text = sentences.one_pass(Context(x))
    assert " Here one row's mean is 5001 and its variance only 0.667: E[x²] ≈ 2.5e+07, so" in text, text


def test_the_one_pass_sentence_has_no_numbers_for_a_constant_row():
    text = sentences.one_pass(Context(np.array([3.0, 3.0, 3.0])))
    assert "Here" not in text and text.startswith("E[x²] − E[x]² equals the variance in exact arithmetic")


def test_the_mean_and_variance_divisor_sentences_name_this_rows_n():
    row = [1.0, 2.0, 4.0, 8.0, 16.0]
    assert advice("n-1", "mean", row) == ("The mean divides the sum by n = 5, the number of values, not by n − 1 = 4.")
    assert advice("sum-not-divided", "mean", row) == "That is the sum of the values: divide it by n = 5."
    assert advice("sum-not-divided", "variance", row) == (
        "The variance is the mean of the squared differences: divide their sum by n = 5."
    )
