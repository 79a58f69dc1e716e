"""The module check's last look (helpers.checking.module_gradients): with γ and β set to random values its
output must be γ · x̂ + β and its gradients for the input, γ and β those of torch's own layer_norm; each way
of failing gets its own sentence and key, and the layer's γ, β and gradients are put back afterwards."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.module_gradients import gamma_beta_and_gradients, reference
from helpers.checking.results import one_torch_thread, values_text

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    """As the module check runs a module: torch on one thread (see results.one_torch_thread)."""
    with one_torch_thread():
        yield


N = 3


class Norm(nn.Module):
    """LayerNorm; ``seen`` keeps what forward was given and the γ and β it used."""

    def __init__(self, n=N, eps=1e-5):
        super().__init__()
        self.eps, self.seen = eps, []
        self.gamma, self.beta = nn.Parameter(torch.ones(n)), nn.Parameter(torch.zeros(n))

    def stats(self, x):
        return x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)

    def x_hat(self, x):
        mean, var = self.stats(x)
        return (x - mean) / torch.sqrt(var + self.eps)

    def forward(self, x):
        self.seen.append((x.detach().clone(), self.gamma.detach().clone(), self.beta.detach().clone()))
        return self.gamma * self.x_hat(x) + self.beta


def _right_input_gradient(x, gamma, beta, upstream, eps=1e-5):
    """The input's gradient of (LayerNorm(x) · upstream).sum(), by torch's own layer_norm."""
    x = x.clone().requires_grad_(True)
    (nn.functional.layer_norm(x, (N,), gamma, beta, eps) * upstream).sum().backward()
    return x.grad


class Watched(Norm):
    """Norm whose forward also keeps the upstream gradient and the input's gradient of the check's backward."""

    def __init__(self, eps=1e-5):
        super().__init__(eps=eps)
        self.grads = {}

    def forward(self, x):
        if type(self).output is None:
            out = super().forward(x)
        else:
            self.seen.append((x.detach().clone(), self.gamma.detach().clone(), self.beta.detach().clone()))
            out = type(self).output(self, x)
        if x.requires_grad:
            x.register_hook(lambda grad: self.grads.setdefault("input", grad))
            out.register_hook(lambda grad: self.grads.setdefault("upstream", grad))
        return out

    output = None


def _check(layer):
    return gamma_beta_and_gradients(layer, N, np.random.default_rng(11))


def test_layernorm_passes_and_its_gamma_beta_and_gradients_are_put_back():
    layer = Norm()
    kept = torch.full((N,), 0.5)
    layer.gamma.grad = kept
    assert _check(layer) is None
    assert layer.gamma.grad is kept and layer.beta.grad is None
    assert torch.equal(layer.gamma, torch.ones(N, dtype=torch.float64)) and torch.equal(layer.beta, torch.zeros(N))
    x, gamma, beta = layer.seen[0]
    assert x.dtype == torch.float64 and x.shape == (4, N)
    assert not torch.all(gamma == 1) and not torch.all(beta == 0)  # set to other values for the check


def test_a_module_is_judged_with_its_own_eps():
    assert gamma_beta_and_gradients(Norm(eps=1e-3), N, np.random.default_rng(11), 1e-3) is None


def test_a_module_that_does_not_start_at_gamma_1_and_beta_0_is_told_so():
    layer = Norm()
    with torch.no_grad():
        layer.beta.fill_(0.5)  # γ starts at 1, β does not start at 0
    assert _check(layer) == (
        "A new LayerNorm starts with γ = 1 (torch.ones) and β = 0 (torch.zeros).",
        "initial-values",
    )


class NoAffine(Norm):
    def forward(self, x):
        super().forward(x)
        return self.x_hat(x) + 0 * self.gamma.sum() + 0 * self.beta.sum()


def test_an_output_that_is_not_gamma_x_hat_plus_beta_is_shown_on_the_first_row():
    layer = NoAffine()
    words, key, case, expected, got, given = _check(layer)
    x, gamma, beta = layer.seen[0]
    right = nn.functional.layer_norm(x, (N,), gamma, beta, 1e-5)
    assert (words, key, case) == (
        "With γ and β set, its output is not γ · x̂ + β.",
        "gamma-beta",
        "a 4-row batch with γ and β set, first row",
    )
    assert (expected, got, given) == (
        values_text(right[0].numpy()),
        values_text(layer.x_hat(x)[0].numpy()),
        values_text(x[0].numpy()),
    )
    short = type("Short", (Norm,), {"forward": lambda self, x: Norm.forward(self, x)[:, :2]})()
    _, key, _, expected, got, _ = _check(short)  # another shape: nothing to show as its first row
    assert key == "gamma-beta" and got == "" and expected.startswith("[")


@pytest.mark.parametrize(
    "forward, words, key",
    [
        (
            lambda self, x: torch.tensor(self.x_hat(x).numpy()),
            "Its forward leaves torch (it calls .numpy() on a tensor that needs gradients), so it is not "
            "differentiable: keep to torch operations inside forward.",
            "not-differentiable",
        ),
        (lambda self, x: [1.0], "forward should return a tensor; it returned list.", "wrong-type"),
        (
            lambda self, x: (self.gamma * self.x_hat(x) + self.beta).detach(),
            "Its output is not differentiable (no gradient can flow back): keep to torch operations, "
            "without .detach(), .numpy(), .item() or torch.no_grad() inside forward.",
            "not-differentiable",
        ),
        (
            lambda self, x: (self.gamma * self.x_hat(x) + self.beta).detach().requires_grad_(True),
            "Its output is not differentiable (no gradient can flow back): keep to torch operations, "
            "without .detach(), .numpy(), .item() or torch.no_grad() inside forward.",
            "not-differentiable",
        ),
        (
            lambda self, x: self.gamma.detach() * self.x_hat(x) + self.beta,
            "Gradients do not reach the input, γ and β: keep to torch operations inside forward.",
            "not-differentiable",
        ),
    ],
    ids=["numpy", "list", "detached", "a-new-leaf", "gamma-detached"],
)
def test_each_way_out_of_the_graph_is_named(forward, words, key):
    assert _check(type("Odd", (Norm,), {"forward": forward})()) == (words, key)


def test_a_forward_that_fails_with_gamma_and_beta_set_is_named():
    def forward(self, x):
        if not torch.all(self.gamma == 1):
            raise ValueError("γ changed")
        return Norm.forward(self, x)

    words, key = _check(type("Fails", (Norm,), {"forward": forward})())
    assert key == "exception" and words.startswith(
        "Its forward failed with γ and β set. Your function raised ValueError"
    )


class _Raises(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(_Raises.message)

    message = "no way back"


@pytest.mark.parametrize("message", ["no way back", "no way back, " * 30], ids=["short", "long"])
def test_a_backward_that_raises_is_named_with_its_error_cut_to_300_characters(message, monkeypatch):
    monkeypatch.setattr(_Raises, "message", message)
    forward = lambda self, x: _Raises.apply(Norm.forward(self, x))  # noqa: E731
    words = ("Gradients cannot flow back through it (" + message)[:300] + ")."
    assert _check(type("Raises", (Norm,), {"forward": forward})()) == (words, "not-differentiable")


@pytest.mark.parametrize(
    "detach, words",
    [(("mean", "variance"), "the mean and the variance"), (("variance",), "the variance"), (("mean",), "the mean")],
)
@pytest.mark.parametrize("eps", [1e-5, 1e-3])
def test_statistics_outside_the_graph_are_named_with_the_inputs_gradient(detach, words, eps):
    def stats(self, x):
        mean, var = Norm.stats(self, x)
        return (mean.detach() if "mean" in detach else mean), (var.detach() if "variance" in detach else var)

    layer = type("Detached", (Watched,), {"stats": stats})(eps)
    found, key, case, expected, got, given = gamma_beta_and_gradients(layer, N, np.random.default_rng(11), eps)
    assert key == "not-differentiable" and found == (
        f"Gradients do not flow through {words}: its output is right, but its gradient for the input is not "
        f"LayerNorm's, as if {words} were constant. Keep the statistics in the graph: no .detach() and no "
        "torch.no_grad() around them."
    )
    assert case == "a 4-row batch with γ and β set, a random upstream gradient; first row of the input's gradient"
    x, gamma, beta = layer.seen[-1]
    upstream = layer.grads["upstream"]  # a random upstream gradient: one number per output, not one for all
    assert upstream.shape == (4, N) and len(set(upstream.reshape(-1).tolist())) == 4 * N
    right = _right_input_gradient(x, gamma, beta, upstream, eps)
    assert (expected, got, given) == (
        values_text(right[0].numpy()),
        values_text(layer.grads["input"][0].numpy()),
        values_text(x[0].numpy()),
    )


class _Scaled(torch.autograd.Function):  # the identity forward, twice the gradient back
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return 2 * grad


@pytest.mark.parametrize("own", [False, True], ids=["autograd", "own-backward"])
def test_a_wrong_gradient_for_the_input_is_shown_on_its_first_row_and_an_own_backward_said_so(own):
    def output(self, x):  # the right values, but the input's gradient changed
        x_in = _Scaled.apply(x) if own else x + (x - x.detach())
        return Norm.forward(self, x_in) + torch.zeros(N, dtype=x.dtype)  # a constant: a None in the graph

    layer = type("Off", (Watched,), {"output": output})()
    words, key, case, expected, got, given = _check(layer)
    through = ", through its own backward (a torch.autograd.Function)" if own else ""
    assert key is None and words == (
        f"Its output is right, but its gradient for the input differs from that of torch's own layer_norm{through}: "
        "training would not learn as LayerNorm does."
    )
    assert case == "a 4-row batch with γ and β set, a random upstream gradient; the input's gradient, first row"
    x, gamma, beta = layer.seen[-1]
    right = _right_input_gradient(x, gamma, beta, layer.grads["upstream"])
    assert (expected, got, given) == (
        values_text(right[0].numpy()),
        values_text(layer.grads["input"][0].numpy()),
        values_text(x[0].numpy()),
    )


class _GammaNeverLearns(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x_hat, gamma):
        ctx.save_for_backward(gamma)
        return gamma * x_hat

    @staticmethod
    def backward(ctx, grad):
        (gamma,) = ctx.saved_tensors
        return grad * gamma, torch.zeros_like(gamma)


def test_a_wrong_gradient_from_a_backward_of_its_own_is_said_whole():
    output = lambda self, x: _GammaNeverLearns.apply(self.x_hat(x), self.gamma) + self.beta  # noqa: E731
    layer = type("Own", (Watched,), {"output": output})()
    words, key, case, expected, got, _ = _check(layer)
    assert key is None and words == (
        "Its output is right, but its gradient for γ differs from that of torch's own layer_norm, through its own "
        "backward (a torch.autograd.Function): training would not learn as LayerNorm does."
    )
    assert case == "a 4-row batch with γ and β set, a random upstream gradient; γ's gradient"
    x, gamma, beta = layer.seen[-1]
    x_hat = nn.functional.layer_norm(x, (N,), eps=1e-5)
    assert (expected, got) == (values_text((layer.grads["upstream"] * x_hat).sum(0).numpy()), values_text(np.zeros(N)))


def test_the_reference_gradients_are_torchs_and_detaching_changes_only_the_inputs():
    rng = np.random.default_rng(3)
    x, g, b, up = rng.normal(size=(2, N)), rng.normal(size=N), rng.normal(size=N), rng.normal(size=(2, N))
    right = reference(x, g, b, up)
    assert set(right) == {"the input", "γ", "β"}
    np.testing.assert_allclose(right["β"], up.sum(0))
    x_hat = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(right["γ"], (up * x_hat).sum(0))
    for detach in (("mean",), ("variance",)):
        other = reference(x, g, b, up, detach)
        np.testing.assert_allclose(other["γ"], right["γ"])
        assert not np.allclose(other["the input"], right["the input"])
    both = reference(x, g, b, up, ("mean", "variance"))
    np.testing.assert_allclose(both["the input"], g * up / np.sqrt(x.var(-1, keepdims=True) + 1e-5))
