"""The module check's last look at a learner's torch module (helpers.checking.module_check): with γ and β
set to random values, is its output γ · x̂ + β, and are its gradients LayerNorm's? For a random upstream
gradient, the input's, γ's and β's gradients are compared with those of torch's own ``F.layer_norm`` in
float64; a module whose gradients do not flow through its mean or variance (``.detach()``, or the
statistics computed under ``torch.no_grad()``) is told so, any other difference in plain words."""

from __future__ import annotations

import numpy as np

from helpers.checking.cases import Case
from helpers.checking.results import pair_texts, run_call, values_text
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS
from helpers.core.tolerance import GRADIENT_ROOM, close_at, result_room


def gamma_beta_and_gradients(layer, n, rng, eps: float = DEFAULT_EPS):
    """None when the module applies γ and β and its gradients are LayerNorm's; else the failure's words
    (diagnosis, key, case, expected, got, input)."""
    import torch

    layer = layer.to(torch.float64)
    params = [p for p in layer.parameters() if p.requires_grad]
    ones = [p for p in params if torch.all(p == 1)]
    zeros = [p for p in params if torch.all(p == 0)]
    if len(ones) != 1 or len(zeros) != 1:
        return ("A new LayerNorm starts with γ = 1 (torch.ones) and β = 0 (torch.zeros).", "initial-values")
    gamma, beta = ones[0], zeros[0]
    g, b = np.round(rng.uniform(0.5, 3, n), 2), np.round(rng.uniform(-1, 1, n), 2)
    kept = [p.grad for p in params]  # an instance's own gradients are put back afterwards
    for p in params:
        p.grad = None
    with torch.no_grad():
        gamma.copy_(torch.tensor(g).reshape(gamma.shape)), beta.copy_(torch.tensor(b).reshape(beta.shape))
    x = np.round(rng.normal(0, 1, (4, n)), 3)
    upstream = rng.normal(0, 1, (4, n))
    try:
        return _compare(layer, x, g, b, upstream, gamma, beta, eps)
    finally:
        with torch.no_grad():
            gamma.fill_(1.0), beta.fill_(0.0)
        for p, grad in zip(params, kept):
            p.grad = grad


def _compare(layer, x, g, b, upstream, gamma, beta, eps):
    import torch

    tensor = torch.tensor(x, requires_grad=True)
    outcome = run_call(layer, (tensor,))
    if outcome.problem is not None and "requires grad" in outcome.problem:
        return (
            "Its forward leaves torch (it calls .numpy() on a tensor that needs gradients), so it is not "
            "differentiable: keep to torch operations inside forward.",
            "not-differentiable",
        )
    if outcome.problem is not None:
        return (f"Its forward failed with γ and β set. {outcome.problem}", outcome.key)
    out = outcome.value
    if not isinstance(out, torch.Tensor):
        return (f"forward should return a tensor; it returned {type(out).__name__}.", "wrong-type")
    x_hat = layer_norm_forward(x, eps)[0]
    got = out.detach().to(torch.float64).numpy()
    case = Case("a 4-row batch with γ and β set", (x, eps), g * x_hat + b)
    # γ and β swapped (β · x̂ + γ) is named before this is called: at γ = 1, β = 0 it returns 1 everywhere
    room = _output_room(x, x_hat, g, b, eps)
    if got.shape != case.expected.shape or not close_at(got, case.expected, room):
        relative, absolute = room
        first_row = (relative, np.broadcast_to(absolute, case.expected.shape)[0])
        return (
            "With γ and β set, its output is not γ · x̂ + β.",
            "gamma-beta",
            case.label + ", first row",
            *(
                pair_texts(case.expected[0], got[0], first_row)
                if got.shape == case.expected.shape
                else (values_text(case.expected[0]), "")
            ),
            values_text(x[0]),
        )
    if not out.requires_grad or out.grad_fn is None:
        return (
            "Its output is not differentiable (no gradient can flow back): keep to torch operations, "
            "without .detach(), .numpy(), .item() or torch.no_grad() inside forward.",
            "not-differentiable",
        )
    try:
        (out * torch.tensor(upstream)).sum().backward()
    except RuntimeError as error:
        return (f"Gradients cannot flow back through it ({error}"[:300] + ").", "not-differentiable")
    if tensor.grad is None or gamma.grad is None or beta.grad is None:
        return (
            "Gradients do not reach the input, γ and β: keep to torch operations inside forward.",
            "not-differentiable",
        )
    theirs = {
        "the input": tensor.grad.detach().numpy(),
        "γ": gamma.grad.detach().reshape(-1).numpy(),
        "β": beta.grad.detach().reshape(-1).numpy(),
    }
    right = reference(x, g, b, upstream, eps=eps)
    for what in ("γ", "β", "the input"):
        if not _same(theirs[what], right[what]):
            return _wrong(what, theirs, right, (x, g, b, upstream, eps), _custom(out))
    return None


