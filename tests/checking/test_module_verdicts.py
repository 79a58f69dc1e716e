"""The module check (notebook 08) earns its ✓: gradients are compared with torch's own layer_norm, ε is
checked on instances too (or the ✓ says it was not), an input changed in place is named, wide rows and
outliers are in the batches, and a name is given only where the batches tell it apart.

Each module below is LayerNorm with one thing changed; ``variant`` builds them from one template."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.exercises import check

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


def variant(stats=None, norm=None, eps_of=None, params="both", init=None):
    """A LayerNorm class. ``stats(x) -> (mean, var)``; ``norm(x, mean, var, eps) -> x̂``; ``eps_of(self)``:
    the ε forward uses; ``params``: "both", "gamma-only" or "gamma-buffer"; ``init(self, eps)``: how ε is kept."""

    def default_stats(x):
        return x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)

    def default_norm(x, mean, var, eps):
        return (x - mean) / torch.sqrt(var + eps)

    class Norm(nn.Module):
        def __init__(self, n, eps=1e-5):
            super().__init__()
            (init or (lambda self, eps: setattr(self, "eps", eps)))(self, eps)
            if params == "gamma-buffer":
                self.register_buffer("gamma", torch.ones(n))
            else:
                self.gamma = nn.Parameter(torch.ones(n))
            if params != "gamma-only":
                self.beta = nn.Parameter(torch.zeros(n))

        def forward(self, x):
            mean, var = (stats or default_stats)(x)
            eps = (eps_of or (lambda self: self.eps))(self)
            x_hat = (norm or default_norm)(x, mean, var, eps)
            return self.gamma * x_hat + (self.beta if params != "gamma-only" else 0)

    return Norm


def test_the_template_itself_passes_as_class_and_instance():
    assert check("module", variant()).passed
    assert check("module", variant()(4)).passed


# ---------------------------------------------------------------- gradients


def _no_grad_var(x):
    with torch.no_grad():
        var = x.var(-1, keepdim=True, unbiased=False)
    return x.mean(-1, keepdim=True), var


class _WrongBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps):
        std = torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + eps)
        ctx.save_for_backward(std)
        return (x - x.mean(-1, keepdim=True)) / std

    @staticmethod
    def backward(ctx, grad):
        (std,) = ctx.saved_tensors
        return grad / std, None


@pytest.mark.parametrize(
    "module, words",
    [
        (
            variant(
                stats=lambda x: (x.mean(-1, keepdim=True).detach(), x.var(-1, keepdim=True, unbiased=False).detach())
            ),
            "mean and the variance",
        ),
        (variant(stats=_no_grad_var), "variance"),
        (variant(stats=lambda x: (x.mean(-1, keepdim=True).detach(), x.var(-1, keepdim=True, unbiased=False))), "mean"),
        (variant(norm=lambda x, m, v, eps: _WrongBackward.apply(x, eps)), "gradient"),
    ],
    ids=["stats-detached", "variance-under-no-grad", "mean-detached", "wrong-backward"],
)
def test_wrong_gradients_never_get_a_check(module, words):
    result = check("module", module)
    assert not result.passed, result
    assert words in result.diagnosis, result
    assert result.mistake in ("not-differentiable", None), result


def test_a_custom_backward_is_not_told_it_detaches_its_statistics():
    result = check("module", variant(norm=lambda x, m, v, eps: _WrongBackward.apply(x, eps)))
    assert not result.passed and "backward" in result.diagnosis and ".detach()" not in result.diagnosis, result


def test_the_check_of_a_narrow_instance_does_not_claim_a_value_far_out():
    result = check("module", variant()(4))
    assert result.passed and "far out" not in result.diagnosis, result


def test_wrong_gradients_for_gamma_are_caught():
    class Affine(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x_hat, gamma):
            ctx.save_for_backward(x_hat, gamma)
            return gamma * x_hat

        @staticmethod
        def backward(ctx, grad):
            x_hat, gamma = ctx.saved_tensors
            return grad * gamma, torch.zeros_like(gamma)  # γ never learns

    class Norm(variant()):
        def forward(self, x):
            mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)
            return Affine.apply((x - mean) / torch.sqrt(var + self.eps), self.gamma) + self.beta

    result = check("module", Norm)
    assert not result.passed and "γ" in result.diagnosis, result


# ---------------------------------------------------------------- outliers and widths


@pytest.mark.parametrize("bound", [3.0, 4.0, 10.0])
def test_clipped_outputs_never_get_a_check(bound):
    def clipped(x, mean, var, eps):
        return ((x - mean) / torch.sqrt(var + eps)).clamp(-bound, bound)

    assert not check("module", variant(norm=clipped)).passed
    row = lambda r, eps: np.clip((r - np.mean(r)) / np.sqrt(np.var(r) + eps), -bound, bound)  # noqa: E731
    assert not check("normalise", row).passed
    matrix = lambda x, eps: np.clip(  # noqa: E731
        (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps), -bound, bound
    )
    assert not check("layer_norm", matrix).passed


@pytest.mark.parametrize("width", [6, 33, 64, 100])
def test_a_formula_that_changes_with_the_width_never_gets_a_check(width):
    def unbiased_when_wide(x):
        return x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=x.shape[-1] >= width)

    result = check("module", variant(stats=unbiased_when_wide))
    assert not result.passed and result.mistake != "n-1", result  # right at some widths: not n − 1 as such
    assert not check("variance", lambda r: np.var(r, ddof=1 if len(r) >= width else 0)).passed
    assert not check("mean", lambda r: float(np.mean(np.asarray(r)[: width - 1]))).passed
    assert not check("std", lambda r, eps: np.sqrt(np.var(r, ddof=1 if len(r) >= width else 0) + eps)).passed


# ---------------------------------------------------------------- ε


def test_an_instance_that_ignores_its_eps_is_caught_however_it_keeps_it():
    def keep_as_e(self, eps):
        self.e = eps

    def keep_as_buffer(self, eps):
        self.register_buffer("eps", torch.tensor(eps))

    for init in (keep_as_e, keep_as_buffer, None):
        fixed = variant(eps_of=lambda self: 1e-5, init=init)
        for module in (fixed, fixed(5)):
            result = check("module", module)
            assert not result.passed and result.mistake == "eps-ignored", (init, module, result)


def test_a_module_keeping_eps_as_a_keyword_only_argument_passes():
    class KeywordOnly(variant()):
        def __init__(self, n, *, eps=1e-5):
            super().__init__(n, eps)

    assert check("module", KeywordOnly).passed, check("module", KeywordOnly)


def test_an_instance_whose_eps_cannot_be_checked_says_so_in_its_check():
    class Configured(variant()):
        def __init__(self, config):
            super().__init__(config["n"], 1e-5)

    layer = Configured({"n": 4})
    layer.eps = torch.tensor(1e-5)  # not a float: cannot be set to 0.1 the way a float is
    result = check("module", layer)
    assert result.passed and "ε was not checked" in result.diagnosis, result


# ---------------------------------------------------------------- input changed in place


def test_a_forward_that_changes_its_input_in_place_is_named():
    class InPlace(variant()):
        def forward(self, x):
            if x.requires_grad:
                return super().forward(x)
            x.sub_(x.mean(-1, keepdim=True))
            x.div_(torch.sqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))
            return self.gamma * x + self.beta

    result = check("module", InPlace)
    assert not result.passed and result.mistake == "mutates-input", result


# ---------------------------------------------------------------- names and their sentences


def test_eps_squared_is_not_named_eps_forgotten():
    result = check("module", variant(eps_of=lambda self: self.eps**2))
    assert not result.passed and result.mistake != "no-eps", result


def test_a_module_that_caches_its_statistics_is_not_named_one_pass():
    class Cached(variant()):
        def forward(self, x):
            key = (tuple(x.shape), x.dtype)
            if getattr(self, "key", None) != key:
                self.key, self.stats = key, (x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False))
            mean, var = self.stats
            return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta

    result = check("module", Cached)
    assert not result.passed and result.mistake != "one-pass", result


def test_eps_sentences_on_a_batch_talk_about_the_rows_it_has():
    result = check("module", variant(norm=lambda x, m, v, eps: (x - m) / torch.sqrt(v)))
    assert not result.passed and result.mistake == "no-eps", result
    assert "constant row" not in result.diagnosis and "Here σ²" in result.diagnosis, result
    outside = variant(norm=lambda x, m, v, eps: (x - m) / (torch.sqrt(v) + eps))
    result = check("module", outside)
    assert not result.passed and result.mistake == "eps-outside-root", result
    assert "Here" in result.diagnosis, result


@pytest.mark.parametrize(
    "params, words", [("gamma-only", "β"), ("gamma-buffer", "buffer")], ids=["no-beta", "gamma-as-buffer"]
)
def test_a_missing_parameter_is_named(params, words):
    result = check("module", variant(params=params))
    assert not result.passed and words in result.diagnosis, result
    assert "γ and β need one number per feature" not in result.diagnosis, result


def test_a_function_that_keeps_statistics_from_a_call_of_the_same_shape_never_gets_a_check():
    kept = {}

    def layer_norm(x, eps):
        if x.shape not in kept:
            kept[x.shape] = (x.mean(-1, keepdims=True), x.var(-1, keepdims=True))
        mean, var = kept[x.shape]
        return (x - mean) / np.sqrt(var + eps)

    result = check("layer_norm", layer_norm)
    assert not result.passed and result.mistake != "one-pass", result


def test_a_wide_failure_shows_the_features_where_it_differs():
    def clipped(x, mean, var, eps):
        return ((x - mean) / torch.sqrt(var + eps)).clamp(-3, 3)

    result = check("module", variant(norm=clipped))
    assert not result.passed and result.expected != result.got and "features" in result.case, result


def test_an_instance_is_left_in_its_own_precision():
    layer = variant()(4)
    assert check("module", layer).passed
    assert all(p.dtype == torch.float32 for p in layer.parameters())
    assert layer(torch.ones(2, 4)).dtype == torch.float32


def test_eps_is_given_by_name_where_the_second_argument_is_something_else():
    class AffineFirst(variant()):
        def __init__(self, n, affine=True, eps=1e-5):
            super().__init__(n, eps)

    assert check("module", AffineFirst).passed, check("module", AffineFirst)


def test_the_learners_torch_threads_are_put_back():
    before = torch.get_num_threads()
    check("module", variant())
    check("layer_norm", lambda x, eps: torch.nn.functional.layer_norm(torch.as_tensor(x), x.shape[-1:], eps=eps))
    assert torch.get_num_threads() == before
