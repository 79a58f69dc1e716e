"""A class that builds for some widths and not another (helpers/checking/module_check.py): it is built for 3, 5
and 128 features in turn, and the sentence names the width it failed at, the one Making … failed for, and the
parameter shapes that width got."""

from __future__ import annotations

import pytest

from helpers.checking.exercises import check

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


def norm(builds, shape=lambda n: (n,)):
    class Norm(nn.Module):
        def __init__(self, n, eps=1e-5):
            super().__init__()
            if not builds(n):
                raise ValueError(f"no room for {n} features")
            self.eps = eps
            self.gamma, self.beta = nn.Parameter(torch.ones(shape(n))), nn.Parameter(torch.zeros(shape(n)))

        def forward(self, x):
            mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)
            return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta

    return Norm


def test_a_class_that_fails_only_at_128_features_is_told_so():
    result = check("module", norm(lambda n: n <= 64))
    assert (result.passed, result.mistake) == (False, "hard-coded-width"), result
    assert result.diagnosis.startswith(
        "It builds for 3 features but not for 128: it hard-codes the width. Making Norm(128) failed. "
        "Your function raised ValueError: no room for 128 features"
    ), result


def test_parameters_of_a_fixed_size_are_named_with_the_width_that_shows_it():
    result = check("module", norm(lambda n: True, shape=lambda n: (min(n, 5),)))  # right at 3 and 5, not at 128
    assert (result.passed, result.mistake) == (False, "hard-coded-width"), result
    assert result.diagnosis == (
        "Built for 128 features, its parameters have shapes (5,), (5,): it hard-codes the width. "
        "γ and β need one number per feature, shape (128,)."
    ), result
