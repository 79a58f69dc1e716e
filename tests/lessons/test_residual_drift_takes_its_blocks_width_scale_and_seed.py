"""``residual_drift(blocks, width, update_scale, seed)``: a stream of ``width`` values, ``blocks`` updates of size
``update_scale``, one relative error per block for each kept type, all from one seed."""

import numpy as np

from helpers.lessons.numerics.lowprec import RESIDUAL_TYPES, residual_drift
from helpers.lessons.numerics.precision import stored_as


def test_no_update_leaves_every_stream_exact():
    drift = residual_drift(blocks=5, width=32, update_scale=0.0)
    for kind in RESIDUAL_TYPES:
        np.testing.assert_array_equal(drift[kind].stream_error, np.zeros(5))
        assert drift[kind].norm_error == 0.0


def test_one_block_of_a_small_stream_is_one_rounding_of_start_plus_update():
    rng = np.random.default_rng(4)
    start = stored_as(rng.standard_normal(8), "bfloat16")
    update = stored_as(rng.standard_normal((1, 8)) * 3.0, "bfloat16")[0]
    exact = start + update
    drift = residual_drift(blocks=1, width=8, update_scale=3.0, seed=4)
    for kind in RESIDUAL_TYPES:
        kept = stored_as(start + update, kind)
        (error,) = drift[kind].stream_error
        assert error == np.linalg.norm(kept - exact) / np.linalg.norm(exact)


def test_the_sizes_asked_for_give_one_error_per_block():
    drift = residual_drift(blocks=3, width=16, seed=1)
    assert list(drift) == list(RESIDUAL_TYPES)
    assert all(d.stream_error.shape == (3,) for d in drift.values())
