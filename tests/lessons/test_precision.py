"""helpers.lessons.numerics.precision and numerics.running_sum: bfloat16, float32 statistics, Chan's merge, the
normalise step's cancellation, checked against torch and numpy as independent references."""

import math

import numpy as np
import pytest
import torch

from helpers.lessons.numerics import moments as numerics
from helpers.lessons.numerics import precision

ROW_1 = np.array([1.133, -0.299, 0.503])


def test_bfloat16_rounding_matches_torch():
    values = np.random.default_rng(0).normal(size=5000).astype(np.float32) * np.float32(1e3)
    values = np.concatenate([values, [np.inf, -np.inf, 0.0, 1e38, 3e-39]]).astype(np.float32)
    ours = precision.to_bfloat16(values)
    theirs = torch.from_numpy(values).bfloat16().float().numpy()
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(precision.to_bfloat16(ROW_1 + 300), [302.0, 300.0, 300.0])


def test_float16_running_sum_stalls_at_2048_where_numpy_does_not():
    ones = np.ones(4096, dtype=np.float16)
    assert float(numerics.running_sum(ones, np.float16)) == 2048.0
    assert float(np.sum(ones)) == 4096.0  # numpy's float16 sum accumulates in float32
    assert float(numerics.running_sum(ones, np.float32)) == 4096.0


def test_chan_merge_of_two_halves_equals_the_whole():
    row = np.random.default_rng(1).normal(size=1001) * 3 + 7
    merged = precision.welford_merge(precision.welford_state(row[:400]), precision.welford_state(row[400:]))
    assert merged[0] == 1001
    assert merged[1] == pytest.approx(row.mean(), rel=1e-12)
    assert merged[2] / merged[0] == pytest.approx(row.var(), rel=1e-12)
    assert precision.welford_merge((0, 0.0, 0.0), (0, 0.0, 0.0)) == (0, 0.0, 0.0)


def test_folded_normalise_leaves_the_rounding_torch_leaves():
    factored, fused = precision.normalise_two_ways(np.full(10_000, 10_000.0), np.float32)
    assert np.max(np.abs(factored)) == 0.0
    torch_output = torch.nn.functional.layer_norm(torch.full((10_000,), 10_000.0, dtype=torch.float16), (10_000,))
    assert float(np.float16(np.max(np.abs(fused)))) == pytest.approx(float(torch_output.abs().max()), rel=1e-3)
    assert float(torch_output.abs().max()) > 0.05


def test_float32_statistics_rescue_float16_storage():
    row = np.random.default_rng(2).normal(size=4096) + 4
    truth = precision.layer_norm_forward(precision.stored_as(row, "float16"), 1e-5)[0]
    all_half = precision.layer_norm_low_precision(row, "float16", "float16")
    mixed = precision.layer_norm_low_precision(row, "float16", "float32")
    assert np.max(np.abs(mixed - truth)) < 2e-3 < np.max(np.abs(all_half - truth))
    with pytest.raises(ValueError):
        precision.layer_norm_low_precision(row, "bfloat16", "float16")


def test_first_failure_reads_the_sweep():
    sweep = numerics.offset_sweep(ROW_1, offsets=(0, 1e3, 1e4), dtype=np.float32)
    assert precision.first_failure(sweep, "one-pass") == 1e3
    assert precision.first_failure(sweep, "two-pass") == math.inf
