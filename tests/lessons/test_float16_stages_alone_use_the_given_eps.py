"""``float16_stage_errors(row, eps)``: each stage alone is float16 with every other step exact, and exact includes
dividing by √(σ² + ε) with the ε given. On a row whose mean and variance float16 computes exactly, the mean stage
and the variance stage alone have nothing to get wrong: their error is 0 for any ε."""

import numpy as np
import pytest

from helpers.lessons.numerics.errors import float16_stage_errors

# float16 numbers whose running sums, mean 0.375, squared differences and their mean 1.578125 are float16 numbers
ROW = np.array([0.25, -1.5, 2.0, 0.75])


def test_every_step_of_the_mean_and_variance_is_exact_in_float16():
    h = np.float16
    assert h(0.25) + h(-1.5) + h(2.0) + h(0.75) == h(1.5) and h(h(1.5) / h(4)) == 0.375
    squares = (ROW - 0.375) ** 2
    assert np.all(squares.astype(np.float16) == squares) and h(h(squares.sum()) / h(4)) == 1.578125


@pytest.mark.parametrize("eps", [0.5, 2.0, 1e-5])
def test_the_mean_and_variance_stages_alone_are_exact_with_any_eps(eps):
    stages = float16_stage_errors(ROW, eps=eps)
    assert stages.alone["mean"] == 0.0
    assert stages.alone["variance"] == 0.0


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_the_normalise_stage_alone_is_off_only_by_float16_rounding(eps):
    truth_size = np.max(np.abs(ROW - 0.375)) / np.sqrt(1.578125 + eps)
    assert 0 < float16_stage_errors(ROW, eps=eps).alone["normalise"] <= 4 * 2.0**-11 * truth_size