def _output_room(x, x_hat, g, b, eps):
    """(relative, absolute) room for γ · x̂ + β in float64: x̂'s room scaled by γ, and the rounding of the output."""
    relative, normalised = result_room("normalised", x, eps)
    scale = np.max(np.abs(g * x_hat) + np.abs(b), axis=-1, keepdims=True)
    return (relative, normalised * np.max(np.abs(g)) + result_room("output", x_hat, scale=scale)[1])


def _custom(out) -> bool:
    """Whether a custom torch.autograd.Function (a backward of the learner's own) made ``out``."""
    import torch

    seen, queue = 0, [out.grad_fn]
    while queue and seen < 500:
        node = queue.pop()
        seen += 1
        if node is None:
            continue
        if isinstance(node, torch.autograd.function.BackwardCFunction):
            return True
        queue.extend(parent for parent, _ in getattr(node, "next_functions", ()))
    return False


def reference(x, g, b, upstream, detach=(), eps: float = DEFAULT_EPS):
    """The gradients of (LayerNorm(x) · upstream).sum() for the input, γ and β, by torch's own layer_norm in
    float64; ``detach``: "mean" and/or "variance", computed without their gradients (the mistake)."""
    import torch
    import torch.nn.functional as F

    tensor, gamma, beta = (torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in (x, g, b))
    if detach:
        mean = tensor.mean(-1, keepdim=True)
        var = tensor.var(-1, keepdim=True, unbiased=False)
        mean = mean.detach() if "mean" in detach else mean
        var = var.detach() if "variance" in detach else var
        out = gamma * (tensor - mean) / torch.sqrt(var + eps) + beta
    else:
        out = F.layer_norm(tensor, (tensor.shape[-1],), gamma, beta, eps)
    (out * torch.tensor(upstream)).sum().backward()
    return {"the input": tensor.grad.numpy(), "γ": gamma.grad.numpy(), "β": beta.grad.numpy()}


def _same(got, expected) -> bool:
    return np.shape(got) == np.shape(expected) and close_at(got, expected, GRADIENT_ROOM)


def _wrong(what, theirs, right, inputs, custom):
    x, g, b, upstream, eps = inputs
    if what == "the input" and not custom:
        for detach, words in (
            (("mean", "variance"), "the mean and the variance"),
            (("variance",), "the variance"),
            (("mean",), "the mean"),
        ):
            if _same(theirs[what], reference(x, g, b, upstream, detach, eps)[what]):
                return (
                    f"Gradients do not flow through {words}: its output is right, but its gradient for the "
                    f"input is not LayerNorm's, as if {words} were constant. Keep the statistics in the graph: "
                    "no .detach() and no torch.no_grad() around them.",
                    "not-differentiable",
                    "a 4-row batch with γ and β set, a random upstream gradient; first row of the input's gradient",
                    *pair_texts(right[what][0], theirs[what][0], GRADIENT_ROOM),
                    values_text(x[0]),
                )
    shown = (lambda a: a[0]) if what == "the input" else (lambda a: a)
    return (
        f"Its output is right, but its gradient for {what} differs from that of torch's own layer_norm"
        + (", through its own backward (a torch.autograd.Function)" if custom else "")
        + ": training would not learn as LayerNorm does.",
        None,
        f"a 4-row batch with γ and β set, a random upstream gradient; {what}'s gradient"
        + (", first row" if what == "the input" else ""),
        *pair_texts(shown(right[what]), shown(theirs[what]), GRADIENT_ROOM),
        values_text(x[0]),
    )
