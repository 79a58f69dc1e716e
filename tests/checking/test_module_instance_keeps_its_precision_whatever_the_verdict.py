"""An instance given to the module check is moved to float32 and float64 while it is checked, and put back in its
own precision afterwards (helpers/checking/module_check.py, ``check_module``): after a ✗ as after a ✓, and its
γ = 1, β = 0 as they were."""

from __future__ import annotations

import pytest

from helpers.checking.exercises import check

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


class Unbiased(nn.Module):
    """LayerNorm with torch's default (unbiased) variance: a ✗ ("n-1") found on the first batches."""

    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma, self.beta = nn.Parameter(torch.ones(n)), nn.Parameter(torch.zeros(n))

    def forward(self, x):
        mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True)
        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_a_failed_check_leaves_an_instance_in_its_own_precision(dtype):
    layer = Unbiased(4).to(dtype)
    result = check("module", layer)
    assert (result.passed, result.mistake) == (False, "n-1"), result
    assert [p.dtype for p in layer.parameters()] == [dtype, dtype]
    assert torch.equal(layer.gamma.float(), torch.ones(4)) and torch.equal(layer.beta.float(), torch.zeros(4))
