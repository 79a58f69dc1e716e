"""A module that normalises over another axis than each token's features is told which (helpers/checking/module_axes.py).

Its input is (batch, tokens, features). dim=0, dim=1 / -2 and both at once (BatchNorm's axes) each get the
catalogue's "wrong-axis" with the axes its code used, and the n − 1 of torch's default var when it is there;
a right module, and a module wrong in another way, are not told this."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from helpers.checking.cases import Case
from helpers.checking.exercises import check
from helpers.checking.module_axes import explains, normalised_over, other_axes

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


def over(dim, unbiased=False, divide_by_n_minus_1=False):
    class Norm(nn.Module):
        def __init__(self, n, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.gamma = nn.Parameter(torch.ones(n))
            self.beta = nn.Parameter(torch.zeros(n))

        def forward(self, x):
            mean = x.mean(dim=dim, keepdim=True)
            var = x.var(dim=dim, keepdim=True, unbiased=unbiased)
            return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta

    return Norm


SAYS = {
    0: "over dim=0, across the batch",
    1: "over dim=1 (dim=-2), across the tokens",
    -2: "over dim=1 (dim=-2), across the tokens",
    (0, 1): "over dim=(0, 1), across the batch and its tokens, as BatchNorm does",
}


@pytest.mark.parametrize("dim", [0, 1, -2, (0, 1)])
def test_the_axes_a_module_normalises_over_are_named(dim):
    result = check("module", over(dim))
    assert result.passed is False and result.mistake == "wrong-axis"
    assert result.diagnosis == (
        f"Looks like a known mistake: the wrong axis. It takes each mean and variance {SAYS[dim]}, not over "
        "each token's own features. Use dim=-1 and keepdim=True."
    )


@pytest.mark.parametrize("dim", [0, (0, 1)])
def test_torchs_default_unbiased_variance_is_named_with_the_axes(dim):
    result = check("module", over(dim, unbiased=True))
    assert result.mistake == "wrong-axis"
    assert result.diagnosis == (
        f"Looks like a known mistake: the wrong axis. It takes each mean and variance {SAYS[dim]}, not over "
        "each token's own features and divides the variance by the count − 1 (torch's var is unbiased unless "
        "told). Use dim=-1 and keepdim=True, and unbiased=False."
    )


def test_the_right_axis_passes_and_its_unbiased_variance_keeps_its_own_name():
    assert check("module", over(-1)).passed is True
    unbiased = check("module", over(-1, unbiased=True))
    assert unbiased.passed is False and unbiased.mistake == "n-1"


def test_normalising_over_other_axes_is_an_independent_computation():
    x = np.random.default_rng(3).normal(2.0, 1.5, (2, 4, 3))
    t = torch.tensor(x)
    for axes in [(0,), (1,), (0, 1)]:
        for unbiased in (False, True):
            want = (t - t.mean(dim=axes, keepdim=True)) / torch.sqrt(
                t.var(dim=axes, keepdim=True, unbiased=unbiased) + 1e-5
            )
            assert np.allclose(normalised_over(x, axes, 1e-5, unbiased), want.numpy(), rtol=1e-12, atol=1e-12)
    # BatchNorm (training) normalises each feature over the batch and its tokens: the same as axes (0, 1)
    batch_norm = torch.nn.functional.batch_norm(t.permute(0, 2, 1), None, None, training=True, eps=1e-5)
    assert np.allclose(normalised_over(x, (0, 1), 1e-5), batch_norm.permute(0, 2, 1).numpy(), atol=1e-12)


def test_an_output_is_explained_only_to_the_room_float32_leaves():
    x = np.round(np.random.default_rng(4).normal(0, 1.0, (2, 4, 3)), 3) + 1000.0
    exact = normalised_over(x, (0,), 1e-5)
    in_float32 = torch.tensor(x, dtype=torch.float32)
    computed = (in_float32 - in_float32.mean(0, keepdim=True)) / torch.sqrt(
        in_float32.var(0, keepdim=True, unbiased=False) + 1e-5
    )
    assert explains(computed.double().numpy(), x, 1e-5, (0,), False, np.float32)
    assert not explains(exact * 1.01, x, 1e-5, (0,), False, np.float32)  # 1 % off: past float32's room
    assert not explains(exact * 1.01, x, 1e-5, (0,), False, np.float64)
    assert not explains(exact[:1], x, 1e-5, (0,), False, np.float64)  # another shape
    assert explains(exact, x, 1e-5, (0,), False, np.float64)


def test_nothing_to_explain_names_no_axes():
    assert other_axes([]) is None


def test_a_group_of_equal_values_with_no_eps_is_judged_without_a_warning():
    x = np.array([[[1.0, 2.0, 3.0]], [[1.0, 5.0, 3.0]]])  # features 1 and 3 equal across the batch: 0 / 0 over dim 0
    result = np.full_like(x, np.nan)
    case = Case("a batch", (x, 0.0), np.zeros_like(x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert other_axes([(case, result)]) is None
