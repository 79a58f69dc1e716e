"""The reconstructed 2020 kernel and ``normalise_two_ways`` both take ``eps``: rstd = 1/√(σ² + ε) with that ε.
On the row [1, 3] every step is exact in float32: μ = 2, σ² = 1, so ε = 3 gives rstd = ½ and outputs ∓½."""

import numpy as np
import pytest

from helpers.lessons.numerics.history import one_pass_kernel_2020
from helpers.lessons.numerics.precision import normalise_two_ways

ROW = [1.0, 3.0]


@pytest.mark.parametrize(("eps", "half_width"), [(3.0, 0.5), (0.0, 1.0), (15.0, 0.25)])
def test_the_old_kernel_divides_by_the_root_of_variance_plus_its_eps(eps, half_width):
    result = one_pass_kernel_2020([ROW], eps=eps)
    assert (result.mean[0], result.variance[0]) == (2.0, 1.0)
    np.testing.assert_array_equal(result.output[0], [-half_width, half_width])


@pytest.mark.parametrize(("eps", "half_width"), [(3.0, 0.5), (0.0, 1.0), (15.0, 0.25)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_both_ways_of_writing_the_normalise_step_use_its_eps(eps, half_width, dtype):
    factored, fused = normalise_two_ways(ROW, dtype, eps=eps)
    np.testing.assert_array_equal(factored, [-half_width, half_width])
    np.testing.assert_array_equal(fused, [-half_width, half_width])
