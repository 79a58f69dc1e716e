"""One run of a learner's torch module (helpers.checking.module_forward.forward): its output as float64
numbers in its batch's shape, or one CheckResult naming what went wrong, each with its own sentence and key;
PyTorch's own layer norm is watched only while the module runs."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.module_forward import IN_PLACE, TORCH_OWN, forward, torch_layer_norm_watched
from helpers.checking.results import CheckResult, one_torch_thread, run_call

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    """As the module check runs a module: torch on one thread (see results.one_torch_thread)."""
    with one_torch_thread():
        yield


X = np.arange(6.0).reshape(1, 2, 3) / 4


class Layer(nn.Module):
    """``forward(x)`` is ``body(x)``; one learnable parameter, so that moving it to a dtype shows."""

    def __init__(self, body):
        super().__init__()
        self.body = body
        self.gamma = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.body(x)


def test_the_output_comes_back_as_float64_numbers_with_the_layer_moved_to_the_dtype():
    seen = []
    layer = Layer(lambda x: seen.append((x.dtype, layer.gamma.dtype)) or x * 2)
    for dtype in (torch.float64, torch.float32):  # its parameters start in float32
        out = forward(layer, X, dtype)
        assert isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == X.shape
        np.testing.assert_allclose(out, X * 2)
    assert seen == [(torch.float64, torch.float64), (torch.float32, torch.float32)]


@pytest.mark.parametrize(
    "body, diagnosis, key",
    [
        (
            lambda x: x.detach().numpy(),
            "forward returned a numpy array, so no gradient can flow back: it is not differentiable. "
            "Keep to torch operations.",
            "not-differentiable",
        ),
        (lambda x: x.tolist(), "forward should return a tensor; it returned list.", "wrong-type"),
        (
            lambda x: x[..., 0],
            "forward returned shape (1, 2) for an input of shape (1, 2, 3): the wrong length.",
            "wrong-length",
        ),
        (
            lambda x: x.to("meta"),
            "forward returned a tensor that cannot be read as numbers (NotImplementedError).",
            "wrong-type",
        ),
    ],
    ids=["numpy", "list", "shape", "meta"],
)
def test_what_forward_returned_wrong_is_named_in_one_sentence(body, diagnosis, key):
    assert forward(Layer(body), X, torch.float64) == CheckResult("module", False, diagnosis, key)


def test_a_forward_that_fails_changes_its_input_or_calls_torchs_layer_norm_is_named_with_its_batch():
    body = lambda x: x @ torch.ones(2, 2, dtype=x.dtype)  # noqa: E731
    raised = run_call(body, (torch.tensor(X),)).problem
    failed = forward(Layer(body), X, torch.float64)
    assert failed == CheckResult(
        "module", False, f"Its forward failed on a batch of shape (1, 2, 3). {raised}", "exception"
    )
    changed = forward(Layer(lambda x: x.mul_(2)), X, torch.float64)
    assert changed == CheckResult("module", False, IN_PLACE, "mutates-input", "a batch of shape (1, 2, 3)")
    for own in (
        lambda x: nn.functional.layer_norm(x, x.shape[-1:]),
        lambda x: torch.layer_norm(x, x.shape[-1:]),
        lambda x: nn.LayerNorm(3, dtype=x.dtype)(x),
    ):
        borrowed = forward(Layer(own), X, torch.float64)
        assert borrowed == CheckResult("module", False, TORCH_OWN, "torch-layer-norm", "a batch of shape (1, 2, 3)")


def test_torchs_layer_norm_is_watched_only_inside_and_each_call_noted_by_name():
    originals = (torch.layer_norm, nn.functional.layer_norm)
    with torch_layer_norm_watched([]) as calls:
        assert torch.layer_norm is not originals[0]
        nn.functional.layer_norm(torch.ones(1, 3), (3,))
    assert calls == ["layer_norm", "layer_norm"]  # F.layer_norm, then the torch.layer_norm it calls
    assert (torch.layer_norm, nn.functional.layer_norm) == originals
