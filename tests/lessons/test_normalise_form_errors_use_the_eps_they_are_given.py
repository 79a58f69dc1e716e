"""``normalise_form_errors(rows, dtype, eps)``: rstd = 1/√(σ² + ε) with the ε given, against exact LayerNorm with
that same ε, so only the rounding of the normalise step is measured, whatever ε is."""

import numpy as np
import pytest

from helpers.lessons.numerics.errors import normalise_form_errors

ROWS = np.random.default_rng(8).normal(size=(6, 16)) * 0.5


@pytest.mark.parametrize("eps", [1.0, 0.25, 1e-5])
def test_with_any_eps_only_float32_rounding_is_left(eps):
    errors = normalise_form_errors(ROWS, np.float32, eps=eps)
    assert errors.shape == (6, 3)
    assert np.all(errors < 1e-6)  # a few float32 roundings of outputs below 4


def test_an_eps_as_large_as_the_variance_changes_the_outputs_it_is_checked_against():
    # σ² ≈ 0.25 here: with ε = 1 the truth is about half as large as with ε = 1e-5, so an rstd made with
    # the wrong ε would be off by far more than rounding
    spread = ROWS - ROWS.mean(axis=1, keepdims=True)
    with_one = spread / np.sqrt((spread**2).mean(axis=1, keepdims=True) + 1.0)
    with_tiny = spread / np.sqrt((spread**2).mean(axis=1, keepdims=True) + 1e-5)
    assert np.max(np.abs(with_one - with_tiny)) > 0.5
    assert np.max(normalise_form_errors(ROWS, np.float32, eps=1.0)) < 1e-6
