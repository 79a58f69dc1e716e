"""helpers.lessons.backward.precision: PyTorch's arrangement of dx against torch itself, and the long sums of dβ."""

import math
import platform

import numpy as np
import pytest
import torch

from helpers.core.formula import layer_norm_forward
from helpers.lessons.backward.gradients import layer_norm_backward, layer_norm_backward_from_saved
from helpers.lessons.backward.precision import (
    blocked_sum,
    layer_norm_backward_pytorch_form,
    relative_error,
    sequential_sum,
    vector_lanes,
)

X86 = platform.machine().lower() in ("x86_64", "amd64")
LANES = vector_lanes(torch.backends.cpu.get_cpu_capability())


def _case(offset, features=64, rows=32, seed=0, dtype=np.float32):
    """x, dy, γ in dtype; the float64 mean and rstd rounded to dtype; torch's dx; the float64 truth."""
    rng = np.random.default_rng(seed)
    x = (rng.normal(size=(rows, features)) + offset).astype(dtype)
    dy, gamma = rng.normal(size=(rows, features)).astype(dtype), rng.normal(size=features).astype(dtype)
    _, mean, _, std = layer_norm_forward(x.astype(np.float64), 1e-5)
    mean, rstd = mean.astype(dtype), (1 / std).astype(dtype)
    torch_dx = torch.ops.aten.native_layer_norm_backward(
        *map(torch.from_numpy, (dy, x)),
        [features],
        *map(torch.from_numpy, (mean, rstd, gamma)),
        None,
        [True] + [False] * 2,
    )[0].numpy()
    truth = layer_norm_backward(x.astype(np.float64), dy.astype(np.float64), gamma.astype(np.float64))[0]
    return x, dy, gamma, mean, rstd, torch_dx, truth


@pytest.mark.parametrize("features", [64, 100])  # 100: the kernel's last vector is a partial one
def test_pytorch_form_matches_torch_float32_far_from_zero_and_the_x_hat_form_does_not(features):
    x, dy, gamma, mean, rstd, torch_dx, _ = _case(1e4, features)
    ours = layer_norm_backward_pytorch_form(x, dy, mean, rstd, gamma, lanes=LANES)
    x_hat_form = layer_norm_backward_from_saved(x, dy, mean, rstd, gamma, dtype=np.float32)
    assert ours.dtype == np.float32 == x_hat_form.dtype
    assert relative_error(x_hat_form, torch_dx) > 1e-5  # the arrangements really differ here
    if X86:  # same vector lanes, same fused multiply-adds as the compiled kernel: the same bits
        assert relative_error(ours, torch_dx) < relative_error(x_hat_form, torch_dx) / 100
        assert np.mean(ours == torch_dx) > 0.99
    else:  # another CPU rounds its own way (lanes, fused multiply-adds), but the arrangement still shows
        assert relative_error(ours, torch_dx) < relative_error(x_hat_form, torch_dx)


def test_pytorch_form_without_gamma_matches_torch():
    x, dy, _, mean, rstd, _, _ = _case(1e4, 100)
    torch_dx = torch.ops.aten.native_layer_norm_backward(
        *map(torch.from_numpy, (dy, x)), [100], *map(torch.from_numpy, (mean, rstd)), None, None, [True] + [False] * 2
    )[0].numpy()
    ours = layer_norm_backward_pytorch_form(x, dy, mean, rstd, lanes=LANES)
    assert relative_error(ours, torch_dx) < 1e-6


def test_both_forms_agree_with_float64_near_zero_and_the_x_hat_form_wins_far_from_it():
    x, dy, gamma, mean, rstd, _, truth = _case(0.0)
    for dx in (
        layer_norm_backward_pytorch_form(x, dy, mean, rstd, gamma),
        layer_norm_backward_from_saved(x, dy, mean, rstd, gamma, dtype=np.float32),
    ):
        assert relative_error(dx, truth) < 1e-6
    x, dy, gamma, mean, rstd, _, truth = _case(1e4)
    pytorch_error = relative_error(layer_norm_backward_pytorch_form(x, dy, mean, rstd, gamma), truth)
    x_hat_error = relative_error(layer_norm_backward_from_saved(x, dy, mean, rstd, gamma, dtype=np.float32), truth)
    assert 1e-6 < x_hat_error < pytorch_error / 1.5


def test_in_float64_the_two_forms_cannot_be_told_apart():
    x, dy, gamma, mean, rstd, torch_dx, truth = _case(1e4, dtype=np.float64)
    ours = layer_norm_backward_pytorch_form(x, dy, mean, rstd, gamma, dtype=np.float64, lanes=LANES // 2)
    x_hat_form = layer_norm_backward_from_saved(x, dy, mean, rstd, gamma)
    for dx in (ours, x_hat_form, torch_dx):
        assert relative_error(dx, truth) < 1e-10


def test_vector_lanes_and_bad_input():
    assert vector_lanes("AVX512") == 16 and vector_lanes("AVX2") == 8 and vector_lanes("DEFAULT") == 8
    with pytest.raises(ValueError, match="matrix"):
        layer_norm_backward_pytorch_form(np.ones(4), np.ones(4), [0.0], [1.0])
    with pytest.raises(ValueError, match="shape"):
        layer_norm_backward_pytorch_form(np.ones((2, 4)), np.ones((2, 3)), [0, 0], [1, 1])
    with pytest.raises(ValueError, match="whole number"):
        blocked_sum(np.ones((4, 2)), 0)
    with pytest.raises(ValueError, match="at least one row"):
        sequential_sum(np.ones(3))


# --- dβ = Σ dy down the rows ---------------------------------------------------------------------


def test_blocked_partial_sums_are_more_accurate_than_one_running_sum():
    columns = (np.random.default_rng(5).normal(size=(2**20, 4)) + 1.0).astype(np.float32)
    exact = np.array([math.fsum(column) for column in columns.T.astype(np.float64)])
    one_sum = np.max(np.abs(sequential_sum(columns) - exact) / exact)
    partials, total = blocked_sum(columns, 1024)
    assert partials.shape == (1024, 4) and partials.dtype == np.float32 == total.dtype
    assert one_sum > 5e-6  # a million float32 additions into one running sum drift measurably
    assert np.max(np.abs(total - exact) / exact) < one_sum / 10
    assert np.max(np.abs(sequential_sum(columns, np.float64) - exact) / exact) < 1e-12


def test_torch_cpu_kernel_adds_dbeta_in_one_running_sum_per_thread():
    dy = (np.random.default_rng(6).normal(size=(2**16, 3)) + 0.1).astype(np.float32)
    x, mean, rstd = torch.zeros(dy.shape), torch.zeros(len(dy), 1), torch.ones(len(dy), 1)
    threads = torch.get_num_threads()
    kernel = {}
    try:
        for count in (1, 2):
            torch.set_num_threads(count)
            kernel[count] = torch.ops.aten.native_layer_norm_backward(
                torch.from_numpy(dy), x, [3], mean, rstd, torch.ones(3), torch.zeros(3), [False, False, True]
            )[2].numpy()
    finally:
        torch.set_num_threads(threads)
    assert np.array_equal(kernel[1], sequential_sum(dy))
    assert np.array_equal(kernel[2], blocked_sum(dy, len(dy) // 2)[1])
    assert not np.array_equal(kernel[1], kernel[2])  # so the two checks can tell the cases apart
