"""``layer_norm_backward_steps(row, dy, gamma, eps)`` keeps every piece of the closed form with the ε it is given:
σ_ε = √(σ² + ε), x̂ = (x − μ)/σ_ε and dx = (g − mean(g) − x̂·mean(g·x̂)) / σ_ε, worked here in plain numpy."""

import numpy as np
import pytest

from helpers.lessons.backward.gradients import layer_norm_backward_steps

ROW = np.array([1.0, 3.0, 5.0, 7.0])  # μ = 4, σ² = 5
DY = np.array([1.0, 0.0, -2.0, 0.5])


@pytest.mark.parametrize(("eps", "std"), [(4.0, 3.0), (11.0, 4.0), (0.0, np.sqrt(5.0))])
def test_every_piece_uses_the_given_eps(eps, std):
    steps = layer_norm_backward_steps(ROW, DY, eps=eps)
    assert steps.std == pytest.approx(std, rel=1e-15)
    x_hat = (ROW - 4.0) / std
    np.testing.assert_allclose(steps.normalised, x_hat, rtol=1e-15)
    assert steps.mean_g_normalised == pytest.approx(np.mean(DY * x_hat), rel=1e-14)
    expected = (DY - DY.mean() - x_hat * np.mean(DY * x_hat)) / std
    np.testing.assert_allclose(steps.grad_x, expected, rtol=1e-13)


def test_with_eps_4_the_row_divides_by_exactly_3():
    steps = layer_norm_backward_steps(ROW, DY, eps=4.0)
    assert steps.std == 3.0
    np.testing.assert_array_equal(steps.normalised, [-1.0, -1 / 3, 1 / 3, 1.0])
