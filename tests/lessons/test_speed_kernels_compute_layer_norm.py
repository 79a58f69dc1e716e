"""helpers.lessons.speed.kernels: every call notebook 12 times computes what its name says, into the outputs it
is given, against references written here in plain numpy (float64).

The benchmark checks these calls against each other only when it runs (a slow subprocess); these tests check
each call on its own, on a small rows × features matrix (rows ≠ features, so a wrong axis shows) with one
row so narrow that ε = 1e-5 outweighs its variance (so a wrong ε shows), γ not 1 and β not 0.
"""

import numpy as np
import pytest

from helpers.lessons.speed import kernels

from conftest import numpy_layer_norm

EPS = 1e-5  # PyTorch's default, which the timed calls pass
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}  # float32 kernels against a float64 reference


@pytest.fixture
def case():
    x = np.array(
        [
            [1.0, -2.0, 3.0, 0.5, 4.0],
            [-3.0, -1.0, -2.5, -0.5, -4.0],
            [0.25, 0.251, 0.249, 0.2505, 0.2495],  # variance 5e-7, far below ε
        ],
        dtype=np.float32,
    )
    gamma = np.array([0.5, 2.0, -1.5, 1.25, 3.0], dtype=np.float32)
    beta = np.array([0.1, -0.2, 0.3, -0.4, 0.5], dtype=np.float32)
    return x, gamma, beta


def reference_statistics(x):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return mean, 1 / np.sqrt(variance + EPS)


def reference_forward(x, gamma, beta):
    return numpy_layer_norm(x, EPS) * np.float64(gamma) + np.float64(beta)


def test_the_narrow_row_is_one_where_eps_decides():
    narrow = np.float64([0.25, 0.251, 0.249, 0.2505, 0.2495])
    assert narrow.var() < EPS / 10


def test_numpy_out_writes_layer_norm_into_the_array_it_is_given(case):
    x, gamma, beta = case
    out = np.full_like(x, 123.0)  # whatever was there before must not leak into the result
    returned = kernels.numpy_out(x, out, gamma, beta)
    assert returned is out
    np.testing.assert_allclose(out, reference_forward(x, gamma, beta), **TOLERANCE)


def test_numpy_out_leaves_its_input_alone(case):
    x, gamma, beta = case
    before = x.copy()
    kernels.numpy_out(x, np.empty_like(x), gamma, beta)
    np.testing.assert_array_equal(x, before)


def test_numpy_formula_is_layer_norm_then_gamma_and_beta(case):
    x, gamma, beta = case
    np.testing.assert_allclose(kernels.numpy_formula(x, gamma, beta), reference_forward(x, gamma, beta), **TOLERANCE)


@pytest.fixture
def tensors(case):
    torch = pytest.importorskip("torch")
    x, gamma, beta = case
    return torch, torch.from_numpy(x), torch.from_numpy(gamma), torch.from_numpy(beta)


def test_torch_forward_is_layer_norm_with_eps_1e5(case, tensors):
    torch, tx, tg, tb = tensors
    x, gamma, beta = case
    y = kernels.torch_forward(torch, tx, tg, tb)
    np.testing.assert_allclose(y.numpy(), reference_forward(x, gamma, beta), **TOLERANCE)


def test_native_layer_norm_out_fills_the_output_the_mean_and_rstd_it_is_given(case, tensors):
    torch, tx, tg, tb = tensors
    x, gamma, beta = case
    rows = x.shape[0]
    y, mean, rstd = torch.full_like(tx, 123.0), torch.full((rows, 1), 123.0), torch.full((rows, 1), 123.0)
    returned = kernels.torch_forward_out(torch, tx, tg, tb, y, mean, rstd)
    assert returned is y
    expected_mean, expected_rstd = reference_statistics(x)
    np.testing.assert_allclose(y.numpy(), reference_forward(x, gamma, beta), **TOLERANCE)
    np.testing.assert_allclose(mean.numpy(), expected_mean, **TOLERANCE)
    np.testing.assert_allclose(rstd.numpy(), expected_rstd, rtol=1e-4)


def test_torch_backward_returns_all_three_gradients(case, tensors):
    torch, tx, tg, tb = tensors
    x, gamma, beta = case
    dy = np.array(
        [[0.3, -1.0, 2.0, 0.7, -0.2], [1.5, 0.4, -0.6, -2.0, 0.9], [-0.8, 1.1, 0.2, -0.3, 1.7]], dtype=np.float32
    )
    mean, rstd = reference_statistics(x)
    # the reference: x̂ = (x − μ)·rstd, g = dy·γ; dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), dγ = Σ dy·x̂, dβ = Σ dy
    x_hat = (np.float64(x) - mean) * rstd
    g = np.float64(dy) * np.float64(gamma)
    dx = rstd * (g - g.mean(axis=1, keepdims=True) - x_hat * (g * x_hat).mean(axis=1, keepdims=True))
    d_gamma = (np.float64(dy) * x_hat).sum(axis=0)
    d_beta = np.float64(dy).sum(axis=0)

    got = kernels.torch_backward(
        torch, torch.from_numpy(dy), tx, torch.tensor(mean, dtype=torch.float32),
        torch.tensor(rstd, dtype=torch.float32), tg, tb,
    )  # fmt: skip
    assert len(got) == 3 and all(isinstance(t, torch.Tensor) for t in got)
    np.testing.assert_allclose(got[0].numpy(), dx, rtol=1e-4, atol=1e-3)  # rstd ≈ 300 on the narrow row
    np.testing.assert_allclose(got[1].numpy(), d_gamma, **TOLERANCE)
    np.testing.assert_allclose(got[2].numpy(), d_beta, **TOLERANCE)


def test_rms_norm_divides_by_the_root_mean_square_with_eps_1e5(case, tensors):
    torch, tx, tg, _ = tensors
    x, gamma, _ = case
    x64 = np.float64(x)
    x64[2] -= 0.25  # a row of ±1e-3: its mean square, 5e-7, is far below ε
    expected = x64 / np.sqrt((x64**2).mean(axis=1, keepdims=True) + EPS) * np.float64(gamma)
    got = kernels.torch_rms_norm(torch, torch.tensor(x64, dtype=torch.float32), tg)
    np.testing.assert_allclose(got.numpy(), expected, **TOLERANCE)


def test_an_uncounted_implementation_is_named_with_every_counted_one():
    with pytest.raises(KeyError) as raised:
        kernels.count("fused LayerNorm (1 thread)")
    listed = ", ".join(name for name in kernels.COUNTS)
    assert raised.value.args[0] == f"No flop and byte count for 'fused LayerNorm (1 thread)'; COUNTS has {listed}."
