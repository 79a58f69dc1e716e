"""How the module check builds a learner's class with another ε (helpers/checking/module_eps.py,
``built_with_eps``), from its docstring: by keyword first, eps=0.1, so that a second argument that is not ε is
never taken for it; only a class that refuses the keyword is built with 0.1 as its second argument."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.module_eps import OTHER_EPS, built_with_eps, own_eps
from helpers.checking.results import one_torch_thread

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    with one_torch_thread():
        yield


class WithMomentum(nn.Module):
    """A LayerNorm whose second argument is not ε (a copy of BatchNorm's signature): ε comes third."""

    def __init__(self, n, momentum=0.9, eps=1e-5):
        super().__init__()
        self.momentum, self.eps = momentum, eps
        self.gamma, self.beta = nn.Parameter(torch.ones(n)), nn.Parameter(torch.zeros(n))

    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


class EpsSecondUnnamed(WithMomentum):
    """ε second, under a name the keyword cannot reach."""

    def __init__(self, n, e=1e-5):
        super().__init__(n, eps=e)


def test_a_class_taking_eps_by_keyword_is_built_with_it_and_nothing_else_changed():
    layer, problem = built_with_eps(WithMomentum, 3)
    assert problem is None and (layer.eps, layer.momentum) == (OTHER_EPS, 0.9)


def test_a_class_whose_second_argument_is_not_eps_follows_its_eps():
    assert own_eps(WithMomentum, WithMomentum(3), 3, np.random.default_rng(7)) == (None, None)


def test_a_class_refusing_the_keyword_is_given_eps_second():
    layer, problem = built_with_eps(EpsSecondUnnamed, 3)
    assert problem is None and layer.eps == OTHER_EPS
